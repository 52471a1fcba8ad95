// Le Grand Jeu de la Vie's referee pieces that both kinds of table share (a score sheet's page,
// gjdlv_referee.js, and a round played through, gjdlv_play_referee.js and a player's own
// gjdlv_player_play.js): the cards to tap, the Queen's take, closing a round, and the "Qui a raison ?"
// panel that runs the engine's rule checks for table disputes. Loaded by the referee's and the
// players' pages only (named `*_referee.js`, as tests/test_i18n_pages.py keeps such modules out of a
// table view's). Every word from the catalogue in the page's one language.
import { h } from "../ui.js";
import { has, t } from "../i18n.js";
import { actionsOf, record } from "../actions.js";
import { face, icon, isPicture, pretty, said, signed, suitOf } from "./gjdlv_shared.js";

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

// What the referee has tapped but not sent yet; kept across redraws, dropped when the round changes
// (gjdlv_referee.js: the newborn picker's player and GF; here: closing's confirmation, the panel).
export const draft = { key: null, player: null, gf: null, confirm: false, qaOpen: false, qa: null };

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
