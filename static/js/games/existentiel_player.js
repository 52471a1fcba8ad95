// Le jeu existentiel on a player's own phone: my adventure (its title), my jokers, what I must do
// next, the rendez-vous with "add to my calendar" (the table's page, existentiel.js `player`), and on
// top, when the phone holds the seat, my own moves as the engine lists them: my roll (a die face, or
// the virtual die), my acceptance or refusal — the game master's panel's pieces, given only my
// actions. The game master keeps the validations and the rendez-vous.
import { byId, fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { player as playerView } from "./existentiel.js";
import { playerPanel } from "./existentiel_referee.js";

let drawn = null;

export function seat(root, state, ctx, { force = false } = {}) {
  const actions = ctx.mine(state);
  const key = JSON.stringify([state, actions, ctx.player]);
  if (!force && key === drawn && root.firstChild) return;
  drawn = key;
  const p = byId(state)[ctx.player];
  const page = h("div");
  playerView(page, state, { code: ctx.code, player: ctx.player });
  const mine = actions.length && p
    ? h("section", { class: "card my-move", id: "my-move", "data-player": p.id },
      h("h2", {}, t("ui.player.your_move")),
      playerPanel({ ...state, actions }, p, ctx))
    : null;
  fill(root, mine, [...page.childNodes]);
}
