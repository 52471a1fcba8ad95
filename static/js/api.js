// The JSON API from the browser: every call returns data or throws an ApiError carrying the
// rule's code, its sentence in the page's language (worded by the server, which reads the same
// `lang` cookie) and, when the refusal names one, the rule's page.
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message || (status ? `HTTP ${status}` : t("ui.shell.unreachable")));
    this.status = status;
    this.code = error?.code || "network";
    this.messages = error?.messages || {};
    this.params = error?.params || {};
    this.rule = error?.rule || null;
  }
}

async function call(method, url, { body, secret } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (secret) headers.Authorization = `Bearer ${secret}`;
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, null);
  }
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch { /* not JSON: handled below */ }
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export const api = {
  createTable: (game, players, options) => call("POST", "/api/tables", { body: { game, players, options } }),
  // An exported game made a new table, answered like createTable (a refusal's params.index names the event).
  importTable: (exported) => call("POST", "/api/tables/import", { body: exported }),
  getTable: (code) => call("GET", `/api/tables/${code}`),
  // A finished table's next game, answered like createTable; asked again, the same table and secret.
  rematch: (code, secret) => call("POST", `/api/tables/${code}/rematch`, { secret }),
  postEvent: (code, secret, event) => call("POST", `/api/tables/${code}/events`, { body: event, secret }),
  // `event`: the client id of the event it takes back (applied only while that one is the latest).
  undo: (code, secret, version, id, event) => call("POST", `/api/tables/${code}/undo`, { body: { version, id, event }, secret }),
  // `since` (a version): only what a phone holding the log of that version lacks ({keep, events});
  // `tail` (a count): the end of the log from a checkpoint ({start, checkpoint, events}); `ids`: the
  // client ids to ask about ({applied}: those the table applied).
  log: (code, { since, tail, ids = [] } = {}) => {
    const query = new URLSearchParams();
    if (since !== undefined) query.set("since", since);
    if (tail !== undefined) query.set("tail", tail);
    for (const id of ids) query.append("id", id);
    const asked = query.toString();
    return call("GET", `/api/tables/${code}/log${asked ? `?${asked}` : ""}`);
  },
  check: (code, name, params) => call("POST", `/api/tables/${code}/checks/${name}`, { body: params }),
  // A player's seat, with the referee's secret: a new player's secret ({player, secret}; the one given
  // before stops working), or the seat taken back.
  giveSeat: (code, secret, player) => call("POST", `/api/tables/${code}/players/${player}/secret`, { secret }),
  takeSeat: (code, secret, player) => call("DELETE", `/api/tables/${code}/players/${player}/secret`, { secret }),
};
