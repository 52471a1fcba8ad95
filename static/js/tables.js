// The tables this phone referees or follows, kept in localStorage so they are found again weeks
// later: per table its game, its role (a referee holds the secret), when it was last opened
// (`seen`), the last state drawn in one line (`summary`, `over`, `version`, `at`), which the
// home page shows without fetching every table, and its players in their seats (`players`:
// `{name, birth_month?}`), which a new-table form offers again ("the same as last time").
// A player's phone keeps its seat (`seat`: `{player, name, secret}`, the player's secret from the
// QR's fragment); a referee's phone keeps the seats it gave (`given`: per player id `{secret, at}`),
// so a seat's QR can be shown again without a new secret (the server keeps only their hashes).

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
  all[code] = { ...kept, version, summary: state.summary, over: Boolean(state.over), at: at.toISOString(),
    players: seated(state.players) };
  save(all);
}

// A table's players as a new-table form takes them back: names in seating order (and birth months).
function seated(players = []) {
  return players.map(({ name, birth_month: month }) => (month ? { name, birth_month: month } : { name }));
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

// The players of this phone's recent tables, newest first, each group once (the same names in the
// same seats): `[{code, game, players}]`.
export function recentPlayers() {
  const found = new Map();
  for (const table of list()) {
    if (!table.game || !table.players?.length) continue;
    const key = table.players.map((p) => p.name.toLowerCase()).join("\n");
    if (!found.has(key)) found.set(key, { code: table.code, game: table.game, players: table.players });
  }
  return [...found.values()];
}

// This phone now holds a player's seat at the table (their secret came in a QR's fragment).
export function holdSeat(code, game, seat) {
  return remember(code, { game, seat, role: "player" });
}

// The seats the referee's phone gave at the table: {player id: {secret, at}}.
export function given(code) {
  return recall(code)?.given || {};
}

// `secret` null: the seat was taken back.
export function give(code, player, secret) {
  const seats = { ...given(code) };
  if (secret) seats[player] = { secret, at: new Date().toISOString() };
  else delete seats[player];
  const all = load();
  all[code] = { ...(all[code] || { code }), given: seats };
  save(all);
}
