// Le jeu existentiel: the game master's panel (rolls, accept/refuse, the rendez-vous and its
// validations, newcomers, adventure titles), the table view (each player's adventure, jokers and
// track, the next rendez-vous with its calendar file) and each player's own page.
// Drawn from the engine's view alone: buttons from state.actions, rule sentences from the catalogue.
import { byId, fill, h, toast } from "../ui.js";
import { sentence } from "../messages.js";
import { actionsOf, record } from "../actions.js";

const MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
  "septembre", "octobre", "novembre", "décembre"];

// --- the engine's words and actions ------------------------------------------------------------

// A catalogue sentence: French, the English under it.
function said(tag, attrs, code, params = {}) {
  const { fr, en } = sentence(code, params);
  return h(tag, attrs, fr, h("small", { class: "en", lang: "en" }, en));
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

function adventure(state, n) {
  return `n° ${n} — ${state.titles[n - 1]}`;
}

function adventureEl(state, n, cls = "adventure") {
  return h("span", { class: cls, "data-adventure": n },
    h("span", { class: "adventure-number" }, `n° ${n}`), " — ", h("span", { class: "adventure-title" }, state.titles[n - 1]));
}

// The adventures' numbers, as the table's titles list them.
function numbers(state) {
  return state.titles.map((_, i) => i + 1);
}

function plural(count, word) {
  return `${count} ${word}${count > 1 ? "s" : ""}`;
}

// Unicode's die faces ⚀…⚅ follow one another from U+2680.
function faceGlyph(die) {
  return String.fromCodePoint(0x2680 + die - 1);
}

function jokersEl(p) {
  const label = p.jokers ? plural(p.jokers, "joker") : "aucun joker";
  return h("span", { class: `jokers${p.jokers ? "" : " none"}`, "data-jokers": p.jokers, role: "img",
    "aria-label": `${label} restant${p.jokers > 1 ? "s" : ""}`, title: label }, `🃏×${p.jokers}`);
}

// "2031-03-07T19:30" is the table's local time: read it as such, never as UTC.
function parseAt(at) {
  const [y, mo, d, hh, mm] = at.split(/[-T:]/).map(Number);
  return new Date(y, mo - 1, d, hh, mm);
}

function formatAt(at) {
  const date = parseAt(at);
  const day = date.toLocaleDateString("fr-FR", { weekday: "long", day: "numeric", month: "long", year: "numeric" });
  // No-break spaces: "19 h 30" must not wrap in the middle.
  return `${day} à\u00a0${String(date.getHours()).padStart(2, "0")}\u00a0h\u00a0${String(date.getMinutes()).padStart(2, "0")}`;
}

function statusPills(p) {
  return [
    p.status === "eliminated" ? h("span", { class: "pill out", "data-status": "eliminated" }, "éliminé·e") : null,
    p.status === "left" ? h("span", { class: "pill left", "data-status": "left" }, "a quitté le jeu") : null,
    p.title === "maitre" ? h("span", { class: "pill maitre", "data-title": "maitre" }, "🏅 Maître Existentiel") : null,
  ];
}

function reasonEl(p) {
  return p.reason ? said("p", { class: "reason", "data-note": p.reason }, p.reason) : null;
}

const PHASES = {
  assigning: ["Attribution des aventures", "Assigning adventures"],
  underway: ["Aventures en cours", "Adventures under way"],
  over: ["Partie terminée", "Game over"],
};

// What each awaited player is to do, from the actions listed for them.
function doing(state, id) {
  if (allowed(state, "accept", id) || allowed(state, "refuse", id)) return " (accepte ou refuse)";
  if (allowed(state, "roll", id)) return " (lance le dé)";
  return null;
}

function waitingLine(state, players) {
  if (!state.waiting_for.length) return null;
  const names = state.waiting_for.map((id) =>
    h("span", { class: "waiting-name", "data-waiting": id }, h("strong", {}, players[id].name), doing(state, id)));
  const label = state.phase === "assigning" ? "On attend : " : "À valider au rendez-vous : ";
  return h("p", { class: "waiting", id: "waiting" }, label, names.flatMap((n, i) => (i ? [", ", n] : [n])));
}

function phaseBanner(state, players) {
  const [fr, en] = PHASES[state.phase];
  return h("section", { class: `card phase-banner phase-${state.phase}`, id: "phase", "data-phase": state.phase },
    h("div", { class: "phase-title" }, h("strong", {}, fr), " ", h("small", { lang: "en" }, en),
      h("span", { class: "pill", "data-cycle": state.cycle }, `cycle ${state.cycle}`)),
    waitingLine(state, players),
    state.notes.map(noteEl));
}

function rendezvousText(state) {
  const rdv = state.rendezvous;
  if (!rdv) return h("p", { class: "muted", id: "rdv-none" }, "Pas encore de rendez-vous fixé.", h("small", { lang: "en" }, " No meeting set yet."));
  return h("p", { class: "rdv-when", id: "rdv-when", "data-at": rdv.at },
    h("strong", {}, formatAt(rdv.at)),
    rdv.place ? [h("br"), h("span", { class: "rdv-place", id: "rdv-place-shown" }, `📍 ${rdv.place}`)] : null);
}

function rendezvousCard(state, code) {
  return h("section", { class: "card rendezvous", id: "rendezvous" },
    h("h2", {}, "📅 Prochain rendez-vous ", h("small", { lang: "en" }, "Next meeting")),
    rendezvousText(state),
    state.rendezvous ? h("a", { class: "button primary", id: "ics-link", href: `/api/tables/${code}/rendezvous.ics` },
      "Ajouter à mon agenda ", h("small", { lang: "en" }, "Add to calendar")) : null);
}

// How an adventure stands for a player, for the track and the player's page.
function squareState(p, n) {
  if (p.current === n) return p.status === "left" ? "death" : "current";
  if (p.offered === n) return "offered";
  if (p.completed.includes(n)) return "completed";
  if (p.refused.includes(n)) return "refused";
  return "none";
}

const SQUARE_WORDS = {
  completed: ["réalisée", "completed"],
  refused: ["refusée avec un joker", "refused with a joker"],
  current: ["en cours", "being lived"],
  offered: ["proposée", "offered"],
  death: ["acceptée : a quitté le jeu", "accepted: left the game"],
  none: ["pas encore vécue", "not lived yet"],
};

function refusedBefore(p, n, s) {
  return s !== "refused" && p.refused.includes(n);
}

function track(state, p) {
  return h("ol", { class: "track", "aria-label": `Parcours de ${p.name}` }, numbers(state).map((n) => {
    const s = squareState(p, n);
    const words = SQUARE_WORDS[s][0] + (refusedBefore(p, n, s) ? " (refusée avant)" : "");
    return h("li", { class: `square sq-${s}${n === state.death ? " sq-at-death" : ""}`, "data-square": n, "data-state": s,
      "aria-label": `${adventure(state, n)} : ${words}`, title: `${adventure(state, n)} — ${words}` }, n);
  }));
}

function legend() {
  return h("div", { class: "legend", id: "legend", "aria-label": "Légende du parcours" },
    ["completed", "refused", "current", "offered"].map((s) => h("span", { class: "legend-item" },
      h("span", { class: `square sq-${s}`, "aria-hidden": "true" }), SQUARE_WORDS[s][0], " ", h("small", { lang: "en" }, SQUARE_WORDS[s][1]))));
}

const VALIDATED = { success: "réussie ✓", failure: "ratée ✗" };

function nowLine(state, p) {
  if (p.status === "eliminated") return null;
  if (p.status === "left") return h("p", { class: "now" }, "A accepté ", adventureEl(state, state.death), " et a quitté le jeu.");
  if (p.current !== null) return h("p", { class: "now", "data-now": "current" }, h("span", { class: "label" }, "À vivre : "), adventureEl(state, p.current));
  if (p.offered !== null) return h("p", { class: "now", "data-now": "offered" }, h("span", { class: "label" }, "Proposée : "), adventureEl(state, p.offered),
    p.must_accept ? h("span", { class: "pill warn" }, "déjà refusée") : null);
  if (p.validated) {
    return h("p", { class: "now muted", "data-now": "validated" }, `Validée au rendez-vous : ${adventure(state, p.score)} — ${VALIDATED[p.validated]}`);
  }
  return h("p", { class: "now muted", "data-now": "roll" }, "Lance le dé pour une nouvelle aventure.");
}

const STANDING = { left: "a quitté le jeu", eliminated: "éliminé·e", playing: "en lice" };

function resultRow(state, p) {
  const done = p.completed.length;
  return h("li", { "data-result": p.id },
    h("strong", {}, p.name), " — ",
    STANDING[p.status], p.status === "left" ? ` (aventure ${state.death})` : null,
    `, ${plural(done, "aventure")} réalisée${done > 1 ? "s" : ""}, `, jokersEl(p),
    p.title === "maitre" ? [" ", h("span", { class: "pill maitre" }, "🏅 Maître Existentiel")] : null,
    reasonEl(p));
}

function outcomeCard(state) {
  if (!state.outcome) return null;
  const { fr, en } = sentence(state.outcome.reason, state.outcome.params);
  return h("section", { class: "card outcome", id: "outcome", "data-winners": state.winners.join(",") },
    h("div", { class: "outcome-title" }, "Partie terminée"),
    h("p", {}, state.winners.length ? `🏅 ${fr}` : fr),
    h("div", { class: "muted", lang: "en" }, en),
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
      h("h2", {}, "Aventurier·ères ", h("small", { lang: "en" }, "Players")),
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
      toast(p.status === "eliminated" ? sentence(p.reason)
        : sentence(code, { name: p.name, adventure, jokers: p.jokers }), "info");
    }
    return false;
  });
}

function virtualResult(state, pending, send) {
  const { die, landing } = pending;
  return h("div", { class: "virtual-result", "data-virtual": die },
    h("p", {}, h("span", { class: "face big", "aria-hidden": "true" }, faceGlyph(die)),
      ` Le dé virtuel donne ${die}`,
      landing ? [" → ", adventureEl(state, landing.adventure)] : null),
    landing && landing.skipped.length
      ? said("p", { class: "hint" }, "existentiel.landing_skipped", { skipped: landing.skipped.join(", ") }) : null,
    h("button", { type: "button", class: "primary", "data-action": "send-virtual", onclick: () => send(die) },
      `Entrer ce ${die}`));
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
    h("p", { class: "hint" }, "Le dé s'ajoute à ", h("strong", { "data-base": p.next_base }, p.next_base), "."),
    h("div", { class: "dice", role: "group", "aria-label": `Valeur du dé de ${p.name}` },
      state.dice.map((die) => h("button", {
        type: "button", class: "die", "data-die": die, "aria-label": `${die} au dé pour ${p.name}`,
        onclick: () => send(die),
      }, h("span", { class: "face", "aria-hidden": "true" }, faceGlyph(die)), h("span", { class: "num" }, die)))),
    pending
      ? virtualResult(state, pending, send)
      : h("button", { type: "button", class: "secondary virtual", "data-action": "virtual-die", onclick: drawVirtual },
        "🎲 Dé virtuel ", h("small", { lang: "en" }, "virtual die")));
}

// The buttons' words, by what the engine says a refusal or a failure costs (p.stakes).
const REFUSE_LABEL = { joker: "existentiel.refuse.joker", elimination: "existentiel.refuse.elimination" };
const FAIL_LABEL = { joker: "existentiel.fail.joker", elimination: "existentiel.fail.elimination" };

function offerStakes(p) {
  if (p.stakes === "joker") return h("p", { class: "offer-stakes" }, jokersEl(p), ` il reste ${plural(p.jokers, "joker")} à ${p.name}`);
  const { fr, en } = sentence("existentiel.no_joker_left", { name: p.name });
  return h("p", { class: "offer-stakes" }, jokersEl(p), " ", fr, h("small", { class: "en", lang: "en" }, en));
}

// Accepting the death adventure means leaving the game: it asks for a confirmation first.
function confirmDeath(p, n, accept, ctx) {
  return h("div", { class: "confirm", role: "alertdialog", "aria-label": "Confirmer le départ" },
    h("p", {}, h("strong", {}, `${p.name} quitte le jeu en acceptant la ${n} ?`)),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", "data-action": "confirm-accept", onclick: () => {
        draft.confirmDeath = null;
        record(ctx, accept);
      } }, `Oui, accepter la ${n}`),
      h("button", { type: "button", class: "secondary", "data-action": "cancel-accept",
        onclick: () => { draft.confirmDeath = null; ctx.render(); } }, "Non")));
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
  } }, death ? "Accepter (quitte le jeu)" : "Accepter");
  const refuseButton = refuse && h("button", { type: "button", class: "danger", "data-action": "refuse", onclick: () =>
    sendCosting(ctx, p, refuse, {}, "existentiel.refused_with_joker", n) }, sentence(REFUSE_LABEL[p.stakes]).fr);
  return h("div", { class: `offer${p.must_accept ? " must" : ""}`, "data-offer": n },
    h("p", { class: "offer-title" }, "Aventure proposée ", adventureEl(state, n, "adventure big")),
    offerStakes(p),
    p.must_accept ? said("p", { class: "rule", "data-rule": "must_accept" }, "existentiel.must_accept", { name: p.name, adventure: n }) : null,
    death ? said("p", { class: "rule danger-text", "data-rule": "death" }, "existentiel.death_offer") : null,
    draft.confirmDeath === p.id ? confirmDeath(p, n, accept, ctx) : h("div", { class: "actions" }, acceptButton, refuseButton));
}

function validatePanel(state, p, action, ctx) {
  const n = p.current;
  return h("div", { class: "validate" },
    h("p", { class: "offer-title" }, "Au rendez-vous, ", p.name, " raconte ", adventureEl(state, n, "adventure big")),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "good", "data-action": "success", onclick: () => record(ctx, action, { success: true }) },
        "Réussie ✓"),
      h("button", { type: "button", class: "danger", "data-action": "failure", onclick: () =>
        sendCosting(ctx, p, action, { success: false }, "existentiel.failed_with_joker", n) }, sentence(FAIL_LABEL[p.stakes]).fr)));
}

function rendezvousEditor(state, action, ctx) {
  const rdv = state.rendezvous;
  const at = draft.at ?? rdv?.at ?? "";
  const place = draft.place ?? rdv?.place ?? "";
  const urgent = hasNote(state, "existentiel.set_rendezvous");
  return h("section", { class: `card rendezvous${urgent ? " urgent" : ""}`, id: "rendezvous-editor" },
    h("h2", {}, "📅 Rendez-vous ", h("small", { lang: "en" }, "Next meeting")),
    rendezvousText(state),
    h("form", { id: "schedule", class: "stack", onsubmit: async (event) => {
      event.preventDefault();
      const form = event.target;
      const supplied = { at: form.elements.at.value };
      const typed = form.elements.place.value.trim();
      if (typed) supplied.place = typed;
      if (await record(ctx, action, supplied)) { draft.at = null; draft.place = null; ctx.render(); }
    } },
    h("label", { class: "field" }, "Date et heure ", h("small", { lang: "en" }, "date and time"),
      h("input", { type: "datetime-local", name: "at", id: "rdv-at", required: true, value: at, "data-keep": "rdv-at",
        oninput: (e) => { draft.at = e.target.value; } })),
    h("label", { class: "field" }, "Lieu ", h("small", { lang: "en" }, "place (optional)"),
      h("input", { type: "text", name: "place", id: "rdv-place", maxlength: state.limits.place, value: place, "data-keep": "rdv-place",
        placeholder: "Chez qui ? Quel café ?", oninput: (e) => { draft.place = e.target.value; } })),
    h("button", { type: "submit", class: "primary", "data-action": "schedule" }, rdv ? "Déplacer le rendez-vous" : "Fixer le rendez-vous")));
}

function addPlayerForm(state, action, ctx) {
  return h("section", { class: "card", id: "add-player" },
    h("h2", {}, "Nouvel·le aventurier·ère ", h("small", { lang: "en" }, "Add a player")),
    said("p", { class: "hint" }, "existentiel.newcomer"),
    h("form", { class: "row", id: "add-player-form", onsubmit: async (event) => {
      event.preventDefault();
      const name = event.target.elements.name.value.trim();
      const month = Number(event.target.elements.birth_month.value);
      if (await record(ctx, action, { name, birth_month: month })) { draft.name = ""; draft.month = "1"; ctx.render(); }
    } },
    h("input", { name: "name", id: "new-player-name", placeholder: "Nom", maxlength: state.limits.name, required: true, value: draft.name,
      "aria-label": "Nom du·de la nouvel·le joueur·euse", "data-keep": "new-player-name", oninput: (e) => { draft.name = e.target.value; } }),
    h("select", { name: "birth_month", id: "new-player-month", "aria-label": "Mois de naissance", "data-keep": "new-player-month",
      onchange: (e) => { draft.month = e.target.value; } },
    MONTHS.map((m, i) => h("option", { value: i + 1, selected: String(i + 1) === draft.month }, m))),
    h("button", { type: "submit", "data-action": "add-player" }, "Ajouter")));
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
  h("label", { class: "title-number", for: `title-${n}` }, `n° ${n}`),
  h("input", { name: "title", id: `title-${n}`, value, maxlength: state.limits.title, "data-keep": `title-${n}`,
    oninput: (e) => {
      draft.titles[n] = e.target.value;
      e.target.form.querySelector("button").disabled = e.target.value.trim() === saved;
    } }),
  h("button", { type: "submit", "data-action": "set-title", "data-adventure": n, disabled: !changed, "aria-label": `Enregistrer le titre de l'aventure ${n}` }, "OK"));
}

function titlesEditor(state, action, ctx) {
  const { fr, en } = sentence("existentiel.death_offer");
  return h("details", { class: "card", id: "titles", open: draft.titlesOpen || null, ontoggle: (e) => { draft.titlesOpen = e.target.open; } },
    h("summary", {}, "Titres des aventures ", h("small", { lang: "en" }, "Adventure titles")),
    h("p", { class: "hint" }, `Les ${state.titles.length} aventures de la table. ${fr}`, h("small", { class: "en", lang: "en" }, en)),
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
      h("h2", {}, "Aventurier·ères ", h("small", { lang: "en" }, "Players")),
      h("div", { class: "players" }, state.players.map((p) => viewPlayer(state, p, code))),
      legend()),
  );
}

// --- one player's own page ---------------------------------------------------------------------------

function atDeath() {
  const { fr, en } = sentence("existentiel.lived_at_death");
  return h("small", { title: en }, " — ", fr);
}

function adventureRow(state, p, n) {
  const s = squareState(p, n);
  return h("li", { class: `adventure-row sq-row-${s}`, "data-square": n, "data-state": s },
    h("span", { class: `square sq-${s}`, "aria-hidden": "true" }, n),
    h("span", { class: "adventure-title" }, state.titles[n - 1],
      n === state.death ? atDeath() : null),
    h("span", { class: `state-label st-${s}` }, s === "none" ? "—" : SQUARE_WORDS[s][0],
      refusedBefore(p, n, s) ? h("small", { class: "also-refused" }, " (refusée avant)") : null));
}

export function player(root, state, { code, player: id }) {
  if (unchanged(root, "player", state, code, id)) return;
  const p = byId(state)[id];
  if (!p) {
    fill(root, h("section", { class: "card" }, h("p", {}, "Joueur·euse inconnu·e à cette table."), h("a", { href: `/t/${code}` }, "← La table")));
    return;
  }
  const completed = p.completed.length;
  const count = state.titles.length;
  fill(root,
    h("p", {}, h("a", { href: `/t/${code}`, id: "back-to-table", class: "button secondary" }, "← La table ", h("small", { lang: "en" }, "back to the table"))),
    h("section", { class: `card player-page${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
      h("div", { class: "player-head" }, h("h1", { class: "player-name" }, p.name), statusPills(p)),
      h("dl", { class: "facts" },
        h("div", {}, h("dt", {}, "Jokers"), h("dd", {}, jokersEl(p))),
        h("div", {}, h("dt", {}, "Score"), h("dd", { "data-score": p.score ?? "" }, p.score ?? "—")),
        h("div", {}, h("dt", {}, "Réalisées"), h("dd", { "data-completed": completed }, `${completed} / ${state.petit_chelem}`)),
        h("div", {}, h("dt", {}, "Né·e en"), h("dd", {}, MONTHS[p.birth_month - 1]))),
      nowLine(state, p),
      reasonEl(p),
      p.title === "maitre" ? noteEl({ code: "existentiel.petit_chelem", params: {} }) : null),
    state.rendezvous && !state.over ? rendezvousCard(state, code) : null,
    h("section", { class: "card" },
      h("h2", {}, `Les ${count} aventures `, h("small", { lang: "en" }, `The ${count} adventures`)),
      h("ol", { class: "adventure-list", id: "adventures" }, numbers(state).map((n) => adventureRow(state, p, n)))),
  );
}
