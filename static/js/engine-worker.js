// The rules engine in the browser: Pyodide runs engine/ (the same Python as the server) in this
// Web Worker, so offline taps are checked and scored exactly as the server will.
import { loadPyodide } from "/pyodide/pyodide.mjs";

const APP_DIR = "/home/pyodide/arbitre";

const ready = (async () => {
  const started = performance.now();
  const stages = {};
  // The bundle names the standard library to start Python with: the modules Pyodide and the engine
  // import are bytecode there (companion/pwa/offline.py), so that Python's start compiles nothing.
  const bundle = await fetch("/engine/bundle.json").then((response) => response.json());
  stages.bundle = performance.now() - started;
  const pyodide = await loadPyodide({ indexURL: "/pyodide/", stdLibURL: bundle.stdlib });
  stages.runtime = performance.now() - started - stages.bundle;
  for (const [path, source] of Object.entries(bundle.files)) {
    const file = `${APP_DIR}/${path}`;
    pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
    pyodide.FS.writeFile(file, source);
  }
  const before = stages.bundle + stages.runtime;
  stages.files = performance.now() - started - before;
  pyodide.runPython(`import sys\nsys.path.insert(0, "${APP_DIR}")`);
  const handle = pyodide.pyimport("worker.jsonio").handle;
  stages.imports = performance.now() - started - before - stages.files;
  handle(JSON.stringify({ op: "warm" })); // imports every game module now, not on the first tap
  stages.warm = performance.now() - started - before - stages.files - stages.imports;
  stages.engine = performance.now() - started - before;
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
