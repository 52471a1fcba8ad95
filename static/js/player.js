// A player's own page (/t/<code>/p/<player>): that player's view of the table, redrawn live from the
// stream alone. Opened from their seat's QR (the player's secret in the URL's fragment, which
// browsers never send), the phone keeps the seat ("My tables": player · name) and the page records
// the player's own moves: its buttons are the actions of `state.actions` that the game lets a player
// record themselves (the page's `data-own`, from the engine's declaration) and whose acting player is
// theirs. Moves go through the referee's outbox machinery (sync.js, player mode): kept in IndexedDB
// with their client ids, judged by the server alone; a move refused (not theirs, a rule, a race
// lost) says why, and one that never reached the server says so plainly and offers to try again.
import { follow } from "./live.js";
import { holdSeat, note, recall, remember } from "./tables.js";
import { has, lang, loadCatalogue, t } from "./i18n.js";
import { changedPlayers, freshnessStatus, glow, showHappened } from "./envelope.js";
import { TableSync } from "./sync.js";
import { ApiError, api } from "./api.js";
import { clearToast, fill, h, toast, vibrate } from "./ui.js";

const app = document.getElementById("app");
const { code, game, player } = app.dataset;
const own = JSON.parse(app.dataset.own || "{}"); // event type -> the field naming its acting player
const KEY = `arbitre.view.${code}`;
const happenedEl = document.getElementById("happened");
const noteEl = document.getElementById("seat-note");
let answer = JSON.parse(document.getElementById("initial").textContent);
try {
  const kept = JSON.parse(localStorage.getItem(KEY));
  if (kept && kept.answer.version > answer.version) answer = kept.answer;
} catch { /* nothing kept */ }

const nameOf = (state) => state.players.find((p) => p.id === player)?.name ?? player;

// The seat's QR: the secret is kept on this phone and taken out of the address bar at once.
const fragment = new URLSearchParams(location.hash.slice(1));
let joined = false;
if (fragment.get("s")) {
  holdSeat(code, game, { player, name: nameOf(answer.state), secret: fragment.get("s") });
  history.replaceState(null, "", location.pathname);
  joined = true;
}
// A new seat's QR opened on this very page changes only the fragment: the page starts again with it.
addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).get("s")) location.reload();
});
const kept = recall(code);
const seat = kept?.seat?.player === player ? kept.seat : null;
if (!kept) remember(code, { game, role: "follower" });
else remember(code, {}); // the table opened last

const [module] = await Promise.all([import(`./games/${game}_player.js`), loadCatalogue()]);
const status = freshnessStatus(document.getElementById("sync"));

function wording(error) {
  if (error instanceof ApiError || error?.message) return error.message;
  if (error?.code && has(error.code)) return t(error.code, error.params || {});
  return error?.messages?.[lang] || error?.code || "";
}

// The actions this player may record now, from this phone: none without the seat.
function mine(state) {
  if (!seat || lost) return [];
  return state.actions.filter((action) => action.type in own && action[own[action.type]] === player);
}

let lost = false; // the referee took the seat back (the server said so)
let table = null;
const ctx = {
  code,
  player,
  get state() { return table?.view ?? answer.state; },
  get version() { return answer.version; },
  mine,
  seated: Boolean(seat),
  async send(type, params = {}) {
    const result = await table.send("event", { type, ...params });
    if (result.ok) { clearToast(); vibrate(); } else if (!table.unsent) refused(result.error);
    render();
    return result.ok;
  },
  check: (name, params) => api.check(code, name, params),
  render: () => render(true),
};

function refused(error) {
  vibrate([30, 40, 30]);
  if (error?.status === 401 || (error?.status === 403 && error?.code !== "not_your_move")) lost = true;
  toast(wording(error), "error", error?.rule || null);
}

// Above the page: the seat's welcome, a move not sent (with a retry), the moves refused and why.
function drawNotes(state) {
  const parts = [];
  if (lost) parts.push(h("section", { class: "card seat-lost", id: "seat-lost" }, t("ui.player.seat_lost", { name: nameOf(state) })));
  if (table?.pending.length && table.unsent) {
    parts.push(h("section", { class: "card unsent", id: "unsent", role: "alert" },
      h("h2", {}, t("ui.player.unsent_title")),
      h("p", {}, t(table.problem ? "ui.player.unsent_problem" : "ui.player.unsent_text")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", id: "retry", onclick: async () => {
          const result = await table.retry();
          if (!result.ok && !table.unsent) refused(result.error);
          render(true);
        } }, t("ui.player.retry")),
        h("button", { type: "button", class: "secondary", id: "give-up", onclick: async () => { await table.drop(); render(true); } },
          t("ui.player.give_up")))));
  }
  for (const entry of table?.rejected ?? []) {
    parts.push(h("section", { class: "card refused", "data-refused": entry.op.id, "data-code": entry.error?.code ?? "" },
      h("h2", {}, t("ui.player.refused_title")),
      h("p", { class: "rejected-reason" }, wording(entry.error)),
      h("button", { type: "button", class: "secondary", onclick: async () => { await table.dismiss(entry.seq); render(true); } },
        t("ui.sync.seen"))));
  }
  // The player's own latest move, while it is the table's latest: theirs to take back.
  if (seat && !lost && table?.mine && table.mine.kind === "event" && table.mine.version === answer.version) {
    parts.push(h("button", { type: "button", class: "secondary undo-mine", id: "undo-mine", onclick: async () => {
      const result = await table.send("undo", { event: table.mine.id });
      if (!result.ok && !table.unsent) refused(result.error);
      render(true);
    } }, t("ui.player.undo")));
  }
  fill(noteEl, parts);
}

let shown = null;
function render(force = false) {
  const state = ctx.state;
  module.seat(app, state, ctx, { force });
  glow(app, changedPlayers(shown, state));
  shown = state;
  drawNotes(state);
  showHappened(happenedEl, answer);
  status({ at: answer.did?.at || null });
  note(code, answer.version, answer.state);
  document.dispatchEvent(new CustomEvent("arbitre:table", { detail: { role: "player", code, version: answer.version, state } }));
}

if (seat) {
  table = new TableSync({ code, game, secret: seat.secret, answer, player, onChange: () => render() });
  await table.start();
  if (joined) toast(t("ui.player.joined", { name: seat.name }), "info");
} else {
  render();
}

follow(code, async (fresh) => {
  localStorage.setItem(KEY, JSON.stringify({ answer: fresh, at: new Date().toISOString() }));
  if (fresh.version < answer.version) return;
  answer = fresh;
  if (table) await table.heard(fresh);
  render();
}, { since: answer.version, onLive: (live) => status({ live }) });
