// Il Morto's referee panel, on the pieces of the table view (morto.js). Loaded by the referee page only:
// a table view never downloads it. Buttons from state.actions, every word from the catalogue in the
// page's one language.
//
// The round comes first, above the fold at 12 players on a 390×844 phone: who deals and plays first,
// then every seat as a tile (lives, dealer, who is dead) that is also the reveal: the referee taps who
// holds the lowest card (several for a tie) and confirms, two taps a round. The same tiles answer the
// "Infraction" control's questions (who did it, and for a word to the dead, to whom), so the seats
// never move. The full reveal with every card is one tap away (its sheet then drawn below the round
// card, open from round to round until the table goes back), the swap helper folded below.
import { byId, fill, h, hearts } from "../ui.js";
import { isolate, t } from "../i18n.js";
import { actionsOf, checkAnswers, record } from "../actions.js";
import { notesCard, outcomeCard } from "../envelope.js";
import { fact, icon, pills, statusLine } from "./morto.js";

// What the referee has tapped but not yet sent; kept across redraws. `lowest`, `cards`, `faceUp` and
// `infraction` belong to the round and are cleared when it changes; `full` (the reveal with every
// card) is the table's choice and stays until changed back.
// `infraction`: null, {} (who?), {player} (what did they do?) or {player, spoke: true} (to whom?).
const draft = { round: null, lowest: [], cards: {}, faceUp: {}, infraction: null, full: false, swapOpen: false };

const answerTo = checkAnswers();

function resetDraftOnNewRound(state) {
  const key = `${state.round}/${state.dealer}/${state.play_order.join(",")}`;
  if (draft.round !== key) {
    Object.assign(draft, { round: key, lowest: [], cards: {}, faceUp: {}, infraction: null });
  }
}

function redraw(ctx, change) {
  Object.assign(draft, change);
  ctx.render();
}

function rankName(state, rank) {
  return state.ranks.find((r) => r.rank === rank).name;
}

// A rank's face on its button: the number, or the initial of its (Italian) name (A, F, C, R).
function rankFace(name) {
  return /^\d+$/.test(name) ? name : name[0];
}

function names(players, ids) {
  return ids.map((id) => isolate(players[id].name)).join(", ");
}

// "Valider — Bruno perd une vie": who the tapped reveal costs a life, as the engine's sentences say it.
function confirmLabel(players, losers) {
  const code = losers.length > 1 ? "morto.reveal.several_lose" : "morto.reveal.one_loses";
  return t("ui.morto.confirm_losers", { losers: t(code, { names: names(players, losers) }) });
}

export function referee(root, state, ctx) {
  const players = byId(state);
  resetDraftOnNewRound(state);
  const reveal = actionsOf(state, "reveal")[0];
  fill(root,
    outcomeCard(state),
    state.over ? h("p", { class: "hint center" }, t("ui.morto.over_hint")) : null,
    notesCard(state),
    roundCard(state, players, ctx, reveal),
    reveal && draft.full ? revealSheet(state, players, ctx, reveal) : null,
    state.over ? null : swapHelper(state, players, ctx),
  );
}

// --- the round: the seats, and what a tap on a seat means now ------------------------------------

// What the seats ask now: a title, which seats may be tapped and what a tap does, and the controls
// under the seats. The infraction's steps first (the referee opened it), else the quick reveal.
function question(state, players, ctx, reveal) {
  if (draft.infraction) return infractionStep(state, players, ctx);
  if (!reveal || draft.full) {
    return { title: t("ui.morto.players"), controls: reveal ? roundTools(state, ctx) : null };
  }
  return lowestStep(state, players, ctx, reveal);
}

function roundCard(state, players, ctx, reveal) {
  const ask = question(state, players, ctx, reveal);
  const dead = state.players.filter((p) => !p.alive);
  // Columns by the table's size: every seat on one screen, as large as that leaves them.
  const columns = state.players.length <= 6 ? 2 : state.players.length <= 12 ? 3 : 4;
  return h("section", { class: "card round", id: "round" },
    statusLine(state, players),
    dead.length && !state.over ? h("p", { class: "dead-line" },
      fact("ui.morto.dead_label", h("strong", {}, dead.map((p) => isolate(p.name)).join(", ")))) : null,
    h("h2", { id: "seats-title" }, ask.title),
    h("div", { id: "seats", class: `seats cols-${columns}${draft.infraction ? " foul" : ""}`, role: "group",
      "aria-labelledby": "seats-title" },
      state.players.map((p) => seat(state, p, ask.pick?.(p)))),
    h("div", { class: "round-controls" }, ask.controls));
}

// A seat: name, lives and roles. A button when the question lets it be tapped (`pick`: {onclick}, and
// `pressed` where the seat is chosen or not: the quick reveal's toggles, the infraction's chosen player).
function seat(state, p, pick) {
  const attributes = { class: `seat${p.alive ? "" : " is-dead"}`, "data-player": p.id, "data-seat": "" };
  const face = [h("span", { class: "player-name" }, p.alive ? null : icon("☠ "), p.name),
    hearts(p.lives, state.lives), h("span", { class: "seat-pills" }, pills(state, p))];
  if (!pick) return h("div", attributes, face);
  const pressed = pick.pressed === undefined ? null : String(pick.pressed);
  return h("button", { ...attributes, type: "button", "aria-pressed": pressed, onclick: pick.onclick }, face);
}

// The quick reveal: the seats holding a card (the engine's play_order) toggle; confirm names the losers.
function lowestStep(state, players, ctx, reveal) {
  const named = state.players.filter((p) => draft.lowest.includes(p.id)).map((p) => p.id);  // in seat order
  return {
    title: [t("ui.morto.lowest_title"), " ", h("small", {}, t("ui.morto.lowest_tie"))],
    pick: (p) => state.play_order.includes(p.id) ? {
      pressed: named.includes(p.id),
      onclick: () => redraw(ctx, { lowest: named.includes(p.id) ? named.filter((id) => id !== p.id) : [...named, p.id] }),
    } : null,
    controls: [
      // The round changes once it is recorded, which clears the taps; a refusal keeps them to correct.
      h("button", { type: "button", class: "primary", id: "confirm-lowest", disabled: !named.length,
        onclick: () => record(ctx, reveal, { lowest: named }) },
      named.length ? confirmLabel(players, named) : t("ui.morto.pick_lowest")),
      roundTools(state, ctx),
    ],
  };
}

// Under the seats: the infraction control, and the way to the full reveal and back.
function roundTools(state, ctx) {
  const fouls = offenders(state);
  return h("div", { class: "round-tools" },
    fouls.length ? h("button", { type: "button", id: "infraction", onclick: () => redraw(ctx, { infraction: {} }) },
      icon("⚠"), " ", t("ui.morto.infraction")) : null,
    draft.full
      ? h("button", { type: "button", id: "quick-reveal", onclick: () => redraw(ctx, { full: false }) }, t("ui.morto.quick_reveal"))
      : h("button", { type: "button", id: "full-reveal", onclick: () => redraw(ctx, { full: true }) }, t("ui.morto.full_reveal")));
}

// --- the infraction: who, what, and for a word to the dead, to whom -------------------------------

// Who the engine lists for a touch before the knock or a word to the dead.
function offenders(state) {
  return [...new Set([...actionsOf(state, "touched_early").map((a) => a.player),
    ...actionsOf(state, "spoke_to_dead").map((a) => a.living)])];
}

function infractionStep(state, players, ctx) {
  const { player, spoke } = draft.infraction;
  const cancel = h("button", { type: "button", class: "secondary", id: "infraction-cancel",
    onclick: () => redraw(ctx, { infraction: null }) }, t("ui.morto.cancel"));
  // Sent once the panel is closed and drawn, so that the next tap already meets the seats as they are.
  const send = (action) => { redraw(ctx, { infraction: null }); record(ctx, action); };
  if (!player) {
    const fouls = offenders(state);
    return {
      title: t("ui.morto.infraction_who"),
      pick: (p) => fouls.includes(p.id) ? { onclick: () => redraw(ctx, { infraction: { player: p.id } }) } : null,
      controls: cancel,
    };
  }
  const speeches = actionsOf(state, "spoke_to_dead").filter((a) => a.living === player);
  const back = { pressed: true, onclick: () => redraw(ctx, { infraction: {} }) };  // tapped again: someone else
  if (spoke) {
    return {
      title: t("ui.morto.infraction_whom", { name: players[player].name }),
      pick: (p) => {
        const speech = speeches.find((a) => a.dead === p.id);
        return p.id === player ? back : speech ? { onclick: () => send(speech) } : null;
      },
      controls: cancel,
    };
  }
  const touch = actionsOf(state, "touched_early", player)[0];
  return {
    title: t("ui.morto.infraction_what", { name: players[player].name }),
    pick: (p) => p.id === player ? back : null,
    controls: h("div", { class: "offence", id: "offence" },
      touch ? h("button", { type: "button", "data-action": "touched_early", onclick: () => send(touch) }, t("ui.morto.touched")) : null,
      speeches.length ? h("button", { type: "button", "data-action": "spoke",
        onclick: () => redraw(ctx, { infraction: { player, spoke: true } }) }, t("ui.morto.spoke")) : null,
      cancel),
  };
}

// --- the full reveal: every card, for a table that wants the app to check them -------------------------

function revealSheet(state, players, ctx, action) {
  const order = state.play_order;
  const answer = answerTo(ctx, state, "reveal", { cards: draft.cards });
  const losers = answer?.ok ? order.filter((id) => answer.losers.includes(id)) : [];
  const tapped = order.filter((id) => draft.cards[id] !== undefined).length;
  const rows = order.map((id) => h("div", { class: `reveal-row${losers.includes(id) ? " loses" : ""}`, "data-reveal": id },
    h("span", { class: "player-name" }, players[id].name), players[id].dealer ? h("span", { class: "pill dealer" }, t("ui.morto.pill.dealer")) : null,
    losers.includes(id) ? h("span", { class: "loses-life" }, t("ui.morto.loses_life")) : null,
    rankButtons(state, players[id], ctx)));
  // A failed check (no engine, no network) leaves the judging to the server.
  const ready = answer === null || Boolean(answer?.complete);
  return h("section", { class: "card sheet", id: "full-sheet" },
    h("h2", {}, h("span", {}, t("ui.morto.reveal")), " ",
      h("small", { "data-tapped": tapped, "aria-label": t("ui.morto.tapped", { count: tapped, total: order.length }) }, `${tapped}/${order.length}`)),
    h("div", { class: "hint" }, t("morto.reveal.hint")),
    rows,
    answer?.complete && answer.refusal ? h("div", { class: "error" }, t(answer.refusal.code, answer.refusal.params)) : null,
    h("div", { class: "row sheet-controls" },
      h("button", { type: "button", class: "primary", id: "confirm-reveal", disabled: !ready,
        // The next round clears the draft; a refusal keeps it, to correct one card.
        onclick: () => record(ctx, action, { cards: draft.cards }) },
      losers.length ? confirmLabel(players, losers) : t("ui.morto.confirm_reveal")),
      tapped ? h("button", { type: "button", class: "secondary", onclick: () => redraw(ctx, { cards: {} }) }, t("ui.morto.clear")) : null));
}

function rankButtons(state, p, ctx) {
  return h("div", { class: "ranks", role: "group", "aria-label": t("ui.morto.card_of", { name: p.name }) },
    state.ranks.map(({ rank, name }) => h("button", {
      type: "button", "data-rank": rank, "aria-label": t("ui.morto.rank_for", { rank: name, name: p.name }),
      "aria-pressed": draft.cards[p.id] === rank ? "true" : "false",
      onclick: () => redraw(ctx, { cards: { ...draft.cards, [p.id]: rank } }),
    }, rankFace(name))));
}

// --- the swap helper (a check of the engine; changes nothing), folded until opened ----------------------

function swapHelper(state, players, ctx) {
  const answer = answerTo(ctx, state, "swap", { face_up: draft.faceUp });
  const turns = Object.fromEntries((answer?.turns || []).map((turn) => [turn.player, turn]));
  return h("details", { class: "card", id: "swap-helper", open: draft.swapOpen || null,
    ontoggle: (e) => { draft.swapOpen = e.target.open; } },
    h("summary", {}, t("ui.morto.swap_helper")),
    h("p", { class: "hint" }, t("ui.morto.swap_hint")),
    state.play_order.map((id) => h("div", { class: "reveal-row", "data-swap": id },
      h("div", { class: "row" }, h("span", { class: "player-name" }, players[id].name), faceUpButtons(state, players[id], ctx)),
      turns[id] ? h("div", { class: `swap-answer${turns[id].may_swap ? " yes" : ""}` }, t(turns[id].code, turns[id])) : null)));
}

function faceUpButtons(state, p, ctx) {
  const choices = [[null, "—"], ...state.face_up_ranks.map((rank) => [rank, rankName(state, rank)])];
  return h("span", { class: "segmented", role: "group", "aria-label": t("ui.morto.face_up_of", { name: p.name }) },
    choices.map(([rank, label]) => h("button", {
      type: "button", "data-face-up": rank ?? "none",
      "aria-label": rank ? null : t("ui.morto.face_up_none"),
      "aria-pressed": (draft.faceUp[p.id] ?? null) === rank ? "true" : "false",
      onclick: () => {
        const faceUp = { ...draft.faceUp };
        if (rank) faceUp[p.id] = rank;
        else delete faceUp[p.id];
        redraw(ctx, { faceUp });
      },
    }, label)));
}
