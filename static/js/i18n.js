// The page's one language and its catalogue: every word a page or script shows, and every sentence
// of the engine (the codes a state or a refusal names). The server renders the page in the language
// it chose (the `lang` cookie, else the browser's); scripts follow it. The catalogue is the page's
// part only (what that page can show), an immutable file named by `<html data-i18n>`
// (companion/i18n.py), fetched once however many modules ask. A key it lacks is shown as it is, and
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

function format(template, params) {
  return template
    .replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole))
    .replace(/\{\{/g, "{").replace(/\}\}/g, "}");
}

// `key` (an interface key "ui.…" or an engine code) worded in the page's language.
export function t(key, params = {}) {
  const template = words[key];
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
