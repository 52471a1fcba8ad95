// Le Grand Jeu de la Vie: the referee's round sheet (a newborn in three taps: player, GF, GM;
// abortions in one tap; the Queen's take; closing a round), the "Qui a raison ?" panel that runs the
// engine's rule checks for table disputes, and the table view (standings, this round's sheet, every
// closed round, a chart of totals round by round, the winners).
// Cards use the engine's notation (rank then suit: "4H", "10S", "QD") in data-card attributes; they are
// shown in French (R D V for Roi Dame Valet) with the suit symbols in colour.
import { api } from "../api.js";
import { byId, fill, h } from "../ui.js";
import { sentence } from "../messages.js";

const NUMBER_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
const FACES = ["J", "Q", "K"];
const RED = ["H", "D"];
const BLACK = ["S", "C"];
const SUIT_SYMBOL = { S: "♠", C: "♣", H: "♥", D: "♦" };
const SUIT_FR = { S: "pique", C: "trèfle", H: "cœur", D: "carreau" };
const RANK_FR = { J: "V", Q: "D", K: "R" };
const RANK_NAME_FR = { A: "As", J: "Valet", Q: "Dame", K: "Roi" };
const ROYAL = { K: ["Sang Royal", 10], Q: ["Petite Mère des peuples", 0], J: ["Assassin Royal", 5] };
const NEWBORN_BASE = 5;
// One colour and one dash per seat: lines that cross or overlap stay apart in the chart.
const COLORS = ["#ffb347", "#5fd38d", "#6fb6ff", "#ff7eb6", "#c59bff", "#f0e16a"];
const DASHES = ["", "7 4", "2 4", "10 4 2 4", "4 3", "1 3"];

const rankOf = (card) => card.slice(0, -1);
const suitOf = (card) => card.slice(-1);
const isFace = (card) => FACES.includes(rankOf(card));
const valueOf = (card) => (rankOf(card) === "A" ? 1 : Number(rankOf(card)));
const colorOf = (state, pid) => COLORS[state.players.findIndex((p) => p.id === pid) % COLORS.length];
const dashOf = (state, pid) => DASHES[state.players.findIndex((p) => p.id === pid) % DASHES.length];
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
const plural = (n, one, many) => `${n} ${n > 1 || n === 0 ? many : one}`;

function cardName(card) {
  const rank = rankOf(card);
  return `${RANK_NAME_FR[rank] || rank} de ${SUIT_FR[suitOf(card)]}`;
}

// A card as the table sees it: the French rank, then the suit symbol in its colour.
function face(card) {
  const suit = suitOf(card);
  return h("span", { class: "gj-face", role: "img", "aria-label": cardName(card), "data-face": card },
    h("span", { class: "gj-rank", "aria-hidden": "true" }, RANK_FR[rankOf(card)] || rankOf(card)),
    h("span", { class: `gj-suit ${RED.includes(suit) ? "red" : "black"}`, "aria-hidden": "true" }, SUIT_SYMBOL[suit]));
}

// Card codes inside the engine's sentences ("4S", "QD") written with their suit symbols, and
// player ids ("p3", in a contest's answer) with their names.
function pretty(text, lang, players = {}) {
  return String(text)
    .replace(/\b(10|[A2-9JQK])([SCHD])\b/g, (_, rank, suit) => `${lang === "fr" ? RANK_FR[rank] || rank : rank}${SUIT_SYMBOL[suit]}`)
    .replace(/\bp\d+\b/g, (id) => players[id]?.name ?? id);
}

function ranksFor(rules, { faces = true } = {}) {
  return rules === "abondantes" && faces ? [...NUMBER_RANKS, ...FACES] : NUMBER_RANKS;
}

// Cards grouped by suit, five to a row: A–5, 6–10, then the faces (abondantes).
function cardGrid(suits, ranks, button, attrs = {}) {
  return h("div", { class: "gj-cards", ...attrs }, suits.map((suit) =>
    h("div", { class: "gj-suit-block", "data-suit": suit },
      h("div", { class: "gj-grid" }, ranks.filter((r) => !FACES.includes(r)).map((r) => button(r + suit))),
      ranks.some((r) => FACES.includes(r))
        ? h("div", { class: "gj-grid gj-faces" }, ranks.filter((r) => FACES.includes(r)).map((r) => button(r + suit)))
        : null)));
}

function cardButton(card, { onclick, disabled = false, pressed = null, sub = null, extraClass = "" } = {}) {
  return h("button", {
    type: "button", class: `gj-card ${extraClass}`.trim(), "data-card": card, disabled,
    "aria-pressed": pressed === null ? null : String(pressed),
    "aria-label": `${cardName(card)}${disabled ? " (déjà notée)" : ""}`, onclick,
  }, face(card), sub !== null ? h("small", { class: "gj-sub" }, sub) : null);
}

// --- the round sheet (referee and table view) ---------------------------------------------------

function newbornRow(row) {
  const tag = row.royal ? ROYAL[rankOf(row.gf)][0] : row.cc ? "CC" : `EG ${row.eg}`;
  return h("li", { class: `gj-newborn${row.cc ? " cc" : ""}${row.royal ? " royal" : ""}`, "data-newborn": `${row.gf}-${row.gm}` },
    h("span", { class: "gj-pair" }, face(row.gf), h("span", { class: "gj-x", "aria-hidden": "true" }, "×"), face(row.gm)),
    h("span", { class: "gj-tag" }, tag),
    h("span", { class: "gj-points", "data-points": row.points }, row.points));
}

// The consanguinity malus where it bites: next to the CC newborns, with what each one lost.
function ccLine(p) {
  if (!p.cc) return null;
  const malus = p.cc_value - NEWBORN_BASE;
  return h("li", { class: `gj-cc${malus < 0 ? " bites" : ""}`, "data-cc": p.cc },
    p.cc === 1
      ? h("span", {}, "1 CC → 5 ", h("small", {}, "pas de malus · no malus"))
      : h("span", {}, `${p.cc} CC → ${p.cc_value} chacun (${signed(malus)}) `,
        h("small", {}, `malus de consanguinité · ${p.cc} CC → ${p.cc_value} each`)));
}

function sheet(state, p) {
  const first = !state.over && p.id === state.first_player;
  return h("article", { class: "gj-sheet", "data-sheet": p.id, style: `--pc:${colorOf(state, p.id)}` },
    h("header", { class: "gj-sheet-head" },
      h("span", { class: "gj-dot", "aria-hidden": "true" }),
      h("span", { class: "player-name" }, p.name),
      first ? h("span", { class: "pill first" }, "commence") : null,
      h("span", { class: "gj-round-score", "data-round-score": p.id, "aria-label": `Manche : ${p.round_score} points` }, p.round_score),
    ),
    p.newborns.length || p.abortions ? h("ul", { class: "gj-rows" },
      p.newborns.map(newbornRow),
      ccLine(p),
      p.abortions ? h("li", { class: "gj-formol", "data-formol": p.formol },
        h("span", {}, `🧪 Formol : ${p.abortions} avortement${p.abortions > 1 ? "s" : ""} × 3 `, h("small", {}, "abortions")),
        h("span", { class: "gj-points" }, p.formol)) : null)
      : h("p", { class: "hint gj-empty" }, "Rien encore cette manche."),
    h("footer", { class: "gj-sheet-foot" },
      h("span", {}, `Nurserie ${p.nursery} + Formol ${p.formol} = `, h("strong", {}, p.round_score)),
      h("span", { class: "muted" }, "Total ", h("strong", {}, p.total))));
}

function sheetsCard(state, title = true) {
  return h("section", { class: "card gj-round", id: "round-sheet" },
    title ? h("h2", {}, `Manche ${state.round} `, h("small", {}, `sur ${state.rounds} · round sheet`)) : null,
    h("div", { class: "gj-sheets" }, state.players.map((p) => sheet(state, p))));
}

// --- shared header parts ------------------------------------------------------------------------

function winnerBanner(state, players) {
  if (!state.over) return null;
  const names = state.winners.map((id) => players[id].name);
  const total = state.outcome?.total ?? (names.length ? players[state.winners[0]].total : 0);
  const shared = names.length > 1;
  const list = names.join(" et ");
  return h("section", { class: "card winner", "data-winners": state.winners.join(",") },
    shared ? `🏆 Victoire partagée : ${list}` : `🏆 ${list} gagne !`,
    h("div", { class: "gj-winner-total" }, `${total} points`),
    h("small", { class: "gj-block", lang: "en" }, shared ? `Shared win: ${names.join(" and ")}, ${total} points` : `${list} wins with ${total} points`));
}

function noteCard(state) {
  if (!state.note) return null;
  const { fr, en } = sentence(state.note.code, state.note.params);
  return h("p", { class: "card gj-note", "data-note": state.note.code }, fr, h("br"), h("small", { lang: "en" }, en));
}

function statusCard(state, players) {
  if (state.over) return null;
  return h("section", { class: "card" },
    h("div", { class: "status-line" },
      h("span", {}, "Manche ", h("strong", { "data-round": state.round }, state.round), ` / ${state.rounds}`),
      h("span", {}, "Commence : ", h("strong", { "data-first": state.first_player }, players[state.first_player].name)),
      h("span", { class: "pill", "data-rules": state.rules }, state.rules === "abondantes" ? "Règles Abondantes" : "Simples Règles")),
    h("small", { lang: "en", class: "gj-status-en" }, `Round ${state.round} of ${state.rounds} · ${players[state.first_player].name} starts`));
}

// --- referee ------------------------------------------------------------------------------------

// What the referee has tapped but not sent yet; kept across redraws, dropped when the round changes.
const draft = { key: null, player: null, gf: null, confirm: false, qaOpen: false, qa: null };

function resetOnNewRound(state) {
  const key = `${state.round}/${state.over}`;
  if (draft.key !== key) {
    Object.assign(draft, { key, player: null, gf: null, confirm: false });
  }
}

export function referee(root, state, ctx) {
  const players = byId(state);
  resetOnNewRound(state);
  fill(root,
    winnerBanner(state, players),
    state.over ? h("p", { class: "hint center" }, "Partie terminée. « Annuler » rouvre la dernière manche si la table le préfère.") : null,
    noteCard(state),
    statusCard(state, players),
    state.over ? null : newbornPicker(state, players, ctx),
    state.over ? null : queenCards(state, players, ctx),
    state.over ? null : abortionCard(state, ctx),
    state.over ? null : sheetsCard(state),
    state.over ? null : closeCard(state, ctx),
    state.over ? standingsCard(state) : null,
    roundsCard(state),
    state.over ? chartCard(state) : null,
    quiARaison(state, players, ctx),
  );
}

function newbornPicker(state, players, ctx) {
  const used = new Set(state.used_cards);
  const { player, gf } = draft;
  const pick = (field, value) => { draft[field] = value; ctx.render(); };
  const send = (gm) => {
    const event = { player: draft.player, gf: draft.gf, gm };
    draft.player = null;
    draft.gf = null;
    ctx.render();
    ctx.send("newborn", event);
  };
  let step;
  if (!player) {
    step = h("p", { class: "hint gj-step" }, "1. Qui met au monde ? ", h("small", {}, "Who gives birth?"));
  } else if (!gf) {
    step = [
      h("p", { class: "hint gj-step" }, "2. Gamète Femelle ", h("small", {}, "female gamete, red")),
      cardGrid(RED, ranksFor(state.rules), (card) => cardButton(card, {
        disabled: used.has(card),
        sub: isFace(card) ? ROYAL[rankOf(card)][1] + " pts" : null,
        onclick: () => pick("gf", card),
      }), { "data-grid": "gf" }),
    ];
  } else {
    // A number GF takes only number GMs; a Royal Ovum takes any GM, imperials included.
    step = [
      h("p", { class: "hint gj-step" }, "3. Gamète Mâle : la naissance est notée ", h("small", {}, "male gamete, black")),
      cardGrid(BLACK, ranksFor(state.rules, { faces: isFace(gf) }), (card) => {
        let sub = null;
        if (!isFace(gf)) {
          const eg = Math.abs(valueOf(card) - valueOf(gf));
          sub = eg === 0 ? "CC" : `EG ${eg}`;
        }
        return cardButton(card, { disabled: used.has(card), sub, extraClass: sub === "CC" ? "cc" : "", onclick: () => send(card) });
      }, { "data-grid": "gm" }),
    ];
  }
  return h("section", { class: "card gj-picker", id: "newborn-picker" },
    h("div", { class: "gj-picker-head" },
      h("h2", {}, "Naissance ", h("small", {}, "Newborn")),
      h("div", { class: "gj-crumbs", "aria-live": "polite" },
        player ? h("button", { type: "button", class: "gj-crumb", "data-action": "change-player", style: `--pc:${colorOf(state, player)}`,
          "aria-label": `Changer de joueur·euse (${players[player].name})`, onclick: () => pick("player", null) },
          h("span", { class: "gj-dot", "aria-hidden": "true" }), players[player].name) : null,
        gf ? h("button", { type: "button", class: "gj-crumb gj-crumb-card", "data-action": "change-gf", "aria-label": `Changer le GF ${cardName(gf)}`,
          onclick: () => pick("gf", null) }, face(gf)) : null,
        player ? h("button", { type: "button", class: "secondary gj-clear", "data-action": "clear-newborn", "aria-label": "Effacer",
          onclick: () => { draft.player = null; draft.gf = null; ctx.render(); } }, "✕") : null)),
    step,
    player ? null : h("div", { class: "gj-chips", role: "group", "aria-label": "Joueur·euse" }, state.players.map((p) =>
      h("button", { type: "button", class: "gj-chip", "data-player": p.id, "data-pick": "player",
        style: `--pc:${colorOf(state, p.id)}`, onclick: () => pick("player", p.id) }, p.name))));
}

function abortionCard(state, ctx) {
  return h("section", { class: "card", id: "abortions" },
    h("h2", {}, "Avortement ", h("small", {}, "Abortion · +3 au Formol de qui avorte")),
    h("div", { class: "gj-chips" }, state.players.map((p) =>
      h("button", { type: "button", class: "gj-chip", "data-action": "abortion", "data-player": p.id,
        style: `--pc:${colorOf(state, p.id)}`, "aria-label": `Avortement par ${p.name}`,
        onclick: () => ctx.send("abortion", { player: p.id }) },
        `🧪 ${p.name}`, p.abortions ? h("span", { class: "gj-badge" }, `×${p.abortions}`) : null))));
}

// A Queen newborn lets its birth-giver take an opponent's most recent newborn, once per Queen.
function queenCards(state, players, ctx) {
  return state.players.filter((p) => p.queens_unused > 0).map((p) =>
    h("section", { class: "card gj-queen", "data-queen": p.id },
      h("h2", {}, `👑 Dame de ${p.name} `, h("small", {}, "Petite Mère des peuples · Queen's take")),
      h("p", { class: "hint" }, `${p.name} prend le dernier nouveau-né de… `,
        p.queens_unused > 1 ? h("strong", {}, `(${p.queens_unused} prises)`) : null),
      h("div", { class: "gj-steal" }, state.players.filter((o) => o.id !== p.id).map((o) => {
        const last = o.newborns[o.newborns.length - 1];
        return h("button", { type: "button", class: "gj-target", "data-action": "steal", "data-player": p.id, "data-from": o.id,
          onclick: () => ctx.send("steal_newborn", { player: p.id, from: o.id }) },
          h("span", { class: "player-name" }, o.name),
          last ? h("span", { class: "gj-pair" }, face(last.gf), h("span", { class: "gj-x" }, "×"), face(last.gm), h("small", {}, ` ${last.points} pts`))
            : h("small", {}, "aucun nouveau-né"));
      })),
      h("p", { class: "hint" }, "Rien à prendre ? La prise est perdue : passez. ", h("small", {}, "Nothing to take: the take is lost."))));
}

function closeCard(state, ctx) {
  const last = state.round >= state.rounds;
  const label = last ? `Clore la dernière manche (${state.round}/${state.rounds})` : `Clore la manche ${state.round}/${state.rounds}`;
  if (!draft.confirm) {
    return h("section", { class: "card", id: "close-round" },
      h("button", { type: "button", class: "big-button", "data-action": "close-round", onclick: () => { draft.confirm = true; ctx.render(); } },
        `✓ ${label}`), h("small", { class: "center gj-block" }, last ? "Close the last round: the game ends" : "Close the round"));
  }
  return h("section", { class: "card gj-confirm", id: "close-round" },
    h("h2", {}, `${label} ? `, h("small", {}, "Confirm")),
    h("table", { class: "sheet-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "Manche"), h("th", {}, "Total"))),
      h("tbody", {}, state.players.map((p) => h("tr", { "data-confirm": p.id },
        h("td", {}, p.name), h("td", {}, h("strong", {}, signed(p.round_score))), h("td", {}, p.total + p.round_score))))),
    last ? h("p", { class: "hint" }, "La partie se termine : le plus haut total l'emporte.") : null,
    h("div", { class: "gj-two" },
      h("button", { type: "button", class: "secondary", "data-action": "cancel-close", onclick: () => { draft.confirm = false; ctx.render(); } }, "Reprendre"),
      h("button", { type: "button", class: "primary", "data-action": "confirm-close", onclick: async () => {
        if (await ctx.send("close_round", {})) draft.confirm = false;
      } }, "Confirmer")));
}

// --- "Qui a raison ?": the engine's checks for table disputes ---------------------------------

const CHECKS = {
  fecundate: { fr: "Fécondation", en: "Fecundation", question: "Ce GM peut-il féconder ce GF ?",
    slots: [["gf", "red", "GF"], ["gm", "black", "GM"]] },
  surrogate: { fr: "Mère porteuse", en: "Surrogacy", question: "Ce GM peut-il mère-porter cet embryon ?",
    slots: [["gf", "red", "GF de l'embryon"], ["gm", "black", "GM de l'embryon"], ["new_gm", "black", "Nouveau GM"]] },
  abortion: { fr: "Avortement", en: "Abortion", question: "Cette carte avorte-t-elle cette fécondation ?",
    slots: [["gm", "black", "GM qui féconde"], ["answer", "black", "Carte jouée"]] },
  ejaculation: { fr: "Éjaculation", en: "Held-back contest", question: "Qui remporte ce GF ? (GM de chaque éjaculation)",
    slots: [["gf", "red", "GF"]] },
  bonus: { fr: "Bonus impérial", en: "Imperial bonus", question: "Qu'annule ce bonus ?",
    slots: [["card", "imperial", "Carte bonus"]] },
};
const AGAINST = [["abortion", "un avortement"], ["surrogacy", "une mère porteuse"], ["fecundation", "une fécondation"]];

function qaState() {
  if (!draft.qa) draft.qa = { check: "fecundate", cards: {}, active: "gf", against: null, answer: null, asked: null };
  return draft.qa;
}

function slotsOf(state, name) {
  const slots = CHECKS[name].slots;
  if (name !== "ejaculation") return slots;
  return [...slots, ...state.players.map((p) => [`gms.${p.id}`, "black", p.name, true])];
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
    // An answer worked out on the phone may lack its sentences: the server words them.
    if (!answer?.messages && navigator.onLine) answer = await api.check(ctx.code, qa.check, params);
  } catch (err) {
    answer = { ok: false, code: err.code, messages: err.messages, refused: true };
  }
  if (qa.asked !== key) return; // a later question was asked meanwhile
  qa.answer = answer;
  ctx.render();
}

function quiARaison(state, players, ctx) {
  const qa = qaState();
  const spec = CHECKS[qa.check];
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
    const [key, color] = activeSlot;
    const suits = color === "red" ? RED : BLACK;
    const ranks = color === "imperial" ? FACES : ranksFor(state.rules);
    const optional = activeSlot[3];
    grid = h("div", { class: "gj-qa-grid" },
      h("p", { class: "hint" }, `${activeSlot[2]} : touchez une carte ${color === "red" ? "rouge" : "noire"}`),
      optional ? h("button", { type: "button", class: "secondary gj-none", "data-action": "no-gm", onclick: () => {
        delete qa.cards[key];
        choose(null);
      } }, `${activeSlot[2]} n'éjacule pas `, h("small", {}, "no ejaculation")) : null,
      cardGrid(suits, ranks, (card) => cardButton(card, { pressed: qa.cards[key] === card, onclick: () => choose(card) }), { "data-grid": `qa-${key}` }));
  }
  const answer = qa.answer;
  return h("details", { class: "card gj-qa", id: "qui-a-raison", open: draft.qaOpen || null,
    ontoggle: (e) => { draft.qaOpen = e.target.open; } },
    h("summary", {}, "⚖ Qui a raison ? ", h("small", {}, "Who's right? — the rules settle it")),
    // Imperial bonuses are face cards: they only exist in the Règles Abondantes.
    h("div", { class: "gj-tabs", role: "group", "aria-label": "Question" }, Object.entries(CHECKS)
      .filter(([name]) => name !== "bonus" || state.rules === "abondantes").map(([name, c]) =>
      h("button", { type: "button", "data-check": name, "aria-pressed": String(qa.check === name),
        onclick: () => {
          const keep = { gf: qa.cards.gf };
          Object.assign(qa, { check: name, cards: name === "abortion" || name === "bonus" ? {} : keep, answer: null, asked: null, against: null });
          qa.active = slotsOf(state, name).find(([key]) => !qa.cards[key])?.[0] ?? null;
          ctx.render();
          if (qaRequest(state, qa) && name !== "ejaculation") ask(state, ctx);
        } }, c.fr, h("small", {}, c.en)))),
    h("p", { class: "gj-question" }, spec.question),
    h("div", { class: "gj-slots" }, slots.map(([key, , label, optional]) =>
      h("button", { type: "button", class: "gj-slot", "data-slot": key, "aria-pressed": String(qa.active === key),
        onclick: () => { qa.active = qa.active === key ? null : key; ctx.render(); } },
        h("small", {}, label), qa.cards[key] ? face(qa.cards[key]) : h("span", { class: "gj-empty-slot" }, optional ? "—" : "?")))),
    qa.check === "bonus" ? h("div", { class: "gj-tabs gj-against", role: "group", "aria-label": "Contre" },
      h("span", { class: "hint" }, "contre"),
      AGAINST.map(([value, label]) => h("button", { type: "button", "data-against": value, "aria-pressed": String(qa.against === value),
        onclick: () => { qa.against = value; qa.answer = null; ctx.render(); ask(state, ctx); } }, label))) : null,
    grid,
    qa.check === "ejaculation" ? h("button", { type: "button", class: "primary", "data-action": "run-check",
      disabled: !qa.cards.gf, onclick: () => { qa.active = null; ask(state, ctx); } }, "Qui l'emporte ?") : null,
    answer ? h("div", { class: `gj-answer ${answer.ok ? "yes" : "no"}`, "data-answer": answer.code, "data-ok": String(Boolean(answer.ok)), role: "status" },
      h("span", { class: "gj-verdict", "aria-hidden": "true" }, answer.ok ? "✔" : "✘"),
      h("div", {},
        h("p", { class: "fr" }, pretty(answer.messages?.fr ?? answer.message ?? answer.code, "fr", players)),
        answer.messages?.en ? h("small", { lang: "en" }, pretty(answer.messages.en, "en", players)) : null)) : null);
}

// --- table view ---------------------------------------------------------------------------------

function ranked(state) {
  return [...state.players]
    .map((p, seat) => ({ p, seat }))
    .sort((a, b) => b.p.total - a.p.total || a.seat - b.seat)
    .map(({ p }) => ({ p, rank: 1 + state.players.filter((o) => o.total > p.total).length }));
}

function standingsCard(state) {
  return h("section", { class: "card", id: "standings" },
    h("h2", {}, "Classement ", h("small", {}, state.over ? "Final standings" : "Standings")),
    state.over ? null : h("p", { class: "hint" }, `Après ${plural(state.players[0].round_scores.length, "manche", "manches")} sur ${state.rounds}`),
    h("ol", { class: "gj-standings" }, ranked(state).map(({ p, rank }) =>
      h("li", { "data-standing": p.id, "data-rank": rank, style: `--pc:${colorOf(state, p.id)}`, class: state.winners.includes(p.id) ? "won" : null },
        h("span", { class: "gj-rank-n" }, rank === 1 && state.over ? "🏆" : `${rank}`),
        h("span", { class: "gj-dot", "aria-hidden": "true" }),
        h("span", { class: "player-name" }, p.name),
        !state.over && p.round_score ? h("small", { class: "gj-live" }, `${signed(p.round_score)} en cours`) : null,
        h("strong", { class: "gj-total", "data-total": p.id }, p.total)))));
}

function roundsCard(state) {
  const closed = state.players[0].round_scores.length;
  if (!closed) return null;
  const rows = [];
  for (let r = 0; r < closed; r++) {
    rows.push(h("tr", { "data-closed-round": r + 1 }, h("th", { scope: "row" }, r + 1),
      state.players.map((p) => h("td", { "data-round-score": `${r + 1}/${p.id}` }, p.round_scores[r]))));
  }
  return h("section", { class: "card", id: "rounds" },
    h("h2", {}, "Manches ", h("small", {}, "Closed rounds")),
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
function chartCard(state) {
  const closed = state.players[0].round_scores.length;
  const series = state.players.map((p) => {
    let sum = 0;
    return [0, ...p.round_scores.map((score) => (sum += score))];
  });
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
  const label = `Totaux manche par manche — ${state.players.map((p, i) =>
    `${p.name} : ${series[i].slice(1).join(", ") || "0"}`).join(" ; ")}`;
  const lines = state.players.map((p, i) => svg("g", { "data-line": p.id, style: `--pc:${colorOf(state, p.id)}` },
    svg("polyline", { points: series[i].map((v, r) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
      class: "gj-line", "stroke-dasharray": dashOf(state, p.id) }),
    series[i].slice(1).map((v, r) => svg("circle", { cx: x(r + 1), cy: y(v), r: 3.5, class: "gj-point" }))));
  return h("section", { class: "card", id: "chart" },
    h("h2", {}, "Totaux ", h("small", {}, "Totals round by round")),
    h("figure", { class: "gj-chart" },
      svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label, class: "gj-svg" },
        svg("title", {}, label), grid, lines),
      h("figcaption", { class: "gj-legend" },
        h("span", { class: "muted" }, "manches → "),
        state.players.map((p) => h("span", { class: "gj-key", "data-key": p.id, style: `--pc:${colorOf(state, p.id)}` },
          svg("svg", { viewBox: "0 0 28 8", width: 28, height: 8, "aria-hidden": "true" },
            svg("line", { x1: 1, x2: 27, y1: 4, y2: 4, class: "gj-line", "stroke-dasharray": dashOf(state, p.id) })),
          p.name)))));
}

export function view(root, state) {
  const players = byId(state);
  fill(root,
    winnerBanner(state, players),
    noteCard(state),
    statusCard(state, players),
    standingsCard(state),
    state.over ? null : sheetsCard(state),
    roundsCard(state),
    chartCard(state),
  );
}
