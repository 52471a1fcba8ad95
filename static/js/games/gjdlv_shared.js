// Le Grand Jeu de la Vie's pieces that every one of its pages draws with (the table view gjdlv.js,
// the referee's gjdlv_referee.js, a round played through gjdlv_play.js, a player's own page): the
// engine's words, the cards, the seats' colours, the round sheet, the notes, the standings, the closed
// rounds and their chart. Apart from the table view so that the modules a table played through loads
// on demand import them without importing back the module that loads them. Drawn from
// the engine's view alone, every word from the catalogue. Cards keep the engine's notation ("4H",
// "QD") in data-card; they show the page's letters (R D V, K Q J) and suit symbols, and say their names.
import { byId, h } from "../ui.js";
import { isolate, t } from "../i18n.js";
import { lineChart, svg } from "../chart.js";
import { notesCard } from "../envelope.js";

const SUIT_SYMBOL = { S: "♠", C: "♣", H: "♥", D: "♦" };
const INK = { S: "black", C: "black", H: "red", D: "red" };
// The ranks the catalogue words (letter and name); the numbers are shown as they are.
const WORDED = new Set(["A", "J", "Q", "K"]);
const PICTURES = new Set(["J", "Q", "K"]);
// One colour and one dash per seat: lines that cross or overlap stay apart in the chart.
const COLORS = ["#ffb347", "#5fd38d", "#6fb6ff", "#ff7eb6", "#c59bff", "#f0e16a"];
const DASHES = ["", "7 4", "2 4", "10 4 2 4", "4 3", "1 3"];

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
// Layout only: the picture cards (Jack, Queen, King) get a row of their own under the numbers.
export const isPicture = (card) => PICTURES.has(rankOf(card));
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
    .replace(/\bp\d+\b/g, (id) => (players[id] ? isolate(players[id].name) : id));
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
export function sheet(state, p, seat = null) {
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
    title ? h("h2", {}, t("gjdlv.summary.sheet", { round: state.round, rounds: state.rounds })) : null,
    h("div", { class: "gj-sheets" }, state.players.map((p) => sheet(state, p, seat))));
}

// --- shared header parts ------------------------------------------------------------------------

// The engine's notes (the table's size, the Queen's take, the last lap), their cards and players
// written out.
export function noteCard(state) {
  const players = byId(state);
  return notesCard(state, (code, params) => pretty(t(code, params), players));
}

// "Round 3 / 9": the label a catalogue string, the numbers data.
export function roundFact(state) {
  return h("span", {}, h("span", { class: "gj-label-text" }, t("ui.gjdlv.round")), " ",
    h("strong", { "data-round": state.round }, state.round), h("span", {}, ` / ${state.rounds}`));
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

function niceStep(raw) {
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return [1, 2, 5, 10].map((m) => m * pow).find((step) => step >= raw);
}

// Totals round by round (chart.js), one line per player in their seat's colour and dash, x = rounds
// (0 … the game's length, the rounds to come dimmed), y = points.
export function chartCard(state) {
  const closed = state.rounds_closed;
  const series = state.players.map((p) => [0, ...p.running_totals]);
  const values = series.flat();
  const step = niceStep((Math.max(20, ...values) - Math.min(0, ...values)) / 4);
  const top = Math.ceil(Math.max(20, ...values) / step) * step;
  const bottom = Math.floor(Math.min(0, ...values) / step) * step;
  const ticks = [];
  for (let v = bottom; v <= top; v += step) ticks.push(v);
  const labels = [];
  for (let r = 0; r <= state.rounds; r++) labels.push({ at: r, text: r, class: r <= closed ? null : "later" });
  const label = t("ui.gjdlv.chart_label", { series: state.players.map((p, i) =>
    t("ui.gjdlv.chart_series", { name: p.name, totals: series[i].slice(1).join(", ") || "0" })).join(t("ui.gjdlv.chart_series_between")) });
  const lines = state.players.map((p, i) => ({
    attrs: { "data-line": p.id, style: `--series:${colorOf(state, p.id)}` },
    dash: dashOf(state, p.id),
    points: series[i].map((value, r) => ({ at: r, value, dot: r > 0 })),
  }));
  return h("section", { class: "card", id: "chart" },
    h("h2", {}, t("ui.gjdlv.totals")),
    h("figure", { class: "gj-chart" },
      lineChart({ width: 340, height: 220, pad: { left: 36, right: 12, top: 12, bottom: 30 }, steps: state.rounds,
        low: bottom, high: top, ticks, labels, series: lines, label }),
      h("figcaption", { class: "gj-legend" },
        h("span", { class: "muted" }, t("ui.gjdlv.rounds_axis")),
        state.players.map((p) => h("span", { class: "gj-key", "data-key": p.id, style: `--series:${colorOf(state, p.id)}` },
          svg("svg", { viewBox: "0 0 28 8", width: 28, height: 8, "aria-hidden": "true" },
            svg("line", { x1: 1, x2: 27, y1: 4, y2: 4, class: "chart-line", "stroke-dasharray": dashOf(state, p.id) })),
          p.name)))));
}
