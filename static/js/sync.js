// Keeps one referee's table: the server's log as last acknowledged (base), the taps waiting to be
// sent (outbox, in IndexedDB), and what the table looks like with them (projected by the engine
// worker, exactly as the server will compute it). Taps are sent oldest first, one at a time, each
// against the version it follows; a 409 means someone else wrote first: the waiting taps are
// replayed on the fresh log, and those the rules no longer allow, or that would mean something else
// than when they were tapped (engine.core.replay_tap), are set aside for the referee to keep or drop.
// Before anything is replayed on a fresh log, the outbox is reconciled with it by client id: a tap
// whose answer was lost and that the server holds leaves the outbox, never replayed nor set aside.
// The page draws the server's answer it came with at once; the log comes after, and only its end (a
// checkpoint of the state and the events after it, /log?tail=): never the whole log. Then only what
// changed: the server's log since our version, one event per acknowledged tap to IndexedDB and to
// the worker, and a tap sends the worker the waiting taps alone.
// A player's phone (`player`: the seat it holds, sent with that player's secret) uses the same outbox
// without the engine and without the log: the server alone judges its moves, sent without a version
// (the rules decide a race, not the order of the phones' reads), and what the stream brings is its
// view. A move the server refuses is set aside with its reason at once; one that did not reach the
// server stays in the outbox and is sent again only when its player asks (`retry`): a move made an
// hour ago is never sent behind its player's back.
import { api, newId } from "./api.js";
import { ask, startEngine } from "./engine.js";
import * as box from "./outbox.js";
import { t } from "./i18n.js";

const RETRY_MS = 4000;
// Events in effect the phone holds at least, from a checkpoint of the state: what it can undo offline.
const TAIL = 100;
// Waiting taps asked about when the log is read (the server's bound): taps are sent one at a time,
// so only the oldest can have been applied unanswered.
const IDS_ASKED = 64;

export class TableSync {
  constructor({ code, game, secret, answer, onChange, onRejected, player = null }) {
    Object.assign(this, { code, game, secret, onChange, onRejected, player });
    this.server = answer; // the latest answer seen from the server: {version, state}
    this.view = answer.state;
    this.projected = false; // `view` is the engine's projection of the base and the outbox
    this.base = null;
    this.workerVersion = null; // the version of the base the engine worker holds, if it holds one
    this.judged = null; // the version of the base the waiting taps were last checked against
    this.pending = [];
    this.rejected = [];
    this.changes = []; // what other phones did to the log under the waiting taps (see `record`)
    this.notLatest = null; // the undo the server last answered "not the latest" (see `rebases`)
    this.engine = "loading";
    this.online = navigator.onLine;
    this.flushing = null;
    this.problem = null;
    this.queue = Promise.resolve();
  }

  // Every step that reads or changes the log, the outbox or the view runs one after the other:
  // a tap is checked against every tap before it, even two taps a few milliseconds apart.
  serial(work) {
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }

  async start() {
    if (this.player) return this.startSeat();
    this.base = (await box.loadBase(this.code)) || null;
    // A player's moves kept on this same phone are its seat's page's, not the referee's.
    this.pending = (await box.pending(this.code)).filter((op) => !op.player);
    this.rejected = await this.setAsideHere();
    this.changed(); // drawn at once, from the answer the page came with
    startEngine().then(
      ({ ms, stages }) => {
        this.engine = "ready"; this.engineMs = ms; this.engineStages = stages;
        return this.reproject().then(() => this.flush());
      },
      () => { this.engine = "failed"; this.changed(); this.flush(); });
    addEventListener("online", () => { this.online = true; this.flush(); });
    addEventListener("offline", () => { this.online = false; this.changed(); });
    setInterval(() => { if (this.pending.length) this.flush(); }, RETRY_MS);
    // The log behind the first drawing (reconciled with the outbox), then the waiting taps.
    const stale = !this.base || this.base.version < this.server.version;
    (stale ? this.serial(() => this.refreshed()) : Promise.resolve())
      .catch(() => { this.online = false; })
      .finally(() => this.flush());
  }

  // A player's phone: its waiting moves (a page reloaded before they were sent), then nothing more
  // until the stream or its player speaks.
  async startSeat() {
    this.engine = "off";
    this.pending = (await box.pending(this.code)).filter((op) => op.player === this.player);
    this.rejected = await this.setAsideHere();
    this.unsent = this.pending.length > 0;
    this.changed();
    addEventListener("online", () => { this.online = true; this.changed(); });
    addEventListener("offline", () => { this.online = false; this.changed(); });
  }

  // A player's move sent now, with those waiting before it: {ok: true} once the server recorded it,
  // or {ok: false, error} (refused, set aside; or not sent: `unsent` says so, and the move waits).
  async send(kind, event) {
    const op = { kind, id: newId(), player: this.player, ...(event ? { event } : {}) };
    this.pending.push(await box.push(this.code, op));
    this.changed();
    return this.retry(op);
  }

  // Sends the waiting moves again (its player asked); the answer about `op`, else the last one.
  async retry(op = this.pending.at(-1)) {
    const count = this.rejected.length;
    await this.flush();
    if (!this.pending.some((other) => other.id === op?.id)) {
      const refused = this.rejected.slice(count).find((entry) => entry.op.id === op?.id);
      return refused ? { ok: false, error: refused.error } : { ok: true };
    }
    return { ok: false, error: this.problem || { code: "network" } };
  }

  // Gives up the waiting moves (its player chose to): none of them is sent.
  async drop() {
    for (const op of this.pending) await box.acknowledgeSeat(op.seq);
    this.pending = [];
    this.unsent = false;
    this.changed();
  }

  // --- what the page shows -----------------------------------------------------------------

  get version() {
    return this.base ? this.base.version : this.server.version;
  }

  // Whether `view` shows every tap this phone knows of: the engine's projection, or the server's
  // answer when no tap waits and none acknowledged is missing from it (a page reloaded offline
  // holds an older answer than its log until the engine has projected).
  get complete() {
    return this.projected || (!this.pending.length && (!this.base || this.base.version <= this.server.version));
  }

  status() {
    const waiting = this.pending.length;
    if (this.problem) return { kind: "off", text: this.problem.message, waiting };
    if (!this.online) {
      return { kind: "off", text: waiting ? t("ui.shell.sync.offline_waiting", { n: waiting }) : t("ui.shell.sync.offline_synced"), waiting };
    }
    if (waiting) return { kind: "busy", text: t("ui.shell.sync.waiting", { n: waiting }), waiting };
    return { kind: "ok", text: t("ui.shell.sync.synced"), waiting };
  }

  changed() {
    this.onChange?.(this);
  }

  // --- the engine's projection ----------------------------------------------------------------

  async project(extra = []) {
    const ops = [...this.pending, ...extra].map(({ kind, event, id, meant }) => ({ kind, event, id, meant }));
    for (let tries = 0; ; tries++) {
      const { version } = this.base;
      if (this.workerVersion !== version) await this.sendBase();
      const projection = await ask({ op: "project", code: this.code, version, pending: ops });
      if (!projection.stale) return projection;
      // The worker lost step (a move it could not apply): it gets the whole base once more.
      this.workerVersion = null;
      if (tries) throw new Error("the engine worker does not hold the table's log");
    }
  }

  // The whole base to the worker: when it starts (with the page), or when it lost step.
  async sendBase() {
    const { game, players, options, version, start, checkpoint, events, ids } = this.base;
    await ask({ op: "base_set", code: this.code, game, players, options, version, start, checkpoint,
      events: events.slice(), ids: ids.slice() });
    this.workerVersion = version;
  }

  // Tells the worker how the base moved from version `since`: its first `keep` events stay, then
  // `added` (with their `ids`). Messages reach the worker in order, so nothing waits for its answer;
  // if it did not hold the base at `since`, its next projection answers "stale" and it gets the
  // whole base then.
  moveWorker(since, keep, added, ids) {
    if (this.engine !== "ready" || this.workerVersion !== since) {
      this.workerVersion = null;
      return;
    }
    this.workerVersion = this.base.version;
    ask({ op: "base_move", code: this.code, since, keep, events: added, ids, version: this.base.version })
      .catch(() => {});
  }

  reproject() {
    return this.serial(() => this.projectAll());
  }

  // Recomputes the view; waiting taps that the rules now refuse, or that would mean something else
  // than when they were tapped (after a rebase), are set aside. A tap tapped before the engine was
  // ready learns here what it means.
  async projectAll() {
    if (this.engine !== "ready" || !this.base) {
      if (!this.pending.length) [this.view, this.projected] = [this.server.state, false];
      this.changed();
      return;
    }
    for (;;) {
      const projection = await this.project();
      const failed = projection.pending.findIndex((result) => !result.ok);
      if (failed < 0) {
        await this.remember(projection.pending);
        [this.view, this.projected] = [projection.state, true];
        this.judged = this.base.version;
        break;
      }
      const op = this.pending[failed];
      const result = projection.pending[failed];
      if (result.changed) await this.setAside(op, null, await this.missedBy(op));
      else await this.setAside(op, result.error);
    }
    if (!this.pending.length) this.changes = [];
    this.changed();
  }

  // The meaning and words of the waiting taps that had none, kept with them.
  async remember(results) {
    for (const [i, result] of results.entries()) {
      const op = this.pending[i];
      if (op.meant !== undefined || result.meaning === undefined) continue;
      Object.assign(op, { meant: result.meaning, said: result.said });
      await box.update(op);
    }
  }

  // `error`: the rule that refuses it now; none: it would mean something else now (`missed` says why).
  async setAside(op, error, missed = []) {
    if (!this.pending.some((other) => other.seq === op.seq)) return; // already set aside
    await box.reject(this.code, [{ op, error, missed }]);
    this.pending = this.pending.filter((other) => other.seq !== op.seq);
    this.rejected = await this.setAsideHere();
    if (error) this.onRejected?.(op, error);
  }

  // The taps set aside on this page: a player's page shows only its own player's.
  async setAsideHere() {
    const all = await box.rejected(this.code);
    return all.filter((entry) => (entry.op.player ?? null) === this.player);
  }

  async dismiss(seq) {
    await box.dismiss(seq);
    this.rejected = await this.setAsideHere();
    this.changed();
  }

  // The referee keeps a tap set aside because it would mean something else now: it is checked as a
  // new tap on the table as it is (same client id: if it ever reached the server, it is not applied
  // twice), and sent. Returns {ok} or {ok: false, error} as `tap` does.
  keep(seq) {
    return this.serial(async () => {
      const entry = this.rejected.find((other) => other.seq === seq);
      if (!entry || entry.op.kind !== "event") return { ok: false };
      const op = { kind: "event", id: entry.op.id, event: entry.op.event };
      const checked = await this.checked(op);
      if (!checked.ok) return checked;
      this.pending.push(await box.restore(seq, this.code, op));
      this.rejected = await this.setAsideHere();
      await this.shown(checked.view);
      this.flush();
      return { ok: true };
    });
  }

  // --- what other phones did under the waiting taps ------------------------------------------------

  // The base moved under waiting taps: the events taken back from position `at` on (`undone`) and
  // those applied there instead (`added`), each with whether it is this phone's own (a tap whose
  // answer was lost). Worded by the engine only if a tap is set aside (`missedBy`).
  record(at, undone, added) {
    if (!this.pending.length || ![...undone, ...added].some((entry) => !entry.mine)) return;
    this.changes.push({ at, undone, added, seen: Date.now(), words: null });
  }

  // A move that kept only `keep` events: a change recorded beyond that cannot be worded any more.
  cut(keep) {
    for (const change of this.changes) if (change.at > keep) change.at = null;
  }

  // What other phones did since `op` was tapped, in the engine's words: [{said, undone}].
  async missedBy(op) {
    const since = this.changes.filter((change) => change.seen >= (op.at || 0));
    const unworded = since.filter((change) => !change.words && change.at !== null);
    if (unworded.length) {
      const events = (entries) => entries.map((entry) => entry.event);
      const { changes } = await ask({ op: "said", changes: unworded.map(({ at, undone, added }) =>
        ({ at, undone: events(undone), added: events(added) })) });
      unworded.forEach((change, i) => {
        const words = changes[i] || { undone: [], added: [] };
        change.words = [
          ...change.undone.map((entry, j) => ({ ...entry, said: words.undone[j], undone: true })),
          ...change.added.map((entry, j) => ({ ...entry, said: words.added[j], undone: false })),
        ].filter((entry) => !entry.mine && entry.said).map(({ said, undone }) => ({ said, undone }));
      });
    }
    return since.flatMap((change) => change.words || []);
  }

  // --- taps --------------------------------------------------------------------------------------

  // Returns {ok: true} once the tap is safe in the outbox, or {ok: false, error} if the rules refuse it.
  tap(kind, event) {
    return this.serial(() => this.tapNow(kind, event));
  }

  async tapNow(kind, event) {
    const op = { kind, id: newId(), ...(event ? { event } : {}) };
    const checked = await this.checked(op);
    if (!checked.ok) return checked;
    this.pending.push(await box.push(this.code, op)); // durable before anything else happens
    await this.shown(checked.view);
    this.flush();
    return { ok: true };
  }

  // A tap checked by the engine after every waiting one (when it is ready): {ok, view} with the tap
  // given its meaning and words (`op` gains `meant` and `said`), or {ok: false, error}.
  async checked(op) {
    if (this.engine !== "ready" || !this.base) return { ok: true, view: null };
    const projection = await this.project([op]);
    const result = projection.pending.at(-1);
    if (!result.ok) return { ok: false, error: result.error };
    Object.assign(op, { meant: result.meaning, said: result.said });
    return { ok: true, view: projection.state };
  }

  async shown(view) {
    if (view) {
      [this.view, this.projected] = [view, true];
      this.changed();
    } else {
      await this.projectAll(); // the engine may have become ready meanwhile, without this tap
    }
  }

  // A check reads the projected state: it waits its turn behind the projection under way (a page
  // just opened asks as soon as the engine is ready, while the engine still gets the log).
  check(name, params) {
    return this.serial(() => this.checkNow(name, params));
  }

  async checkNow(name, params) {
    if (this.engine === "ready" && this.base) {
      const result = await ask({ op: "check", name, params });
      if (result.error) {
        const { code, params = {} } = result.error;
        throw Object.assign(new Error(t(code, params)), { code, params, messages: result.error.messages || {} });
      }
      return result.answer;
    }
    return api.check(this.code, name, params);
  }

  qr(text) {
    return ask({ op: "qr", text });
  }

  snapshot(base) {
    return ask({ op: "snapshot_qr", base,
      view: { game: this.game, code: this.code, at: new Date().toISOString(), state: this.view } });
  }

  // --- the server -------------------------------------------------------------------------------

  // The server's log as it is now, then the waiting taps replayed on it.
  async refreshed() {
    await this.refreshBase();
    await this.projectAll();
  }

  // The server's log as it is now: only what changed since our base's version when we have one; the
  // end of the log, from a checkpoint, when we have none, when the server does not know our version
  // (422), or when what we hold grew too short (many undos). Asked with the waiting taps' client
  // ids: those the server already applied (their answer was lost) leave the outbox in the same
  // transaction as the base moves, before anything is replayed on it.
  async refreshBase() {
    const had = this.base;
    const ids = this.pending.slice(0, IDS_ASKED).map((op) => op.id);
    let log = null;
    if (had && (had.start === 0 || had.events.length >= TAIL / 2)) {
      const since = had.version;
      try {
        log = await api.log(this.code, { since, ids });
      } catch (err) {
        if (err.status !== 422) throw err;
      }
      const held = had.start + had.events.length;
      if (log && this.base === had && had.version === since && log.keep >= had.start && log.keep <= held) {
        await this.moveBase(since, log.keep, log.events, log.version, log.applied || []);
      } else {
        log = null;
      }
    }
    if (!log) {
      log = await api.log(this.code, { tail: TAIL, ids });
      await this.setBase(log);
    }
    if (log.version >= this.server.version) this.server = { version: log.version, state: log.state };
    this.online = true;
  }

  // The end of the server's log as our base, anew.
  async setBase(log) {
    const done = this.reconciled(log.applied || []);
    this.base = { code: this.code, game: log.game, players: log.players, options: log.options,
      version: log.version, start: log.start || 0, checkpoint: log.checkpoint || null,
      events: log.events.map((entry) => entry.event), ids: log.events.map((entry) => entry.id) };
    this.workerVersion = null;
    this.changes = [];
    await box.saveBase(this.base, done.map((op) => op.seq));
    this.pending = this.pending.filter((op) => !done.includes(op));
  }

  // The waiting taps the server applied: their answer was lost. They are in its log already.
  reconciled(applied) {
    return this.pending.filter((op) => applied.includes(op.id));
  }

  // The base moves from version `since` to `version`: its first `keep` events stay, then the log's
  // `entries` ({id, event}); the waiting taps the server `applied` leave the outbox with it.
  async moveBase(since, keep, entries, version, applied = []) {
    const { events, ids, start } = this.base;
    if (keep === start + events.length && !entries.length && version === since) return;
    const done = this.reconciled(applied);
    const mine = new Set(done.map((op) => op.id));
    // An undo of ours the server applied took back the event it named: not another phone's doing.
    const undoneByMe = new Set(done.filter((op) => op.kind === "undo").map((op) => op.meant?.undo));
    const undone = events.slice(keep - start).map((event, i) => ({ event, mine: undoneByMe.has(ids[keep - start + i]) }));
    const added = entries.map(({ id, event }) => ({ event, mine: mine.has(id) }));
    this.pending = this.pending.filter((op) => !done.includes(op));
    this.cut(keep);
    this.record(keep, undone, added);
    events.length = keep - start;
    ids.length = keep - start;
    for (const { id, event } of entries) { events.push(event); ids.push(id); } // a spread would overflow the stack on a long log
    this.base.version = version;
    await box.moveBase(this.base, keep, done.map((op) => op.seq));
    this.moveWorker(since, keep, entries.map((entry) => entry.event), entries.map((entry) => entry.id));
  }

  // A state pushed by the live stream (a co-referee's tap, or our own echoed back).
  async heard(answer) {
    if (answer.version <= this.version) return;
    if (this.player) { // no engine to project waiting moves on it: the table as the server says
      [this.server, this.view] = [answer, answer.state];
      this.changed();
      return;
    }
    this.server = answer;
    if (this.pending.length) return; // the next send meets the change as a 409 and rebases
    await this.serial(async () => {
      if (answer.version <= this.version) return; // a refresh queued before this one brought it
      if (await this.followed(answer)) return;
      await this.refreshed().catch(() => {});
    });
  }

  // The next version, moved from its frame alone (what it recorded, or which event its undo took
  // back): no request per tap of another phone. False when the frame does not follow our base.
  async followed({ version, did }) {
    const base = this.base;
    if (!base || !did || version !== base.version + 1) return false;
    const held = base.start + base.events.length;
    if (!did.undo && did.event) {
      await this.moveBase(base.version, held, [{ id: did.id, event: did.event }], version);
    } else if (did.undo && held > base.start && base.ids[base.events.length - 1] === did.id) {
      await this.moveBase(base.version, held - 1, [], version);
    } else {
      return false;
    }
    await this.projectAll();
    return true;
  }

  async acknowledged(op, answer) {
    const since = this.base.version;
    const expected = answer.version === since + 1;
    const { events, ids, start } = this.base;
    let keep = start + events.length;
    if (expected) {
      if (op.kind === "event") {
        events.push(op.event);
        ids.push(op.id);
      } else {
        events.pop();
        ids.pop();
        keep -= 1;
        this.cut(keep);
      }
      this.base.version = answer.version;
    }
    this.pending = this.pending.filter((other) => other.seq !== op.seq);
    await box.acknowledge(this.base, keep, op.seq);
    if (expected) this.moveWorker(since, keep, op.kind === "event" ? [op.event] : [], op.kind === "event" ? [op.id] : []);
    this.server = answer;
    if (!this.pending.length) this.changes = [];
    if (!expected || (start > 0 && events.length < TAIL / 2)) {
      // A retry answered from the past (its first answer was lost), or a log grown too short to undo
      // more offline: take the log as it is now.
      await this.refreshed();
    } else if (this.engine !== "ready" && !this.pending.length) {
      [this.view, this.projected] = [answer.state, false];
    }
  }

  flush() {
    // A failure on the way (the network gone mid-rebase) leaves every tap in the outbox for the next try.
    this.flushing ??= this.sendAll().catch(() => { this.online = false; })
      .finally(() => { this.flushing = null; this.changed(); });
    return this.flushing;
  }

  // Whether the oldest waiting tap may be sent as it is: a tap whose meaning this phone knows goes only
  // once the engine has checked it against the log as it is now (never sent on a log it was not
  // replayed on); one tapped before the engine was ready is judged by the server's rules alone.
  judgedNow(op) {
    return this.engine === "failed" || op.meant === undefined || this.judged === this.base.version;
  }

  // Whether a 409 to `op` calls for a rebase (the fresh log, the waiting taps replayed on it), or
  // sets `op` aside with the server's reason. A stale version always rebases. An undo whose event is
  // no longer the latest rebases once, when the engine can then tell what it would take back now (it
  // is set aside as changed); a second time, or with no engine, it is set aside with that reason, as
  // is a client id the server says names another event.
  rebases(op, err) {
    if (err.status !== 409) return false;
    if (err.code === "stale_version") return true;
    if (err.code !== "undo_not_latest" || this.engine !== "ready" || this.notLatest === op.seq) return false;
    this.notLatest = op.seq;
    return true;
  }

  async sendAll() {
    if (this.player) return this.sendSeat();
    if (!this.base && this.pending.length) {
      try { await this.serial(() => this.refreshed()); } catch { this.online = false; return; }
    }
    while (this.pending.length) {
      const op = this.pending[0];
      if (!this.judgedNow(op)) {
        if (this.engine !== "ready") return; // the engine, once ready, checks the taps and sends them
        await this.serial(() => this.projectAll());
        continue;
      }
      const body = { id: op.id, version: this.base.version, ...(op.kind === "event" ? op.event : {}) };
      let answer;
      try {
        answer = op.kind === "event"
          ? await api.postEvent(this.code, this.secret, body)
          : await api.undo(this.code, this.secret, this.base.version, op.id, op.meant?.undo ?? undefined);
      } catch (err) {
        if (err.status === 0) { this.online = false; return; }
        this.online = true;
        if (this.rebases(op, err)) {
          await this.serial(() => this.refreshed());
          continue;
        }
        if (err.status === 422 || err.status === 409) {
          await this.serial(async () => {
            await this.setAside(op, { code: err.code, message: err.message, params: err.params, rule: err.rule });
            await this.projectAll();
          });
          continue;
        }
        this.problem = err; // a lost secret or a server fault: keep every tap and say so
        return;
      }
      this.online = true;
      this.problem = null;
      await this.serial(() => this.acknowledged(op, answer));
      this.changed();
    }
  }

  // A player's moves, oldest first, each judged by the server on the table as it is.
  async sendSeat() {
    while (this.pending.length) {
      const op = this.pending[0];
      let answer;
      try {
        answer = op.kind === "event"
          ? await api.postEvent(this.code, this.secret, { id: op.id, ...op.event })
          : await api.undo(this.code, this.secret, undefined, op.id, op.event?.event);
      } catch (err) {
        if (err.status === 0 || err.status === 429 || err.status >= 500) {
          this.online = err.status !== 0;
          this.problem = err.status ? err : null;
          this.unsent = true;
          return;
        }
        // Refused (another's move, a rule, a race lost, a seat taken back): told, and never sent again.
        this.online = true;
        await this.setAside(op, { code: err.code, message: err.message, params: err.params, rule: err.rule, status: err.status });
        continue;
      }
      Object.assign(this, { online: true, problem: null });
      this.pending = this.pending.filter((other) => other.seq !== op.seq);
      await box.acknowledgeSeat(op.seq);
      this.mine = { id: op.id, kind: op.kind, version: answer.version };
      if (answer.version > this.server.version) [this.server, this.view] = [answer, answer.state];
    }
    this.unsent = false;
  }
}
