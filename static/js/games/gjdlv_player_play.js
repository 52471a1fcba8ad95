// Le Grand Jeu de la Vie on a player's own phone, a round played through (loaded by gjdlv_player.js
// for such a table only): the turn bar, the player's own card, then what they may do now — their
// turn's plays, their answers, their royal birth's effect — drawn with the referee's pieces
// (gjdlv_play_referee.js) given only their actions, then the table.
import { fill } from "../ui.js";
import { noteCard, roundsCard, sheetsCard, standingsCard, winnerBanner } from "./gjdlv.js";
import { queenCards } from "./gjdlv_referee.js";
import { answerBar, playCard, removalCard, syncDraft } from "./gjdlv_play_referee.js";
import { pilesCard, pinUnderBar, seatPart, turnBar } from "./gjdlv_play.js";

export function trackerSeat(root, state, ctx, { actions, players, mine }) {
  const own = { ...state, actions };
  syncDraft(own);
  pinUnderBar();
  fill(root,
    winnerBanner(state),
    turnBar(state, players),
    mine,
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
