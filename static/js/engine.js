// The page's side of the engine worker: requests in, promised answers out. Only the referee page
// starts it; once it is up, the service worker is asked to keep the runtime for offline use (a page
// that never starts the engine, a follower's, never downloads Pyodide).

let worker = null;
let nextId = 1;
const waiting = new Map();
let readyResolve;
let readyReject;
export const engineReady = new Promise((resolve, reject) => { readyResolve = resolve; readyReject = reject; });
engineReady.catch(() => {}); // a page that never needs the engine must not report an unhandled rejection

// Asks the service worker to precache the engine runtime (Pyodide, the engine bundle); resolves
// when it is kept, or after `ms` if there is no service worker to answer.
function keepOffline(ms = 20_000) {
  if (!("serviceWorker" in navigator)) return Promise.resolve();
  return Promise.race([
    new Promise((resolve) => setTimeout(resolve, ms)),
    navigator.serviceWorker.ready.then((registration) => new Promise((resolve) => {
      const channel = ({ data }) => {
        if (data?.precached !== "engine") return;
        navigator.serviceWorker.removeEventListener("message", channel);
        if (!data.failed) document.documentElement.dataset.engineCached = "yes";
        resolve();
      };
      navigator.serviceWorker.addEventListener("message", channel);
      registration.active.postMessage({ precache: "engine" });
    })),
  ]).catch(() => {});
}

export function startEngine() {
  if (worker) return engineReady;
  // Relative to this module: a versioned page starts the worker of its own version.
  worker = new Worker(new URL("./engine-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    if ("ready" in data) {
      // Ready means ready offline too: the runtime the worker just loaded is in the precache.
      if (data.ready) {
        performance.mark("arbitre:engine-ready", { detail: data.stages });
        keepOffline().then(() => readyResolve(data));
      } else readyReject(new Error(data.error));
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
