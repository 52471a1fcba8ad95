// The story panel of the referee page and the table view: every event in words (the history's
// `said`, worded by the engine's catalogue), newest first, undone ones struck through, and on the
// referee page an Undo button on the latest event still in effect (undo only takes back that one).
// It follows the page: each `arbitre:table` redraw says the table's version, and the latest page of
// the history is fetched again when the version moved (online only; the last one stays in memory).
// Older pages come on demand, so a long game costs each redraw the same as a short one.
import { t, loadCatalogue } from "./i18n.js";
import { h, fill } from "./ui.js";

const section = document.getElementById("story");
const RETRY_MS = 3000; // the referee's taps still on their way: the server's history is behind
const PAGE = 50; // entries fetched at a time
const PAGE_MAX = 500; // the server's largest page

let table = null; // the latest `arbitre:table` detail: {role, code, version, state}
let story = null; // {version, events (oldest first), more}: the latest pages of the history
let asked = null; // the version the last fetch was made for
let fetching = false;
let retry = null;
let details = null;
const catalogue = loadCatalogue();

// The latest `limit` entries, before the entry `before` if given ({events, more}): a plain GET, so
// the table view does not download the API's client (api.js) for it.
async function history(code, { limit, before } = {}) {
  const query = new URLSearchParams({ limit, ...(before ? { before } : {}) });
  const response = await fetch(`/api/tables/${code}/history?${query}`, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(response.statusText);
  return response.json();
}

function addStylesheet() {
  if (document.querySelector("link[data-story]")) return;
  // Relative to this module: the same versioned folder as the page's scripts.
  document.head.append(h("link", { rel: "stylesheet", href: new URL("../css/story.css", import.meta.url).href, "data-story": "" }));
}

// The version the page shows. The referee page also writes it on #app at every sync step, even one
// that changes nothing on screen (a tap acknowledged by the server): the story follows that too.
function version() {
  const written = document.getElementById("app")?.dataset.version;
  return written === undefined || written === "" ? table.version : Number(written);
}

function waiting() {
  return Number(document.getElementById("sync")?.dataset.waiting || 0);
}

async function refresh() {
  if (!table || fetching || navigator.onLine === false || asked === version()) return;
  fetching = true;
  asked = version();
  try {
    // As many entries as the panel shows: their undone marks may have changed too.
    const shown = Math.min(PAGE_MAX, Math.max(PAGE, story ? story.events.length : 0));
    story = await history(table.code, { limit: shown });
  } catch { /* offline or refused: keep the last story */ }
  fetching = false;
  draw();
  clearTimeout(retry);
  if (asked !== version()) refresh(); // the table moved while this was fetched
  else if (story && story.version < asked) retry = setTimeout(() => { asked = null; refresh(); }, RETRY_MS);
}

async function older() {
  const first = story.events[0];
  try {
    const page = await history(table.code, { limit: PAGE, before: first.seq });
    if (story.events[0] === first) story = { ...story, events: [...page.events, ...story.events], more: page.more };
  } catch { /* offline: the button stays */ }
  draw();
}

function item(entry, latest) {
  const said = entry.said ? t(entry.said.code, entry.said.params) : entry.event.type;
  return h("li", { class: entry.undone ? "story-item undone" : "story-item", "data-seq": entry.seq },
    h("span", { class: "story-n" }, entry.seq),
    h(entry.undone ? "s" : "span", { class: "story-text" }, said),
    entry.undone ? h("span", { class: "story-mark" }, t("ui.story.undone")) : null,
    latest ? h("button", { type: "button", class: "secondary story-undo", "aria-label": t("ui.story.undo_label"),
      onclick: (event) => { event.currentTarget.disabled = true; document.dispatchEvent(new Event("arbitre:undo")); } },
    t("ui.story.undo")) : null);
}

function draw() {
  if (!section || !table) return;
  if (!details) {
    details = h("details", { class: "story-panel" }, h("summary", {}), h("div", { class: "story-body" }));
    fill(section, details);
  }
  section.hidden = false;
  const events = story ? story.events : [];
  // Entries are numbered from 1 without a gap: the newest one's number is their count.
  details.querySelector("summary").textContent = events.length
    ? t("ui.story.title_count", { count: events.at(-1).seq }) : t("ui.story.title");
  // Undo takes back the latest event in effect, and only when the page shows what the server has.
  const inEffect = events.filter((entry) => !entry.undone);
  const current = story && story.version === version() && !waiting();
  const latest = table.role === "referee" && current ? inEffect[inEffect.length - 1] : null;
  const behind = !story || story.version !== version();
  const offline = navigator.onLine === false;
  fill(details.querySelector(".story-body"),
    offline && behind ? h("p", { class: "hint" }, t(story ? "ui.story.offline" : "ui.story.unavailable")) : null,
    table.state?.over ? h("p", {}, h("a", { class: "story-results", href: `/t/${table.code}/results` }, t("ui.story.results"))) : null,
    story && !events.length ? h("p", { class: "hint" }, t("ui.story.empty")) : null,
    events.length ? h("ol", { class: "story-list", reversed: true },
      [...events].reverse().map((entry) => item(entry, entry === latest))) : null,
    story?.more ? h("button", { type: "button", class: "secondary story-older", onclick: older }, t("ui.story.older")) : null);
}

document.addEventListener("arbitre:table", async (event) => {
  table = event.detail;
  addStylesheet();
  await catalogue;
  draw();
  refresh();
});
window.addEventListener("online", () => { asked = null; refresh(); });
const app = document.getElementById("app");
if (app) {
  let seen = app.dataset.version;
  new MutationObserver(() => {
    if (!table || app.dataset.version === seen) return;
    seen = app.dataset.version;
    draw();
    refresh();
  })
    .observe(app, { attributes: true, attributeFilter: ["data-version"] });
}
window.addEventListener("offline", draw);
