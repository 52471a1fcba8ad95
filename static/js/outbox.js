// The referee's durable memory in IndexedDB: per table, the log last acknowledged by the server
// ("base": its setup, version, `start` and `checkpoint` in "bases", its events from `start` on with
// their client ids in "events" by chunks of CHUNK, keyed by [code, chunk number]), the outbox of taps
// not yet acknowledged (in order, each with what it meant and its words when tapped), and taps set
// aside after a conflict (the rules turned them down, or they would have meant something else: kept
// until the referee keeps or drops them). A base is the end of the log, from the checkpoint of the
// state the server gave (`/log?tail=`): `start` events come before its first, and `checkpoint` is the
// state after them (none when `start` is 0). An acknowledged tap rewrites the log's last chunk, not
// the whole log; a chunk rather than a row per event keeps the first save and every page load to one
// row per CHUNK events.

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
          putChunks(tx, meta.code, events, [], 0);
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

// Writes the chunks of `events` (and their client `ids`) from chunk number `from` to the end.
function putChunks(tx, code, events, ids, from) {
  const rows = tx.objectStore("events");
  for (let chunk = from; chunk * CHUNK < events.length; chunk++) {
    const [first, end] = [chunk * CHUNK, (chunk + 1) * CHUNK];
    rows.put({ code, chunk, events: events.slice(first, end), ids: ids.slice(first, end) });
  }
}

// The base of a table with its events and their ids (null where a former layout kept none), or
// undefined if this phone never kept it whole.
export async function loadBase(code) {
  let meta;
  let rows;
  await transact(["bases", "events"], "readonly", (tx) => {
    tx.objectStore("bases").get(code).onsuccess = ({ target }) => { meta = target.result; };
    tx.objectStore("events").getAll(chunksOf(code)).onsuccess = ({ target }) => { rows = target.result; };
  });
  if (!meta) return undefined;
  const events = [];
  const ids = [];
  for (const row of rows) {
    row.events.forEach((event, i) => { events.push(event); ids.push(row.ids?.[i] ?? null); });
  }
  if (events.length !== meta.length) return undefined;
  const base = { start: 0, checkpoint: null, ...meta, events, ids };
  delete base.length;
  delete base.savedAt;
  return base;
}

// Writes how the base moved: its first `keep` events stayed (the chunks before the one that holds
// event `keep` are left as they are), the rest is `base.events` from there; and takes the outbox's
// taps `done` out (the server holds them), in the same transaction.
function writeMove(tx, base, keep, done = []) {
  const { events, ids, ...meta } = base;
  const from = Math.floor(Math.max(keep - (base.start || 0), 0) / CHUNK);
  tx.objectStore("events").delete(chunksOf(base.code, from));
  putChunks(tx, base.code, events, ids, from);
  tx.objectStore("bases").put({ ...meta, length: events.length, savedAt: Date.now() });
  for (const seq of done) tx.objectStore("outbox").delete(seq);
}

const BASE_AND_OUTBOX = ["bases", "events", "outbox"];

// The base anew (the end of the server's log), and the outbox's taps `done` taken out.
export const saveBase = (base, done = []) => transact(BASE_AND_OUTBOX, "readwrite", (tx) => writeMove(tx, base, base.start || 0, done));

// The base moved (a fresher log from the server): its first `keep` events stayed; the outbox's taps
// `done` are in it (their answer was lost) and leave the outbox in the same transaction.
export const moveBase = (base, keep, done = []) => transact(BASE_AND_OUTBOX, "readwrite", (tx) => writeMove(tx, base, keep, done));

async function byCode(storeName, code) {
  const rows = await run(storeName, "readonly", (store) => store.index("code").getAll(code));
  return rows.sort((a, b) => a.seq - b.seq);
}

export const pending = (code) => byCode("outbox", code);
export const rejected = (code) => byCode("rejected", code);

export async function push(code, op) {
  const row = { ...op, code, at: Date.now() };
  const seq = await run("outbox", "readwrite", (store) => store.add(row));
  return { ...row, seq };
}

// A waiting tap learnt what it means (it was tapped before the engine was ready): kept with it.
export const update = (op) => run("outbox", "readwrite", (store) => store.put(op));

// The server acknowledged a tap: the log gains it (or loses its last event, for an undo) and the
// outbox loses it in one transaction, so that after a crash the tap is never in both (it would be
// projected twice) nor in neither.
// `keep`: how many of its events the base kept (all of them before an event, all but one for an undo).
export function acknowledge(base, keep, seq) {
  return transact(BASE_AND_OUTBOX, "readwrite", (tx) => writeMove(tx, base, keep, [seq]));
}

// A player's move the server recorded, or that its player gave up: out of the outbox (a player's
// phone keeps no log).
export const acknowledgeSeat = (seq) => run("outbox", "readwrite", (store) => store.delete(seq));

// Moves taps from the outbox to the set-aside list in one transaction: never dropped silently. Each
// entry says why: `error` (the rule that refuses it now) or `changed` (it would mean something else
// now), with `missed`, what other phones did meanwhile, in words.
export function reject(code, entries) {
  return transact(["outbox", "rejected"], "readwrite", (tx) => {
    for (const { op, error = null, missed = [] } of entries) {
      tx.objectStore("outbox").delete(op.seq);
      const { kind, id, event, meant, said, player } = op;
      tx.objectStore("rejected").add({ code, op: { kind, id, event, meant, said, player }, error, changed: !error, missed, at: Date.now() });
    }
  });
}

// The referee keeps a tap set aside: back at the end of the outbox (as `op`), in one transaction.
export async function restore(seq, code, op) {
  const row = { ...op, code, at: Date.now() };
  const added = await transact(["outbox", "rejected"], "readwrite", (tx) => {
    tx.objectStore("rejected").delete(seq);
    return tx.objectStore("outbox").add(row);
  });
  return { ...row, seq: added };
}

export const dismiss = (seq) => run("rejected", "readwrite", (store) => store.delete(seq));
