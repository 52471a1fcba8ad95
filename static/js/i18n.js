// The page's one language and its catalogue: every word a page or script shows, and every sentence
// of the engine (the codes a state or a refusal names). The server renders the page in the language
// it chose (the `lang` cookie, else the browser's); scripts follow it. The catalogue is the page's
// part only (what that page can show), an immutable file named by `<html data-i18n>`
// (companion/web/i18n.py), fetched once however many modules ask. A key it lacks is shown as it is, and
// listed on `<html data-i18n-missing>`.

export const LANGS = ["fr", "en"];
export const lang = LANGS.includes(document.documentElement.lang) ? document.documentElement.lang : "fr";

export const catalogueURL = document.documentElement.dataset.i18n || `/i18n/${lang}.json`;

let words = {};
let loaded = false; // a part arrived: a key missing now is missing from the part
const parts = new Map(); // URL -> its promise: each part is fetched once however many modules ask
const missing = new Set();

function loadPart(url) {
  if (!parts.has(url)) {
    parts.set(url, fetch(url)
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(response.statusText))))
      .then((part) => { words = { ...words, ...part }; loaded = true; })
      .catch(() => { parts.delete(url); })); // offline before the first visit: keys are shown as they are
  }
  return parts.get(url);
}

// The page's catalogue, and the parts of `games` it lacks (a page listing tables of any game).
export async function loadCatalogue(games = []) {
  const versioned = /^\/i18n\/\w+\/\w+\/[\w.]+\.json$/.test(catalogueURL);
  const others = versioned ? games.filter((game) => /^[a-z]+$/.test(game))
    .map((game) => catalogueURL.replace(/[\w.]+\.json$/, `${game}.json`)) : [];
  await Promise.all([...new Set([catalogueURL, ...others])].map(loadPart));
}

// The blocks Unicode gives right-to-left scripts (every right-to-left letter and Arabic digit, assigned
// or not yet, lies in one), the right-to-left mark and the bidi controls: a character that could
// reorder the words around it. JavaScript has no bidi classes: e2e/test_names.py holds this to
// Python's own, code point by code point (engine/core.py, `isolate`).
const DIRECTIONAL = /[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const FSI = "\u2068";
const PDI = "\u2069";
const OPENERS = "\u2066\u2067\u2068"; // LRI, RLI, FSI: each closed by a PDI

// `text` ready to sit inside a sentence or a list: between FSI and PDI when it could reorder the words
// around it (a right-to-left name, a bidi control in a name stored before they were refused), so it
// keeps its own direction and the sentence its order; else as it is. Isolates it already holds move
// nothing; a PDI of its own that closes nothing, or an isolate it leaves open, is matched by one more
// FSI or PDI. The same as engine.core.isolate on the server.
export function isolate(value) {
  const text = String(value);
  if (!DIRECTIONAL.test(text)) return text;
  let depth = 0;
  let stray = 0;
  let moves = false;
  for (const char of text) {
    if (OPENERS.includes(char)) depth += 1;
    else if (char === PDI) { if (depth) depth -= 1; else stray += 1; }
    else if (depth === 0 && DIRECTIONAL.test(char)) moves = true;
  }
  if (!moves && !stray && !depth) return text;
  return FSI.repeat(1 + stray) + text + PDI.repeat(1 + depth);
}

// The French words that elide before a param pronounced with a vowel first ("de {name}" -> "d'Omar"):
// engine/messages.py's ELIDING, and `elides` the same decision as there.
const ELIDING = ["de", "que", "lorsque", "puisque", "quoique", "jusque", "le", "la", "je", "me", "te", "se", "ne"];
const ELISION = new RegExp(`(?<![\\p{L}\\p{N}_'])(${ELIDING.join("|")}) \\{(\\w+)\\}`, "giu");
const VOWELS = "aeiouœæ";

// Whether a French word elides before `name`: a vowel first, accented or not (d'Ada, d'Élodie), an H
// (d'Hugo, d'Hélène), or a Y before a consonant (d'Yves, but de Yasmine, de Yann); never a number.
export function elides(name) {
  if (typeof name !== "string") return false;
  const letters = [...name].slice(0, 3).join("").toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
  const [first = "", second = ""] = [...letters];
  if (first === "y") return /\p{L}/u.test(second) && !`${VOWELS}y`.includes(second);
  return first !== "" && `${VOWELS}h`.includes(first);
}

// The plural form of `count` in the page's language ("one" for 0 and 1 in French, 1 in English).
export function plural(count) {
  return typeof count === "number" && new Intl.PluralRules(lang).select(count) === "one" ? "one" : "other";
}

// The key that says `key`: itself, or its `.one`/`.other` form for `params.count`.
function form(key, params) {
  return key in words || !(`${key}.other` in words) ? key : `${key}.${plural(params.count)}`;
}

// Every param isolated as it needs: a name never turns the sentence that quotes it around; in French,
// the word before it elided when it calls for it.
export function format(template, params) {
  const elided = lang === "fr" ? template.replace(ELISION, (whole, word, key) =>
    (elides(params[key]) ? `${word.slice(0, -1)}'{${key}}` : whole)) : template;
  return elided
    .replace(/\{(\w+)\}/g, (whole, key) => (key in params ? isolate(params[key]) : whole))
    .replace(/\{\{/g, "{").replace(/\}\}/g, "}");
}

// `key` (an interface key "ui.…" or an engine code) worded in the page's language.
export function t(key, params = {}) {
  const template = words[form(key, params)];
  if (template === undefined && loaded && !missing.has(key)) {
    missing.add(key);
    document.documentElement.dataset.i18nMissing = [...missing].join(" ");
  }
  return template === undefined ? key : format(template, params);
}

export function has(key) {
  return key in words;
}

// Switches the app's language (remembered for a year) and redraws the page in it.
export function setLang(next) {
  if (!LANGS.includes(next)) return;
  document.cookie = `lang=${next}; path=/; max-age=31536000; SameSite=Lax`;
  location.reload();
}
