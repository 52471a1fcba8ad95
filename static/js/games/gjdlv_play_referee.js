// Le Grand Jeu de la Vie, a round played through card by card (table option mode "tracker"): the
// referee's page, on the pieces of its table view (gjdlv_play.js). Loaded by the referee page of a
// table played through only (gjdlv_referee.js `referee`).
// The turn bar stays at the top; under it the play of the moment — the deal picker, the cards of the
// turn's play with its other moves as buttons under them, the held-back contest sheet —, the answers
// (abortions, imperial bonuses) for as long as the engine lists them, the royal births' take or
// removal, closing the round, then the table. Undo is the page shell's dock.
// A tap that carries no information is never asked: a play is sent by the tap on its card (the
// ovulation, a fecundation, the deal's last GM, an abortion with a single card), and a phase 0 with
// nothing to choose is made by the ovulation the engine lists beside it.
// Everything comes from the engine's view: the buttons from state.actions, the cards each offers from
// state.play.choices (only the cards still possible that make the play legal), numbers and EG from
// state.play and the sheet, every word from the catalogue in the page's one language. Nothing here
// decides a rule: the engine judges every tap again, and the shell shows its refusals.
import { byId, fill, h } from "../ui.js";
import { isolate, t } from "../i18n.js";
import { checkAnswers, record } from "../actions.js";
import { colorOf, counted, face, gapTag, icon, noteCard, pretty, roundsCard, sheetsCard } from "./gjdlv_shared.js";
import { cardButton, cardGrid, closeCard, queenCards, quiARaison } from "./gjdlv_shared_referee.js";
import { pair, pilesCard, pinUnderBar, seatOf, seatPart, turnBar } from "./gjdlv_play.js";

// Events drawn somewhere else than among the active player's moves.
const ANSWERS = new Set(["abort", "cancel"]);
const ASIDE = new Set([...ANSWERS, "remove_embryo", "steal_newborn", "close_round"]);

// An action's identity, whatever the order of its keys.
const keyOf = (action) => JSON.stringify(Object.entries(action).sort(([a], [b]) => (a < b ? -1 : 1)));
const choiceOf = (state, action) => state.play.choices.find((choice) => keyOf(choice.action) === keyOf(action));

// The EG (or CC) each GM would make with a GF, as the engine's "fecundations" check answers it:
// written under the cards of a fecundation, a surrogacy, a contest. Nothing until it has answered.
const answerTo = checkAnswers();
const contestAnswer = (ctx, state, params) => answerTo(ctx, state, "ejaculation", params);
function gapsWith(state, ctx, gf) {
  const answer = gf ? answerTo(ctx, state, "fecundations", { gf }) : null;
  if (!answer) return {};
  return Object.fromEntries(answer.gms.map((row) => [row.gm, { label: gapTag(row), cc: row.cc }]));
}

// --- what the referee has tapped but not sent yet ---------------------------------------------------

const draft = { moment: null, pick: null, answer: null, deal: [], ejac: {} };

// A draft lives as long as the moment it was made for: a new phase, turn or GF drops it, and so
// does a play the engine no longer lists (a co-referee's tap, an undo).
export function syncDraft(state) {
  const play = state.play;
  const moment = JSON.stringify([state.round, play.phase, play.active, play.gf]);
  if (draft.moment !== moment) Object.assign(draft, { moment, pick: null, answer: null, deal: [], ejac: {} });
  const listed = new Set(state.actions.map(keyOf));
  if (draft.pick && !listed.has(draft.pick)) draft.pick = null;
  if (draft.answer && !listed.has(draft.answer)) draft.answer = null;
}

// Sends a play as the engine listed it; the draft goes once the phone has accepted it.
async function play(ctx, action, supplied = {}) {
  const ok = await record(ctx, action, supplied);
  if (ok) {
    Object.assign(draft, { pick: null, answer: null, deal: [], ejac: {} });
    ctx.render();
  }
  return ok;
}

// --- referee: the play of the moment ------------------------------------------------------------------

function moveLabel(state, players, action) {
  const seat = action.from ? seatOf(state, action.from) : seatOf(state, action.player);
  const words = (key, params) => [h("span", {}, t(`ui.gjdlv.move.${key}`, params)), " ",
    h("small", { class: "gj-block" }, t(`ui.gjdlv.move.${key}.what`))];
  switch (action.type) {
    case "birth":
      return [icon("👶"), " ", words("birth"), seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm) : null];
    case "ovulate":
      return [icon("🥚"), " ", words("ovulate")];
    case "fecundate":
      return [icon("💞"), " ", words("fecundate"), state.play.gf ? face(state.play.gf) : null];
    case "surrogate":
      return [icon("🔁"), " ", words("surrogate", { name: players[action.from].name }),
        seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm) : null];
    case "hold":
      return [icon("✋"), " ", words("hold")];
    case "pass":
      return [icon("➡"), " ", words("pass")];
    default:
      return [action.type];
  }
}

// What a waiting phase 0 does, shown above the ovulation recorded in its place: the embryo born, or
// (begun in the last lap) not.
function phase0Context(state) {
  const embryo = seatOf(state, state.play.active)?.uterus;
  if (state.play.phase !== "birth" || !embryo) return null;
  return [h("span", { class: "muted" }, t(embryo.comes_to_term ? "ui.gjdlv.is_born" : "ui.gjdlv.doomed")), " ",
    pair(embryo.gf, embryo.gm)];
}

// The picker's question for a play whose card the table supplies.
function pickTitle(state, players, action) {
  const name = players[action.player]?.name;
  switch (action.type) {
    case "birth": case "ovulate": case "fecundate":
      return t(`ui.gjdlv.pick.${action.type}`, { name });
    case "surrogate":
      return t("ui.gjdlv.pick.surrogate", { name, victim: players[action.from].name });
    default:
      return action.type;
  }
}

// A play's cards: a tap on one sends it. ``others``: the turn's other moves, as buttons under them.
function pickerCard(state, players, ctx, action, choice, { closable = false, others = [] } = {}) {
  const seat = action.from ? seatOf(state, action.from) : seatOf(state, action.player);
  const context = action.type === "surrogate" && seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm)
    : action.type === "fecundate" && state.play.gf ? face(state.play.gf)
      : action.type === "birth" && seat?.uterus ? [h("span", { class: "muted" }, t("ui.gjdlv.is_born")), " ", pair(seat.uterus.gf, seat.uterus.gm)]
        : action.type === "ovulate" ? phase0Context(state) : null;
  const gf = action.type === "surrogate" ? seat?.uterus?.gf : action.type === "fecundate" ? state.play.gf : null;
  const gaps = gapsWith(state, ctx, gf);
  return h("section", { class: "card gj-play gj-picker", id: "play", "data-picking": action.type },
    h("div", { class: "gj-picker-head" },
      h("h2", {}, pickTitle(state, players, action)),
      context ? h("span", { class: "gj-context" }, context) : null,
      closable ? h("button", { type: "button", class: "secondary gj-clear", "data-action": "back", "aria-label": t("ui.gjdlv.back_to_moves"),
        onclick: () => { draft.pick = null; ctx.render(); } }, "✕") : null),
    cardGrid(choice.cards, (card) => cardButton(card, { sub: gaps[card]?.label ?? null, extraClass: gaps[card]?.cc ? "cc" : "",
      onclick: () => play(ctx, action, { [choice.field]: card }) }), { "data-grid": action.type }),
    others.length ? moveButtons(state, players, ctx, others, "gj-moves gj-more") : null);
}

// Moves as buttons: one without a card is sent at once, one with cards opens its picker.
function moveButtons(state, players, ctx, moves, className = "gj-moves") {
  return h("div", { class: className }, moves.map((action) => {
    const choice = choiceOf(state, action);
    return h("button", { type: "button", class: "gj-move", "data-action": action.type, "data-player": action.player,
      "data-from": action.from ?? null,
      onclick: () => {
        if (choice?.field) { draft.pick = keyOf(action); ctx.render(); } else play(ctx, action);
      } }, moveLabel(state, players, action));
  }));
}

// The play whose cards are offered at once: the ovulation (which makes a phase 0 with nothing to
// choose, when the engine lists it beside that birth), else the first listed play with cards that
// names nobody else (a fecundation, the held GM at birth); a surrogacy first asks whose embryo.
function primaryOf(state, moves) {
  return moves.find((action) => action.type === "ovulate")
    ?? moves.find((action) => choiceOf(state, action)?.field && !action.from);
}

export function playCard(state, players, ctx) {
  const moves = state.actions.filter((action) => !ASIDE.has(action.type));
  if (!moves.length) return null;
  const first = moves[0];
  if (first.type === "deal") return dealCard(state, ctx, first, choiceOf(state, first));
  if (first.type === "ejaculate") return ejaculationCard(state, players, ctx, first, choiceOf(state, first));
  const picked = moves.find((action) => keyOf(action) === draft.pick);
  if (picked) return pickerCard(state, players, ctx, picked, choiceOf(state, picked), { closable: true });
  const primary = primaryOf(state, moves);
  if (!primary) return h("section", { class: "card gj-play", id: "play" }, moveButtons(state, players, ctx, moves));
  // The birth the ovulation makes is not a move of its own.
  const others = moves.filter((action) => action !== primary && !(primary.type === "ovulate" && action.type === "birth"));
  return pickerCard(state, players, ctx, primary, choiceOf(state, primary), { others });
}

// The deal: the GM left face up for the Mouchoir, exactly as many as the engine says.
function dealCard(state, ctx, action, choice) {
  const { per_player: per, mouchoir: count } = state.play.deal;
  const cards = choice?.cards ?? [];
  draft.deal = draft.deal.filter((card) => cards.includes(card));
  // The last GM tapped sends the deal: the cards are all the information there is.
  const toggle = (card) => {
    draft.deal = draft.deal.includes(card) ? draft.deal.filter((c) => c !== card) : [...draft.deal, card];
    if (draft.deal.length === count) play(ctx, action, { mouchoir: [...draft.deal] });
    else ctx.render();
  };
  return h("section", { class: "card gj-play", id: "deal-picker" },
    h("h2", {}, t("ui.gjdlv.phase.deal")),
    h("p", { class: "hint" }, t(counted("ui.gjdlv.deal_hint", count), { per, count })),
    count ? [
      h("p", { class: "gj-chosen", "data-chosen": draft.deal.length, "aria-live": "polite" },
        t("ui.gjdlv.deal_chosen", { chosen: draft.deal.length, count })),
      cardGrid(cards, (card) => cardButton(card, { pressed: draft.deal.includes(card), onclick: () => toggle(card) }),
        { "data-grid": "deal" }),
    ] : h("button", { type: "button", class: "primary gj-go", "data-action": "deal", onclick: () => play(ctx, action, { mouchoir: [] }) },
      icon("🃏"), " ", h("span", {}, t("ui.gjdlv.deal"))));
}

// Phase 3: for each player holding a GM back, whether they ejaculate and with which card; one send.
function ejaculationCard(state, players, ctx, action, choice) {
  const may = choice?.cards ?? {};
  const holders = Object.keys(may);
  for (const pid of Object.keys(draft.ejac)) if (!may[pid]?.includes(draft.ejac[pid])) delete draft.ejac[pid];
  const gms = Object.fromEntries(holders.filter((pid) => draft.ejac[pid]).map((pid) => [pid, draft.ejac[pid]]));
  const who = Object.keys(gms).map((pid) => isolate(players[pid].name)).join(", ");
  const gaps = gapsWith(state, ctx, state.play.gf);
  // The holders who answered from their own phones: their GM (or none) counts as given.
  const answered = Object.entries(state.play.contest || {});
  const all = { ...Object.fromEntries(answered.filter(([, gm]) => gm)), ...gms };
  // Who wins, as the engine's contest check answers for the GMs chosen: before it is confirmed.
  const verdict = Object.keys(all).length ? contestAnswer(ctx, state, { gf: state.play.gf, gms: all }) : null;
  return h("section", { class: "card gj-play gj-ejac", id: "ejaculation" },
    h("h2", {}, h("span", {}, t("ui.gjdlv.contest")), " ", state.play.gf ? face(state.play.gf) : null),
    h("p", { class: "hint" }, t("ui.gjdlv.contest_hint")),
    answered.map(([pid, gm]) => h("p", { class: "gj-answered", "data-answered": pid, style: `--pc:${colorOf(state, pid)}` },
      gm ? [h("strong", { class: "player-name" }, players[pid].name), " ", face(gm)]
        : h("span", {}, t("ui.gjdlv.qa.no_ejaculation", { name: players[pid].name })))),
    holders.map((pid) => h("div", { class: "gj-holder", "data-holder": pid, style: `--pc:${colorOf(state, pid)}` },
      h("div", { class: "gj-holder-head" },
        h("span", { class: "gj-dot", "aria-hidden": "true" }),
        h("span", { class: "player-name" }, players[pid].name),
        h("button", { type: "button", class: "gj-no", "data-action": "no-ejaculation", "aria-pressed": String(!draft.ejac[pid]),
          onclick: () => { delete draft.ejac[pid]; ctx.render(); } }, t("ui.gjdlv.no_ejaculation"))),
      cardGrid(may[pid], (card) => cardButton(card, { pressed: draft.ejac[pid] === card, sub: gaps[card]?.label ?? null,
        onclick: () => { if (draft.ejac[pid] === card) delete draft.ejac[pid]; else draft.ejac[pid] = card; ctx.render(); } }),
      { "data-grid": `ejaculate-${pid}` }))),
    // What will happen and the buttons that make it, kept together in reach above the dock.
    h("div", { class: "gj-decide" },
      verdict ? h("p", { class: `gj-verdict-line ${verdict.ok ? "yes" : "no"}`, role: "status", "data-winner": verdict.winner ?? "",
        "data-answer": verdict.code }, pretty(t(verdict.code, { ...verdict, ...verdict.params }), players)) : null,
      h("div", { class: "gj-two" },
        h("button", { type: "button", class: "secondary", "data-action": "ejaculate-none", onclick: () => play(ctx, action, { gms: {} }) },
          t("ui.gjdlv.nobody")),
        h("button", { type: "button", class: "primary", "data-action": "ejaculate-confirm", disabled: !who,
          onclick: () => play(ctx, action, { gms }) }, who ? t("ui.gjdlv.ejaculate_who", { names: who }) : t("ui.gjdlv.choose_gm")))));
}

// The Jack newborn's removal, as the engine lists it: one button per opponent's embryo.
export function removalCard(state, players, ctx) {
  const removals = state.actions.filter((action) => action.type === "remove_embryo");
  const owners = [...new Set(removals.map((action) => action.player))];
  return owners.map((owner) => h("section", { class: "card gj-queen", "data-jack": owner },
    h("h2", {}, icon("🗡"), " ", h("span", {}, t("ui.gjdlv.royal_of", { name: players[owner].name, royal: t("gjdlv.royal.J") })), " ",
      h("small", {}, t("ui.gjdlv.jack_removal"))),
    h("div", { class: "gj-steal" }, removals.filter((action) => action.player === owner).map((action) => {
      const embryo = seatOf(state, action.from)?.uterus;
      return h("button", { type: "button", class: "gj-target", "data-action": "remove-embryo", "data-player": owner, "data-from": action.from,
        onclick: () => play(ctx, action) },
      h("span", { class: "player-name" }, players[action.from].name), embryo ? pair(embryo.gf, embryo.gm) : null);
    }))));
}

// --- referee: the answers, reachable for as long as they are listed -----------------------------------

function targetLine(act, players) {
  const name = (pid) => players[pid]?.name ?? pid;
  const what = t(`ui.gjdlv.target.${act.act}`, { name: name(act.player), from: name(act.from), owner: name(act.owner) });
  return h("p", { class: "gj-target-act", "data-open": act.act, "data-by": act.player },
    h("strong", {}, t("ui.gjdlv.against")), " ", h("span", {}, what), " ", pair(act.gf, act.gm));
}

export function answerBar(state, players, ctx) {
  const answers = state.actions.filter((action) => ANSWERS.has(action.type));
  if (!answers.length) return null;
  const opened = answers.find((action) => keyOf(action) === draft.answer);
  const choice = opened ? choiceOf(state, opened) : null;
  const act = state.play.open.at(-1);
  return h("aside", { class: "gj-answers", id: "answers", "aria-label": t("ui.gjdlv.answers") },
    act ? targetLine(act, players) : null,
    opened && choice ? h("div", { class: "gj-answer-pick" },
      h("p", { class: "hint" }, t(opened.type === "abort" ? "ui.gjdlv.aborts_with" : "ui.gjdlv.plays_bonus", { name: players[opened.player].name })),
      // A handful of cards at most (the other black of a rank, the Jacks, the Kings or Queens): one row.
      h("div", { class: "gj-answer-cards", "data-grid": opened.type },
        choice.cards.map((card) => cardButton(card, { onclick: () => play(ctx, opened, { [choice.field]: card }) })))) : null,
    h("div", { class: "gj-answer-row" }, answers.map((action) => {
      const pressed = keyOf(action) === draft.answer;
      // With a single card possible (the other black of the rank, in the Simples Règles) the tap plays it.
      const cards = choiceOf(state, action)?.cards ?? [];
      const only = cards.length === 1 ? cards[0] : null;
      return h("button", { type: "button", class: "gj-answer-btn", "data-action": action.type, "data-player": action.player,
        "aria-pressed": only ? null : String(pressed), "data-card": only, style: `--pc:${colorOf(state, action.player)}`,
        onclick: () => {
          if (only) { play(ctx, action, { [choiceOf(state, action).field]: only }); return; }
          draft.answer = pressed ? null : keyOf(action);
          ctx.render();
        } },
      h("span", { class: "gj-answer-who" }, icon(action.type === "abort" ? "🧪" : "👑"), " ", h("strong", {}, players[action.player].name)),
      h("small", {}, t(action.type === "abort" ? "ui.gjdlv.answer.abort" : "ui.gjdlv.answer.cancel"), only ? [" ", face(only)] : null));
    })));
}

// --- the pages ----------------------------------------------------------------------------------------

export function trackerReferee(root, state, ctx) {
  const players = byId(state);
  syncDraft(state);
  pinUnderBar();
  fill(root,
    turnBar(state, players),
    queenCards(state, players, ctx),
    removalCard(state, players, ctx),
    playCard(state, players, ctx),
    // In the page's flow, never over it: the board stays in view, the answer just under the play.
    answerBar(state, players, ctx),
    closeCard(state, ctx),
    // The notes under the play: the turn bar already flags the last lap, and a royal birth's
    // now-or-never play has its own card above.
    noteCard(state),
    pilesCard(state),
    sheetsCard(state, true, seatPart(state)),
    roundsCard(state),
    quiARaison(state, players, ctx));
}
