// The envelope every game's page draws around its own board: what every state shares (engine/core.py
// `view`: the outcome, the notes) and what the table's latest version did. One module for every game:
// a game draws the outcome and the notes where its board has them, passing what differs (a title, its
// own results, its own wording of a note); the pages (view.js, player.js, referee.js) draw what just
// happened: the line that says in words what the latest version did (the answer's `did`: the event it
// recorded, in the engine's words, or the event an undo took back), the players it changed
// highlighted for a moment, and, on a follower's status, how long ago the table last moved
// (`did.at`), kept true as time passes without asking the server. Which players changed is read by
// comparing their entries in the states before and after: a picture of what moved, not a rule.
import { t } from "./i18n.js";
import { age, fill, h } from "./ui.js";
import { ending } from "./ending.js";

// --- the outcome and the notes, on a game's board ----------------------------------------------------

// Once the game is over: the engine's sentence (`.winner`, which names the winners) and, under it,
// what a finished table offers (ending.js). A game may give the card a title, the sentence's mark
// (a trophy unless it says otherwise, none for null) and `more` to hold under the offer.
export function outcomeCard(state, { title = null, mark = "🏆", more = null } = {}) {
  if (!state.outcome) return null;
  return h("section", { class: "card outcome", id: "outcome" },
    title === null ? null : h("div", { class: "outcome-title" }, title),
    h("p", { class: "winner", "data-winners": state.winners.join(",") },
      mark ? [h("span", { class: "icon", "aria-hidden": "true" }, mark), " "] : null,
      h("span", { class: "winner-text" }, t(state.outcome.reason, state.outcome.params))),
    ending(state),
    more);
}

// A note of the engine's (what the table should read now), named by its code. `word`: how the game
// writes it (the catalogue's sentence, unless the game writes more out: the Grand Jeu's cards).
export function note({ code, params }, word = t) {
  return h("p", { class: "note", "data-note": code }, word(code, params));
}

// The state's notes, in a card of their own; nothing when there are none.
export function notesCard(state, word = t) {
  if (!state.notes.length) return null;
  return h("section", { class: "card notes", id: "notes" }, state.notes.map((one) => note(one, word)));
}

// --- what just happened, on every page of a table ----------------------------------------------------

const GLOW_MS = 2400; // how long a changed player stays highlighted (the CSS animation's length)

// An event in words: its `said` from the catalogue, else (words the server could not find) its type.
export function worded(entry) {
  return entry.said ? t(entry.said.code, entry.said.params) : entry.type;
}

// Who recorded an event, when a player did from their own phone (`by`: a player's id; "referee"
// otherwise, said by no one): their name, from the table's state.
export function byPlayer(entry, state) {
  const by = entry?.by;
  if (!by || by === "referee") return null;
  const name = state?.players?.find((p) => p.id === by)?.name ?? by;
  return h("span", { class: "by-player", "data-by": by }, t("ui.story.by_player", { name }));
}

// The line: what `answer` did. `stale` when the page shows more than that answer (taps not yet
// acknowledged): the line is then dimmed, never passed off as the latest (and "nothing yet" is not said).
export function showHappened(el, answer, { stale = false } = {}) {
  if (!el || !answer) return;
  const did = answer.did;
  el.hidden = stale && !did;
  el.classList.toggle("stale", stale);
  el.dataset.version = answer.version;
  el.dataset.undo = did?.undo ? "true" : "false";
  if (!did) {
    fill(el, h("span", { class: "happened-text muted" }, t("ui.shell.happened.none")));
    return;
  }
  fill(el,
    did.undo ? [h("span", { class: "happened-mark" }, t("ui.shell.happened.undone")), " "] : null,
    h("span", { class: "happened-text" }, worded(did)),
    did.by && did.by !== "referee" ? [" ", byPlayer(did, answer.state)] : null);
}

// A value as JSON with its keys sorted: the same whatever order they came in (the page's first
// answer is written by the server's templates, which sort them; the stream's are not).
function canonical(value) {
  return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
}

// The players whose entry differs between two states (`players`, and a round played through's
// `play.seats`), ids in seating order.
export function changedPlayers(before, after) {
  if (!before || !after) return [];
  const entries = (state) => {
    const found = new Map((state.players || []).map((p) => [p.id, [canonical(p)]]));
    for (const seat of state.play?.seats || []) found.get(seat.player)?.push(canonical(seat));
    return found;
  };
  const was = entries(before);
  return [...entries(after)].filter(([id, now]) => was.get(id)?.join() !== now.join()).map(([id]) => id);
}

const glowing = new Map(); // player id -> when its highlight began

// Highlights players for a moment: `ids` from now, and those still glowing (a redraw meanwhile made
// new elements: their highlight carries on where it was, not from the start).
export function glow(root, ids = []) {
  const now = performance.now();
  for (const id of ids) glowing.set(id, now);
  for (const [id, since] of glowing) {
    const age = now - since;
    if (age >= GLOW_MS) { glowing.delete(id); continue; }
    for (const el of playerElements(root, id)) {
      el.classList.remove("changed");
      el.style.animationDelay = `${-Math.round(age)}ms`;
      void el.offsetWidth; // restart the animation on an element that had it
      el.classList.add("changed");
      setTimeout(() => el.classList.remove("changed"), GLOW_MS - age);
    }
  }
}

// A player's own card on the page (not the buttons naming them, unless the button is the card, as
// Il Morto's seat tiles are: `data-card`): the outermost element inside `root` that names them, as
// every game draws one (`data-player`, or `data-sheet` for the Grand Jeu's sheets; a player's own
// page names its player on `root` itself).
function playerElements(root, id) {
  const who = CSS.escape(id);
  const selector = `[data-player="${who}"]:not(button), [data-player="${who}"][data-seat], [data-sheet="${who}"]`;
  return [...root.querySelectorAll(selector)].filter((el) => {
    const outer = el.parentElement.closest(selector);
    return !outer || outer === root || !root.contains(outer);
  });
}

// Keeps a follower's status true: how old the table's last action is (`at`: the latest `did.at`),
// and whether this phone hears the table (`live`: else it says it is offline, and the age is that of
// the last action it heard of); redrawn every 20 s as time passes. Returns `update({at, live})`.
export function freshnessStatus(el) {
  let current = { at: null, live: false };
  const draw = () => {
    if (!el) return;
    el.className = `sync fresh ${current.live ? "ok" : "off"}`;
    el.dataset.live = current.live ? "1" : "0";
    el.dataset.at = current.at || "";
    const first = current.live ? (current.at ? "ui.shell.fresh.label" : "ui.shell.fresh.none") : "ui.shell.fresh.offline";
    fill(el, h("span", { class: "fresh-lines" }, h("span", { class: "fresh-what" }, t(first)),
      current.at ? [" ", h("span", { class: "fresh-age" }, age(current.at))] : null));
  };
  setInterval(draw, 20_000);
  return (changes) => {
    current = { ...current, ...changes };
    draw();
  };
}
