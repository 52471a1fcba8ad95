// The end of a game, the same for every game and every page of a table (the referee's, the table
// view, a player's own page): under the winner's sentence, what a finished table offers. The results
// page; the rematch (on a referee's phone, one tap makes the next game with the same players, seats
// and options, as the engine decides, and opens it; on every other phone, once the stream says where
// it is, a link to follow it); and sharing a short summary (the Web Share API, else the clipboard).
// Every game's outcome card (envelope.js) calls `ending(state)`; the cards already drawn redraw
// themselves when the live stream announces the rematch (`arbitre:rematch`, from live.js), whatever
// the game redraws.
// Asking for the rematch is the referee page's (ending_referee.js): a table view never loads the API.
import { displayCode, fill, h, toast, vibrate } from "./ui.js";
import { recall, remember } from "./tables.js";
import { t } from "./i18n.js";

let rematch = null; // the next table's code, once the stream has told it
let shown = null; // the finished state the cards were drawn from
let request = null; // (code, secret) => the rematch's answer: set on a referee's page only

// The referee page's way to ask for the rematch (static/js/ending_referee.js).
export function offerRematch(ask) {
  request = ask;
}

// The page's table, and who is looking (`referee`, `viewer`, `player`; a `snapshot` has no server).
function page() {
  const { code, game, role } = document.getElementById("app")?.dataset || {};
  return { code, game, role };
}

// What a finished table offers, or nothing while the game goes on (and on a snapshot, which is offline).
export function ending(state) {
  const { code, role } = page();
  if (!state.over || !code || role === "snapshot") return null;
  shown = state;
  return draw(h("div", { class: "ending", "data-ending": code }));
}

function draw(box) {
  const { code } = page();
  const referee = request !== null && Boolean(recall(code)?.secret);
  fill(box,
    referee ? rematchButton(code) : followRematch(),
    h("div", { class: "ending-more" },
      h("a", { class: "button secondary", href: `/t/${code}/results`, "data-ending-results": "" }, t("ui.ending.results")),
      h("button", { type: "button", class: "secondary", "data-ending-share": "", onclick: () => share(code) }, t("ui.ending.share"))));
  return box;
}

function rematchButton(code) {
  const label = rematch
    ? [h("span", {}, t("ui.ending.rematch_open")), " ", h("span", { class: "code" }, displayCode(rematch))]
    : t("ui.ending.rematch");
  return h("button", { type: "button", class: "primary", "data-ending-rematch": rematch || "",
    onclick: (event) => startRematch(code, event.currentTarget) }, label);
}

function followRematch() {
  if (!rematch) return null;
  return h("a", { class: "button primary", href: `/t/${rematch}`, "data-ending-follow": rematch },
    h("span", {}, t("ui.ending.follow_rematch")), " ", h("span", { class: "code" }, displayCode(rematch)));
}

// The rematch is made once, whoever taps first: asking again answers the same table and the same
// secret, so a second referee phone opens the very table the first one made.
async function startRematch(code, button) {
  button.disabled = true;
  try {
    const made = await request(code, recall(code).secret);
    remember(made.code, { game: made.game, secret: made.secret, role: "referee" });
    vibrate();
    location.href = `/r/${made.code}`;
  } catch (error) {
    button.disabled = false;
    toast(error.message, "error", error.rule);
  }
}

// A short summary: the game, how it ended, and the results page's link.
async function share(code) {
  const { game } = page();
  const text = t("ui.ending.share_text", { game: t(`ui.game.${game}`), outcome: t(shown.outcome.reason, shown.outcome.params) });
  const url = `${location.origin}/t/${code}/results`;
  if (navigator.share) {
    try {
      await navigator.share({ title: t(`ui.game.${game}`), text, url });
    } catch { /* the person closed the share sheet */ }
    return;
  }
  try {
    await navigator.clipboard.writeText(`${text}\n${url}`);
    toast(t("ui.ending.copied"), "info");
  } catch {
    window.prompt(t("ui.ending.share"), `${text}\n${url}`); // no clipboard: shown, to copy by hand
  }
}

document.addEventListener("arbitre:rematch", (event) => {
  if (event.detail?.rematch === rematch) return;
  rematch = event.detail.rematch;
  for (const box of document.querySelectorAll("[data-ending]")) draw(box);
});
