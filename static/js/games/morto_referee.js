// Il Morto's referee panel (lives, touches, speaking to the dead, the reveal, the swap helper), on the
// pieces of the table view (morto.js). Loaded by the referee page only: a table view never downloads it.
// Buttons from state.actions, every word from the catalogue in the page's one language.
import { byId, fill, h } from "../ui.js";
import { isolate, t } from "../i18n.js";
import { actionsOf, checkAnswers, record } from "../actions.js";
import { fact, icon, playerHead, statusLine, winnerBanner } from "./morto.js";

// What the referee has tapped but not yet sent; kept across redraws, cleared when the round changes.
const draft = { round: null, cards: {}, faceUp: {}, speaker: null, swapOpen: false };

const answerTo = checkAnswers();

function resetDraftOnNewRound(state) {
  const key = `${state.round}/${state.dealer}/${state.play_order.join(",")}`;
  if (draft.round !== key) {
    Object.assign(draft, { round: key, cards: {}, faceUp: {}, speaker: null });
  }
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

export function referee(root, state, ctx) {
  const players = byId(state);
  resetDraftOnNewRound(state);
  const dead = state.players.filter((p) => !p.alive);
  const reveal = actionsOf(state, "reveal")[0];
  // In the order a round happens: touches before the knock, the swaps, then the reveal.
  fill(root,
    winnerBanner(state),
    state.over ? h("p", { class: "hint center" }, t("ui.morto.over_hint")) : null,
    state.over ? null : h("section", { class: "card" }, statusLine(state, players),
      dead.length ? h("p", { class: "muted" }, fact("ui.morto.dead_label", h("strong", {}, dead.map((p) => isolate(p.name)).join(", ")))) : null),
    playersCard(state, players, ctx),
    state.over ? null : swapHelper(state, players, ctx),
    reveal ? revealSheet(state, players, ctx, reveal) : null,
  );
}

function playersCard(state, players, ctx) {
  return h("section", { class: "card" },
    h("h2", {}, t("ui.morto.players")),
    h("div", { class: "players" }, state.players.map((p) => {
      const touch = actionsOf(state, "touched_early").find((action) => action.player === p.id);
      const speeches = actionsOf(state, "spoke_to_dead").filter((action) => action.living === p.id);
      const speaking = draft.speaker === p.id && speeches.length > 0;
      return h("div", { class: `player${p.alive ? "" : " is-dead"}`, "data-player": p.id },
        playerHead(state, p),
        touch || speeches.length ? h("div", { class: "actions" },
          touch ? h("button", { type: "button", "data-action": "touched_early", onclick: () => record(ctx, touch) }, t("ui.morto.touched")) : null,
          speeches.length ? h("button", { type: "button", "data-action": "spoke", "aria-pressed": speaking ? "true" : "false",
            onclick: () => { draft.speaker = speaking ? null : p.id; ctx.render(); } }, t("ui.morto.spoke")) : null) : null,
        speaking ? speakPicker(p, speeches, players, ctx) : null);
    })));
}

// The dead this living player may have spoken to, as the engine lists them.
function speakPicker(p, speeches, players, ctx) {
  return h("div", { class: "picker", "data-picker": p.id },
    h("span", { class: "hint" }, t("morto.spoke.picker", { name: p.name })),
    speeches.map((action) => h("button", { type: "button", "data-dead": action.dead, onclick: async () => {
      draft.speaker = null;
      await record(ctx, action);
    } }, icon("☠"), " ", players[action.dead].name)),
    h("button", { type: "button", class: "secondary", onclick: () => { draft.speaker = null; ctx.render(); } }, t("ui.morto.cancel")));
}

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
  return h("section", { class: "card sheet" },
    h("h2", {}, h("span", {}, t("ui.morto.reveal")), " ",
      h("small", { "data-tapped": tapped, "aria-label": t("ui.morto.tapped", { tapped, count: order.length }) }, `${tapped}/${order.length}`)),
    h("div", { class: "hint" }, t("morto.reveal.hint")),
    rows,
    answer?.complete && answer.refusal ? h("div", { class: "error" }, t(answer.refusal.code, answer.refusal.params)) : null,
    h("div", { class: "row", style: "margin-top:.8rem" },
      h("button", { type: "button", class: "primary", id: "confirm-reveal", disabled: !ready,
        // The next round clears the draft; a refusal keeps it, to correct one card.
        onclick: () => record(ctx, action, { cards: draft.cards }) }, confirmLabel(players, losers)),
      tapped ? h("button", { type: "button", class: "secondary", onclick: () => { draft.cards = {}; ctx.render(); } }, t("ui.morto.clear")) : null));
}

function rankButtons(state, p, ctx) {
  return h("div", { class: "ranks", role: "group", "aria-label": t("ui.morto.card_of", { name: p.name }) },
    state.ranks.map(({ rank, name }) => h("button", {
      type: "button", "data-rank": rank, "aria-label": t("ui.morto.rank_for", { rank: name, name: p.name }),
      "aria-pressed": draft.cards[p.id] === rank ? "true" : "false",
      onclick: () => { draft.cards[p.id] = rank; ctx.render(); },
    }, rankFace(name))));
}

function confirmLabel(players, losers) {
  if (!losers.length) return t("ui.morto.confirm_reveal");
  const code = losers.length > 1 ? "morto.reveal.several_lose" : "morto.reveal.one_loses";
  return t("ui.morto.confirm_losers", { losers: t(code, { names: names(players, losers) }) });
}

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
        if (rank) draft.faceUp[p.id] = rank;
        else delete draft.faceUp[p.id];
        ctx.render();
      },
    }, label)));
}
