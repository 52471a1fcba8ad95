// Small DOM helpers shared by every page: element building, the toast, hearts.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// Replaces an element's content, skipping the nulls that conditional parts leave.
export function fill(root, ...children) {
  root.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

let toastTimer = null;

// Shows a refusal (or a note): French first, English under it.
export function toast(message, kind = "error") {
  const box = document.getElementById("toast");
  if (!box) return;
  const fr = typeof message === "string" ? message : message.fr;
  const en = typeof message === "string" ? null : message.en;
  box.replaceChildren(h("span", { class: "fr" }, fr), en && en !== fr ? h("span", { class: "en", lang: "en" }, en) : null);
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 7000 : 3000);
}

export function clearToast() {
  const box = document.getElementById("toast");
  if (box) box.hidden = true;
}

export function hearts(lives, max) {
  const shown = Math.max(lives, max);
  const items = [];
  for (let i = 0; i < shown; i++) items.push(h("span", { class: i < lives ? "full" : "lost" }, i < lives ? "♥" : "♡"));
  return h("span", { class: "hearts", "aria-label": `${lives} vie${lives > 1 ? "s" : ""}`, "data-lives": lives }, items);
}

export function byId(state) {
  return Object.fromEntries(state.players.map((p) => [p.id, p]));
}

export function vibrate(ms = 15) {
  if (navigator.vibrate) navigator.vibrate(ms); // haptics are only an extra
}
