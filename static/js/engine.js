// The page's side of the engine worker: requests in, promised answers out.

let worker = null;
let nextId = 1;
const waiting = new Map();
let readyResolve;
let readyReject;
export const engineReady = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });
engineReady.catch(() => {}); // a page that never needs the engine must not report an unhandled rejection

export function startEngine() {
  if (worker) return engineReady;
  worker = new Worker("/static/js/engine-worker.js", { type: "module" });
  worker.onmessage = ({ data }) => {
    if ("ready" in data) {
      if (data.ready) readyResolve(data);
      else readyReject(new Error(data.error));
      return;
    }
    const pending = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) pending?.reject(new Error(data.error));
    else pending?.resolve(data.answer);
  };
  worker.onerror = (event) => readyReject(new Error(event.message || "engine worker failed"));
  return engineReady;
}

export async function ask(request) {
  await engineReady;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, request });
  });
}
