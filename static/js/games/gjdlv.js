// Le Grand Jeu de la Vie: the referee's round sheet (a newborn in three taps: player, GF, GM;
// abortions in one tap; the Queen's take; closing a round), the "Qui a raison ?" panel that runs the
// engine's rule checks for table disputes, and the table view (standings, this round's sheet, every
// closed round, a chart of totals round by round, the winners). A table whose rounds are played
// through card by card (option mode "tracker") is drawn by gjdlv_play.js, with the parts exported here.
// Drawn from the engine's view alone: the cards in play from state.deck, buttons from state.actions,
// numbers from the view, what each GM does to a GF from the engine's "fecundations" check, and every
// word from the catalogue in the page's one language (the interface's `ui.gjdlv.*`, the engine's codes).
// Cards use the engine's notation (rank then suit: "4H", "10S", "QD") in data-card attributes; they are
// shown with the page's letters for the pictures (R D V in French, K Q J in English) and the suit
// symbols in colour; screen readers hear their names ("Roi de cœur", "King of hearts").
import { byId, fill, h } from "../ui.js";
import { has, t } from "../i18n.js";
import { actionsOf, checkAnswers, record } from "../actions.js";
import { trackerReferee, trackerView } from "./gjdlv_play.js";

const SUIT_SYMBOL = { S: "♠", C: "♣", H: "♥", D: "♦" };
const INK = { S: "black", C: "black", H: "red", D: "red" };
// The ranks the catalogue words (letter and name); the numbers are shown as they are.
const WORDED = new Set(["A", "J", "Q", "K"]);
const PICTURES = new Set(["J", "Q", "K"]);
// One colour and one dash per seat: lines that cross or overlap stay apart in the chart.
const COLORS = ["#ffb347", "#5fd38d", "#6fb6ff", "#ff7eb6", "#c59bff", "#f0e16a"];
const DASHES = ["", "7 4", "2 4", "10 4 2 4", "4 3", "1 3"];

const rankOf = (card) => card.slice(0, -1);
const suitOf = (card) => card.slice(-1);
// Layout only: the picture cards (Jack, Queen, King) get a row of their own under the numbers.
const isPicture = (card) => PICTURES.has(rankOf(card));
export const colorOf = (state, pid) => COLORS[state.players.findIndex((p) => p.id === pid) % COLORS.length];
const dashOf = (state, pid) => DASHES[state.players.findIndex((p) => p.id === pid) % DASHES.length];
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

// --- the engine's words and actions ------------------------------------------------------------

// The catalogue key for a count: none, one or many (a wording choice, not a rule).
export function counted(key, count) {
  return `${key}_${count === 0 ? "none" : count === 1 ? "one" : "many"}`;
}

// An emoji before a sentence, kept out of the sentence's text.
export function icon(symbol) {
  return h("span", { class: "gj-icon", "aria-hidden": "true" }, symbol);
}

// A catalogue sentence (an engine code or an interface key), whole, with its cards and players
// written out.
export function said(tag, attrs, code, params = {}, players = {}) {
  return h(tag, attrs, pretty(t(code, params), players));
}

// "Label value": the label one catalogue string, the value data in its own element.
export function fact(key, value, attrs = {}) {
  return h("span", attrs, h("span", { class: "gj-label-text" }, t(key)), " ", value);
}

// The EG (or CC) of a newborn, an embryo or a GM under a GF.
export function gapTag({ cc, eg }) {
  return cc ? t("ui.gjdlv.cc") : eg === null || eg === undefined ? null : t("ui.gjdlv.eg", { eg });
}

const answerTo = checkAnswers();

// --- cards ---------------------------------------------------------------------------------------

// The rank as the page's language writes it on a card: R D V or K Q J for the pictures.
function rankLetter(rank) {
  return WORDED.has(rank) ? t(`ui.gjdlv.rank_letter.${rank}`) : rank;
}

export function cardName(card) {
  const rank = rankOf(card);
  return t("ui.gjdlv.card_name", { rank: WORDED.has(rank) ? t(`ui.gjdlv.rank_name.${rank}`) : rank,
    suit: t(`ui.gjdlv.suit_name.${suitOf(card)}`) });
}

// A card as the table sees it: the rank, then the suit symbol in its colour.
export function face(card) {
  const suit = suitOf(card);
  return h("span", { class: "gj-face", role: "img", "aria-label": cardName(card), "data-face": card },
    h("span", { class: "gj-rank", "aria-hidden": "true" }, rankLetter(rankOf(card))),
    h("span", { class: `gj-suit ${INK[suit]}`, "aria-hidden": "true" }, SUIT_SYMBOL[suit]));
}

// Card codes inside the engine's sentences ("4S", "QD") written with the page's letters and their
// suit symbols, and player ids ("p3", in a contest's answer) with their names.
export function pretty(text, players = {}) {
  return String(text)
    .replace(/\b(10|[A2-9JQK])([SCHD])\b/g, (_, rank, suit) => `${rankLetter(rank)}${SUIT_SYMBOL[suit]}`)
    .replace(/\bp\d+\b/g, (id) => players[id]?.name ?? id);
}

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

export function cardButton(card, { onclick, disabled = false, pressed = null, sub = null, extraClass = "", label = null } = {}) {
  return h("button", {
    type: "button", class: `gj-card ${extraClass}`.trim(), "data-card": card, disabled,
    "aria-pressed": pressed === null ? null : String(pressed),
    "aria-label": `${cardName(card)}${label ? ` (${label})` : ""}`, onclick,
  }, face(card), sub !== null ? h("small", { class: "gj-sub" }, sub) : null);
}

// --- the round sheet (referee and table view) ---------------------------------------------------

function newbornRow(row) {
  const tag = row.name ? t(row.name) : gapTag(row);
  return h("li", { class: `gj-newborn${row.cc ? " cc" : ""}${row.royal ? " royal" : ""}`, "data-newborn": `${row.gf}-${row.gm}` },
    h("span", { class: "gj-pair" }, face(row.gf), h("span", { class: "gj-x", "aria-hidden": "true" }, "×"), face(row.gm)),
    h("span", { class: "gj-tag" }, tag),
    h("span", { class: "gj-points", "data-points": row.points }, row.points));
}

// The consanguinity malus where it bites: next to the CC newborns, worded by the engine.
function ccLine(p) {
  if (!p.cc_line) return null;
  return h("li", { class: `gj-cc${p.cc_malus < 0 ? " bites" : ""}`, "data-cc": p.cc }, said("span", {}, p.cc_line.code, p.cc_line.params));
}

function formolLine(p) {
  if (!p.formol_line) return null;
  return h("li", { class: "gj-formol", "data-formol": p.formol },
    h("span", {}, icon("🧪"), " ", h("span", {}, t(p.formol_line.code, p.formol_line.params))),
    h("span", { class: "gj-points" }, p.formol));
}

// `seat`, for a round played through: what the player has on the table now (tracker module).
function sheet(state, p, seat = null) {
  const first = !state.over && p.id === state.first_player;
  return h("article", { class: "gj-sheet", "data-sheet": p.id, style: `--pc:${colorOf(state, p.id)}` },
    h("header", { class: "gj-sheet-head" },
      h("span", { class: "gj-dot", "aria-hidden": "true" }),
      h("span", { class: "player-name" }, p.name),
      first ? h("span", { class: "pill first" }, t("ui.gjdlv.starts")) : null,
      h("span", { class: "gj-round-score", "data-round-score": p.id, role: "img",
        "aria-label": t("ui.gjdlv.round_score_label", { points: p.round_score }) }, p.round_score),
    ),
    seat ? seat(p) : null,
    p.newborns.length || p.formol_line ? h("ul", { class: "gj-rows" }, p.newborns.map(newbornRow), ccLine(p), formolLine(p))
      : h("p", { class: "hint gj-empty" }, t("ui.gjdlv.nothing_yet")),
    h("footer", { class: "gj-sheet-foot" },
      h("span", {}, t(p.round_line.code, p.round_line.params)),
      fact("ui.gjdlv.total", h("strong", {}, p.total), { class: "muted" })));
}

export function sheetsCard(state, title = true, seat = null) {
  return h("section", { class: "card gj-round", id: "round-sheet" },
    title ? h("h2", {}, t("ui.gjdlv.round_of", { round: state.round, rounds: state.rounds })) : null,
    h("div", { class: "gj-sheets" }, state.players.map((p) => sheet(state, p, seat))));
}

// --- shared header parts ------------------------------------------------------------------------

export function winnerBanner(state) {
  if (!state.outcome) return null;
  return h("section", { class: "card winner", "data-winners": state.winners.join(",") },
    icon("🏆"), " ", h("span", { class: "winner-text" }, t(state.outcome.reason, state.outcome.params)));
}

// The engine's notes (the table's size, the Queen's take, the last lap).
export function noteCard(state) {
  if (!state.notes.length) return null;
  const players = byId(state);
  return h("section", { class: "card gj-note", id: "notes" },
    state.notes.map(({ code, params }) => said("p", { class: "gj-note-line", "data-note": code }, code, params, players)));
}

// "Round 3 / 9": the label a catalogue string, the numbers data.
export function roundFact(state) {
  return h("span", {}, h("span", { class: "gj-label-text" }, t("ui.gjdlv.round")), " ",
    h("strong", { "data-round": state.round }, state.round), h("span", {}, ` / ${state.rounds}`));
}

function statusCard(state, players) {
  if (state.over) return null;
  return h("section", { class: "card" },
    h("div", { class: "status-line" },
      roundFact(state),
      fact("ui.gjdlv.first", h("strong", { "data-first": state.first_player }, players[state.first_player].name)),
      h("span", { class: "pill", "data-rules": state.rules }, t(`ui.gjdlv.rules.${state.rules}`))));
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

export function referee(root, state, ctx) {
  const players = byId(state);
  resetOnNewRound(state);
  // A table whose rounds are played through (once the game is over, its sheet is all there is).
  if (state.play) return trackerReferee(root, state, ctx);
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
    h("h2", {}, h("span", {}, t("ui.gjdlv.abortion")), " ", h("small", {}, t("gjdlv.abortion_hint", { per_abortion: state.per_abortion }))),
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

export function closeCard(state, ctx) {
  const action = actionsOf(state, "close_round")[0];
  if (!action) return null;
  const last = state.last_round;
  const label = t(last ? "ui.gjdlv.close_last" : "ui.gjdlv.close_round", { round: state.round, rounds: state.rounds });
  if (!draft.confirm) {
    return h("section", { class: "card", id: "close-round" },
      h("button", { type: "button", class: "big-button", "data-action": "close-round", onclick: () => { draft.confirm = true; ctx.render(); } },
        icon("✓"), " ", h("span", {}, label)));
  }
  return h("section", { class: "card gj-confirm", id: "close-round" },
    h("h2", {}, t("ui.gjdlv.close_confirm", { label })),
    h("table", { class: "sheet-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, t("ui.gjdlv.round")), h("th", {}, t("ui.gjdlv.total")))),
      h("tbody", {}, state.players.map((p) => h("tr", { "data-confirm": p.id },
        h("td", {}, p.name), h("td", {}, h("strong", {}, signed(p.round_score))), h("td", {}, p.projected_total))))),
    last ? said("p", { class: "hint", "data-rule": "gjdlv.game_ends" }, "gjdlv.game_ends") : null,
    h("div", { class: "gj-two" },
      h("button", { type: "button", class: "secondary", "data-action": "cancel-close", onclick: () => { draft.confirm = false; ctx.render(); } }, t("ui.gjdlv.resume")),
      h("button", { type: "button", class: "primary", "data-action": "confirm-close", onclick: async () => {
        if (await record(ctx, action)) draft.confirm = false;
      } }, t("ui.gjdlv.confirm"))));
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

// --- table view ---------------------------------------------------------------------------------

export function standingsCard(state) {
  const players = byId(state);
  return h("section", { class: "card", id: "standings" },
    h("h2", {}, t(state.over ? "ui.gjdlv.final_standings" : "ui.gjdlv.standings")),
    state.over ? null : h("p", { class: "hint" },
      t(counted("ui.gjdlv.after_rounds", state.rounds_closed), { count: state.rounds_closed, rounds: state.rounds })),
    h("ol", { class: "gj-standings" }, state.standings.map(({ player, rank, total }) => {
      const p = players[player];
      return h("li", { "data-standing": p.id, "data-rank": rank, style: `--pc:${colorOf(state, p.id)}`, class: state.winners.includes(p.id) ? "won" : null },
        h("span", { class: "gj-rank-n" }, state.winners.includes(p.id) ? "🏆" : `${rank}`),
        h("span", { class: "gj-dot", "aria-hidden": "true" }),
        h("span", { class: "player-name" }, p.name),
        !state.over && p.round_score ? h("small", { class: "gj-live" }, t("ui.gjdlv.live", { score: signed(p.round_score) })) : null,
        h("strong", { class: "gj-total", "data-total": p.id }, total));
    })));
}

export function roundsCard(state) {
  const closed = state.rounds_closed;
  if (!closed) return null;
  const rows = [];
  for (let r = 0; r < closed; r++) {
    rows.push(h("tr", { "data-closed-round": r + 1 }, h("th", { scope: "row" }, r + 1),
      state.players.map((p) => h("td", { "data-round-score": `${r + 1}/${p.id}` }, p.round_scores[r]))));
  }
  return h("section", { class: "card", id: "rounds" },
    h("h2", {}, t("ui.gjdlv.closed_rounds")),
    h("div", { class: "gj-scroll" }, h("table", { class: "sheet-table gj-rounds-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), state.players.map((p) =>
        h("th", { scope: "col", style: `--pc:${colorOf(state, p.id)}`, title: p.name },
          h("span", { class: "gj-dot", "aria-hidden": "true" }), h("span", { class: "gj-th-name" }, p.name))))),
      h("tbody", {}, rows),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Σ"), state.players.map((p) => h("td", { "data-sum": p.id }, h("strong", {}, p.total))))))));
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false && value !== "") el.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function niceStep(raw) {
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return [1, 2, 5, 10].map((m) => m * pow).find((step) => step >= raw);
}

// Totals round by round, one line per player, x = rounds (0 … the game's length), y = points.
export function chartCard(state) {
  const closed = state.rounds_closed;
  const series = state.players.map((p) => [0, ...p.running_totals]);
  const W = 340, H = 220, L = 36, R = 12, T = 12, B = 30;
  const values = series.flat();
  const step = niceStep((Math.max(20, ...values) - Math.min(0, ...values)) / 4);
  const top = Math.ceil(Math.max(20, ...values) / step) * step;
  const bottom = Math.floor(Math.min(0, ...values) / step) * step;
  const x = (r) => L + ((W - L - R) * r) / state.rounds;
  const y = (v) => T + ((H - T - B) * (top - v)) / (top - bottom);
  const grid = [];
  for (let v = bottom; v <= top; v += step) {
    grid.push(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: v === 0 ? "gj-axis" : "gj-gridline" }),
      svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "gj-tick" }, v));
  }
  for (let r = 0; r <= state.rounds; r++) {
    grid.push(svg("text", { x: x(r), y: H - 10, "text-anchor": "middle", class: `gj-tick${r <= closed ? "" : " later"}` }, r));
  }
  const label = t("ui.gjdlv.chart_label", { series: state.players.map((p, i) =>
    t("ui.gjdlv.chart_series", { name: p.name, totals: series[i].slice(1).join(", ") || "0" })).join(" ; ") });
  const lines = state.players.map((p, i) => svg("g", { "data-line": p.id, style: `--pc:${colorOf(state, p.id)}` },
    svg("polyline", { points: series[i].map((v, r) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
      class: "gj-line", "stroke-dasharray": dashOf(state, p.id) }),
    series[i].slice(1).map((v, r) => svg("circle", { cx: x(r + 1), cy: y(v), r: 3.5, class: "gj-point" }))));
  return h("section", { class: "card", id: "chart" },
    h("h2", {}, t("ui.gjdlv.totals")),
    h("figure", { class: "gj-chart" },
      svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "gj-svg" },
        svg("title", {}, label), grid, lines),
      h("figcaption", { class: "gj-legend" },
        h("span", { class: "muted" }, t("ui.gjdlv.rounds_axis")),
        state.players.map((p) => h("span", { class: "gj-key", "data-key": p.id, style: `--pc:${colorOf(state, p.id)}` },
          svg("svg", { viewBox: "0 0 28 8", width: 28, height: 8, "aria-hidden": "true" },
            svg("line", { x1: 1, x2: 27, y1: 4, y2: 4, class: "gj-line", "stroke-dasharray": dashOf(state, p.id) })),
          p.name)))));
}

export function view(root, state) {
  const players = byId(state);
  if (state.play) return trackerView(root, state);
  fill(root,
    winnerBanner(state),
    noteCard(state),
    statusCard(state, players),
    standingsCard(state),
    state.over ? null : sheetsCard(state),
    roundsCard(state),
    chartCard(state),
  );
}
