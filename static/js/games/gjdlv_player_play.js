// Le Grand Jeu de la Vie on a player's own phone, a round played through (loaded by gjdlv_player.js
// for such a table only): the turn bar, the player's own card, then what they may do now — their
// turn's plays, their answers, their royal birth's effect — drawn with the referee's pieces
// (gjdlv_play_referee.js) given only their actions, then the table.
import { fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { record } from "../actions.js";
import { outcomeCard } from "../envelope.js";
import { face, noteCard, roundsCard, sheetsCard, standingsCard } from "./gjdlv_shared.js";
import { cardButton, cardGrid, queenCards } from "./gjdlv_shared_referee.js";
import { answerBar, playCard, removalCard, syncDraft } from "./gjdlv_play_referee.js";
import { pilesCard, pinUnderBar, seatPart, turnBar } from "./gjdlv_play.js";

// Phase 3, this player holding a GM back: their own answer to the contest (a GM of those the engine
// offers, or none), or, once given, that it waits for the others' (the last answer settles it).
function contestCard(state, ctx, player, action) {
  const gf = state.play.gf;
  if (!action) {
    if (state.play.phase !== "ejaculation" || !(player in (state.play.contest || {}))) return null;
    const gm = state.play.contest[player];
    return h("section", { class: "card gj-play", id: "contest", "data-answered": gm ?? "none" },
      h("h2", {}, h("span", {}, t("ui.gjdlv.contest")), " ", gf ? face(gf) : null),
      gm ? h("p", {}, face(gm)) : h("p", {}, t("ui.player.contest_decline")),
      h("p", { class: "hint" }, t("ui.player.contest_waiting")));
  }
  const choice = state.play.choices.find((c) => c.action.type === "contest_answer" && c.action.player === player);
  return h("section", { class: "card gj-play gj-picker", id: "contest" },
    h("h2", {}, h("span", {}, t("ui.gjdlv.contest")), " ", gf ? face(gf) : null),
    h("p", { class: "hint" }, t("ui.player.contest_hint")),
    cardGrid(choice?.cards ?? [], (card) => cardButton(card, { onclick: () => record(ctx, action, { gm: card }) }),
      { "data-grid": "contest_answer" }),
    h("button", { type: "button", class: "secondary", "data-action": "contest-decline", onclick: () => record(ctx, action) },
      t("ui.player.contest_decline")));
}

export function trackerSeat(root, state, ctx, { actions, players, mine }) {
  const answer = actions.find((action) => action.type === "contest_answer");
  const own = { ...state, actions: actions.filter((action) => action !== answer) };
  syncDraft(own);
  pinUnderBar();
  fill(root,
    outcomeCard(state),
    turnBar(state, players),
    mine,
    contestCard(state, ctx, ctx.player, answer),
    queenCards(own, players, ctx),
    removalCard(own, players, ctx),
    playCard(own, players, ctx),
    answerBar(own, players, ctx),
    noteCard(state),
    pilesCard(state),
    sheetsCard(state, true, seatPart(state)),
    standingsCard(state),
    roundsCard(state));
}
