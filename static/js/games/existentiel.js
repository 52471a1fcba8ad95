// Le jeu existentiel's table view (each player's adventure, jokers and track, the next rendez-vous
// with its calendar file), each player's own page, and the pieces the game master's panel
// (existentiel_referee.js, loaded by the referee page only) shares with them.
// Drawn from the engine's view alone: who is awaited from state.actions, every word from the
// catalogue in the page's one language (the interface's `ui.existentiel.*`, the engine's codes).
import { byId, fill, h } from "../ui.js";
import { isolate, lang, t } from "../i18n.js";
import { note, outcomeCard } from "../envelope.js";

export const month = (n) => t(`ui.shell.month.${n}`);

// --- the engine's words and actions ------------------------------------------------------------

// A catalogue sentence, whole, in its element.
export function said(tag, attrs, code, params = {}) {
  return h(tag, attrs, t(code, params));
}

// The catalogue key for a count: none, one or many (a wording choice, not a rule).
export function counted(key, count) {
  return `${key}_${count === 0 ? "none" : count === 1 ? "one" : "many"}`;
}

// The action of this type the rules allow now (for this player, if given); a button exists only then.
// Read here rather than with actions.js: a table view, which only reads who is awaited, never loads it.
export function allowed(state, type, player) {
  return state.actions.find((action) => action.type === type && (player === undefined || action.player === player));
}

// --- shared pieces -------------------------------------------------------------------------------

// A title the table gave, else the default one in the page's language.
function titleOf(state, n) {
  return state.titled[n - 1] ? state.titles[n - 1] : t("ui.existentiel.default_title", { n });
}

function adventure(state, n) {
  return t("ui.existentiel.adventure", { n, title: titleOf(state, n) });
}

export function adventureEl(state, n, cls = "adventure") {
  return h("span", { class: cls, "data-adventure": n },
    h("span", { class: "adventure-number" }, t("ui.existentiel.number", { n })), " — ",
    h("span", { class: "adventure-title" }, titleOf(state, n)));
}

// The adventures' numbers, as the table's titles list them.
export function numbers(state) {
  return state.titles.map((_, i) => i + 1);
}

export function jokersEl(p) {
  const label = t(counted("ui.existentiel.jokers", p.jokers), { count: p.jokers });
  return h("span", { class: `jokers${p.jokers ? "" : " none"}`, "data-jokers": p.jokers, role: "img",
    "aria-label": label, title: label }, `🃏×${p.jokers}`);
}

// "2031-03-07T19:30" is the table's local time: read it as such, never as UTC.
function parseAt(at) {
  const [y, mo, d, hh, mm] = at.split(/[-T:]/).map(Number);
  return new Date(y, mo - 1, d, hh, mm);
}

function formatAt(at) {
  const date = parseAt(at);
  const day = date.toLocaleDateString(lang === "en" ? "en-GB" : "fr-FR", { weekday: "long", day: "numeric", month: "long", year: "numeric" });
  // The catalogue's no-break spaces keep "19 h 30" in one piece.
  return t("ui.existentiel.date_at", { day, hh: String(date.getHours()).padStart(2, "0"), mm: String(date.getMinutes()).padStart(2, "0") });
}

export function statusPills(p) {
  return [
    p.status === "eliminated" ? h("span", { class: "pill out", "data-status": "eliminated" }, t("ui.existentiel.standing.eliminated")) : null,
    p.status === "left" ? h("span", { class: "pill left", "data-status": "left" }, t("ui.existentiel.status.left")) : null,
    p.title === "maitre" ? h("span", { class: "pill maitre", "data-title": "maitre" }, t("ui.existentiel.maitre")) : null,
  ];
}

export function reasonEl(p) {
  return p.reason ? said("p", { class: "reason", "data-note": p.reason }, p.reason) : null;
}

// What each awaited player is to do, from the actions listed for them.
function doing(state, id) {
  if (allowed(state, "accept", id) || allowed(state, "refuse", id)) return t("ui.existentiel.doing.offer");
  if (allowed(state, "roll", id)) return t("ui.existentiel.doing.roll");
  return null;
}

function waitingLine(state, players) {
  if (!state.waiting_for.length) return null;
  const names = state.waiting_for.map((id) => {
    const what = doing(state, id);
    return h("span", { class: "waiting-name", "data-waiting": id }, h("strong", {}, players[id].name),
      what ? [" ", h("span", {}, what)] : null);
  });
  const label = state.phase === "assigning" ? t("ui.existentiel.waiting.assigning") : t("ui.existentiel.waiting.underway");
  return h("p", { class: "waiting", id: "waiting" }, h("span", {}, label), " ", names.flatMap((n, i) => (i ? [", ", n] : [n])));
}

export function phaseBanner(state, players) {
  return h("section", { class: `card phase-banner phase-${state.phase}`, id: "phase", "data-phase": state.phase },
    h("div", { class: "phase-title" }, h("strong", {}, t(`ui.existentiel.phase.${state.phase}`)), " ",
      h("span", { class: "pill", "data-cycle": state.cycle }, t("ui.existentiel.cycle", { cycle: state.cycle }))),
    waitingLine(state, players),
    state.notes.map((one) => note(one)));
}

export function rendezvousText(state) {
  const rdv = state.rendezvous;
  if (!rdv) return h("p", { class: "muted", id: "rdv-none" }, t("ui.existentiel.rdv_none"));
  return h("p", { class: "rdv-when", id: "rdv-when", "data-at": rdv.at },
    h("strong", {}, formatAt(rdv.at)),
    rdv.place ? [h("br"), h("span", { class: "rdv-place", id: "rdv-place-shown" }, `📍 ${isolate(rdv.place)}`)] : null);
}

function rendezvousCard(state, code) {
  return h("section", { class: "card rendezvous", id: "rendezvous" },
    h("h2", {}, t("ui.existentiel.next_meeting")),
    rendezvousText(state),
    state.rendezvous ? h("a", { class: "button primary", id: "ics-link", href: `/api/tables/${code}/rendezvous.ics` },
      t("ui.existentiel.add_to_calendar")) : null);
}

// How an adventure stands for a player, for the track and the player's page.
function squareState(p, n) {
  if (p.current === n) return p.status === "left" ? "death" : "current";
  if (p.offered === n) return "offered";
  if (p.completed.includes(n)) return "completed";
  if (p.refused.includes(n)) return "refused";
  return "none";
}

const squareWords = (s) => t(`ui.existentiel.square.${s}`);

function refusedBefore(p, n, s) {
  return s !== "refused" && p.refused.includes(n);
}

function track(state, p) {
  return h("ol", { class: "track", "aria-label": t("ui.existentiel.track_of", { name: p.name }) }, numbers(state).map((n) => {
    const s = squareState(p, n);
    const words = refusedBefore(p, n, s) ? t("ui.existentiel.square_refused_before", { words: squareWords(s) }) : squareWords(s);
    const label = t("ui.existentiel.square_label", { adventure: adventure(state, n), words });
    return h("li", { class: `square sq-${s}${n === state.death ? " sq-at-death" : ""}`, "data-square": n, "data-state": s,
      "aria-label": label, title: label }, n);
  }));
}

function legend() {
  return h("div", { class: "legend", id: "legend", "aria-label": t("ui.existentiel.legend") },
    ["completed", "refused", "current", "offered"].map((s) => h("span", { class: "legend-item" },
      h("span", { class: `square sq-${s}`, "aria-hidden": "true" }), h("span", {}, squareWords(s)))));
}

export function nowLine(state, p) {
  if (p.status === "eliminated") return null;
  if (p.status === "left") {
    return h("p", { class: "now", "data-adventure": state.death },
      t("ui.existentiel.now.left", { adventure: adventure(state, state.death) }));
  }
  if (p.current !== null) {
    return h("p", { class: "now", "data-now": "current" }, h("span", { class: "label" }, t("ui.existentiel.now.current")), " ",
      adventureEl(state, p.current));
  }
  if (p.offered !== null) {
    return h("p", { class: "now", "data-now": "offered" }, h("span", { class: "label" }, t("ui.existentiel.now.offered")), " ",
      adventureEl(state, p.offered), p.must_accept ? [" ", h("span", { class: "pill warn" }, t("ui.existentiel.refused_before"))] : null);
  }
  if (p.validated) {
    return h("p", { class: "now muted", "data-now": "validated" },
      t(`ui.existentiel.now.validated_${p.validated}`, { adventure: adventure(state, p.score) }));
  }
  return h("p", { class: "now muted", "data-now": "roll" }, t("ui.existentiel.now.roll"));
}

function resultRow(state, p) {
  const done = p.completed.length;
  return h("li", { "data-result": p.id },
    h("strong", {}, p.name), " — ",
    h("span", {}, t(`ui.existentiel.standing.${p.status}`, { adventure: state.death })), ", ",
    h("span", {}, t(counted("ui.existentiel.completed", done), { count: done })), " ", jokersEl(p),
    p.title === "maitre" ? [" ", h("span", { class: "pill maitre" }, t("ui.existentiel.maitre"))] : null,
    reasonEl(p));
}

// The outcome card (envelope.js), titled, with a medal only for winners, and each player's results
// and the notes in it.
export function resultsCard(state) {
  return outcomeCard(state, { title: t("ui.existentiel.phase.over"), mark: state.winners.length ? "🏅" : null, more: [
    h("ul", { class: "results", id: "results" }, state.players.map((p) => resultRow(state, p))),
    state.notes.map((one) => note(one)),
  ] });
}

// The pages are redrawn on every sync and live message, most of which change nothing here: skipping
// those keeps the DOM still, so a tap that straddles a redraw is not lost. A drawing is skipped only
// while `root` still holds it: the referee page puts its "replaying" note in the same root meanwhile.
const drawn = new WeakMap(); // root → {key, first: the first node that drawing put in it}

export function drawChanged(root, inputs, draw) {
  const key = JSON.stringify(inputs);
  const last = drawn.get(root);
  if (last?.key === key && root.firstChild && last.first === root.firstChild) return;
  draw();
  drawn.set(root, { key, first: root.firstChild });
}

// --- table view --------------------------------------------------------------------------------------

function viewPlayer(state, p, code) {
  return h("div", { class: `player${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
    h("div", { class: "player-head" },
      h("a", { class: "player-name", href: `/t/${code}/p/${p.id}` }, p.name),
      statusPills(p), jokersEl(p)),
    nowLine(state, p),
    reasonEl(p),
    track(state, p));
}

export function view(root, state, { code }) {
  drawChanged(root, ["view", state, code], () => {
    const players = byId(state);
    fill(root,
      resultsCard(state),
      state.over ? null : phaseBanner(state, players),
      state.over ? null : rendezvousCard(state, code),
      h("section", { class: "card" },
        h("h2", {}, t("ui.existentiel.players")),
        h("div", { class: "players" }, state.players.map((p) => viewPlayer(state, p, code))),
        legend()),
    );
  });
}

// --- one player's own page ---------------------------------------------------------------------------

function atDeath() {
  return h("small", {}, " — ", h("span", {}, t("existentiel.lived_at_death")));
}

function adventureRow(state, p, n) {
  const s = squareState(p, n);
  return h("li", { class: `adventure-row sq-row-${s}`, "data-square": n, "data-state": s },
    h("span", { class: `square sq-${s}`, "aria-hidden": "true" }, n),
    h("span", { class: "adventure-title" }, titleOf(state, n),
      n === state.death ? atDeath() : null),
    h("span", { class: `state-label st-${s}` }, s === "none" ? "—" : squareWords(s),
      refusedBefore(p, n, s) ? [" ", h("small", { class: "also-refused" }, t("ui.existentiel.refused_before_short"))] : null));
}

export function player(root, state, { code, player: id }) {
  drawChanged(root, ["player", state, code, id], () => drawPlayer(root, state, code, id));
}

function drawPlayer(root, state, code, id) {
  const p = byId(state)[id];
  if (!p) {
    fill(root, h("section", { class: "card" }, h("p", {}, t("ui.existentiel.unknown_player")),
      h("a", { href: `/t/${code}` }, t("ui.existentiel.back"))));
    return;
  }
  const completed = p.completed.length;
  const count = state.titles.length;
  fill(root,
    h("p", {}, h("a", { href: `/t/${code}`, id: "back-to-table", class: "button secondary" }, t("ui.existentiel.back"))),
    h("section", { class: `card player-page${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
      h("div", { class: "player-head" }, h("h1", { class: "player-name" }, p.name), statusPills(p)),
      h("dl", { class: "facts" },
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.jokers")), h("dd", {}, jokersEl(p))),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.score")), h("dd", { "data-score": p.score ?? "" }, p.score ?? "—")),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.completed")), h("dd", { "data-completed": completed }, `${completed} / ${state.petit_chelem}`)),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.born")), h("dd", {}, month(p.birth_month)))),
      nowLine(state, p),
      reasonEl(p),
      p.title === "maitre" ? note({ code: "existentiel.petit_chelem", params: {} }) : null),
    state.rendezvous && !state.over ? rendezvousCard(state, code) : null,
    h("section", { class: "card" },
      h("h2", {}, t("ui.existentiel.adventures", { count })),
      h("ol", { class: "adventure-list", id: "adventures" }, numbers(state).map((n) => adventureRow(state, p, n)))),
  );
}
