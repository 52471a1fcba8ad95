// The referee's durable memory in IndexedDB: per table, the log last acknowledged by the server
// ("base": its setup and version in "bases", its events in "events" by chunks of CHUNK, keyed by
// [code, chunk number]), the outbox of taps not yet acknowledged (in order), and taps the rules
// turned down after a conflict (kept until the referee has seen them). An acknowledged tap rewrites
// the log's last chunk, not the whole log; a chunk rather than a row per event keeps the first save
// and every page load to one row per CHUNK events.

const DB_NAME = "arbitre";
const DB_VERSION = 2;
const CHUNK = 256;
let opening = null;

function db() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = ({ oldVersion }) => {
      const database = request.result;
      if (oldVersion < 1) {
        database.createObjectStore("bases", { keyPath: "code" });
        database.createObjectStore("outbox", { keyPath: "seq", autoIncrement: true }).createIndex("code", "code");
        database.createObjectStore("rejected", { keyPath: "seq", autoIncrement: true }).createIndex("code", "code");
      }
      if (oldVersion < 2) {
        database.createObjectStore("events", { keyPath: ["code", "chunk"] });
        // A base kept whole (version 1) is split in place: a phone offline with taps waiting keeps it.
        const tx = request.transaction;
        tx.objectStore("bases").openCursor().onsuccess = ({ target }) => {
          const cursor = target.result;
          if (!cursor) return;
          const { events = [], ...meta } = cursor.value;
          putChunks(tx, meta.code, events, 0);
          cursor.update({ ...meta, length: events.length });
          cursor.continue();
        };
      }
    };
    request.onsuccess = () => {
      const database = request.result;
      // Another tab of a newer version needs the database: let it upgrade, open again on next use.
      database.onversionchange = () => { database.close(); opening = null; };
      resolve(database);
    };
    request.onerror = () => reject(request.error);
  });
  return opening;
}

// Every transaction goes through here: resolved once it is durable (an acknowledged tap must survive
// a reload) with the value of the request `work` returns, if any; rejected on error or abort.
async function transact(storeNames, mode, work) {
  const database = await db();
  return new Promise((resolve, reject) => {
    const tx = database.transaction(storeNames, mode);
    const request = work(tx);
    // A get that finds nothing has `result` undefined: that is the answer, not the request itself.
    tx.oncomplete = () => resolve(request instanceof IDBRequest ? request.result : undefined);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

function run(storeName, mode, work) {
  return transact(storeName, mode, (tx) => work(tx.objectStore(storeName)));
}

const chunksOf = (code, from = 0) => IDBKeyRange.bound([code, from], [code, Infinity]);

// Writes the chunks of `events` from chunk number `from` to the end.
function putChunks(tx, code, events, from) {
  const rows = tx.objectStore("events");
  for (let chunk = from; chunk * CHUNK < events.length; chunk++) {
    rows.put({ code, chunk, events: events.slice(chunk * CHUNK, (chunk + 1) * CHUNK) });
  }
}

// The base of a table with its events, or undefined if this phone never kept it whole.
export async function loadBase(code) {
  let meta;
  let rows;
  await transact(["bases", "events"], "readonly", (tx) => {
    tx.objectStore("bases").get(code).onsuccess = ({ target }) => { meta = target.result; };
    tx.objectStore("events").getAll(chunksOf(code)).onsuccess = ({ target }) => { rows = target.result; };
  });
  if (!meta) return undefined;
  const events = [];
  for (const row of rows) for (const event of row.events) events.push(event);
  if (events.length !== meta.length) return undefined;
  const base = { ...meta, events };
  delete base.length;
  delete base.savedAt;
  return base;
}

// Writes how the base moved: its first `keep` events stayed (the chunks before the one that holds
// event `keep` are left as they are), the rest is `base.events` from there.
function writeMove(tx, base, keep) {
  const { events, ...meta } = base;
  const from = Math.floor(keep / CHUNK);
  tx.objectStore("events").delete(chunksOf(base.code, from));
  putChunks(tx, base.code, events, from);
  tx.objectStore("bases").put({ ...meta, length: events.length, savedAt: Date.now() });
}

export const saveBase = (base) => transact(["bases", "events"], "readwrite", (tx) => writeMove(tx, base, 0));

// The base moved (a fresher log from the server): its first `keep` events stayed.
export const moveBase = (base, keep) => transact(["bases", "events"], "readwrite", (tx) => writeMove(tx, base, keep));

async function byCode(storeName, code) {
  const rows = await run(storeName, "readonly", (store) => store.index("code").getAll(code));
  return rows.sort((a, b) => a.seq - b.seq);
}

export const pending = (code) => byCode("outbox", code);
export const rejected = (code) => byCode("rejected", code);

export async function push(code, op) {
  const seq = await run("outbox", "readwrite", (store) => store.add({ ...op, code, at: Date.now() }));
  return { ...op, code, seq };
}

// The server acknowledged a tap: the log gains it (or loses its last event, for an undo) and the
// outbox loses it in one transaction, so that after a crash the tap is never in both (it would be
// projected twice) nor in neither.
// `keep`: how many of its events the base kept (all of them before an event, all but one for an undo).
export function acknowledge(base, keep, seq) {
  return transact(["bases", "events", "outbox"], "readwrite", (tx) => {
    writeMove(tx, base, keep);
    tx.objectStore("outbox").delete(seq);
  });
}

// Moves taps from the outbox to the rejected list in one transaction: never dropped silently.
export function reject(code, entries) {
  return transact(["outbox", "rejected"], "readwrite", (tx) => {
    for (const { op, error } of entries) {
      tx.objectStore("outbox").delete(op.seq);
      tx.objectStore("rejected").add({ code, op: { kind: op.kind, id: op.id, event: op.event }, error, at: Date.now() });
    }
  });
}

export const dismiss = (seq) => run("rejected", "readwrite", (store) => store.delete(seq));
