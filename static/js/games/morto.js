// Il Morto's table view (who is dead, in large type; lives as hearts; dealer and who plays first) and
// the pieces the referee's panel (morto_referee.js, loaded by the referee page only) shares with it.
// Drawn from the engine's view alone, every word from the catalogue in the page's one language (the
// interface's `ui.morto.*`, the engine's codes).
import { byId, fill, h, hearts } from "../ui.js";
import { t } from "../i18n.js";
import { notesCard, outcomeCard } from "../envelope.js";

// An emoji before a sentence, kept out of the sentence's text.
export function icon(symbol) {
  return h("span", { class: "icon", "aria-hidden": "true" }, symbol);
}

// "Label value": the label one catalogue string, the value data in its own element.
export function fact(label, value) {
  return h("span", {}, h("span", { class: "label" }, t(label)), " ", value);
}

export function statusLine(state, players) {
  if (state.over) return null;
  return h("div", { class: "status-line" },
    fact("ui.morto.round", h("strong", { "data-round": state.round }, state.round)),
    fact("ui.morto.dealer", h("strong", { "data-dealer": state.dealer }, players[state.dealer].name)),
    state.plays_first && fact("ui.morto.plays_first", h("strong", { "data-first": state.plays_first }, players[state.plays_first].name)));
}

// A player's roles and state in short: dealer, plays first, dead, holds no card this round.
export function pills(state, p) {
  return [
    p.dealer && !state.over ? h("span", { class: "pill dealer" }, t("ui.morto.pill.dealer")) : null,
    p.id === state.plays_first ? h("span", { class: "pill first" }, t("ui.morto.pill.first")) : null,
    !p.alive ? h("span", { class: "pill dead" }, t("ui.morto.pill.dead")) : null,
    p.alive && !p.dealt && !state.over ? h("span", { class: "pill" }, t("ui.morto.pill.no_card")) : null,
  ];
}

export function playerHead(state, p) {
  return h("div", { class: "player-head" }, h("span", { class: "player-name" }, p.name), pills(state, p), hearts(p.lives, state.lives));
}

// --- table view --------------------------------------------------------------------------------

export function view(root, state) {
  const players = byId(state);
  const dead = state.players.filter((p) => !p.alive);
  fill(root,
    outcomeCard(state),
    notesCard(state),
    dead.length && !state.over ? h("section", { class: "dead-banner", id: "dead" },
      h("h2", {}, icon("☠"), " ", h("span", {}, t("morto.dead.warning"))),
      h("div", { class: "dead-names" }, dead.map((p) => h("span", { "data-dead": p.id }, p.name)))) : null,
    !state.over ? h("section", { class: "card" }, statusLine(state, players)) : null,
    h("section", { class: "card" }, h("div", { class: "players" }, state.players.map((p) =>
      h("div", { class: `player${p.alive ? "" : " is-dead"}`, "data-player": p.id }, playerHead(state, p))))),
  );
}
