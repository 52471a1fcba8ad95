// Le jeu existentiel: the game master's panel (rolls, accept/refuse, the rendez-vous and its
// validations, newcomers, adventure titles), the table view (each player's adventure, jokers and
// 29-square track, the next rendez-vous with its calendar file) and each player's own page.
import { byId, fill, h, toast } from "../ui.js";
import { sentence } from "../messages.js";

export const ADVENTURES = 29;
const DEATH = 29; // lived only at death: accepting it means leaving the game
const FACES = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
export const MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
  "septembre", "octobre", "novembre", "décembre"];


function bilingual(code, tag = "p", cls = "note") {
  const { fr, en } = sentence(code);
  return h(tag, { class: cls, "data-note": code }, fr, h("small", { class: "en", lang: "en" }, en));
}

// --- shared pieces -------------------------------------------------------------------------------

export function adventure(state, n) {
  return `n° ${n} — ${state.titles[n - 1]}`;
}

function adventureEl(state, n, cls = "adventure") {
  return h("span", { class: cls, "data-adventure": n },
    h("span", { class: "adventure-number" }, `n° ${n}`), " — ", h("span", { class: "adventure-title" }, state.titles[n - 1]));
}

function plural(count, word) {
  return `${count} ${word}${count > 1 ? "s" : ""}`;
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

export function formatAt(at) {
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
  if (!p.reason) return null;
  return bilingual(p.reason, "p", "reason");
}

const PHASES = {
  assigning: ["Attribution des aventures", "Assigning adventures"],
  underway: ["Aventures en cours", "Adventures under way"],
  over: ["Partie terminée", "Game over"],
};

function waitingLine(state, players) {
  if (state.over || !state.waiting_for.length) return null;
  const names = state.waiting_for.map((id) => {
    const p = players[id];
    const doing = state.phase !== "assigning" ? null : p.offered !== null ? " (accepte ou refuse)" : " (lance le dé)";
    return h("span", { class: "waiting-name", "data-waiting": id }, h("strong", {}, p.name), doing);
  });
  const label = state.phase === "assigning" ? "On attend : " : "À valider au rendez-vous : ";
  return h("p", { class: "waiting", id: "waiting" }, label, names.flatMap((n, i) => (i ? [", ", n] : [n])));
}

function phaseBanner(state, players) {
  const [fr, en] = PHASES[state.phase];
  return h("section", { class: `card phase-banner phase-${state.phase}`, id: "phase", "data-phase": state.phase },
    h("div", { class: "phase-title" }, h("strong", {}, fr), " ", h("small", { lang: "en" }, en),
      state.over ? null : h("span", { class: "pill", "data-cycle": state.cycle }, `cycle ${state.cycle}`)),
    waitingLine(state, players),
    state.notes.filter((code) => code === "existentiel.set_rendezvous").map((code) => bilingual(code)));
}

function rendezvousText(state) {
  const rdv = state.rendezvous;
  if (!rdv) return h("p", { class: "muted", id: "rdv-none" }, "Pas encore de rendez-vous fixé.", h("small", { lang: "en" }, " No meeting set yet."));
  return h("p", { class: "rdv-when", id: "rdv-when", "data-at": rdv.at },
    h("strong", {}, formatAt(rdv.at)),
    rdv.place ? [h("br"), h("span", { class: "rdv-place", id: "rdv-place-shown" }, `📍 ${rdv.place}`)] : null);
}

function icsUrl(code) {
  return `/api/tables/${code}/rendezvous.ics`;
}

function rendezvousCard(state, code) {
  return h("section", { class: "card rendezvous", id: "rendezvous" },
    h("h2", {}, "📅 Prochain rendez-vous ", h("small", { lang: "en" }, "Next meeting")),
    rendezvousText(state),
    state.rendezvous ? h("a", { class: "button primary", id: "ics-link", href: icsUrl(code) },
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

function track(state, p) {
  const squares = [];
  for (let n = 1; n <= ADVENTURES; n++) {
    const s = squareState(p, n);
    const words = SQUARE_WORDS[s][0] + (s !== "refused" && p.refused.includes(n) ? " (refusée avant)" : "");
    squares.push(h("li", { class: `square sq-${s}${n === DEATH ? " sq-29" : ""}`, "data-square": n, "data-state": s,
      "aria-label": `${adventure(state, n)} : ${words}`, title: `${adventure(state, n)} — ${words}` }, n));
  }
  return h("ol", { class: "track", "aria-label": `Parcours de ${p.name}` }, squares);
}

function legend() {
  return h("div", { class: "legend", id: "legend", "aria-label": "Légende du parcours" },
    ["completed", "refused", "current", "offered"].map((s) => h("span", { class: "legend-item" },
      h("span", { class: `square sq-${s}`, "aria-hidden": "true" }), SQUARE_WORDS[s][0], " ", h("small", { lang: "en" }, SQUARE_WORDS[s][1]))));
}

function nowLine(state, p) {
  if (p.status === "eliminated") return null;
  if (p.status === "left") return h("p", { class: "now" }, "A accepté ", adventureEl(state, DEATH), " et a quitté le jeu.");
  if (p.current !== null) return h("p", { class: "now", "data-now": "current" }, h("span", { class: "label" }, "À vivre : "), adventureEl(state, p.current));
  if (p.offered !== null) return h("p", { class: "now", "data-now": "offered" }, h("span", { class: "label" }, "Proposée : "), adventureEl(state, p.offered),
    p.must_accept ? h("span", { class: "pill warn" }, "déjà refusée") : null);
  if (state.phase === "underway") {
    const won = p.score !== null && p.completed.includes(p.score);
    return h("p", { class: "now muted", "data-now": "validated" }, `Validée au rendez-vous : ${adventure(state, p.score)} — ${won ? "réussie ✓" : "ratée ✗"}`);
  }
  return h("p", { class: "now muted", "data-now": "roll" }, "Lance le dé pour une nouvelle aventure.");
}

function outcomeCard(state, players) {
  if (!state.over) return null;
  const maitres = state.outcome?.maitres || [];
  return h("section", { class: "card outcome", id: "outcome", "data-winners": state.winners.join(",") },
    h("div", { class: "outcome-title" }, "Partie terminée"),
    h("p", {}, maitres.length
      ? `🏅 Maître${maitres.length > 1 ? "s" : ""} Existentiel${maitres.length > 1 ? "s" : ""} : ${maitres.map((id) => players[id].name).join(", ")}`
      : "Aucun Maître Existentiel cette fois."),
    h("div", { class: "muted", lang: "en" }, maitres.length ? `Maître Existentiel: ${maitres.map((id) => players[id].name).join(", ")}` : "No Maître Existentiel this time."),
    h("ul", { class: "results", id: "results" }, state.players.map((p) => h("li", { "data-result": p.id },
      h("strong", {}, p.name), " — ",
      p.status === "left" ? "a quitté le jeu (aventure 29)" : p.status === "eliminated" ? "éliminé·e" : "en lice",
      `, ${plural(p.completed.length, "aventure")} réalisée${p.completed.length > 1 ? "s" : ""}, `, jokersEl(p),
      p.title === "maitre" ? [" ", h("span", { class: "pill maitre" }, "🏅 Maître Existentiel")] : null,
      reasonEl(p)))),
    state.notes.filter((c) => c !== "existentiel.set_rendezvous").map((code) => bilingual(code)));
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
  confirm29: null, // player id whose acceptance of 29 awaits confirmation
  name: "", month: "1",
  at: null, place: null, // null: show the rendez-vous in effect
  titles: {}, // adventure -> edited title
  titlesOpen: false,
};

function drawDie() {
  // Rejection sampling keeps the six faces exactly equally likely.
  const buffer = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / 6) * 6;
  do {
    crypto.getRandomValues(buffer);
  } while (buffer[0] >= limit);
  return (buffer[0] % 6) + 1;
}

export function referee(root, state, ctx) {
  const players = byId(state);
  for (const id of Object.keys(draft.virtual)) if (!players[id]?.actions.includes("roll")) delete draft.virtual[id];
  if (draft.confirm29 && players[draft.confirm29]?.offered !== DEATH) draft.confirm29 = null;
  // What is typed is already on the page: only the state and what changes the panel's shape count.
  if (unchanged(root, "referee", state, draft.virtual, draft.confirm29)) return;
  keepingFocus(root, () => fill(root,
    outcomeCard(state, players),
    state.over ? null : phaseBanner(state, players),
    state.over ? h("p", { class: "hint center" }, "Plus personne n'est en lice. « Annuler » reprend le dernier geste si la table le souhaite.") : null,
    h("section", { class: "card" },
      h("h2", {}, "Aventurier·ères ", h("small", { lang: "en" }, "Players")),
      h("div", { class: "players" }, state.players.map((p) => refereePlayer(state, p, ctx)))),
    state.over ? null : rendezvousEditor(state, ctx),
    state.phase === "assigning" ? addPlayerForm(ctx) : null,
    state.over ? null : titlesEditor(state, ctx),
  ));
}

function refereePlayer(state, p, ctx) {
  const out = p.status !== "playing";
  return h("div", { class: `player${out ? " is-out" : ""}`, "data-player": p.id },
    h("div", { class: "player-head" },
      h("span", { class: "player-name" }, p.name), statusPills(p), jokersEl(p)),
    out ? [nowLine(state, p), reasonEl(p)] : playerActions(state, p, ctx));
}

function playerActions(state, p, ctx) {
  const can = (a) => p.actions.includes(a);
  if (can("roll")) return rollPanel(state, p, ctx);
  if (can("accept")) return offerPanel(state, p, ctx);
  if (can("validate")) return validatePanel(state, p, ctx);
  return nowLine(state, p);
}

function rollPanel(state, p, ctx) {
  const from = p.score === null ? `son mois de naissance, ${MONTHS[p.birth_month - 1]}` : "son score, la dernière aventure atteinte";
  const pending = draft.virtual[p.id];
  const roll = async (die) => {
    if (await ctx.send("roll", { player: p.id, die })) delete draft.virtual[p.id];
  };
  return h("div", { class: "roll" },
    h("p", { class: "hint" }, "Le dé s'ajoute à ", h("strong", { "data-base": p.next_base }, p.next_base), ` (${from}).`),
    h("div", { class: "dice", role: "group", "aria-label": `Valeur du dé de ${p.name}` },
      [1, 2, 3, 4, 5, 6].map((die) => h("button", {
        type: "button", class: "die", "data-die": die, "aria-label": `${die} au dé pour ${p.name}`,
        onclick: () => roll(die),
      }, h("span", { class: "face", "aria-hidden": "true" }, FACES[die - 1]), h("span", { class: "num" }, die)))),
    pending
      ? h("div", { class: "virtual-result", "data-virtual": pending.die },
        h("p", {}, h("span", { class: "face big", "aria-hidden": "true" }, FACES[pending.die - 1]),
          ` Le dé virtuel donne ${pending.die}`,
          pending.landing ? [" → ", adventureEl(state, pending.landing.adventure)] : null),
        pending.landing && pending.landing.skipped.length
          ? h("p", { class: "hint" }, `Déjà réalisée${pending.landing.skipped.length > 1 ? "s" : ""} : ${pending.landing.skipped.join(", ")} — on avance d'une case.`) : null,
        h("button", { type: "button", class: "primary", "data-action": "send-virtual", onclick: () => roll(pending.die) },
          `Entrer ce ${pending.die}`))
      : h("button", { type: "button", class: "secondary virtual", "data-action": "virtual-die", onclick: async () => {
        const die = drawDie();
        draft.virtual[p.id] = { die, landing: null };
        ctx.render();
        try {
          const landing = await ctx.check("landing", { player: p.id, die });
          if (draft.virtual[p.id]?.die === die) draft.virtual[p.id].landing = landing;
        } catch { /* the preview is only an extra: the value can still be entered */ }
        ctx.render();
      } }, "🎲 Dé virtuel ", h("small", { lang: "en" }, "virtual die")));
}

function offerPanel(state, p, ctx) {
  const n = p.offered;
  const confirming = draft.confirm29 === p.id;
  const refuseLabel = p.jokers > 0 ? "Refuser (−1 joker)" : "Refuser = élimination";
  return h("div", { class: `offer${p.must_accept ? " must" : ""}`, "data-offer": n },
    h("p", { class: "offer-title" }, "Aventure proposée ", adventureEl(state, n, "adventure big")),
    h("p", { class: "offer-stakes" }, jokersEl(p), " ",
      p.jokers > 0 ? `il reste ${plural(p.jokers, "joker")} à ${p.name}` : `${p.name} n'a plus de joker : refuser, c'est être éliminé·e.`),
    p.must_accept ? h("p", { class: "rule", "data-rule": "must_accept" },
      `${p.name} retombe sur l'aventure ${n}, déjà refusée : contraint·e de l'accepter, sous peine de perdre un joker.`,
      h("small", { class: "en", lang: "en" }, `${p.name} lands again on adventure ${n}, refused before: accept it or lose a joker.`)) : null,
    n === DEATH ? h("p", { class: "rule danger-text", "data-rule": "death" },
      "L'aventure 29 ne se vit qu'à la mort : l'accepter, c'est quitter le jeu.",
      h("small", { class: "en", lang: "en" }, "Adventure 29 is only lived at death: accepting it means leaving the game.")) : null,
    confirming
      ? h("div", { class: "confirm", role: "alertdialog", "aria-label": "Confirmer le départ" },
        h("p", {}, h("strong", {}, `${p.name} quitte le jeu en acceptant la 29 ?`)),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "primary", "data-action": "confirm-accept", onclick: async () => {
            draft.confirm29 = null;
            await ctx.send("accept", { player: p.id });
          } }, "Oui, accepter la 29"),
          h("button", { type: "button", class: "secondary", "data-action": "cancel-accept", onclick: () => { draft.confirm29 = null; ctx.render(); } }, "Non")))
      : h("div", { class: "actions" },
        h("button", { type: "button", class: "good", "data-action": "accept", onclick: () => {
          if (n === DEATH) { draft.confirm29 = p.id; ctx.render(); return; }
          ctx.send("accept", { player: p.id });
        } }, n === DEATH ? "Accepter (quitte le jeu)" : "Accepter"),
        h("button", { type: "button", class: "danger", "data-action": "refuse", onclick: async () => {
          const jokers = p.jokers;
          if (!(await ctx.send("refuse", { player: p.id }))) return;
          if (jokers > 0) {
            toast({
              fr: `${p.name} refuse l'aventure ${n} : un joker de moins (reste ${jokers - 1}). Il faut relancer le dé ; le résultat s'ajoute à ${n}.`,
              en: `${p.name} refuses adventure ${n}: one joker less (${jokers - 1} left). Roll again; the roll is added to ${n}.`,
            }, "info");
          } else {
            toast(sentence("existentiel.eliminated_refused"), "info");
          }
        } }, refuseLabel)));
}

function validatePanel(state, p, ctx) {
  const failLabel = p.jokers > 0 ? "Ratée (−1 joker)" : "Ratée = élimination";
  return h("div", { class: "validate" },
    h("p", { class: "offer-title" }, "Au rendez-vous, ", p.name, " raconte ", adventureEl(state, p.current, "adventure big")),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "good", "data-action": "success", onclick: () => ctx.send("validate", { player: p.id, success: true }) },
        "Réussie ✓"),
      h("button", { type: "button", class: "danger", "data-action": "failure", onclick: async () => {
        const jokers = p.jokers;
        if (!(await ctx.send("validate", { player: p.id, success: false }))) return;
        toast(jokers > 0
          ? { fr: `Aventure ${p.current} non réalisée : ${p.name} perd un joker (reste ${jokers - 1}).`,
            en: `Adventure ${p.current} not lived: ${p.name} loses a joker (${jokers - 1} left).` }
          : sentence("existentiel.eliminated_failed"), "info");
      } }, failLabel)));
}

function rendezvousEditor(state, ctx) {
  const rdv = state.rendezvous;
  const at = draft.at ?? rdv?.at ?? "";
  const place = draft.place ?? rdv?.place ?? "";
  const urgent = state.notes.includes("existentiel.set_rendezvous");
  return h("section", { class: `card rendezvous${urgent ? " urgent" : ""}`, id: "rendezvous-editor" },
    h("h2", {}, "📅 Rendez-vous ", h("small", { lang: "en" }, "Next meeting")),
    rendezvousText(state),
    h("form", { id: "schedule", class: "stack", onsubmit: async (event) => {
      event.preventDefault();
      const form = event.target;
      const params = { at: form.elements.at.value };
      const typed = form.elements.place.value.trim();
      if (typed) params.place = typed;
      if (await ctx.send("schedule", params)) { draft.at = null; draft.place = null; ctx.render(); }
    } },
    h("label", { class: "field" }, "Date et heure ", h("small", { lang: "en" }, "date and time"),
      h("input", { type: "datetime-local", name: "at", id: "rdv-at", required: true, value: at, "data-keep": "rdv-at",
        oninput: (e) => { draft.at = e.target.value; } })),
    h("label", { class: "field" }, "Lieu ", h("small", { lang: "en" }, "place (optional)"),
      h("input", { type: "text", name: "place", id: "rdv-place", maxlength: 120, value: place, "data-keep": "rdv-place",
        placeholder: "Chez qui ? Quel café ?", oninput: (e) => { draft.place = e.target.value; } })),
    h("button", { type: "submit", class: "primary", "data-action": "schedule" }, rdv ? "Déplacer le rendez-vous" : "Fixer le rendez-vous")));
}

function addPlayerForm(ctx) {
  return h("section", { class: "card", id: "add-player" },
    h("h2", {}, "Nouvel·le aventurier·ère ", h("small", { lang: "en" }, "Add a player")),
    h("p", { class: "hint" }, "On rejoint la partie pendant l'attribution des aventures ; le premier dé s'ajoute au mois de naissance."),
    h("form", { class: "row", id: "add-player-form", onsubmit: async (event) => {
      event.preventDefault();
      const name = event.target.elements.name.value.trim();
      const month = Number(event.target.elements.birth_month.value);
      if (await ctx.send("add_player", { name, birth_month: month })) { draft.name = ""; draft.month = "1"; ctx.render(); }
    } },
    h("input", { name: "name", id: "new-player-name", placeholder: "Nom", maxlength: 40, required: true, value: draft.name,
      "aria-label": "Nom du·de la nouvel·le joueur·euse", "data-keep": "new-player-name", oninput: (e) => { draft.name = e.target.value; } }),
    h("select", { name: "birth_month", id: "new-player-month", "aria-label": "Mois de naissance", "data-keep": "new-player-month",
      onchange: (e) => { draft.month = e.target.value; } },
    MONTHS.map((m, i) => h("option", { value: i + 1, selected: String(i + 1) === draft.month }, m))),
    h("button", { type: "submit", "data-action": "add-player" }, "Ajouter")));
}

function titlesEditor(state, ctx) {
  const rows = [];
  for (let n = 1; n <= ADVENTURES; n++) {
    const value = draft.titles[n] ?? state.titles[n - 1];
    const changed = draft.titles[n] !== undefined && draft.titles[n].trim() !== state.titles[n - 1];
    rows.push(h("form", { class: "title-row", "data-title-row": n, onsubmit: async (event) => {
      event.preventDefault();
      if (await ctx.send("set_title", { adventure: n, title: event.target.elements.title.value })) {
        delete draft.titles[n];
        ctx.render();
      }
    } },
    h("label", { class: "title-number", for: `title-${n}` }, `n° ${n}`),
    h("input", { name: "title", id: `title-${n}`, value, maxlength: 80, "data-keep": `title-${n}`,
      oninput: (e) => {
        draft.titles[n] = e.target.value;
        e.target.form.querySelector("button").disabled = e.target.value.trim() === state.titles[n - 1];
      } }),
    h("button", { type: "submit", "data-action": "set-title", "data-adventure": n, disabled: !changed, "aria-label": `Enregistrer le titre de l'aventure ${n}` }, "OK")));
  }
  return h("details", { class: "card", id: "titles", open: draft.titlesOpen || null, ontoggle: (e) => { draft.titlesOpen = e.target.open; } },
    h("summary", {}, "Titres des aventures ", h("small", { lang: "en" }, "Adventure titles")),
    h("p", { class: "hint" }, "Les 29 aventures de la table. La 29 ne se vit qu'à la mort."),
    rows);
}

// --- table view --------------------------------------------------------------------------------------

export function view(root, state, { code }) {
  if (unchanged(root, "view", state, code)) return;
  const players = byId(state);
  fill(root,
    outcomeCard(state, players),
    state.over ? null : phaseBanner(state, players),
    state.over ? null : rendezvousCard(state, code),
    h("section", { class: "card" },
      h("h2", {}, "Aventurier·ères ", h("small", { lang: "en" }, "Players")),
      h("div", { class: "players" }, state.players.map((p) =>
        h("div", { class: `player${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
          h("div", { class: "player-head" },
            h("a", { class: "player-name", href: `/t/${code}/p/${p.id}` }, p.name),
            statusPills(p), jokersEl(p)),
          nowLine(state, p),
          reasonEl(p),
          track(state, p)))),
      legend()),
  );
}

// --- one player's own page ---------------------------------------------------------------------------

export function player(root, state, { code, player: id }) {
  if (unchanged(root, "player", state, code, id)) return;
  const p = byId(state)[id];
  if (!p) {
    fill(root, h("section", { class: "card" }, h("p", {}, "Joueur·euse inconnu·e à cette table."), h("a", { href: `/t/${code}` }, "← La table")));
    return;
  }
  const completed = p.completed.length;
  const rows = [];
  for (let n = 1; n <= ADVENTURES; n++) {
    const s = squareState(p, n);
    rows.push(h("li", { class: `adventure-row sq-row-${s}`, "data-square": n, "data-state": s },
      h("span", { class: `square sq-${s}`, "aria-hidden": "true" }, n),
      h("span", { class: "adventure-title" }, state.titles[n - 1],
        n === DEATH ? h("small", {}, " — vécue seulement à la mort") : null),
      h("span", { class: `state-label st-${s}` }, s === "none" ? "—" : SQUARE_WORDS[s][0],
        s !== "refused" && p.refused.includes(n) ? h("small", { class: "also-refused" }, " (refusée avant)") : null)));
  }
  fill(root,
    h("p", {}, h("a", { href: `/t/${code}`, id: "back-to-table", class: "button secondary" }, "← La table ", h("small", { lang: "en" }, "back to the table"))),
    h("section", { class: `card player-page${p.status !== "playing" ? " is-out" : ""}`, "data-player": p.id },
      h("div", { class: "player-head" }, h("h1", { class: "player-name" }, p.name), statusPills(p)),
      h("dl", { class: "facts" },
        h("div", {}, h("dt", {}, "Jokers"), h("dd", {}, jokersEl(p))),
        h("div", {}, h("dt", {}, "Score"), h("dd", { "data-score": p.score ?? "" }, p.score ?? "—")),
        h("div", {}, h("dt", {}, "Réalisées"), h("dd", { "data-completed": completed }, `${completed} / 28`)),
        h("div", {}, h("dt", {}, "Né·e en"), h("dd", {}, MONTHS[p.birth_month - 1]))),
      nowLine(state, p),
      reasonEl(p),
      p.title === "maitre" ? bilingual("existentiel.petit_chelem") : null),
    state.rendezvous && !state.over ? rendezvousCard(state, code) : null,
    h("section", { class: "card" },
      h("h2", {}, "Les 29 aventures ", h("small", { lang: "en" }, "The 29 adventures")),
      h("ol", { class: "adventure-list", id: "adventures" }, rows)),
  );
}
