// Le jeu existentiel's game master panel (rolls, accept/refuse, the rendez-vous and its validations,
// newcomers, adventure titles), on the pieces of the table view (existentiel.js). Loaded by the
// referee page only: a table view never downloads it.
// Buttons from state.actions, every word from the catalogue in the page's one language.
import { byId, fill, h, toast } from "../ui.js";
import { t } from "../i18n.js";
import { record } from "../actions.js";
import {
  adventureEl, allowed, counted, drawChanged, jokersEl, month, nowLine, numbers, phaseBanner, reasonEl, rendezvousText,
  resultsCard, said, statusPills,
} from "./existentiel.js";

const MONTHS = Array.from({ length: 12 }, (_, i) => i + 1);

function hasNote(state, code) {
  return state.notes.some((note) => note.code === code);
}

// Unicode's die faces ⚀…⚅ follow one another from U+2680.
function faceGlyph(die) {
  return String.fromCodePoint(0x2680 + die - 1);
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

// What the game master has typed or drawn but not yet sent; kept across redraws.
const draft = {
  virtual: {}, // player id -> {die, landing}
  confirmDeath: null, // player id whose acceptance of the death adventure awaits confirmation
  name: "", month: "",
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
  drawChanged(root, ["referee", state, draft.virtual, draft.confirmDeath], () => {
    const addPlayer = allowed(state, "add_player");
    const schedule = allowed(state, "schedule");
    const setTitle = allowed(state, "set_title");
    keepingFocus(root, () => fill(root,
      resultsCard(state),
      state.over ? h("p", { class: "hint center" }, t("ui.existentiel.over_hint")) : phaseBanner(state, players),
      h("section", { class: "card" },
        h("h2", {}, t("ui.existentiel.players")),
        h("div", { class: "players" }, state.players.map((p) => refereePlayer(state, p, ctx)))),
      schedule ? rendezvousEditor(state, schedule, ctx) : null,
      addPlayer ? addPlayerForm(state, addPlayer, ctx) : null,
      setTitle ? titlesEditor(state, setTitle, ctx) : null,
    ));
  });
}

function refereePlayer(state, p, ctx) {
  return h("div", { class: `player${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
    h("div", { class: "player-head" },
      h("span", { class: "player-name" }, p.name), statusPills(p), jokersEl(p)),
    playerPanel(state, p, ctx),
    reasonEl(p));
}

// The panel of what may be recorded for this player now, or where they stand.
export function playerPanel(state, p, ctx) {
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
      if (await record(ctx, action, { name, birth_month: month })) { draft.name = ""; draft.month = ""; ctx.render(); }
    } },
    h("input", { name: "name", id: "new-player-name", placeholder: t("ui.existentiel.name"), maxlength: state.limits.name, required: true, value: draft.name,
      "aria-label": t("ui.existentiel.new_player_name"), "data-keep": "new-player-name", oninput: (e) => { draft.name = e.target.value; } }),
    // No month chosen until the game master chooses one: a silent janvier would move the first roll.
    h("select", { name: "birth_month", id: "new-player-month", required: true, "aria-label": t("ui.existentiel.birth_month"),
      "data-keep": "new-player-month", onchange: (e) => { draft.month = e.target.value; } },
    h("option", { value: "", selected: draft.month === "" }, t("ui.shell.month_choose")),
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
