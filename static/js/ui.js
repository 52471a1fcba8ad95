// Small DOM helpers shared by every page: element building, the toast, hearts, how long ago.
import { isolate, lang, t } from "./i18n.js";

// An element with its attributes and children. A text child (a name, a title, a sentence) is isolated
// as it needs (`isolate`): a right-to-left name, or a control in a name stored before they were
// refused, never reorders the text beside it, whatever element holds it.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = isolate(value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  return adopt(el, children);
}

// Appends children (nested lists flattened, the nulls that conditional parts leave skipped), each
// text isolated as it needs: `h`'s, and an SVG element's (chart.js).
export function adopt(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(isolate(child)));
  }
  return el;
}

// Replaces an element's content, skipping the nulls that conditional parts leave.
export function fill(root, ...children) {
  root.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

let toastTimer = null;

// Shows one sentence (a refusal, or a note) in the page's language; a refusal that names its rule
// (a URL such as /rules/morto#dealer) offers a link to it.
export function toast(text, kind = "error", link = null) {
  const box = document.getElementById("toast");
  if (!box) return;
  // A sentence still given as {fr, en} (a module not yet on the catalogue) shows the page's half.
  const message = typeof text === "string" ? text : (text?.[lang] ?? text?.fr ?? String(text));
  fill(box, h("span", { class: "toast-text" }, message),
    link ? h("a", { class: "toast-link", href: link }, t("ui.shell.see_rule")) : null);
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, kind === "error" ? (link ? 12000 : 7000) : 3000);
}

export function clearToast() {
  const box = document.getElementById("toast");
  if (box) box.hidden = true;
}

export function hearts(lives, max) {
  const shown = Math.max(lives, max);
  const items = [];
  for (let i = 0; i < shown; i++) items.push(h("span", { class: i < lives ? "full" : "lost" }, i < lives ? "♥" : "♡"));
  const label = t("ui.shell.lives", { count: lives });
  return h("span", { class: "hearts", role: "img", "aria-label": label, "data-lives": lives }, items);
}

// A table's code as people read and type it: K7QX-2M.
export function displayCode(code) {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function byId(state) {
  return Object.fromEntries(state.players.map((p) => [p.id, p]));
}

// How long ago `at` (a moment) was, in words: "à l'instant", "il y a 3 min", "hier"…
export function age(at) {
  const minutes = Math.floor((Date.now() - new Date(at).getTime()) / 60000);
  if (!(minutes >= 1)) return t("ui.shell.age.now");
  if (minutes < 60) return t("ui.shell.age.minutes", { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t("ui.shell.age.hours", { n: hours });
  const days = Math.floor(hours / 24);
  return days === 1 ? t("ui.shell.age.days.one") : t("ui.shell.age.days.other", { n: days });
}

export function vibrate(ms = 15) {
  if (navigator.vibrate) navigator.vibrate(ms); // haptics are only an extra
}
