// Le Grand Jeu de la Vie, a round played through card by card (table option mode "tracker"): the
// referee's page and the table view.
// Referee: the turn bar (whose turn, the phase, the engine's sentence of what the table expects, the
// revealed GF, the last lap) stays at the top; under it the play of the moment — the deal picker, the
// active player's moves as big buttons, a card picker, the held-back contest sheet —, the royal
// births' take or removal, closing the round, then the table (piles, and per player: hand, urethra,
// uterus, formol, nursery with points). The answers (abortions, imperial bonuses) sit in a bar at the
// bottom for as long as the engine lists them. Undo is the page shell's dock.
// Everything comes from the engine's view: the buttons from state.actions, the cards each offers from
// state.play.choices (only the cards still possible that make the play legal), numbers and EG from
// state.play and the sheet, sentences from the catalogue. Nothing here decides a rule: the engine
// judges every tap again, and the shell shows its refusals.
import { byId, fill, h } from "../ui.js";
import { sentence } from "../messages.js";
import { checkAnswers, record } from "../actions.js";
import {
  cardButton, cardGrid, chartCard, closeCard, colorOf, face, noteCard, pretty, queenCards, quiARaison,
  roundsCard, sheetsCard, standingsCard, winnerBanner,
} from "./gjdlv.js";

// Events drawn somewhere else than among the active player's moves.
const ANSWERS = new Set(["abort", "cancel"]);
const ASIDE = new Set([...ANSWERS, "remove_embryo", "steal_newborn", "close_round"]);
// The phase's short name, for the pill; the engine's step sentence says the rest.
const PHASES = {
  deal: ["Distribution", "Deal"],
  birth: ["Phase 0 · naissance", "Phase 0 · birth"],
  ovulation: ["Phase 1 · ovulation", "Phase 1 · ovulation"],
  action: ["Phase 2 · action", "Phase 2 · action"],
  ejaculation: ["Phase 3 · éjaculation", "Phase 3 · contest"],
  ended: ["Fin de manche", "Round over"],
};

// An action's identity, whatever the order of its keys.
const keyOf = (action) => JSON.stringify(Object.entries(action).sort(([a], [b]) => (a < b ? -1 : 1)));
const choiceOf = (state, action) => state.play.choices.find((choice) => keyOf(choice.action) === keyOf(action));
const seatOf = (state, pid) => state.play.seats.find((seat) => seat.player === pid);

// A catalogue sentence with its cards and players written out: French, the English under it.
function line(tag, attrs, code, params, players) {
  const { fr, en } = sentence(code, params);
  return h(tag, attrs, pretty(fr, "fr", players), " ", h("small", { class: "gj-en", lang: "en" }, pretty(en, "en", players)));
}

function pair(gf, gm) {
  return h("span", { class: "gj-pair" }, face(gf), h("span", { class: "gj-x", "aria-hidden": "true" }, "×"), face(gm));
}

// What the engine says of an embryo: its EG, CC, or its royal name.
function embryoTag(embryo) {
  if (embryo.royal) return sentence(`gjdlv.royal.${embryo.royal}`).fr;
  return embryo.cc ? "CC" : `EG ${embryo.eg}`;
}

// The EG (or CC) each GM would make with a GF, as the engine's "fecundations" check answers it:
// written under the cards of a fecundation, a surrogacy, a contest. Nothing until it has answered.
const answerTo = checkAnswers();
function gapsWith(state, ctx, gf) {
  const answer = gf ? answerTo(ctx, state, "fecundations", { gf }) : null;
  if (!answer) return {};
  return Object.fromEntries(answer.gms.map((row) => [row.gm, row.cc ? "CC" : row.eg === null ? null : `EG ${row.eg}`]));
}

// --- what the referee has tapped but not sent yet ---------------------------------------------------

const draft = { moment: null, pick: null, answer: null, deal: [], ejac: {} };

// A draft lives as long as the moment it was made for: a new phase, turn or GF drops it, and so
// does a play the engine no longer lists (a co-referee's tap, an undo).
function syncDraft(state) {
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

// --- the turn: always in view -------------------------------------------------------------------------

function turnBar(state, players) {
  const { play: round } = state;
  const [fr, en] = PHASES[round.phase] || [round.phase, round.phase];
  const announcer = round.last_lap ? players[round.last_lap] : null;
  return h("section", { class: "gj-turn", id: "turn", "data-active": round.active, "data-phase": round.phase,
    style: `--pc:${colorOf(state, round.active)}`, "aria-live": "polite" },
    h("div", { class: "gj-turn-head" },
      h("span", { class: "gj-dot", "aria-hidden": "true" }),
      h("strong", { class: "player-name gj-turn-name", "data-turn": round.active }, players[round.active].name),
      h("span", { class: "pill gj-phase", title: en }, fr),
      round.gf ? h("span", { class: "gj-revealed", "data-revealed": round.gf, title: "GF révélé · revealed GF" }, face(round.gf)) : null),
    line("p", { class: "gj-turn-step", "data-step": round.step.code }, round.step.code, round.step.params, players),
    h("div", { class: "gj-turn-foot" },
      h("span", {}, "Manche ", h("strong", { "data-round": state.round }, state.round), ` / ${state.rounds}`),
      announcer ? h("span", { class: "gj-lastlap", "data-last-lap": announcer.id },
        `⏳ Dernière ronde (${announcer.name})`, h("small", { lang: "en" }, " last lap")) : null));
}

// --- the table: piles and seats -----------------------------------------------------------------------

function pile(name, fr, en, count) {
  return h("div", { class: "gj-pile", "data-pile": name },
    h("strong", { class: "gj-pile-n", "data-count": count }, count),
    h("span", {}, fr, en ? h("small", { class: "gj-block", lang: "en" }, en) : null));
}

function pilesCard(state) {
  const { play: round } = state;
  const cards = (name, label, list) => (list.length
    ? h("p", { class: "gj-pile-cards", "data-cards": name }, h("small", {}, label), list.map(face)) : null);
  return h("section", { class: "card gj-piles", id: "piles" },
    h("div", { class: "gj-pile-row" },
      pile("ovulation", "Ovulation", "GF left", round.ovulation),
      pile("mouchoir", "Mouchoir", "discarded GM", round.mouchoir.length),
      pile("diva_cup", "Diva Cup", "discarded GF", round.diva_cup.length)),
    cards("mouchoir", "Mouchoir", round.mouchoir),
    cards("diva_cup", "Diva Cup", round.diva_cup));
}

// One player's seat, drawn inside their sheet (above the nursery): hand, urethra, uterus, formol.
function seatPart(state) {
  return (p) => {
    const seat = seatOf(state, p.id);
    if (!seat) return null;
    const embryo = seat.uterus;
    const active = state.play.active === p.id && state.play.phase !== "ended";
    return h("div", { class: `gj-seat${active ? " active" : ""}`, "data-seat": p.id },
      h("div", { class: "gj-seat-line" },
        h("span", { class: "gj-hand", "data-hand": seat.hand, "aria-label": `${seat.hand} GM en main` },
          h("span", { class: "gj-back small", "aria-hidden": "true" }), h("strong", {}, seat.hand), " en main"),
        seat.held ? h("span", { class: "gj-held", "data-held": "true", "aria-label": "Un GM retenu, face cachée, dans l'urètre" },
          h("span", { class: "gj-back", "aria-hidden": "true" }), "urètre ", h("small", { lang: "en" }, "held")) : null,
        active ? h("span", { class: "pill gj-playing" }, "joue") : null),
      embryo ? h("div", { class: `gj-embryo${embryo.comes_to_term ? "" : " doomed"}`, "data-embryo": `${embryo.gf}-${embryo.gm}`,
        "data-term": String(embryo.comes_to_term) },
        h("span", { class: "gj-label" }, "Utérus"), pair(embryo.gf, embryo.gm),
        h("span", { class: `gj-tag${embryo.cc ? " cc" : ""}` }, embryoTag(embryo)),
        embryo.comes_to_term ? null : h("span", { class: "gj-doomed", "data-doomed": "true" },
          "n'arrivera pas à terme", h("small", { class: "gj-block", lang: "en" }, "won't come to term")))
        : h("div", { class: "gj-embryo empty" }, h("span", { class: "gj-label" }, "Utérus"), h("span", { class: "muted" }, "vide")),
      seat.formol.length ? h("div", { class: "gj-formol-cards", "data-formol-cards": seat.formol.length },
        h("span", { class: "gj-label" }, "Formol"), seat.formol.map(face)) : null);
  };
}

// --- referee: the play of the moment ------------------------------------------------------------------

function moveLabel(state, players, action) {
  const seat = action.from ? seatOf(state, action.from) : seatOf(state, action.player);
  switch (action.type) {
    case "birth":
      return ["👶 Mise au monde ", seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm) : null, h("small", { class: "gj-block" }, "Birth")];
    case "ovulate":
      return ["🥚 Ovulation ", h("small", { class: "gj-block" }, "Reveal the top GF")];
    case "fecundate":
      return ["💞 Féconder ", state.play.gf ? face(state.play.gf) : null, h("small", { class: "gj-block" }, "Fecundate")];
    case "surrogate":
      return [`🔁 Mère porteuse · ${players[action.from].name} `, seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm) : null,
        h("small", { class: "gj-block" }, "Surrogacy: take this embryo")];
    case "hold":
      return ["✋ Se retenir ", h("small", { class: "gj-block" }, "Hold back a GM, face down")];
    case "pass":
      return ["➡ Passer ", h("small", { class: "gj-block" }, "Pass (no GM left)")];
    default:
      return [action.type];
  }
}

// The picker's question for a play whose card the table supplies.
function pickTitle(state, players, action) {
  const name = players[action.player]?.name;
  switch (action.type) {
    case "birth":
      return [`Urètre · ${name} → Mouchoir : quel GM ?`, "Held GM to the Mouchoir: which one?"];
    case "ovulate":
      return [`Ovulation · ${name} : quel GF est révélé ?`, "Which GF is revealed?"];
    case "fecundate":
      return [`${name} féconde avec quel GM ?`, "Fecundates with which GM?"];
    case "surrogate":
      return [`${name} : mère porteuse sur ${players[action.from].name}, avec quel GM ?`,
        "Surrogacy: with which GM?"];
    default:
      return [action.type, action.type];
  }
}

function pickerCard(state, players, ctx, action, choice, closable) {
  const [fr, en] = pickTitle(state, players, action);
  const seat = action.from ? seatOf(state, action.from) : seatOf(state, action.player);
  const context = action.type === "surrogate" && seat?.uterus ? pair(seat.uterus.gf, seat.uterus.gm)
    : action.type === "fecundate" && state.play.gf ? face(state.play.gf)
      : action.type === "birth" && seat?.uterus ? [h("span", { class: "muted" }, "naît : "), pair(seat.uterus.gf, seat.uterus.gm)] : null;
  const gf = action.type === "surrogate" ? seat?.uterus?.gf : action.type === "fecundate" ? state.play.gf : null;
  const gaps = gapsWith(state, ctx, gf);
  return h("section", { class: "card gj-play gj-picker", id: "play", "data-picking": action.type },
    h("div", { class: "gj-picker-head" },
      h("h2", {}, fr, " ", h("small", { class: "gj-block" }, en)),
      context ? h("span", { class: "gj-context" }, context) : null,
      closable ? h("button", { type: "button", class: "secondary gj-clear", "data-action": "back", "aria-label": "Retour aux coups",
        onclick: () => { draft.pick = null; ctx.render(); } }, "✕") : null),
    cardGrid(choice.cards, (card) => cardButton(card, { sub: gaps[card] ?? null, extraClass: gaps[card] === "CC" ? "cc" : "",
      onclick: () => play(ctx, action, { [choice.field]: card }) }), { "data-grid": action.type }));
}

function playCard(state, players, ctx) {
  const moves = state.actions.filter((action) => !ASIDE.has(action.type));
  if (!moves.length) return null;
  const first = moves[0];
  if (first.type === "deal") return dealCard(state, ctx, first, choiceOf(state, first));
  if (first.type === "ejaculate") return ejaculationCard(state, players, ctx, first, choiceOf(state, first));
  const picked = moves.find((action) => keyOf(action) === draft.pick);
  if (picked) return pickerCard(state, players, ctx, picked, choiceOf(state, picked), true);
  // A single play that needs a card (ovulation, the held GM at birth): its cards at once.
  if (moves.length === 1 && choiceOf(state, first)?.field) return pickerCard(state, players, ctx, first, choiceOf(state, first), false);
  return h("section", { class: "card gj-play", id: "play" },
    h("div", { class: "gj-moves" }, moves.map((action) => {
      const choice = choiceOf(state, action);
      return h("button", { type: "button", class: "gj-move", "data-action": action.type, "data-player": action.player,
        "data-from": action.from ?? null,
        onclick: () => {
          if (choice?.field) { draft.pick = keyOf(action); ctx.render(); } else play(ctx, action);
        } }, moveLabel(state, players, action));
    })));
}

// The deal: the GM left face up for the Mouchoir, exactly as many as the engine says.
function dealCard(state, ctx, action, choice) {
  const { per_player: per, mouchoir: count } = state.play.deal;
  const cards = choice?.cards ?? [];
  draft.deal = draft.deal.filter((card) => cards.includes(card));
  const toggle = (card) => {
    draft.deal = draft.deal.includes(card) ? draft.deal.filter((c) => c !== card) : [...draft.deal, card].slice(-count);
    ctx.render();
  };
  return h("section", { class: "card gj-play", id: "deal-picker" },
    h("h2", {}, "Distribution ", h("small", {}, "Deal")),
    h("p", { class: "hint" }, `${per} GM par joueur·euse, face cachée. `,
      count ? `Touchez les ${count} GM restés face visible au Mouchoir.` : "Aucun GM ne reste pour le Mouchoir.",
      h("small", { class: "gj-block", lang: "en" }, `${per} GM each, face down; ${count} left face up to the Mouchoir.`)),
    count ? cardGrid(cards, (card) => cardButton(card, { pressed: draft.deal.includes(card), onclick: () => toggle(card) }),
      { "data-grid": "deal" }) : null,
    h("button", { type: "button", class: "primary gj-go", "data-action": "deal", "data-chosen": draft.deal.length,
      disabled: draft.deal.length !== count, onclick: () => play(ctx, action, { mouchoir: [...draft.deal] }) },
    "🃏 Distribuer", count ? h("small", {}, ` ${draft.deal.length} / ${count} au Mouchoir`) : null));
}

// Phase 3: for each player holding a GM back, whether they ejaculate and with which card; one send.
function ejaculationCard(state, players, ctx, action, choice) {
  const may = choice?.cards ?? {};
  const holders = Object.keys(may);
  for (const pid of Object.keys(draft.ejac)) if (!may[pid]?.includes(draft.ejac[pid])) delete draft.ejac[pid];
  const gms = Object.fromEntries(holders.filter((pid) => draft.ejac[pid]).map((pid) => [pid, draft.ejac[pid]]));
  const who = Object.keys(gms).map((pid) => players[pid].name).join(", ");
  const gaps = gapsWith(state, ctx, state.play.gf);
  return h("section", { class: "card gj-play gj-ejac", id: "ejaculation" },
    h("h2", {}, "Éjaculation retenue ", state.play.gf ? face(state.play.gf) : null, h("small", { class: "gj-block" }, "Held-back contest")),
    h("p", { class: "hint" }, "Qui éjacule, et avec quel GM ? Les autres n'éjaculent pas.",
      h("small", { class: "gj-block", lang: "en" }, "Who ejaculates, with which GM? The others do not.")),
    holders.map((pid) => h("div", { class: "gj-holder", "data-holder": pid, style: `--pc:${colorOf(state, pid)}` },
      h("div", { class: "gj-holder-head" },
        h("span", { class: "gj-dot", "aria-hidden": "true" }),
        h("span", { class: "player-name" }, players[pid].name),
        h("button", { type: "button", class: "gj-no", "data-action": "no-ejaculation", "aria-pressed": String(!draft.ejac[pid]),
          onclick: () => { delete draft.ejac[pid]; ctx.render(); } }, "N'éjacule pas")),
      cardGrid(may[pid], (card) => cardButton(card, { pressed: draft.ejac[pid] === card, sub: gaps[card] ?? null,
        onclick: () => { if (draft.ejac[pid] === card) delete draft.ejac[pid]; else draft.ejac[pid] = card; ctx.render(); } }),
      { "data-grid": `ejaculate-${pid}` }))),
    h("div", { class: "gj-two" },
      h("button", { type: "button", class: "secondary", "data-action": "ejaculate-none", onclick: () => play(ctx, action, { gms: {} }) },
        "Personne", h("small", {}, "nobody")),
      h("button", { type: "button", class: "primary", "data-action": "ejaculate-confirm", disabled: !who,
        onclick: () => play(ctx, action, { gms }) }, who ? `Éjaculent : ${who}` : "Choisir un GM")));
}

// The Jack newborn's removal, as the engine lists it: one button per opponent's embryo.
function removalCard(state, players, ctx) {
  const removals = state.actions.filter((action) => action.type === "remove_embryo");
  const owners = [...new Set(removals.map((action) => action.player))];
  const jack = sentence("gjdlv.royal.J");
  return owners.map((owner) => h("section", { class: "card gj-queen", "data-jack": owner },
    h("h2", {}, `🗡 ${players[owner].name} — ${jack.fr} `, h("small", {}, `${jack.en} · removal`)),
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
  const [fr, en] = act.act === "fecundation" ? [`fécondation par ${name(act.player)}`, "fecundation"]
    : act.act === "surrogacy" ? [`mère porteuse par ${name(act.player)} (sur ${name(act.from)})`, "surrogacy"]
      : [`avortement par ${name(act.player)} (embryon : ${name(act.owner)})`, "abortion"];
  return h("p", { class: "gj-target-act", "data-open": act.act, "data-by": act.player },
    h("strong", {}, "Contre : "), fr, " ", pair(act.gf, act.gm), h("small", { lang: "en" }, ` · answers to the ${en}`));
}

function answerBar(state, players, ctx) {
  const answers = state.actions.filter((action) => ANSWERS.has(action.type));
  if (!answers.length) return null;
  const opened = answers.find((action) => keyOf(action) === draft.answer);
  const choice = opened ? choiceOf(state, opened) : null;
  const act = state.play.open.at(-1);
  return h("aside", { class: "gj-answers", id: "answers", "aria-label": "Réponses · answers" },
    act ? targetLine(act, players) : null,
    opened && choice ? h("div", { class: "gj-answer-pick" },
      h("p", { class: "hint" }, opened.type === "abort" ? `${players[opened.player].name} avorte avec :` : `${players[opened.player].name} joue le bonus :`,
        h("small", { lang: "en" }, opened.type === "abort" ? " aborts with" : " plays the bonus")),
      // A handful of cards at most (the other black of a rank, the Jacks, the Kings or Queens): one row.
      h("div", { class: "gj-answer-cards", "data-grid": opened.type },
        choice.cards.map((card) => cardButton(card, { onclick: () => play(ctx, opened, { [choice.field]: card }) })))) : null,
    h("div", { class: "gj-answer-row" }, answers.map((action) => {
      const pressed = keyOf(action) === draft.answer;
      return h("button", { type: "button", class: "gj-answer-btn", "data-action": action.type, "data-player": action.player,
        "aria-pressed": String(pressed), style: `--pc:${colorOf(state, action.player)}`,
        onclick: () => { draft.answer = pressed ? null : keyOf(action); ctx.render(); } },
      action.type === "abort" ? "🧪 " : "👑 ", h("strong", {}, players[action.player].name),
      h("small", {}, action.type === "abort" ? " avorte" : " bonus"));
    })));
}

// The turn bar sits just under the page's own bar, whatever its height on this phone (it grows
// when the sync status wraps, without the table changing).
let pinned = false;
function pinUnderBar() {
  const bar = document.querySelector(".bar");
  if (pinned || !bar) return;
  pinned = true;
  const set = () => document.documentElement.style.setProperty("--gj-bar", `${bar.offsetHeight}px`);
  set();
  if (window.ResizeObserver) new ResizeObserver(set).observe(bar);
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
    closeCard(state, ctx),
    // The notes under the play: the turn bar already flags the last lap, and a royal birth's
    // now-or-never play has its own card above.
    noteCard(state),
    pilesCard(state),
    sheetsCard(state, true, seatPart(state)),
    roundsCard(state),
    quiARaison(state, players, ctx),
    answerBar(state, players, ctx));
}

export function trackerView(root, state) {
  const players = byId(state);
  pinUnderBar();
  fill(root,
    winnerBanner(state),
    turnBar(state, players),
    noteCard(state),
    pilesCard(state),
    sheetsCard(state, true, seatPart(state)),
    standingsCard(state),
    roundsCard(state),
    state.rounds_closed ? chartCard(state) : null);
}
