// The referee's durable memory in IndexedDB: per table, the log last acknowledged by the server
// ("base"), the outbox of taps not yet acknowledged (in order), and taps the rules turned down
// after a conflict (kept until the referee has seen them).

const DB_NAME = "arbitre";
let opening = null;

function db() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const database = request.result;
      database.createObjectStore("bases", { keyPath: "code" });
      database.createObjectStore("outbox", { keyPath: "seq", autoIncrement: true }).createIndex("code", "code");
      database.createObjectStore("rejected", { keyPath: "seq", autoIncrement: true }).createIndex("code", "code");
    };
    request.onsuccess = () => resolve(request.result);
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

export const loadBase = (code) => run("bases", "readonly", (store) => store.get(code));
export const saveBase = (base) => run("bases", "readwrite", (store) => store.put({ ...base, savedAt: Date.now() }));

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

// The server acknowledged a tap: the log gains it and the outbox loses it in one transaction, so that
// after a crash the tap is never in both (it would be projected twice) nor in neither.
export function acknowledge(base, seq) {
  return transact(["bases", "outbox"], "readwrite", (tx) => {
    tx.objectStore("bases").put({ ...base, savedAt: Date.now() });
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
