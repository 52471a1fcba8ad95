// Le jeu existentiel: the game master's panel (rolls, accept/refuse, the rendez-vous and its
// validations, newcomers, adventure titles), the table view (each player's adventure, jokers and
// track, the next rendez-vous with its calendar file) and each player's own page.
// Drawn from the engine's view alone: buttons from state.actions, every word from the catalogue in
// the page's one language (the interface's `ui.existentiel.*`, the engine's codes).
import { byId, fill, h, toast } from "../ui.js";
import { lang, t } from "../i18n.js";
import { actionsOf, record } from "../actions.js";

const month = (n) => t(`ui.existentiel.month.${n}`);
const MONTHS = Array.from({ length: 12 }, (_, i) => i + 1);

// --- the engine's words and actions ------------------------------------------------------------

// A catalogue sentence, whole, in its element.
function said(tag, attrs, code, params = {}) {
  return h(tag, attrs, t(code, params));
}

// The catalogue key for a count: none, one or many (a wording choice, not a rule).
function counted(key, count) {
  return `${key}_${count === 0 ? "none" : count === 1 ? "one" : "many"}`;
}

function noteEl({ code, params }) {
  return said("p", { class: "note", "data-note": code }, code, params);
}

function hasNote(state, code) {
  return state.notes.some((note) => note.code === code);
}

// The action of this type the rules allow now (for this player, if given); a button exists only then.
function allowed(state, type, player) {
  return actionsOf(state, type, player)[0];
}

// --- shared pieces -------------------------------------------------------------------------------

// A title the table gave, else the default one in the page's language.
function titleOf(state, n) {
  return state.titled[n - 1] ? state.titles[n - 1] : t("ui.existentiel.default_title", { n });
}

function adventure(state, n) {
  return t("ui.existentiel.adventure", { n, title: titleOf(state, n) });
}

function adventureEl(state, n, cls = "adventure") {
  return h("span", { class: cls, "data-adventure": n },
    h("span", { class: "adventure-number" }, t("ui.existentiel.number", { n })), " — ",
    h("span", { class: "adventure-title" }, titleOf(state, n)));
}

// The adventures' numbers, as the table's titles list them.
function numbers(state) {
  return state.titles.map((_, i) => i + 1);
}

// Unicode's die faces ⚀…⚅ follow one another from U+2680.
function faceGlyph(die) {
  return String.fromCodePoint(0x2680 + die - 1);
}

function jokersEl(p) {
  const label = t(counted("ui.existentiel.jokers", p.jokers), { count: p.jokers });
  return h("span", { class: `jokers${p.jokers ? "" : " none"}`, "data-jokers": p.jokers, role: "img",
    "aria-label": label, title: label }, `🃏×${p.jokers}`);
}

// "2031-03-07T19:30" is the table's local time: read it as such, never as UTC.
function parseAt(at) {
  const [y, mo, d, hh, mm] = at.split(/[-T:]/).map(Number);
  return new Date(y, mo - 1, d, hh, mm);
}

function formatAt(at) {
  const date = parseAt(at);
  const day = date.toLocaleDateString(lang === "en" ? "en-GB" : "fr-FR", { weekday: "long", day: "numeric", month: "long", year: "numeric" });
  // The catalogue's no-break spaces keep "19 h 30" in one piece.
  return t("ui.existentiel.date_at", { day, hh: String(date.getHours()).padStart(2, "0"), mm: String(date.getMinutes()).padStart(2, "0") });
}

function statusPills(p) {
  return [
    p.status === "eliminated" ? h("span", { class: "pill out", "data-status": "eliminated" }, t("ui.existentiel.status.eliminated")) : null,
    p.status === "left" ? h("span", { class: "pill left", "data-status": "left" }, t("ui.existentiel.status.left")) : null,
    p.title === "maitre" ? h("span", { class: "pill maitre", "data-title": "maitre" }, t("ui.existentiel.maitre")) : null,
  ];
}

function reasonEl(p) {
  return p.reason ? said("p", { class: "reason", "data-note": p.reason }, p.reason) : null;
}

// What each awaited player is to do, from the actions listed for them.
function doing(state, id) {
  if (allowed(state, "accept", id) || allowed(state, "refuse", id)) return t("ui.existentiel.doing.offer");
  if (allowed(state, "roll", id)) return t("ui.existentiel.doing.roll");
  return null;
}

function waitingLine(state, players) {
  if (!state.waiting_for.length) return null;
  const names = state.waiting_for.map((id) => {
    const what = doing(state, id);
    return h("span", { class: "waiting-name", "data-waiting": id }, h("strong", {}, players[id].name),
      what ? [" ", h("span", {}, what)] : null);
  });
  const label = state.phase === "assigning" ? t("ui.existentiel.waiting.assigning") : t("ui.existentiel.waiting.underway");
  return h("p", { class: "waiting", id: "waiting" }, h("span", {}, label), " ", names.flatMap((n, i) => (i ? [", ", n] : [n])));
}

function phaseBanner(state, players) {
  return h("section", { class: `card phase-banner phase-${state.phase}`, id: "phase", "data-phase": state.phase },
    h("div", { class: "phase-title" }, h("strong", {}, t(`ui.existentiel.phase.${state.phase}`)), " ",
      h("span", { class: "pill", "data-cycle": state.cycle }, t("ui.existentiel.cycle", { cycle: state.cycle }))),
    waitingLine(state, players),
    state.notes.map(noteEl));
}

function rendezvousText(state) {
  const rdv = state.rendezvous;
  if (!rdv) return h("p", { class: "muted", id: "rdv-none" }, t("ui.existentiel.rdv_none"));
  return h("p", { class: "rdv-when", id: "rdv-when", "data-at": rdv.at },
    h("strong", {}, formatAt(rdv.at)),
    rdv.place ? [h("br"), h("span", { class: "rdv-place", id: "rdv-place-shown" }, `📍 ${rdv.place}`)] : null);
}

function rendezvousCard(state, code) {
  return h("section", { class: "card rendezvous", id: "rendezvous" },
    h("h2", {}, t("ui.existentiel.next_meeting")),
    rendezvousText(state),
    state.rendezvous ? h("a", { class: "button primary", id: "ics-link", href: `/api/tables/${code}/rendezvous.ics` },
      t("ui.existentiel.add_to_calendar")) : null);
}

// How an adventure stands for a player, for the track and the player's page.
function squareState(p, n) {
  if (p.current === n) return p.status === "left" ? "death" : "current";
  if (p.offered === n) return "offered";
  if (p.completed.includes(n)) return "completed";
  if (p.refused.includes(n)) return "refused";
  return "none";
}

const squareWords = (s) => t(`ui.existentiel.square.${s}`);

function refusedBefore(p, n, s) {
  return s !== "refused" && p.refused.includes(n);
}

function track(state, p) {
  return h("ol", { class: "track", "aria-label": t("ui.existentiel.track_of", { name: p.name }) }, numbers(state).map((n) => {
    const s = squareState(p, n);
    const words = refusedBefore(p, n, s) ? t("ui.existentiel.square_refused_before", { words: squareWords(s) }) : squareWords(s);
    const label = t("ui.existentiel.square_label", { adventure: adventure(state, n), words });
    return h("li", { class: `square sq-${s}${n === state.death ? " sq-at-death" : ""}`, "data-square": n, "data-state": s,
      "aria-label": label, title: label }, n);
  }));
}

function legend() {
  return h("div", { class: "legend", id: "legend", "aria-label": t("ui.existentiel.legend") },
    ["completed", "refused", "current", "offered"].map((s) => h("span", { class: "legend-item" },
      h("span", { class: `square sq-${s}`, "aria-hidden": "true" }), h("span", {}, squareWords(s)))));
}

function nowLine(state, p) {
  if (p.status === "eliminated") return null;
  if (p.status === "left") {
    return h("p", { class: "now", "data-adventure": state.death },
      t("ui.existentiel.now.left", { adventure: adventure(state, state.death) }));
  }
  if (p.current !== null) {
    return h("p", { class: "now", "data-now": "current" }, h("span", { class: "label" }, t("ui.existentiel.now.current")), " ",
      adventureEl(state, p.current));
  }
  if (p.offered !== null) {
    return h("p", { class: "now", "data-now": "offered" }, h("span", { class: "label" }, t("ui.existentiel.now.offered")), " ",
      adventureEl(state, p.offered), p.must_accept ? [" ", h("span", { class: "pill warn" }, t("ui.existentiel.refused_before"))] : null);
  }
  if (p.validated) {
    return h("p", { class: "now muted", "data-now": "validated" },
      t(`ui.existentiel.now.validated_${p.validated}`, { adventure: adventure(state, p.score) }));
  }
  return h("p", { class: "now muted", "data-now": "roll" }, t("ui.existentiel.now.roll"));
}

function resultRow(state, p) {
  const done = p.completed.length;
  return h("li", { "data-result": p.id },
    h("strong", {}, p.name), " — ",
    h("span", {}, t(`ui.existentiel.standing.${p.status}`, { adventure: state.death })), ", ",
    h("span", {}, t(counted("ui.existentiel.completed", done), { count: done })), " ", jokersEl(p),
    p.title === "maitre" ? [" ", h("span", { class: "pill maitre" }, t("ui.existentiel.maitre"))] : null,
    reasonEl(p));
}

function outcomeCard(state) {
  if (!state.outcome) return null;
  const sentence = t(state.outcome.reason, state.outcome.params);
  return h("section", { class: "card outcome", id: "outcome", "data-winners": state.winners.join(",") },
    h("div", { class: "outcome-title" }, t("ui.existentiel.phase.over")),
    h("p", {}, state.winners.length ? [h("span", { "aria-hidden": "true" }, "🏅"), " "] : null, h("span", {}, sentence)),
    h("ul", { class: "results", id: "results" }, state.players.map((p) => resultRow(state, p))),
    state.notes.map(noteEl));
}

// The pages are redrawn on every sync and live message, most of which change nothing here: skipping
// those keeps the DOM still, so a tap that straddles a redraw is not lost.
const drawn = new WeakMap();

function unchanged(root, ...inputs) {
  const key = JSON.stringify(inputs);
  if (drawn.get(root) === key && root.firstChild) return true;
  drawn.set(root, key);
  return false;
}

// Re-rendering replaces the DOM on every live update: keep the field being typed in focused.
function keepingFocus(root, draw) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.keep : null;
  const selection = key && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
  draw();
  if (!key) return;
  const again = root.querySelector(`[data-keep="${CSS.escape(key)}"]`);
  if (!again) return;
  again.focus({ preventScroll: true });
  try { if (selection && selection[0] !== null) again.setSelectionRange(...selection); } catch { /* not a text field */ }
}

// --- referee ---------------------------------------------------------------------------------------

// What the game master has typed or drawn but not yet sent; kept across redraws.
const draft = {
  virtual: {}, // player id -> {die, landing}
  confirmDeath: null, // player id whose acceptance of the death adventure awaits confirmation
  name: "", month: "1",
  at: null, place: null, // null: show the rendez-vous in effect
  titles: {}, // adventure -> edited title
  titlesOpen: false,
  costs: [], // refusals and failures sent, their cost not yet told: {player, adventure, code, before}
};

function drawFace(faces) {
  // Rejection sampling keeps every face exactly equally likely.
  const buffer = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / faces.length) * faces.length;
  do {
    crypto.getRandomValues(buffer);
  } while (buffer[0] >= limit);
  return faces[buffer[0] % faces.length];
}

export function referee(root, state, ctx) {
  tellCosts(state);
  const players = byId(state);
  for (const id of Object.keys(draft.virtual)) if (!allowed(state, "roll", id)) delete draft.virtual[id];
  if (draft.confirmDeath && players[draft.confirmDeath]?.offered !== state.death) draft.confirmDeath = null;
  // What is typed is already on the page: only the state and what changes the panel's shape count.
  if (unchanged(root, "referee", state, draft.virtual, draft.confirmDeath)) return;
  const addPlayer = allowed(state, "add_player");
  const schedule = allowed(state, "schedule");
  const setTitle = allowed(state, "set_title");
  keepingFocus(root, () => fill(root,
    outcomeCard(state),
    state.over ? h("p", { class: "hint center" }, "« Annuler » reprend le dernier geste si la table le souhaite.") : phaseBanner(state, players),
    h("section", { class: "card" },
      h("h2", {}, t("ui.existentiel.players")),
      h("div", { class: "players" }, state.players.map((p) => refereePlayer(state, p, ctx)))),
    schedule ? rendezvousEditor(state, schedule, ctx) : null,
    addPlayer ? addPlayerForm(state, addPlayer, ctx) : null,
    setTitle ? titlesEditor(state, setTitle, ctx) : null,
  ));
}

function refereePlayer(state, p, ctx) {
  return h("div", { class: `player${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
    h("div", { class: "player-head" },
      h("span", { class: "player-name" }, p.name), statusPills(p), jokersEl(p)),
    playerPanel(state, p, ctx),
    reasonEl(p));
}

// The panel of what may be recorded for this player now, or where they stand.
function playerPanel(state, p, ctx) {
  const roll = allowed(state, "roll", p.id);
  if (roll) return rollPanel(state, p, roll, ctx);
  const accept = allowed(state, "accept", p.id);
  const refuse = allowed(state, "refuse", p.id);
  if (accept || refuse) return offerPanel(state, p, { accept, refuse }, ctx);
  const validate = allowed(state, "validate", p.id);
  if (validate) return validatePanel(state, p, validate, ctx);
  return nowLine(state, p);
}

// What a refusal or a failure cost (a joker, or the game) is read from the first state after the
// send: at once when the phone's engine is ready, with the server's answer while it is loading.
async function sendCosting(ctx, p, action, supplied, code, adventure) {
  const before = ctx.state;
  if (!(await record(ctx, action, supplied))) return;
  draft.costs.push({ player: p.id, adventure, code, before });
  tellCosts(ctx.state);
}

function tellCosts(state) {
  draft.costs = draft.costs.filter(({ player, adventure, code, before }) => {
    if (state === before) return true; // the table has not moved yet
    const p = byId(state)[player];
    if (p && p.offered !== adventure && p.current !== adventure) {
      toast(p.status === "eliminated" ? t(p.reason)
        : t(code, { name: p.name, adventure, jokers: p.jokers }), "info");
    }
    return false;
  });
}

function virtualResult(state, pending, send) {
  const { die, landing } = pending;
  return h("div", { class: "virtual-result", "data-virtual": die },
    h("p", {}, h("span", { class: "face big", "aria-hidden": "true" }, faceGlyph(die)), " ",
      h("span", {}, t("ui.existentiel.virtual_gives", { die })),
      landing ? [" → ", adventureEl(state, landing.adventure)] : null),
    landing && landing.skipped.length
      ? said("p", { class: "hint" }, "existentiel.landing_skipped", { skipped: landing.skipped.join(", ") }) : null,
    h("button", { type: "button", class: "primary", "data-action": "send-virtual", onclick: () => send(die) },
      t("ui.existentiel.enter_die", { die })));
}

function rollPanel(state, p, action, ctx) {
  const pending = draft.virtual[p.id];
  const send = async (die) => {
    if (await record(ctx, action, { die })) delete draft.virtual[p.id];
  };
  const drawVirtual = async () => {
    const die = drawFace(state.dice);
    draft.virtual[p.id] = { die, landing: null };
    ctx.render();
    try {
      const landing = await ctx.check("landing", { player: p.id, die });
      if (draft.virtual[p.id]?.die === die) draft.virtual[p.id].landing = landing;
    } catch { /* the preview is only an extra: the value can still be entered */ }
    ctx.render();
  };
  return h("div", { class: "roll" },
    // TODO(engine): say which number the die adds to (the birth month, or the score: the last
    // adventure reached); needs player.next_base_from, as the landing check's base_from.
    h("p", { class: "hint" }, h("span", {}, t("ui.existentiel.die_adds_to")), " ", h("strong", { "data-base": p.next_base }, p.next_base)),
    h("div", { class: "dice", role: "group", "aria-label": t("ui.existentiel.die_of", { name: p.name }) },
      state.dice.map((die) => h("button", {
        type: "button", class: "die", "data-die": die, "aria-label": t("ui.existentiel.die_for", { die, name: p.name }),
        onclick: () => send(die),
      }, h("span", { class: "face", "aria-hidden": "true" }, faceGlyph(die)), h("span", { class: "num" }, die)))),
    pending
      ? virtualResult(state, pending, send)
      : h("button", { type: "button", class: "secondary virtual", "data-action": "virtual-die", onclick: drawVirtual },
        t("ui.existentiel.virtual_die")));
}

// The buttons' words, by what the engine says a refusal or a failure costs (p.stakes).
const REFUSE_LABEL = { joker: "existentiel.refuse.joker", elimination: "existentiel.refuse.elimination" };
const FAIL_LABEL = { joker: "existentiel.fail.joker", elimination: "existentiel.fail.elimination" };

function offerStakes(p) {
  if (p.stakes === "joker") {
    return h("p", { class: "offer-stakes" }, jokersEl(p), " ",
      h("span", {}, t(counted("ui.existentiel.jokers_left", p.jokers), { count: p.jokers, name: p.name })));
  }
  return h("p", { class: "offer-stakes" }, jokersEl(p), " ", h("span", {}, t("existentiel.no_joker_left", { name: p.name })));
}

// Accepting the death adventure means leaving the game: it asks for a confirmation first.
function confirmDeath(p, n, accept, ctx) {
  return h("div", { class: "confirm", role: "alertdialog", "aria-label": t("ui.existentiel.confirm_leave") },
    h("p", {}, h("strong", {}, t("ui.existentiel.leave_question", { name: p.name, adventure: n }))),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", "data-action": "confirm-accept", onclick: () => {
        draft.confirmDeath = null;
        record(ctx, accept);
      } }, t("ui.existentiel.leave_yes", { adventure: n })),
      h("button", { type: "button", class: "secondary", "data-action": "cancel-accept",
        onclick: () => { draft.confirmDeath = null; ctx.render(); } }, t("ui.existentiel.no"))));
}

function offerPanel(state, p, { accept, refuse }, ctx) {
  const n = p.offered;
  const death = n === state.death;
  const acceptButton = accept && h("button", { type: "button", class: "good", "data-action": "accept", onclick: () => {
    if (death) {
      draft.confirmDeath = p.id;
      ctx.render();
    } else {
      record(ctx, accept);
    }
  } }, death ? t("ui.existentiel.accept_leave") : t("ui.existentiel.accept"));
  const refuseButton = refuse && h("button", { type: "button", class: "danger", "data-action": "refuse", onclick: () =>
    sendCosting(ctx, p, refuse, {}, "existentiel.refused_with_joker", n) }, t(REFUSE_LABEL[p.stakes]));
  return h("div", { class: `offer${p.must_accept ? " must" : ""}`, "data-offer": n },
    h("p", { class: "offer-title" }, h("span", {}, t("ui.existentiel.offered")), " ", adventureEl(state, n, "adventure big")),
    offerStakes(p),
    p.must_accept ? said("p", { class: "rule", "data-rule": "must_accept" }, "existentiel.must_accept", { name: p.name, adventure: n }) : null,
    death ? said("p", { class: "rule danger-text", "data-rule": "death" }, "existentiel.death_offer") : null,
    draft.confirmDeath === p.id ? confirmDeath(p, n, accept, ctx) : h("div", { class: "actions" }, acceptButton, refuseButton));
}

function validatePanel(state, p, action, ctx) {
  const n = p.current;
  return h("div", { class: "validate" },
    h("p", { class: "offer-title" }, h("span", {}, t("ui.existentiel.tells", { name: p.name })), " ", adventureEl(state, n, "adventure big")),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "good", "data-action": "success", onclick: () => record(ctx, action, { success: true }) },
        t("ui.existentiel.success")),
      h("button", { type: "button", class: "danger", "data-action": "failure", onclick: () =>
        sendCosting(ctx, p, action, { success: false }, "existentiel.failed_with_joker", n) }, t(FAIL_LABEL[p.stakes]))));
}

function rendezvousEditor(state, action, ctx) {
  const rdv = state.rendezvous;
  const at = draft.at ?? rdv?.at ?? "";
  const place = draft.place ?? rdv?.place ?? "";
  const urgent = hasNote(state, "existentiel.set_rendezvous");
  return h("section", { class: `card rendezvous${urgent ? " urgent" : ""}`, id: "rendezvous-editor" },
    h("h2", {}, t("ui.existentiel.rendezvous")),
    rendezvousText(state),
    h("form", { id: "schedule", class: "stack", onsubmit: async (event) => {
      event.preventDefault();
      const form = event.target;
      const supplied = { at: form.elements.at.value };
      const typed = form.elements.place.value.trim();
      if (typed) supplied.place = typed;
      if (await record(ctx, action, supplied)) { draft.at = null; draft.place = null; ctx.render(); }
    } },
    h("label", { class: "field" }, h("span", {}, t("ui.existentiel.date_time")),
      h("input", { type: "datetime-local", name: "at", id: "rdv-at", required: true, value: at, "data-keep": "rdv-at",
        oninput: (e) => { draft.at = e.target.value; } })),
    h("label", { class: "field" }, h("span", {}, t("ui.existentiel.place")),
      h("input", { type: "text", name: "place", id: "rdv-place", maxlength: state.limits.place, value: place, "data-keep": "rdv-place",
        placeholder: t("ui.existentiel.place_placeholder"), oninput: (e) => { draft.place = e.target.value; } })),
    h("button", { type: "submit", class: "primary", "data-action": "schedule" }, rdv ? t("ui.existentiel.move_rendezvous") : t("ui.existentiel.set_rendezvous"))));
}

function addPlayerForm(state, action, ctx) {
  return h("section", { class: "card", id: "add-player" },
    h("h2", {}, t("ui.existentiel.new_player")),
    said("p", { class: "hint" }, "existentiel.newcomer"),
    h("form", { class: "row", id: "add-player-form", onsubmit: async (event) => {
      event.preventDefault();
      const name = event.target.elements.name.value.trim();
      const month = Number(event.target.elements.birth_month.value);
      if (await record(ctx, action, { name, birth_month: month })) { draft.name = ""; draft.month = "1"; ctx.render(); }
    } },
    h("input", { name: "name", id: "new-player-name", placeholder: t("ui.existentiel.name"), maxlength: state.limits.name, required: true, value: draft.name,
      "aria-label": t("ui.existentiel.new_player_name"), "data-keep": "new-player-name", oninput: (e) => { draft.name = e.target.value; } }),
    h("select", { name: "birth_month", id: "new-player-month", "aria-label": t("ui.existentiel.birth_month"), "data-keep": "new-player-month",
      onchange: (e) => { draft.month = e.target.value; } },
    MONTHS.map((m) => h("option", { value: m, selected: String(m) === draft.month }, month(m)))),
    h("button", { type: "submit", "data-action": "add-player" }, t("ui.existentiel.add"))));
}

function titleRow(state, n, action, ctx) {
  const saved = state.titles[n - 1];
  const value = draft.titles[n] ?? saved;
  const changed = draft.titles[n] !== undefined && draft.titles[n].trim() !== saved;
  return h("form", { class: "title-row", "data-title-row": n, onsubmit: async (event) => {
    event.preventDefault();
    if (await record(ctx, action, { adventure: n, title: event.target.elements.title.value })) {
      delete draft.titles[n];
      ctx.render();
    }
  } },
  h("label", { class: "title-number", for: `title-${n}` }, t("ui.existentiel.number", { n })),
  h("input", { name: "title", id: `title-${n}`, value, maxlength: state.limits.title, "data-keep": `title-${n}`,
    oninput: (e) => {
      draft.titles[n] = e.target.value;
      e.target.form.querySelector("button").disabled = e.target.value.trim() === saved;
    } }),
  h("button", { type: "submit", "data-action": "set-title", "data-adventure": n, disabled: !changed, "aria-label": t("ui.existentiel.save_title", { adventure: n }) }, t("ui.existentiel.ok")));
}

function titlesEditor(state, action, ctx) {
  return h("details", { class: "card", id: "titles", open: draft.titlesOpen || null, ontoggle: (e) => { draft.titlesOpen = e.target.open; } },
    h("summary", {}, t("ui.existentiel.titles")),
    h("p", { class: "hint" }, h("span", {}, t("ui.existentiel.titles_hint", { count: state.titles.length })), " ",
      h("span", {}, t("existentiel.death_offer"))),
    numbers(state).map((n) => titleRow(state, n, action, ctx)));
}

// --- table view --------------------------------------------------------------------------------------

function viewPlayer(state, p, code) {
  return h("div", { class: `player${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
    h("div", { class: "player-head" },
      h("a", { class: "player-name", href: `/t/${code}/p/${p.id}` }, p.name),
      statusPills(p), jokersEl(p)),
    nowLine(state, p),
    reasonEl(p),
    track(state, p));
}

export function view(root, state, { code }) {
  if (unchanged(root, "view", state, code)) return;
  const players = byId(state);
  fill(root,
    outcomeCard(state),
    state.over ? null : phaseBanner(state, players),
    state.over ? null : rendezvousCard(state, code),
    h("section", { class: "card" },
      h("h2", {}, t("ui.existentiel.players")),
      h("div", { class: "players" }, state.players.map((p) => viewPlayer(state, p, code))),
      legend()),
  );
}

// --- one player's own page ---------------------------------------------------------------------------

function atDeath() {
  return h("small", {}, " — ", h("span", {}, t("existentiel.lived_at_death")));
}

function adventureRow(state, p, n) {
  const s = squareState(p, n);
  return h("li", { class: `adventure-row sq-row-${s}`, "data-square": n, "data-state": s },
    h("span", { class: `square sq-${s}`, "aria-hidden": "true" }, n),
    h("span", { class: "adventure-title" }, titleOf(state, n),
      n === state.death ? atDeath() : null),
    h("span", { class: `state-label st-${s}` }, s === "none" ? "—" : squareWords(s),
      refusedBefore(p, n, s) ? [" ", h("small", { class: "also-refused" }, t("ui.existentiel.refused_before_short"))] : null));
}

export function player(root, state, { code, player: id }) {
  if (unchanged(root, "player", state, code, id)) return;
  const p = byId(state)[id];
  if (!p) {
    fill(root, h("section", { class: "card" }, h("p", {}, t("ui.existentiel.unknown_player")),
      h("a", { href: `/t/${code}` }, t("ui.existentiel.back"))));
    return;
  }
  const completed = p.completed.length;
  const count = state.titles.length;
  fill(root,
    h("p", {}, h("a", { href: `/t/${code}`, id: "back-to-table", class: "button secondary" }, t("ui.existentiel.back"))),
    h("section", { class: `card player-page${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
      h("div", { class: "player-head" }, h("h1", { class: "player-name" }, p.name), statusPills(p)),
      h("dl", { class: "facts" },
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.jokers")), h("dd", {}, jokersEl(p))),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.score")), h("dd", { "data-score": p.score ?? "" }, p.score ?? "—")),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.completed")), h("dd", { "data-completed": completed }, `${completed} / ${state.petit_chelem}`)),
        h("div", {}, h("dt", {}, t("ui.existentiel.fact.born")), h("dd", {}, month(p.birth_month)))),
      nowLine(state, p),
      reasonEl(p),
      p.title === "maitre" ? noteEl({ code: "existentiel.petit_chelem", params: {} }) : null),
    state.rendezvous && !state.over ? rendezvousCard(state, code) : null,
    h("section", { class: "card" },
      h("h2", {}, t("ui.existentiel.adventures", { count })),
      h("ol", { class: "adventure-list", id: "adventures" }, numbers(state).map((n) => adventureRow(state, p, n)))),
  );
}
