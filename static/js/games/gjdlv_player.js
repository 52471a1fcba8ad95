// Le Grand Jeu de la Vie on a player's own phone: my nursery, formol, round score and total on top;
// in a round played through, whose turn it is and what I may do now — my turn's plays, my answers
// (an abortion with my card, a King or Queen against an act), my royal birth's effect — drawn with
// the referee's pieces (gjdlv_play_referee.js) given only my actions, then the table. A score sheet
// is recorded by the referee alone: there the page is my own view of the table.
import { byId, fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { icon, sheet } from "./gjdlv_shared.js";
import { loaded, view } from "./gjdlv.js";

// A score sheet's player page never downloads what only a round played through draws.
const TRACKER = () => import("./gjdlv_player_play.js");
let drawn = null;
let drawing = null; // the state last asked to draw, for the tracker module once it has loaded

function myFacts(state, p) {
  const fact = (key, value, attr) => h("div", {}, h("dt", {}, t(key)), h("dd", { [attr]: value }, value));
  return h("dl", { class: "facts my-facts" },
    fact("ui.player.round_score", p.round_score, "data-my-round"),
    fact("ui.gjdlv.total", p.total, "data-my-total"),
    fact("ui.player.nursery", p.nursery, "data-my-nursery"),
    fact("ui.gjdlv.formol", p.formol, "data-my-formol"));
}

// Whose turn it is, and whether this player may act now (their turn, or an answer of theirs).
function turnLine(state, actions, players, me) {
  if (!state.play || state.over || state.play.phase === "ended") return null;
  const answering = actions.some((action) => ["abort", "cancel", "contest_answer"].includes(action.type));
  const mineTurn = state.play.active === me && !answering;
  const words = answering ? t("ui.player.answer_now") : mineTurn ? t("ui.player.your_turn")
    : t("ui.player.turn_of", { name: players[state.play.active].name });
  return h("p", { class: `my-turn${actions.length ? " now" : ""}`, id: "my-turn", "data-now": String(actions.length > 0) },
    actions.length ? icon("▶") : null, actions.length ? " " : null, h("strong", {}, words));
}

export function seat(root, state, ctx, { force = false } = {}) {
  drawing = state;
  const actions = ctx.mine(state);
  const key = JSON.stringify([state, actions, ctx.player]);
  if (!force && key === drawn && root.firstChild) return;
  const players = byId(state);
  const p = players[ctx.player];
  const mine = h("section", { class: "card my-seat player-page", "data-player": p.id },
    h("h1", { class: "player-name" }, p.name),
    myFacts(state, p),
    turnLine(state, actions, players, p.id));
  if (state.play) {
    const tracker = loaded(TRACKER, () => { if (drawing === state) seat(root, state, ctx, { force: true }); });
    if (!tracker) return; // drawn once it has loaded
    drawn = key;
    tracker.trackerSeat(root, state, ctx, { actions, players, mine });
    return;
  }
  drawn = key;
  const table = h("div");
  view(table, state, ctx);
  fill(root, mine, h("section", { class: "card gj-round gj-mine" }, sheet(state, p)), [...table.childNodes]);
}
