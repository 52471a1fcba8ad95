// The rules engine in the browser: Pyodide runs engine/ (the same Python as the server) in this
// Web Worker, so offline taps are checked and scored exactly as the server will.
import { loadPyodide } from "/pyodide/pyodide.mjs";

const APP_DIR = "/home/pyodide/arbitre";

// A warm start restores a memory snapshot of this worker's Python, taken once the engine was
// imported and warm (Pyodide's `_makeSnapshot` / `_loadSnapshot`): no interpreter start-up, no
// imports. It lives gzip'd in this version's engine cache (the service worker drops it with the
// version; the version also names the Pyodide runtime), so it never outlives the engine it holds.
// Any failure falls back to the plain start.
const VERSION = import.meta.url.match(/\/static\/v\/([0-9a-f]{12})\//)?.[1];
const SNAPSHOT = new URL("/engine/snapshot.bin.gz", import.meta.url).href;
const snapshots = VERSION && self.caches ? caches.open(`arbitre-engine-${VERSION}`).catch(() => null) : Promise.resolve(null);

async function savedSnapshot() {
  const response = await (await snapshots)?.match(SNAPSHOT);
  return response && new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
}

async function saveSnapshot(pyodide) {
  const cache = await snapshots;
  if (!cache) return;
  const memory = pyodide.makeMemorySnapshot();
  const packed = new Blob([memory]).stream().pipeThrough(new CompressionStream("gzip"));
  await cache.put(SNAPSHOT, new Response(await new Response(packed).blob()));
}

async function runtime() {
  const memory = await savedSnapshot().catch(() => null);
  if (memory) {
    try {
      return [await loadPyodide({ indexURL: "/pyodide/", _loadSnapshot: memory }), "restored"];
    } catch {
      (await snapshots)?.delete(SNAPSHOT);
    }
  }
  const snapshot = Boolean(await snapshots);
  return [await loadPyodide({ indexURL: "/pyodide/", _makeSnapshot: snapshot }), snapshot ? "make" : "none"];
}

const ready = (async () => {
  const started = performance.now();
  const stages = {};
  const [[pyodide, snapshot], bundle] = await Promise.all([
    runtime().then((loaded) => { stages.runtime = performance.now() - started; return loaded; }),
    fetch("/engine/bundle.json").then((response) => response.json()),
  ]);
  for (const [path, source] of Object.entries(bundle.files)) {
    const file = `${APP_DIR}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
    pyodide.FS.writeFile(file, source); // a restored snapshot holds the imported modules, not the files
  }
  stages.files = performance.now() - started - stages.runtime;
  if (snapshot !== "restored") pyodide.runPython(`import sys\nsys.path.insert(0, "${APP_DIR}")`);
  const handle = pyodide.pyimport("worker.jsonio").handle;
  stages.imports = performance.now() - started - stages.runtime - stages.files;
  handle(JSON.stringify({ op: "warm" })); // imports every game module now, not on the first tap
  stages.warm = performance.now() - started - stages.runtime - stages.files - stages.imports;
  stages.engine = performance.now() - started - stages.runtime;
  stages.snapshot = snapshot;
  // Taken now, before any table is handled: the engine imported and warm, nothing else.
  if (snapshot === "make" && bundle.version === VERSION) saveSnapshot(pyodide).catch(() => {});
  return { handle, ms: performance.now() - started, stages, version: bundle.version };
})();

ready.then(
  ({ ms, stages, version }) => postMessage({ ready: true, ms, stages, version }),
  (err) => postMessage({ ready: false, error: String(err) }),
);

self.onmessage = async ({ data }) => {
  try {
    const { handle } = await ready;
    postMessage({ id: data.id, answer: JSON.parse(handle(JSON.stringify(data.request))) });
  } catch (err) {
    postMessage({ id: data.id, error: String(err) });
  }
};
