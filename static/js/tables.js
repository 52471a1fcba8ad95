// The tables this phone referees or follows, kept in localStorage so they are found again weeks
// later: per table its game, its role (a referee holds the secret), when it was last opened
// (`seen`), and the last state drawn in one line (`summary`, `over`, `version`, `at`), which the
// home page shows without fetching every table.

const KEY = "arbitre.tables";

function load() {
  try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch { return {}; }
}

function save(all) {
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { /* storage full or denied: a list is a comfort */ }
}

export function remember(code, fields) {
  const all = load();
  all[code] = { ...(all[code] || { code }), ...fields, seen: new Date().toISOString() };
  save(all);
  return all[code];
}

// Keeps the table's line as a page drew it (never older than the one kept): the engine's summary
// `{code, params}` and whether the game is over, seen at `at` (a follower's kept state may be old).
export function note(code, version, state, at = new Date()) {
  if (!state?.summary) return;
  const all = load();
  const kept = all[code] || { code };
  if (kept.version !== undefined && kept.version > version) return;
  all[code] = { ...kept, version, summary: state.summary, over: Boolean(state.over), at: at.toISOString() };
  save(all);
}

export function recall(code) {
  return load()[code] || null;
}

export function forget(code) {
  const all = load();
  delete all[code];
  save(all);
  localStorage.removeItem(`arbitre.view.${code}`); // the follower's kept state goes with it
}

// Newest first: the table opened last comes first.
export function list() {
  return Object.values(load()).sort((a, b) => (b.seen || "").localeCompare(a.seen || ""));
}
