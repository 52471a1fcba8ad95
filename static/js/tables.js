// The tables this phone referees or follows, kept in localStorage so they are found again weeks later.

const KEY = "arbitre.tables";

function load() {
  try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch { return {}; }
}

function save(all) {
  localStorage.setItem(KEY, JSON.stringify(all));
}

export function remember(code, fields) {
  const all = load();
  all[code] = { ...(all[code] || { code }), ...fields, seen: new Date().toISOString() };
  save(all);
  return all[code];
}

export function recall(code) {
  return load()[code] || null;
}

export function forget(code) {
  const all = load();
  delete all[code];
  save(all);
}

export function list() {
  return Object.values(load()).sort((a, b) => (b.seen || "").localeCompare(a.seen || ""));
}
