// Le Grand Jeu de la Vie, a round played through card by card (option mode "tracker"): its table view
// (the turn bar on top; the piles; per player hand, urethra, uterus, formol, nursery) and the pieces
// its referee's page (gjdlv_play_referee.js) shares. Loaded by such a table only (gjdlv.js `view`).
import { byId, fill, h } from "../ui.js";
import { t } from "../i18n.js";
import { outcomeCard } from "../envelope.js";
import {
  chartCard, colorOf, face, gapTag, icon, noteCard, roundFact, roundsCard, said, sheetsCard, standingsCard,
} from "./gjdlv_shared.js";

// The phase's short name, for the pill (`ui.gjdlv.phase.<phase>`); the engine's step sentence says the rest.
const PHASES = new Set(["deal", "birth", "ovulation", "action", "ejaculation", "ended"]);
export const seatOf = (state, pid) => state.play.seats.find((seat) => seat.player === pid);

export function pair(gf, gm) {
  return h("span", { class: "gj-pair" }, face(gf), h("span", { class: "gj-x", "aria-hidden": "true" }, "×"), face(gm));
}

// What the engine says of an embryo: its EG, CC, or its royal name.
function embryoTag(embryo) {
  if (embryo.royal) return t(`gjdlv.royal.${embryo.royal}`);
  return gapTag(embryo);
}

// --- the turn: always in view -------------------------------------------------------------------------

export function turnBar(state, players) {
  const { play: round } = state;
  const announcer = round.last_lap ? players[round.last_lap] : null;
  return h("section", { class: "gj-turn", id: "turn", "data-active": round.active, "data-phase": round.phase,
    style: `--pc:${colorOf(state, round.active)}`, "aria-live": "polite" },
    h("div", { class: "gj-turn-head" },
      h("span", { class: "gj-dot", "aria-hidden": "true" }),
      h("strong", { class: "player-name gj-turn-name", "data-turn": round.active }, players[round.active].name),
      h("span", { class: "pill gj-phase" }, PHASES.has(round.phase) ? t(`ui.gjdlv.phase.${round.phase}`) : round.phase),
      round.gf ? h("span", { class: "gj-revealed", "data-revealed": round.gf, title: t("ui.gjdlv.revealed_gf") }, face(round.gf)) : null),
    said("p", { class: "gj-turn-step", "data-step": round.step.code }, round.step.code, round.step.params, players),
    h("div", { class: "gj-turn-foot" },
      roundFact(state),
      announcer ? h("span", { class: "gj-lastlap", "data-last-lap": announcer.id },
        icon("⏳"), " ", h("span", {}, t("ui.gjdlv.last_lap", { name: announcer.name }))) : null));
}

// --- the table: piles and seats -----------------------------------------------------------------------

function pile(name, count) {
  return h("div", { class: "gj-pile", "data-pile": name },
    h("strong", { class: "gj-pile-n", "data-count": count }, count),
    h("span", {}, t(`ui.gjdlv.pile.${name}`), h("small", { class: "gj-block" }, t(`ui.gjdlv.pile.${name}.what`))));
}

export function pilesCard(state) {
  const { play: round } = state;
  const cards = (name, list) => (list.length
    ? h("p", { class: "gj-pile-cards", "data-cards": name }, h("small", {}, t(`ui.gjdlv.pile.${name}`)), list.map(face)) : null);
  return h("section", { class: "card gj-piles", id: "piles" },
    h("div", { class: "gj-pile-row" },
      pile("ovulation", round.ovulation),
      pile("mouchoir", round.mouchoir.length),
      pile("diva_cup", round.diva_cup.length)),
    cards("mouchoir", round.mouchoir),
    cards("diva_cup", round.diva_cup));
}

// One player's seat, drawn inside their sheet (above the nursery): hand, urethra, uterus, formol.
export function seatPart(state) {
  return (p) => {
    const seat = seatOf(state, p.id);
    if (!seat) return null;
    const embryo = seat.uterus;
    const active = state.play.active === p.id && state.play.phase !== "ended";
    return h("div", { class: `gj-seat${active ? " active" : ""}`, "data-seat": p.id },
      h("div", { class: "gj-seat-line" },
        h("span", { class: "gj-hand", "data-hand": seat.hand, title: t("ui.gjdlv.hand_label", { count: seat.hand }) },
          h("span", { class: "gj-back small", "aria-hidden": "true" }), h("strong", {}, seat.hand), " ", h("span", {}, t("ui.gjdlv.in_hand"))),
        seat.held ? h("span", { class: "gj-held", "data-held": "true", title: t("ui.gjdlv.held_label") },
          h("span", { class: "gj-back", "aria-hidden": "true" }), h("span", {}, t("ui.gjdlv.urethra"))) : null,
        active ? h("span", { class: "pill gj-playing" }, t("ui.gjdlv.playing")) : null),
      embryo ? h("div", { class: `gj-embryo${embryo.comes_to_term ? "" : " doomed"}`, "data-embryo": `${embryo.gf}-${embryo.gm}`,
        "data-term": String(embryo.comes_to_term) },
        h("span", { class: "gj-label" }, t("ui.gjdlv.uterus")), pair(embryo.gf, embryo.gm),
        h("span", { class: `gj-tag${embryo.cc ? " cc" : ""}` }, embryoTag(embryo)),
        embryo.comes_to_term ? null : h("span", { class: "gj-doomed", "data-doomed": "true" }, t("ui.gjdlv.doomed")))
        : h("div", { class: "gj-embryo empty" }, h("span", { class: "gj-label" }, t("ui.gjdlv.uterus")), h("span", { class: "muted" }, t("ui.gjdlv.empty"))),
      seat.formol.length ? h("div", { class: "gj-formol-cards", "data-formol-cards": seat.formol.length },
        h("span", { class: "gj-label" }, t("ui.gjdlv.formol")), seat.formol.map(face)) : null);
  };
}

// The turn bar sits just under the page's own bar, whatever its height on this phone (it grows
// when the sync status wraps, without the table changing).
let pinned = false;
export function pinUnderBar() {
  const bar = document.querySelector(".bar");
  if (pinned || !bar) return;
  pinned = true;
  const set = () => document.documentElement.style.setProperty("--gj-bar", `${bar.offsetHeight}px`);
  set();
  if (window.ResizeObserver) new ResizeObserver(set).observe(bar);
}

export function trackerView(root, state) {
  const players = byId(state);
  pinUnderBar();
  fill(root,
    outcomeCard(state),
    turnBar(state, players),
    noteCard(state),
    pilesCard(state),
    sheetsCard(state, true, seatPart(state)),
    standingsCard(state),
    roundsCard(state),
    state.rounds_closed ? chartCard(state) : null);
}
