// Le Grand Jeu de la Vie's table view of a score sheet (standings, this round's sheet, the closed
// rounds and their chart, the winners, on the pieces of gjdlv_shared.js), and what the score sheet's
// other pages share with it (the status line, `loaded`). A table whose rounds are played through is
// drawn by gjdlv_play.js, loaded by such a table only.
import { byId, fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { outcomeCard } from "../envelope.js";
import { chartCard, fact, noteCard, roundFact, roundsCard, sheetsCard, standingsCard } from "./gjdlv_shared.js";

// The round, who starts it, the rules: a score sheet's status line (a round played through says
// them in its turn bar).
export function statusCard(state, players) {
  if (state.over) return null;
  return h("section", { class: "card" },
    h("div", { class: "status-line" },
      roundFact(state),
      fact("ui.gjdlv.first", h("strong", { "data-first": state.first_player }, players[state.first_player].name)),
      h("span", { class: "pill", "data-rules": state.rules }, t(`ui.gjdlv.rules.${state.rules}`))));
}

// --- what only a table played through draws: loaded on demand ------------------------------------

const parts = new Map(); // a loader (`() => import(…)`) -> {module, then}: each module loaded once

// The module `load` gives, once loaded; until then null, and `then()` (the latest one asked) runs
// when it is. A score sheet's pages never download what only a table played through draws.
export function loaded(load, then) {
  let part = parts.get(load);
  if (!part) {
    part = { module: null, then: null };
    parts.set(load, part);
    load().then((module) => { part.module = module; part.then?.(); },
      () => parts.delete(load)); // offline and never kept: the next draw asks again
  }
  part.then = then;
  return part.module;
}

const TRACKER = () => import("./gjdlv_play.js");
let drawing = null; // the state the table view was last asked to draw

export function view(root, state, ctx = {}) {
  drawing = state;
  if (state.play) {
    const tracker = loaded(TRACKER, () => { if (drawing === state) view(root, state, ctx); });
    if (tracker) tracker.trackerView(root, state);
    return;
  }
  const players = byId(state);
  fill(root,
    outcomeCard(state),
    noteCard(state),
    statusCard(state, players),
    standingsCard(state),
    state.over ? null : sheetsCard(state),
    roundsCard(state),
    chartCard(state),
  );
}
