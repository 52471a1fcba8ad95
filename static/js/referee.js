// The referee page: every tap is checked by the engine on this phone, kept in the outbox, drawn at
// once, and sent in order when the server can be reached (sync.js). Works the same with no network.
// The dock says what the latest version did and what Undo would take back (the answers' `did` and
// `undoable`); the players a tap changed glow for a moment. A board that would not show every tap
// this phone knows of (reloaded offline, taps waiting) is not drawn until the engine has replayed them.
import { clearToast, fill, h, toast, vibrate } from "./ui.js";
import { note, recall, remember } from "./tables.js";
import { follow } from "./live.js";
import { TableSync } from "./sync.js";
import { drawSetAside } from "./set_aside.js";
import { seatsDialog } from "./seats.js";
import { ApiError } from "./api.js";
import { has, lang, loadCatalogue, t } from "./i18n.js";
import { changedPlayers, glow, showHappened, worded } from "./envelope.js";
import "./ending_referee.js"; // a finished table's rematch, asked from this page

const app = document.getElementById("app");
const { code, game } = app.dataset;
const initial = JSON.parse(document.getElementById("initial").textContent);
const syncEl = document.getElementById("sync");
const rejectedEl = document.getElementById("rejected");
const happenedEl = document.getElementById("happened");
const undoEl = document.getElementById("undo");
const boardNoteEl = document.getElementById("board-note");

// A hand-over link carries the secret in the fragment, which browsers never send to the server.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("s")) {
  remember(code, { game, secret: fragment.get("s"), role: "referee" });
  history.replaceState(null, "", location.pathname);
}
const secret = recall(code)?.secret;
let module = null;
let table = null;

// A refusal in the page's language. The server words its own (ApiError, from the `lang` cookie);
// the engine worker's (offline, or a tap checked on the phone) and those kept in IndexedDB are
// worded here from their code, so a language switch since then is followed.
function wording(error) {
  if (error instanceof ApiError) return error.message;
  if (error?.code && has(error.code)) return t(error.code, error.params || {});
  return error?.messages?.[lang] || error?.message || error?.code || "";
}

function refused(error) {
  vibrate([30, 40, 30]);
  toast(wording(error), "error", error?.rule || null);
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

const REPLAYING = "replaying"; // what `drawn` says while the board waits for the engine
let drawn = null;
let shown = null; // the state the board shows, to see which players the next one changes
let told = initial; // the latest answer that says what its version did: a write's or the stream's

// Keeps the latest answer that says what happened (a /log read brings a state without it).
function hear(answer) {
  if (answer && "did" in answer && answer.version >= told.version) told = answer;
}

// The dock: what the latest version did (dimmed while taps wait: the board is ahead of it), and
// what Undo would take back now (while taps wait, the latest of them, not yet worded by the server).
function drawDock() {
  const waiting = table.pending.length > 0;
  const current = !waiting && told.version === table.version;
  showHappened(happenedEl, told, { stale: !current });
  const target = current ? told.undoable : null;
  const what = waiting ? t("ui.referee.undo_waiting") : target ? worded(target) : "";
  undoEl.querySelector(".undo-what").textContent = what;
  if (what) undoEl.setAttribute("aria-label", t("ui.referee.undo_label", { what }));
  else undoEl.removeAttribute("aria-label");
}

// Redraws the game's panel only when the table changed (or the panel asks, for its own drafts):
// most sync steps change nothing on screen, and a redraw under a finger would lose the tap.
function render(force = false) {
  if (!module || !table) return;
  hear(table.server);
  drawDock();
  const status = table.status();
  syncEl.className = `sync ${status.kind === "ok" ? "ok" : status.kind === "off" ? "off" : ""}`;
  syncEl.textContent = status.text;
  syncEl.dataset.waiting = status.waiting;
  syncEl.dataset.engine = table.engine;
  if (table.engineMs) {
    syncEl.dataset.engineMs = Math.round(table.engineMs);
    syncEl.dataset.runtimeMs = Math.round(table.engineStages.runtime);
  }
  for (const id of ["snapshot", "handover", "seats-open"]) document.getElementById(id).disabled = table.engine !== "ready";
  app.dataset.version = table.version;
  // A board without every tap this phone knows of is never drawn: "replaying" until the engine has
  // projected them (if it cannot start, the board it has, with a note saying what it lacks).
  const behind = !table.complete;
  boardNoteEl.hidden = !(behind && table.engine === "failed");
  if (behind && table.engine !== "failed") {
    if (drawn !== REPLAYING) fill(app, h("p", { class: "hint", id: "replaying" }, t("ui.referee.replaying")));
    drawn = REPLAYING;
    return;
  }
  const key = JSON.stringify([table.view, table.rejected.map((entry) => entry.seq)]);
  if (!force && key === drawn) return;
  drawn = key;
  drawSetAside(rejectedEl, table, wording, refused);
  module.referee(app, table.view, ctx);
  glow(app, changedPlayers(shown, table.view));
  shown = table.view;
  note(code, table.version, table.view); // the home page's "My tables" line
  // The story panel (history.js) and anything else that follows the table redraw from this.
  document.dispatchEvent(new CustomEvent("arbitre:table", { detail: { role: "referee", code, version: table.version, state: table.view } }));
}

function showQr({ title, hint, url, svg, error }) {
  document.getElementById("more-dialog").close();
  const dialog = document.getElementById("qr-dialog");
  const picture = h("div", { class: "qr" });
  if (svg) picture.innerHTML = svg; // drawn by our own engine worker from a URL, not user HTML
  fill(dialog.querySelector(".body"), h("h2", { id: "qr-dialog-title" }, title), h("p", { class: "hint" }, hint),
    svg ? picture : h("p", { class: "error" }, wording(error)),
    h("a", { href: url, id: "qr-url", class: "muted qr-url" }, url));
  dialog.showModal();
}

async function showSnapshot() {
  const snapshot = await table.snapshot(`${location.origin}/s`);
  showQr({ ...snapshot, title: t("ui.referee.snapshot_title"), hint: t("ui.referee.snapshot_hint") });
}

// The secret travels in the fragment, which browsers never send: the QR is drawn here, not by the server.
async function showHandover() {
  const url = `${location.origin}/r/${code}#s=${encodeURIComponent(secret)}`;
  showQr({ ...(await table.qr(url)), url, title: t("ui.referee.handover_title"), hint: t("ui.referee.handover_hint") });
}

async function keepAwake() {
  try { if (navigator.wakeLock && document.visibilityState === "visible") await navigator.wakeLock.request("screen"); } catch { /* optional */ }
}

if (!secret) {
  await loadCatalogue();
  fill(app, h("section", { class: "card" },
    h("h1", {}, t("ui.referee.no_secret_title")),
    h("p", {}, t("ui.referee.no_secret_text")),
    h("a", { class: "button primary", href: `/t/${code}` }, t("ui.referee.follow"))));
  undoEl.disabled = true;
  document.getElementById("more").disabled = true;
} else {
  remember(code, { game, role: "referee" });
  // The game's referee panel (which imports its table view's pieces): a table view never loads it.
  [module] = await Promise.all([import(`./games/${game}_referee.js`), loadCatalogue()]);
  table = new TableSync({ code, game, secret, answer: initial, onChange: () => render(),
    onRejected: (op, error) => refused(error) });
  await table.start();
  undoEl.addEventListener("click", () => ctx.undo());
  document.addEventListener("arbitre:undo", () => ctx.undo()); // undo asked from the story panel
  document.getElementById("more").addEventListener("click", () => document.getElementById("more-dialog").showModal());
  document.getElementById("snapshot").addEventListener("click", showSnapshot);
  document.getElementById("handover").addEventListener("click", showHandover);
  document.getElementById("seats-open").addEventListener("click", seatsDialog({ code, secret, table, wording }));
  document.addEventListener("arbitre:answer", (event) => { hear(event.detail); drawDock(); });
  follow(code, (answer) => table.heard(answer), { since: initial.version });
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);
}
