// The page's one language and its catalogue: every word a page or script shows, and every sentence
// of the engine (the codes a state or a refusal names), from /i18n/<lang>.json. The server renders
// the page in the language it chose (the `lang` cookie, else the browser's); scripts follow it.

export const LANGS = ["fr", "en"];
export const lang = LANGS.includes(document.documentElement.lang) ? document.documentElement.lang : "fr";

let words = {};

export async function loadCatalogue() {
  try {
    words = await (await fetch(`/i18n/${lang}.json`)).json();
  } catch { /* offline before the first visit: keys are shown as they are */ }
}

function format(template, params) {
  return template
    .replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole))
    .replace(/\{\{/g, "{").replace(/\}\}/g, "}");
}

// `key` (an interface key "ui.…" or an engine code) worded in the page's language.
export function t(key, params = {}) {
  const template = words[key];
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
