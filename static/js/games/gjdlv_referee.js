// Le Grand Jeu de la Vie's referee page for a score sheet (a newborn in three taps: player, GF, GM;
// abortions in one tap; the Queen's take; closing a round) and the "Qui a raison ?" panel, on the
// pieces of the table view (gjdlv_shared.js) and of every referee page (gjdlv_shared_referee.js).
// Loaded by the referee page only. A table whose rounds are played through (option mode "tracker")
// is drawn by gjdlv_play_referee.js, loaded with the first such table.
// Buttons from state.actions, the cards in play from state.deck, what each GM does to a GF from the
// engine's "fecundations" check, every word from the catalogue in the page's one language.
import { byId, fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { actionsOf, checkAnswers, record } from "../actions.js";
import { outcomeCard } from "../envelope.js";
import {
  cardName, chartCard, colorOf, face, gapTag, icon, noteCard, rankOf, roundsCard, sheetsCard, standingsCard,
} from "./gjdlv_shared.js";
import { loaded, statusCard } from "./gjdlv.js";
import { cardButton, cardGrid, closeCard, draft, queenCards, quiARaison } from "./gjdlv_shared_referee.js";

const answerTo = checkAnswers();

// --- referee ------------------------------------------------------------------------------------

function resetOnNewRound(state) {
  const key = `${state.round}/${state.over}`;
  if (draft.key !== key) {
    Object.assign(draft, { key, player: null, gf: null, confirm: false });
  }
  // A birth-giver the rules no longer list (the deck ran out, an undo) loses the picker's draft.
  if (draft.player && !actionsOf(state, "newborn", draft.player).length) Object.assign(draft, { player: null, gf: null });
  if (!actionsOf(state, "close_round").length) draft.confirm = false;
}

const TRACKER = () => import("./gjdlv_play_referee.js");

export function referee(root, state, ctx) {
  const players = byId(state);
  resetOnNewRound(state);
  // A table whose rounds are played through (once the game is over, its sheet is all there is).
  if (state.play) {
    const tracker = loaded(TRACKER, ctx.render);
    if (tracker) tracker.trackerReferee(root, state, ctx);
    return;
  }
  fill(root,
    outcomeCard(state),
    state.over ? h("p", { class: "hint center" }, t("ui.gjdlv.over_hint")) : null,
    noteCard(state),
    statusCard(state, players),
    queenCards(state, players, ctx),
    newbornPicker(state, players, ctx),
    abortionCard(state, ctx),
    state.over ? null : sheetsCard(state),
    closeCard(state, ctx),
    state.over ? standingsCard(state) : null,
    roundsCard(state),
    state.over ? chartCard(state) : null,
    quiARaison(state, players, ctx),
  );
}

// The GMs of the deck under the chosen GF, as the engine's "fecundations" check answers: only those
// that may fecundate it, each with its EG (or CC); the ones already recorded are greyed out.
function gmGrid(state, ctx, gf, send) {
  const answer = answerTo(ctx, state, "fecundations", { gf });
  if (answer === undefined) return h("p", { class: "hint gj-wait", "aria-busy": "true" }, "…");
  const used = new Set(state.used_cards);
  // With no answer (no engine, no network) every free GM is offered: the engine judges the birth.
  const rows = answer ? answer.gms.filter((row) => row.fecundates)
    : state.deck.gm.map((gm) => ({ gm, allowed: !used.has(gm), used: used.has(gm), eg: null, cc: false, points: null }));
  const byGm = Object.fromEntries(rows.map((row) => [row.gm, row]));
  return cardGrid(rows.map((row) => row.gm), (card) => {
    const row = byGm[card];
    const sub = gapTag(row);
    const label = row.used ? t("ui.gjdlv.already_recorded") : row.points !== null ? t("ui.gjdlv.points", { points: row.points }) : null;
    return cardButton(card, { disabled: !row.allowed, sub, label, extraClass: row.cc ? "cc" : "", onclick: () => send(card) });
  }, { "data-grid": "gm" });
}

function newbornPicker(state, players, ctx) {
  const births = actionsOf(state, "newborn");
  if (!births.length) return null;
  const used = new Set(state.used_cards);
  const { player, gf } = draft;
  const pick = (field, value) => { draft[field] = value; ctx.render(); };
  const send = (gm) => {
    const action = actionsOf(state, "newborn", draft.player)[0];
    const cards = { gf: draft.gf, gm };
    draft.player = null;
    draft.gf = null;
    ctx.render();
    record(ctx, action, cards);
  };
  let step;
  if (!player) {
    step = h("p", { class: "hint gj-step" }, t("ui.gjdlv.step.player"));
  } else if (!gf) {
    step = [
      h("p", { class: "hint gj-step" }, t("ui.gjdlv.step.gf")),
      cardGrid(state.deck.gf, (card) => {
        const royal = state.royal_points[rankOf(card)];
        return cardButton(card, {
          disabled: used.has(card), label: used.has(card) ? t("ui.gjdlv.already_recorded") : null,
          sub: royal === undefined ? null : t("ui.gjdlv.points", { points: royal }),
          onclick: () => pick("gf", card),
        });
      }, { "data-grid": "gf" }),
    ];
  } else {
    step = [
      h("p", { class: "hint gj-step" }, t("ui.gjdlv.step.gm")),
      gmGrid(state, ctx, gf, send),
    ];
  }
  return h("section", { class: "card gj-picker", id: "newborn-picker" },
    h("div", { class: "gj-picker-head" },
      h("h2", {}, t("ui.gjdlv.newborn")),
      h("div", { class: "gj-crumbs", "aria-live": "polite" },
        player ? h("button", { type: "button", class: "gj-crumb", "data-action": "change-player", style: `--pc:${colorOf(state, player)}`,
          "aria-label": t("ui.gjdlv.change_player", { name: players[player].name }), onclick: () => pick("player", null) },
          h("span", { class: "gj-dot", "aria-hidden": "true" }), players[player].name) : null,
        gf ? h("button", { type: "button", class: "gj-crumb gj-crumb-card", "data-action": "change-gf", "aria-label": t("ui.gjdlv.change_gf", { card: cardName(gf) }),
          onclick: () => pick("gf", null) }, face(gf)) : null,
        player ? h("button", { type: "button", class: "secondary gj-clear", "data-action": "clear-newborn", "aria-label": t("ui.gjdlv.clear"),
          onclick: () => { draft.player = null; draft.gf = null; ctx.render(); } }, "✕") : null)),
    step,
    player ? null : h("div", { class: "gj-chips", role: "group", "aria-label": t("ui.gjdlv.player") }, births.map((action) =>
      h("button", { type: "button", class: "gj-chip", "data-player": action.player, "data-pick": "player",
        style: `--pc:${colorOf(state, action.player)}`, onclick: () => pick("player", action.player) }, players[action.player].name))));
}

function abortionCard(state, ctx) {
  const listed = actionsOf(state, "abortion");
  if (!listed.length) return null;
  const players = byId(state);
  return h("section", { class: "card", id: "abortions" },
    h("h2", {}, h("span", {}, t("ui.gjdlv.qa.tab.abortion")), " ", h("small", {}, t("gjdlv.abortion_hint", { per_abortion: state.per_abortion }))),
    h("div", { class: "gj-chips" }, listed.map((action) => {
      const p = players[action.player];
      return h("button", { type: "button", class: "gj-chip", "data-action": "abortion", "data-player": p.id,
        // The accessible name starts with the visible text (the name, the count), then what the tap does.
        style: `--pc:${colorOf(state, p.id)}`,
        "aria-label": p.abortions ? t("ui.gjdlv.abortion_by_count", { name: p.name, count: p.abortions })
          : t("ui.gjdlv.abortion_by", { name: p.name }),
        onclick: () => record(ctx, action) },
        icon("🧪"), " ", p.name, p.abortions ? [" ", h("span", { class: "gj-badge" }, `×${p.abortions}`)] : null);
    })));
}
