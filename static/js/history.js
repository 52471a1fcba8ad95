// The story panel of the referee page and the table view: every event in words (the history's
// `said`, worded by the engine's catalogue), newest first, undone ones struck through, and on the
// referee page a "Défaire" button on the latest event still in effect (undo only takes back that one).
// The stream tells it (live.js's `arbitre:answer`): each answer's `did` appends the event it recorded
// or marks the one its undo took back, so following a table costs no request. The history is
// fetched only when the panel is opened (the latest page, less what the stream already gave) or
// scrolled back ("Plus anciens"), and the latest page again only if the stream skipped versions (a
// phone asleep for long); a long game costs each tap the same as a short one.
import { t, loadCatalogue } from "./i18n.js";
import { h, fill } from "./ui.js";
import { byPlayer, worded } from "./envelope.js";

const section = document.getElementById("story");
const PAGE = 50; // entries fetched at a time

const initial = JSON.parse(document.getElementById("initial")?.textContent || "null");
let table = null; // the latest `arbitre:table` detail: {role, code, version, state}
let told = initial?.version ?? null; // the table's version the entries are as of
let entries = []; // the latest entries held, oldest first, without a gap
let more = true; // whether entries older than `entries[0]` exist
let count = counted(initial); // entries in the whole story, when known
let undoable = initial?.undoable?.seq ?? null; // the entry an undo would take back
const marks = new Map(); // seq -> {undone_version, undone_at}: undos the stream told of
let asked = null; // the fetch under way
let details = null;
const catalogue = loadCatalogue();

// The latest `limit` entries, before the entry `before` if given ({version, events, more}): a plain
// GET, so the table view does not download the API's client (api.js) for it.
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

// --- what the stream tells --------------------------------------------------------------------

// How many entries the story has, as far as an answer says: an event's `seq` is the log's length
// (an undo's is not: it may take back an older one).
function counted(answer) {
  if (!answer) return null;
  if (answer.version === 0) return 0;
  return answer.did && !answer.did.undo ? answer.did.seq : null;
}

// One answer of the stream: the entry its `did` names, appended or marked undone. A version skipped
// (or an answer that does not say what it did) leaves the panel not knowing what happened
// meanwhile: it forgets its entries and, if open, fetches the latest page.
function hear(answer) {
  if (told !== null && answer.version <= told) return; // already told (a stream resumed)
  const did = answer.did;
  const skipped = told === null || answer.version !== told + 1 || !did;
  told = answer.version;
  undoable = answer.undoable?.seq ?? null;
  if (did?.undo) marks.set(did.seq, { undone_version: answer.version, undone_at: did.at });
  if (skipped) {
    entries = [];
    more = true;
    count = counted(answer);
    if (details?.open) fetchLacking();
  } else if (did.undo) {
    const entry = entries.find((e) => e.seq === did.seq);
    if (entry) Object.assign(entry, { undone: true, ...marks.get(did.seq) });
  } else {
    if (entries.length && entries.at(-1).seq !== did.seq - 1) entries = [];
    if (!entries.length) more = did.seq > 1;
    entries.push({ seq: did.seq, id: did.id, type: did.type, said: did.said, by: did.by, at: did.at,
      version: answer.version, undone: false, undone_version: null, undone_at: null });
    count = did.seq;
  }
  draw();
}

// A page fetched, merged with what the panel holds: the stream's undos newer than the page marked
// on it, and only the run of entries without a gap that ends with the newest kept.
function merge(page, latest) {
  const bySeq = new Map(entries.map((e) => [e.seq, e]));
  for (const e of page.events) {
    const mark = marks.get(e.seq);
    bySeq.set(e.seq, mark && mark.undone_version > page.version ? { ...e, undone: true, ...mark } : e);
  }
  const all = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  let first = all.length - 1;
  while (first > 0 && all[first - 1].seq === all[first].seq - 1) first--;
  entries = all.slice(first);
  const oldest = page.events[0];
  more = entries.length ? (oldest && entries[0].seq === oldest.seq ? page.more : entries[0].seq > 1) : false;
  if (latest && page.version >= (told ?? 0)) count = page.events.at(-1)?.seq ?? 0;
}

// Fetches what the open panel lacks to show a page: the latest entries when it holds none, else the
// ones before its oldest up to a page.
async function fetchLacking() {
  if (!table) return;
  if (!entries.length) {
    if (count !== 0) await fetchPage({ limit: PAGE }, true);
  } else if (more && entries.length < PAGE) {
    await fetchPage({ limit: PAGE - entries.length, before: entries[0].seq }, false);
  }
}

function older() {
  return fetchPage({ limit: PAGE, before: entries[0].seq }, false);
}

async function fetchPage(range, latest) {
  if (asked || navigator.onLine === false) return;
  asked = range;
  try {
    merge(await history(table.code, range), latest);
  } catch { /* offline or refused: the panel keeps what it holds */ }
  asked = null;
  draw();
}

// --- drawing ------------------------------------------------------------------------------------

// The version the page shows. The referee page also writes it on #app at every sync step, even one
// that changes nothing on screen (a tap acknowledged by the server): the story follows that too.
function version() {
  const written = document.getElementById("app")?.dataset.version;
  return written === undefined || written === "" ? table.version : Number(written);
}

function waiting() {
  return Number(document.getElementById("sync")?.dataset.waiting || 0);
}

function item(entry, latest) {
  return h("li", { class: entry.undone ? "story-item undone" : "story-item", "data-seq": entry.seq },
    h("span", { class: "story-n" }, entry.seq),
    h(entry.undone ? "s" : "span", { class: "story-text" }, worded({ ...entry, type: entry.type || entry.event?.type })),
    entry.undone ? h("span", { class: "story-mark" }, t("ui.story.undone")) : null,
    byPlayer(entry, table.state),
    latest ? h("button", { type: "button", class: "secondary story-undo", "aria-label": t("ui.story.undo_label"),
      onclick: (event) => { event.currentTarget.disabled = true; document.dispatchEvent(new Event("arbitre:undo")); } },
    t("ui.story.undo")) : null);
}

function draw() {
  if (!section || !table) return;
  if (!details) {
    details = h("details", { class: "story-panel" }, h("summary", {}), h("div", { class: "story-body" }));
    details.addEventListener("toggle", () => { if (details.open) fetchLacking(); });
    fill(section, details);
  }
  section.hidden = false;
  details.querySelector("summary").textContent = count ? t("ui.story.title_count", { count }) : t("ui.story.title");
  // Undo takes back the latest event in effect, and only when the page shows what the server has.
  const behind = told !== version();
  const latest = table.role === "referee" && !behind && !waiting() ? undoable : null;
  const offline = navigator.onLine === false;
  fill(details.querySelector(".story-body"),
    offline && behind ? h("p", { class: "hint" }, t(entries.length ? "ui.story.offline" : "ui.story.unavailable")) : null,
    table.state?.over ? h("p", {}, h("a", { class: "story-results", href: `/t/${table.code}/results` }, t("ui.story.results"))) : null,
    count === 0 ? h("p", { class: "hint" }, t("ui.story.empty")) : null,
    entries.length ? h("ol", { class: "story-list", reversed: true },
      [...entries].reverse().map((entry) => item(entry, entry.seq === latest))) : null,
    entries.length && more ? h("button", { type: "button", class: "secondary story-older", onclick: older }, t("ui.story.older")) : null);
}

document.addEventListener("arbitre:answer", (event) => hear(event.detail));
document.addEventListener("arbitre:table", async (event) => {
  table = event.detail;
  addStylesheet();
  await catalogue;
  draw();
});
const app = document.getElementById("app");
if (app) {
  let seen = app.dataset.version;
  new MutationObserver(() => {
    if (!table || app.dataset.version === seen) return;
    seen = app.dataset.version;
    draw();
  })
    .observe(app, { attributes: true, attributeFilter: ["data-version"] });
}
window.addEventListener("online", draw);
window.addEventListener("offline", draw);
