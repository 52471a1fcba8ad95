// Le Grand Jeu de la Vie's referee page for a score sheet (a newborn in three taps: player, GF, GM;
// abortions in one tap; the Queen's take; closing a round) and the "Qui a raison ?" panel that runs
// the engine's rule checks for table disputes, on the pieces of the table view (gjdlv.js). Loaded by
// the referee page only. A table whose rounds are played through (option mode "tracker") is drawn by
// gjdlv_play_referee.js, loaded with the first such table, with the parts exported here.
// Buttons from state.actions, the cards in play from state.deck, what each GM does to a GF from the
// engine's "fecundations" check, every word from the catalogue in the page's one language.
import { byId, fill, h } from "../ui.js";
import { has, t } from "../i18n.js";
import { actionsOf, checkAnswers, record } from "../actions.js";
import {
  cardName, chartCard, colorOf, face, gapTag, icon, isPicture, loaded, noteCard, pretty, rankOf, roundsCard, said, sheetsCard,
  signed, standingsCard, statusCard, suitOf, winnerBanner,
} from "./gjdlv.js";

const answerTo = checkAnswers();

// Cards (as the engine lists them, in deck order) grouped by suit: the numbers five to a row,
// then the pictures on a row of their own.
export function cardGrid(cards, button, attrs = {}) {
  const suits = [...new Set(cards.map(suitOf))];
  return h("div", { class: "gj-cards", ...attrs }, suits.map((suit) => {
    const ofSuit = cards.filter((card) => suitOf(card) === suit);
    const numbers = ofSuit.filter((card) => !isPicture(card));
    const pictures = ofSuit.filter(isPicture);
    return h("div", { class: "gj-suit-block", "data-suit": suit },
      numbers.length ? h("div", { class: "gj-grid" }, numbers.map(button)) : null,
      pictures.length ? h("div", { class: "gj-grid gj-faces" }, pictures.map(button)) : null);
  }));
}

// A card to tap, named by its content: the face's name ("As de cœur"), what is written under it, and
// the label for screen readers only. No aria-label of its own: the letter on the card ("A", "R")
// would not be part of it (WCAG 2.5.3, label in name).
export function cardButton(card, { onclick, disabled = false, pressed = null, sub = null, extraClass = "", label = null } = {}) {
  return h("button", {
    type: "button", class: `gj-card ${extraClass}`.trim(), "data-card": card, disabled,
    "aria-pressed": pressed === null ? null : String(pressed), onclick,
  }, face(card), sub !== null ? h("small", { class: "gj-sub" }, sub) : null,
  label ? h("span", { class: "gj-sr" }, ` (${label})`) : null);
}

// --- referee ------------------------------------------------------------------------------------

// What the referee has tapped but not sent yet; kept across redraws, dropped when the round changes.
const draft = { key: null, player: null, gf: null, confirm: false, qaOpen: false, qa: null };

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
    winnerBanner(state),
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

// The Queen's take, as the engine lists it: one button per opponent whose most recent newborn she
// may take now (the take is the very next event after her birth; the note says so).
export function queenCards(state, players, ctx) {
  const takes = actionsOf(state, "steal_newborn");
  const thieves = [...new Set(takes.map((action) => action.player))];
  return thieves.map((thief) =>
    h("section", { class: "card gj-queen", "data-queen": thief },
      h("h2", {}, icon("👑"), " ", h("span", {}, t("ui.gjdlv.royal_of", { name: players[thief].name, royal: t("gjdlv.royal.Q") })), " ",
        h("small", {}, t("ui.gjdlv.queen_take"))),
      h("div", { class: "gj-steal" }, takes.filter((action) => action.player === thief).map((action) => {
        const victim = players[action.from];
        const last = victim.newborns.at(-1);
        return h("button", { type: "button", class: "gj-target", "data-action": "steal", "data-player": thief, "data-from": victim.id,
          onclick: () => record(ctx, action) },
          h("span", { class: "player-name" }, victim.name),
          last ? h("span", { class: "gj-pair" }, face(last.gf), h("span", { class: "gj-x" }, "×"), face(last.gm), " ", h("small", {}, t("ui.gjdlv.points", { points: last.points }))) : null);
      }))));
}

// Closing a round: on the score sheet, where closing is always listed, a tap asks to confirm it
// over the round's scores; a round played through is listed as closable only once it has ended,
// so its scores are shown at once with the one button that closes it.
export function closeCard(state, ctx) {
  const action = actionsOf(state, "close_round")[0];
  if (!action) return null;
  const last = state.last_round;
  const label = t(last ? "ui.gjdlv.close_last" : "ui.gjdlv.close_round", { round: state.round, rounds: state.rounds });
  const played = Boolean(state.play);
  if (!draft.confirm && !played) {
    return h("section", { class: "card", id: "close-round" },
      h("button", { type: "button", class: "big-button", "data-action": "close-round", onclick: () => { draft.confirm = true; ctx.render(); } },
        icon("✓"), " ", h("span", {}, label)));
  }
  const close = async () => { if (await record(ctx, action)) draft.confirm = false; };
  return h("section", { class: "card gj-confirm", id: "close-round" },
    played ? null : h("h2", {}, t("ui.gjdlv.close_confirm", { label })), // the turn bar says the round is over
    h("table", { class: "sheet-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("ui.gjdlv.round")), h("th", {}, t("ui.gjdlv.total")))),
      h("tbody", {}, state.players.map((p) => h("tr", { "data-confirm": p.id },
        h("td", {}, p.name), h("td", {}, h("strong", {}, signed(p.round_score))), h("td", {}, p.projected_total))))),
    last ? said("p", { class: "hint", "data-rule": "gjdlv.game_ends" }, "gjdlv.game_ends") : null,
    played
      ? h("button", { type: "button", class: "primary gj-go", "data-action": "close-round", onclick: close }, icon("✓"), " ", h("span", {}, label))
      : h("div", { class: "gj-two" },
        h("button", { type: "button", class: "secondary", "data-action": "cancel-close", onclick: () => { draft.confirm = false; ctx.render(); } }, t("ui.gjdlv.resume")),
        h("button", { type: "button", class: "primary", "data-action": "confirm-close", onclick: close }, t("ui.gjdlv.confirm"))));
}

// --- "Qui a raison ?": the engine's checks for table disputes ---------------------------------

// Each check's slots: [field, the cards it offers, the catalogue key of its label]. The tab, the
// question and the labels are worded by `ui.gjdlv.qa.*`.
const CHECKS = {
  fecundate: [["gf", "gf", "gf"], ["gm", "gm", "gm"]],
  surrogate: [["gf", "gf", "embryo_gf"], ["gm", "gm", "embryo_gm"], ["new_gm", "gm", "new_gm"]],
  abortion: [["gm", "gm", "fecundating_gm"], ["answer", "gm", "played_card"]],
  ejaculation: [["gf", "gf", "gf"]],
  bonus: [["card", "imperial", "bonus_card"]],
};
// The cards a slot offers: the table's GF or GM (state.deck), or its imperials (the black pictures).
function slotCards(state, kind) {
  return kind === "imperial" ? state.deck.gm.filter(isPicture) : state.deck[kind];
}
const AGAINST = ["abortion", "surrogacy", "fecundation"];

function qaState() {
  if (!draft.qa) draft.qa = { check: "fecundate", cards: {}, active: "gf", against: null, answer: null, asked: null };
  return draft.qa;
}

// [field, cards, label, optional]: a contest adds one optional GM per player, labelled by their name.
function slotsOf(state, name) {
  const slots = CHECKS[name].map(([key, kind, label]) => [key, kind, t(`ui.gjdlv.qa.slot.${label}`)]);
  if (name !== "ejaculation") return slots;
  return [...slots, ...state.players.map((p) => [`gms.${p.id}`, "gm", p.name, true])];
}

function qaRequest(state, qa) {
  const slots = slotsOf(state, qa.check);
  if (slots.some(([key, , , optional]) => !optional && !qa.cards[key])) return null;
  if (qa.check === "bonus") return qa.against ? { card: qa.cards.card, against: qa.against } : null;
  if (qa.check === "ejaculation") {
    const gms = {};
    for (const p of state.players) if (qa.cards[`gms.${p.id}`]) gms[p.id] = qa.cards[`gms.${p.id}`];
    return { gf: qa.cards.gf, gms };
  }
  return Object.fromEntries(slots.map(([key]) => [key, qa.cards[key]]));
}

async function ask(state, ctx) {
  const qa = qaState();
  const params = qaRequest(state, qa);
  if (!params) { qa.answer = null; ctx.render(); return; }
  const key = JSON.stringify([qa.check, params]);
  qa.asked = key;
  let answer;
  try {
    answer = await ctx.check(qa.check, params);
    // Worded here, in the page's language, from the code and the answer's own fields.
    answer = { ...answer, text: t(answer.code, { ...answer, ...answer.params }) };
  } catch (err) {
    const code = err.code ?? err.message;
    answer = { ok: false, code, text: has(code) ? t(code, err.params ?? {}) : err.message, refused: true };
  }
  if (qa.asked !== key) return; // a later question was asked meanwhile
  qa.answer = answer;
  ctx.render();
}

export function quiARaison(state, players, ctx) {
  const qa = qaState();
  const slots = slotsOf(state, qa.check);
  const activeSlot = slots.find(([key]) => key === qa.active);
  const choose = (card) => {
    if (card) qa.cards[qa.active] = card;
    const empty = slots.find(([key, , , optional]) => !qa.cards[key] && !optional);
    const index = slots.findIndex(([key]) => key === qa.active);
    // Next empty required slot; in a contest, the next player's GM; else close the grid.
    qa.active = empty ? empty[0] : qa.check === "ejaculation" && index + 1 < slots.length ? slots[index + 1][0] : null;
    qa.answer = null;
    ctx.render();
    if (qa.check !== "ejaculation") ask(state, ctx);
  };
  let grid = null;
  if (activeSlot) {
    const [key, kind] = activeSlot;
    const optional = activeSlot[3];
    grid = h("div", { class: "gj-qa-grid" },
      h("p", { class: "hint" }, t(kind === "gf" ? "ui.gjdlv.qa.touch_red" : "ui.gjdlv.qa.touch_black", { slot: activeSlot[2] })),
      optional ? h("button", { type: "button", class: "secondary gj-none", "data-action": "no-gm", onclick: () => {
        delete qa.cards[key];
        choose(null);
      } }, t("ui.gjdlv.qa.no_ejaculation", { name: activeSlot[2] })) : null,
      cardGrid(slotCards(state, kind), (card) => cardButton(card, { pressed: qa.cards[key] === card, onclick: () => choose(card) }), { "data-grid": `qa-${key}` }));
  }
  const answer = qa.answer;
  return h("details", { class: "card gj-qa", id: "qui-a-raison", open: draft.qaOpen || null,
    ontoggle: (e) => { draft.qaOpen = e.target.open; } },
    h("summary", {}, t("ui.gjdlv.qa.title")),
    // Imperial bonuses are black pictures: no tab when the table's deck has none.
    h("div", { class: "gj-tabs", role: "group", "aria-label": t("ui.gjdlv.qa.question") }, Object.keys(CHECKS)
      .filter((name) => name !== "bonus" || slotCards(state, "imperial").length).map((name) =>
      h("button", { type: "button", "data-check": name, "aria-pressed": String(qa.check === name),
        onclick: () => {
          const keep = { gf: qa.cards.gf };
          Object.assign(qa, { check: name, cards: name === "abortion" || name === "bonus" ? {} : keep, answer: null, asked: null, against: null });
          qa.active = slotsOf(state, name).find(([key]) => !qa.cards[key])?.[0] ?? null;
          ctx.render();
          if (qaRequest(state, qa) && name !== "ejaculation") ask(state, ctx);
        } }, t(`ui.gjdlv.qa.tab.${name}`)))),
    h("p", { class: "gj-question" }, t(`ui.gjdlv.qa.ask.${qa.check}`)),
    h("div", { class: "gj-slots" }, slots.map(([key, , label, optional]) =>
      h("button", { type: "button", class: "gj-slot", "data-slot": key, "aria-pressed": String(qa.active === key),
        onclick: () => { qa.active = qa.active === key ? null : key; ctx.render(); } },
        h("small", {}, label), qa.cards[key] ? face(qa.cards[key]) : h("span", { class: "gj-empty-slot" }, optional ? "—" : "?")))),
    qa.check === "bonus" ? h("div", { class: "gj-tabs gj-against", role: "group", "aria-label": t("ui.gjdlv.qa.against") },
      h("span", { class: "hint" }, t("ui.gjdlv.qa.against")),
      AGAINST.map((value) => h("button", { type: "button", "data-against": value, "aria-pressed": String(qa.against === value),
        onclick: () => { qa.against = value; qa.answer = null; ctx.render(); ask(state, ctx); } }, t(`ui.gjdlv.qa.against.${value}`)))) : null,
    grid,
    qa.check === "ejaculation" ? h("button", { type: "button", class: "primary", "data-action": "run-check",
      disabled: !qa.cards.gf, onclick: () => { qa.active = null; ask(state, ctx); } }, t("ui.gjdlv.qa.who_wins")) : null,
    answer ? h("div", { class: `gj-answer ${answer.ok ? "yes" : "no"}`, "data-answer": answer.code, "data-ok": String(Boolean(answer.ok)), role: "status" },
      h("span", { class: "gj-verdict", "aria-hidden": "true" }, answer.ok ? "✔" : "✘"),
      h("p", { class: "gj-answer-text" }, pretty(answer.text, players))) : null);
}
