// The referee page: taps become events sent in order, one at a time, against the table's version;
// the answer (or a co-referee's write, through the live stream) redraws the game's panel.
import { api, newId } from "./api.js";
import { clearToast, h, toast, vibrate } from "./ui.js";
import { recall, remember } from "./tables.js";
import { follow } from "./live.js";

const app = document.getElementById("app");
const { code, game } = app.dataset;
let answer = JSON.parse(document.getElementById("initial").textContent);

// A hand-over link carries the secret in the fragment, which browsers never send to the server.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("s")) {
  remember(code, { game, secret: fragment.get("s"), role: "referee" });
  history.replaceState(null, "", location.pathname);
}
const secret = recall(code)?.secret;

function setAnswer(fresh) {
  if (fresh.version < answer.version) return;
  answer = fresh;
  render();
}

async function refused(err) {
  vibrate([30, 40, 30]);
  toast(err.messages);
  if (err.status === 409) setAnswer(await api.getTable(code));
}

let queue = Promise.resolve(true);

// Taps are sent one after the other so each carries the version it was made against.
function enqueue(work) {
  queue = queue.then(async () => {
    try {
      setAnswer(await work());
      clearToast();
      vibrate();
      return true;
    } catch (err) {
      await refused(err);
      return false;
    }
  });
  return queue;
}

const ctx = {
  code,
  get state() { return answer.state; },
  get version() { return answer.version; },
  send: (type, params = {}) => enqueue(() => api.postEvent(code, secret, { id: newId(), type, ...params, version: answer.version })),
  undo: () => enqueue(() => api.undo(code, secret, answer.version)),
  check: (name, params) => api.check(code, name, params),
  render: () => render(),
};

let module = null;

function render() {
  if (module) module.referee(app, answer.state, ctx);
}

async function keepAwake() {
  try { if (navigator.wakeLock && document.visibilityState === "visible") await navigator.wakeLock.request("screen"); } catch { /* optional */ }
}

if (!secret) {
  app.replaceChildren(h("section", { class: "card" },
    h("h1", {}, "Accès arbitre requis"),
    h("p", {}, "Ce téléphone n'a pas le secret de l'arbitre de cette table. Ouvrez le lien de passation donné par l'arbitre, ou suivez la table."),
    h("p", { class: "muted", lang: "en" }, "This phone does not hold the referee secret for this table."),
    h("a", { class: "button primary", href: `/t/${code}` }, "Suivre la table")));
  document.getElementById("undo").disabled = true;
} else {
  remember(code, { game, role: "referee" });
  module = await import(`./games/${game}.js`);
  document.getElementById("undo").addEventListener("click", () => ctx.undo());
  render();
  follow(code, setAnswer, document.getElementById("sync"));
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);
}
