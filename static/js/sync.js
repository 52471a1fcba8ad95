// Keeps one referee's table: the server's log as last acknowledged (base), the taps waiting to be
// sent (outbox, in IndexedDB), and what the table looks like with them (projected by the engine
// worker, exactly as the server will compute it). Taps are sent oldest first, one at a time, each
// against the version it follows; a 409 means someone else wrote first: the waiting taps are
// replayed on the fresh log, and those the rules no longer allow are set aside with the reason.
// The base travels whole only once (from the server when the phone has none, to the worker when it
// starts); then only what changed: the server's log since our version, one event per acknowledged
// tap to IndexedDB and to the worker, and a tap sends the worker the waiting taps alone.
import { api, newId } from "./api.js";
import { ask, startEngine } from "./engine.js";
import * as box from "./outbox.js";
import { t } from "./i18n.js";

const RETRY_MS = 4000;

export class TableSync {
  constructor({ code, game, secret, answer, onChange, onRejected }) {
    Object.assign(this, { code, game, secret, onChange, onRejected });
    this.server = answer; // the latest answer seen from the server: {version, state}
    this.view = answer.state;
    this.projected = false; // `view` is the engine's projection of the base and the outbox
    this.base = null;
    this.workerVersion = null; // the version of the base the engine worker holds, if it holds one
    this.pending = [];
    this.rejected = [];
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
    this.base = (await box.loadBase(this.code)) || null;
    this.pending = await box.pending(this.code);
    this.rejected = await box.rejected(this.code);
    if (!this.base || this.base.version < this.server.version) await this.refreshBase().catch(() => {});
    this.changed();
    startEngine().then(
      ({ ms, stages }) => { this.engine = "ready"; this.engineMs = ms; this.engineStages = stages; return this.reproject(); },
      () => { this.engine = "failed"; this.changed(); });
    addEventListener("online", () => { this.online = true; this.flush(); });
    addEventListener("offline", () => { this.online = false; this.changed(); });
    setInterval(() => { if (this.pending.length) this.flush(); }, RETRY_MS);
    this.flush();
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
    const ops = [...this.pending, ...extra].map(({ kind, event }) => ({ kind, event }));
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
    const { game, players, options, version, events } = this.base;
    await ask({ op: "base_set", code: this.code, game, players, options, version, events: events.slice() });
    this.workerVersion = version;
  }

  // Tells the worker how the base moved from version `since`: its first `keep` events stay, then
  // `added`. Messages reach the worker in order, so nothing waits for its answer; if it did not hold
  // the base at `since`, its next projection answers "stale" and it gets the whole base then.
  moveWorker(since, keep, added) {
    if (this.engine !== "ready" || this.workerVersion !== since) {
      this.workerVersion = null;
      return;
    }
    this.workerVersion = this.base.version;
    ask({ op: "base_move", code: this.code, since, keep, events: added, version: this.base.version })
      .catch(() => {});
  }

  reproject() {
    return this.serial(() => this.projectAll());
  }

  // Recomputes the view; waiting taps that the rules now refuse (after a rebase) are set aside.
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
        [this.view, this.projected] = [projection.state, true];
        break;
      }
      await this.setAside(this.pending[failed], projection.pending[failed].error);
    }
    this.changed();
  }

  async setAside(op, error) {
    if (!this.pending.some((other) => other.seq === op.seq)) return; // already set aside
    await box.reject(this.code, [{ op, error }]);
    this.pending = this.pending.filter((other) => other.seq !== op.seq);
    this.rejected = await box.rejected(this.code);
    this.onRejected?.(op, error);
  }

  async dismiss(seq) {
    await box.dismiss(seq);
    this.rejected = await box.rejected(this.code);
    this.changed();
  }

  // --- taps --------------------------------------------------------------------------------------

  // Returns {ok: true} once the tap is safe in the outbox, or {ok: false, error} if the rules refuse it.
  tap(kind, event) {
    return this.serial(() => this.tapNow(kind, event));
  }

  async tapNow(kind, event) {
    const op = { kind, id: newId(), event };
    let view = null;
    if (this.engine === "ready" && this.base) {
      const projection = await this.project([op]);
      const result = projection.pending.at(-1);
      if (!result.ok) return { ok: false, error: result.error };
      view = projection.state;
    }
    this.pending.push(await box.push(this.code, op)); // durable before anything else happens
    if (view) {
      [this.view, this.projected] = [view, true];
      this.changed();
    } else {
      await this.projectAll(); // the engine may have become ready meanwhile, without this tap
    }
    this.flush();
    return { ok: true };
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

  // The server's log as it is now: only what changed since our base's version when we have one, the
  // whole log when we have none or the server does not know our version (422).
  async refreshBase() {
    const had = this.base;
    let log = null;
    if (had) {
      const since = had.version;
      try {
        log = await api.log(this.code, since);
      } catch (err) {
        if (err.status !== 422) throw err;
      }
      if (log && this.base === had && had.version === since && log.keep <= had.events.length) {
        await this.moveBase(since, log.keep, log.events.map((entry) => entry.event), log.version);
      } else {
        log = null;
      }
    }
    if (!log) {
      log = await api.log(this.code);
      this.base = { code: this.code, game: log.game, players: log.players, options: log.options,
        version: log.version, events: log.events.map((entry) => entry.event) };
      this.workerVersion = null;
      await box.saveBase(this.base);
    }
    if (log.version >= this.server.version) this.server = { version: log.version, state: log.state };
    this.online = true;
  }

  // The base moves from version `since` to `version`: its first `keep` events stay, then `added`.
  async moveBase(since, keep, added, version) {
    const { events } = this.base;
    if (keep === events.length && !added.length && version === since) return;
    events.length = keep;
    for (const event of added) events.push(event); // a spread would overflow the stack on a long log
    this.base.version = version;
    await box.moveBase(this.base, keep);
    this.moveWorker(since, keep, added);
  }

  // A state pushed by the live stream (a co-referee's tap, or our own echoed back).
  async heard(answer) {
    if (answer.version <= this.version) return;
    this.server = answer;
    if (this.pending.length) return; // the next send meets the change as a 409 and rebases
    await this.serial(async () => {
      if (answer.version <= this.version) return; // a refresh queued before this one brought it
      await this.refreshBase().catch(() => {});
      await this.projectAll();
    });
  }

  async acknowledged(op, answer) {
    const since = this.base.version;
    const expected = answer.version === since + 1;
    const { events } = this.base;
    let keep = events.length;
    if (expected) {
      if (op.kind === "event") {
        events.push(op.event);
      } else {
        events.pop();
        keep = events.length;
      }
      this.base.version = answer.version;
    }
    this.pending = this.pending.filter((other) => other.seq !== op.seq);
    await box.acknowledge(this.base, keep, op.seq);
    if (expected) this.moveWorker(since, keep, op.kind === "event" ? [op.event] : []);
    this.server = answer;
    if (!expected) {
      // A retry answered from the past (its first answer was lost): take the log as it is now.
      await this.refreshBase();
      await this.projectAll();
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

  async sendAll() {
    if (!this.base && this.pending.length) {
      try { await this.refreshBase(); } catch { this.online = false; return; }
    }
    while (this.pending.length) {
      const op = this.pending[0];
      const body = { id: op.id, version: this.base.version, ...(op.kind === "event" ? op.event : {}) };
      let answer;
      try {
        answer = op.kind === "event"
          ? await api.postEvent(this.code, this.secret, body)
          : await api.undo(this.code, this.secret, this.base.version, op.id);
      } catch (err) {
        if (err.status === 0) { this.online = false; return; }
        this.online = true;
        if (err.status === 409) {
          await this.serial(async () => {
            await this.refreshBase();
            await this.projectAll();
          });
          continue;
        }
        if (err.status === 422) {
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
}
