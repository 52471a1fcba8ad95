// The engine's sentences in the browser (served from engine/messages.py and the games' MESSAGES),
// so a page can word any code the state names without keeping a copy of the text.

let catalogue = {};

export async function loadMessages() {
  try {
    catalogue = await (await fetch("/engine/messages.json")).json();
  } catch { /* offline before the first visit: codes are shown as they are */ }
}

function format(template, params) {
  return template
    .replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole))
    .replace(/\{\{/g, "{").replace(/\}\}/g, "}");
}

// {fr, en} for a code and its params, as engine.messages.text gives them.
export function sentence(code, params = {}) {
  const pair = catalogue[code];
  return pair ? { fr: format(pair[0], params), en: format(pair[1], params) } : { fr: code, en: code };
}
