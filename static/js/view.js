// The table view the QR code opens (and a player's own page): read-only, redrawn live on every
// referee tap from the stream alone, with a line saying what just happened, the players it changed
// highlighted, and how old the table's last action is. The last answer seen is kept on the phone,
// so a reload with no network still shows it, with its age.
import { follow } from "./live.js";
import { note, recall, remember } from "./tables.js";
import { loadCatalogue } from "./i18n.js";
import { changedPlayers, freshnessStatus, glow, showHappened } from "./envelope.js";

const app = document.getElementById("app");
const { code, game, player } = app.dataset;
const KEY = `arbitre.view.${code}`;
const happenedEl = document.getElementById("happened");
let answer = JSON.parse(document.getElementById("initial").textContent);
let seenAt = null;
try {
  const kept = JSON.parse(localStorage.getItem(KEY));
  if (kept && kept.answer.version > answer.version) {
    answer = kept.answer;
    seenAt = new Date(kept.at);
  }
} catch { /* nothing kept */ }
if (!recall(code)?.secret) remember(code, { game, role: "follower" });
else remember(code, {}); // a referee looking at the view: still the table opened last
const [module] = await Promise.all([import(`./games/${game}.js`), loadCatalogue()]);
const status = freshnessStatus(document.getElementById("sync"));

// The same page shows one player's own page when it names a player (games that have one).
function render(before = null) {
  if (player && module.player) module.player(app, answer.state, { code, player });
  else module.view(app, answer.state, { code });
  glow(app, changedPlayers(before, answer.state));
  showHappened(happenedEl, answer);
  status({ at: answer.did?.at || null });
  note(code, answer.version, answer.state, seenAt || new Date()); // the home page's "My tables" line
  document.dispatchEvent(new CustomEvent("arbitre:table", { detail: { role: "viewer", code, version: answer.version, state: answer.state } }));
}

render();
const rulesLink = document.getElementById("rules-link"); // the table view's, not a player's page
if (rulesLink) rulesLink.hidden = false;
follow(code, (fresh) => {
  const at = new Date();
  localStorage.setItem(KEY, JSON.stringify({ answer: fresh, at: at.toISOString() }));
  if (fresh.version >= answer.version) {
    const before = answer.state;
    answer = fresh;
    seenAt = at;
    render(before);
  }
}, { since: answer.version, onLive: (live) => status({ live }) });
