// The referee page: every tap is checked by the engine on this phone, kept in the outbox, drawn at
// once, and sent in order when the server can be reached (sync.js). Works the same with no network.
import { clearToast, fill, h, toast, vibrate } from "./ui.js";
import { recall, remember } from "./tables.js";
import { follow } from "./live.js";
import { TableSync } from "./sync.js";
import { loadMessages, sentence } from "./messages.js";

const app = document.getElementById("app");
const { code, game } = app.dataset;
const initial = JSON.parse(document.getElementById("initial").textContent);
const syncEl = document.getElementById("sync");
const rejectedEl = document.getElementById("rejected");

// A hand-over link carries the secret in the fragment, which browsers never send to the server.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("s")) {
  remember(code, { game, secret: fragment.get("s"), role: "referee" });
  history.replaceState(null, "", location.pathname);
}
const secret = recall(code)?.secret;
let module = null;
let table = null;

function refused(error) {
  vibrate([30, 40, 30]);
  toast(error.messages || { fr: error.message, en: error.message });
}

const ctx = {
  code,
  get state() { return table.view; },
  get version() { return table.version; },
  async send(type, params = {}) {
    const result = await table.tap("event", { type, ...params });
    if (result.ok) { clearToast(); vibrate(); } else refused(result.error);
    return result.ok;
  },
  async undo() {
    const result = await table.tap("undo");
    if (!result.ok) refused(result.error);
    return result.ok;
  },
  check: (name, params) => table.check(name, params),
  render: () => render(true),
};

function describe(event) {
  if (!event) return "annuler";
  const { type, ...params } = event;
  return `${type} ${JSON.stringify(params)}`;
}

function renderRejected() {
  fill(rejectedEl, table.rejected.length ? h("section", { class: "card rejected" },
    h("h2", {}, "Actions refusées à la synchronisation ", h("small", {}, "Refused when synced")),
    h("p", { class: "hint" }, "La table a changé entre-temps (un·e co-arbitre ?) : ces actions ne sont plus permises."),
    table.rejected.map((entry) => h("div", { class: "reveal-row", "data-rejected": entry.op.id },
      h("code", {}, describe(entry.op.event)),
      h("div", {}, entry.error.messages?.fr || entry.error.code),
      entry.error.messages?.en ? h("div", { class: "muted", lang: "en" }, entry.error.messages.en) : null,
      h("button", { type: "button", class: "secondary", onclick: () => table.dismiss(entry.seq) }, "Vu")))) : null);
}

let drawn = null;

// Redraws the game's panel only when the table changed (or the panel asks, for its own drafts):
// most sync steps change nothing on screen, and a redraw under a finger would lose the tap.
function render(force = false) {
  if (!module || !table) return;
  const status = table.status();
  syncEl.className = `sync ${status.kind === "ok" ? "ok" : status.kind === "off" ? "off" : ""}`;
  syncEl.textContent = status.text;
  syncEl.dataset.waiting = status.waiting;
  syncEl.dataset.engine = table.engine;
  if (table.engineMs) {
    syncEl.dataset.engineMs = Math.round(table.engineMs);
    syncEl.dataset.runtimeMs = Math.round(table.engineStages.runtime);
  }
  for (const id of ["snapshot", "handover"]) document.getElementById(id).disabled = table.engine !== "ready";
  app.dataset.version = table.version;
  const key = JSON.stringify([table.view, table.rejected.map((entry) => entry.seq)]);
  if (!force && key === drawn) return;
  drawn = key;
  renderRejected();
  module.referee(app, table.view, ctx);
  // The story panel (history.js) and anything else that follows the table redraw from this.
  document.dispatchEvent(new CustomEvent("arbitre:table", { detail: { role: "referee", code, version: table.version, state: table.view } }));
}

function showQr({ title, hint, url, svg, error }) {
  document.getElementById("more-dialog").close();
  const dialog = document.getElementById("qr-dialog");
  const picture = h("div", { class: "qr" });
  if (svg) picture.innerHTML = svg; // drawn by our own engine worker from a URL, not user HTML
  fill(dialog.querySelector(".body"), h("h2", {}, ...title), h("p", { class: "hint" }, hint),
    svg ? picture : h("p", { class: "error" }, sentence(error.code, error.params).fr),
    h("a", { href: url, id: "qr-url", class: "muted qr-url" }, url));
  dialog.showModal();
}

async function showSnapshot() {
  const snapshot = await table.snapshot(`${location.origin}/s`);
  showQr({ ...snapshot, title: ["QR instantané ", h("small", {}, "Snapshot QR")],
    hint: "L'état de la table maintenant, dans le QR lui-même : il s'ouvre sans réseau sur un téléphone où Arbitre est installé. Il ne suit pas les taps suivants." });
}

// The secret travels in the fragment, which browsers never send: the QR is drawn here, not by the server.
async function showHandover() {
  const url = `${location.origin}/r/${code}#s=${encodeURIComponent(secret)}`;
  showQr({ ...(await table.qr(url)), url, title: ["Passer la main ", h("small", {}, "Hand over / co-referee")],
    hint: "Ce QR donne le droit d'arbitrer cette table : ne le montrez qu'à la personne qui arbitre avec vous ou après vous." });
}

async function keepAwake() {
  try { if (navigator.wakeLock && document.visibilityState === "visible") await navigator.wakeLock.request("screen"); } catch { /* optional */ }
}

if (!secret) {
  fill(app, h("section", { class: "card" },
    h("h1", {}, "Accès arbitre requis"),
    h("p", {}, "Ce téléphone n'a pas le secret de l'arbitre de cette table. Ouvrez le lien de passation donné par l'arbitre, ou suivez la table."),
    h("p", { class: "muted", lang: "en" }, "This phone does not hold the referee secret for this table."),
    h("a", { class: "button primary", href: `/t/${code}` }, "Suivre la table")));
  document.getElementById("undo").disabled = true;
  document.getElementById("more").disabled = true;
} else {
  remember(code, { game, role: "referee" });
  [module] = await Promise.all([import(`./games/${game}.js`), loadMessages()]);
  table = new TableSync({ code, game, secret, answer: initial, onChange: () => render(),
    onRejected: (op, error) => refused(error) });
  await table.start();
  document.getElementById("undo").addEventListener("click", () => ctx.undo());
  document.addEventListener("arbitre:undo", () => ctx.undo()); // undo asked from the story panel
  document.getElementById("more").addEventListener("click", () => document.getElementById("more-dialog").showModal());
  document.getElementById("snapshot").addEventListener("click", showSnapshot);
  document.getElementById("handover").addEventListener("click", showHandover);
  follow(code, (answer) => table.heard(answer), null);
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);
}
