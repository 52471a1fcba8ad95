// Il Morto: the referee's panel (lives, touches, speaking to the dead, the reveal, the swap helper)
// and the table view (who is dead, in large type; lives as hearts; dealer and who plays first).
import { byId, fill, h, hearts } from "../ui.js";

export const RANKS = [
  [1, "A", "Asso"], [2, "2", "2"], [3, "3", "3"], [4, "4", "4"], [5, "5", "5"],
  [6, "6", "6"], [7, "7", "7"], [8, "F", "Fante"], [9, "C", "Cavallo"], [10, "R", "Re"],
];

// What the referee has tapped but not yet sent; kept across redraws.
const draft = { cards: {}, speaker: null, faceUp: {}, swap: null, round: null };

function resetDraftOnNewRound(state) {
  const key = `${state.round}/${state.dealer}/${state.play_order.join(",")}`;
  if (draft.round !== key) {
    draft.round = key;
    draft.cards = {};
    draft.faceUp = {};
    draft.swap = null;
    draft.speaker = null;
  }
}

function statusLine(state, players) {
  if (state.over) return null;
  return h("div", { class: "status-line" },
    h("span", {}, "Tour ", h("strong", { "data-round": state.round }, state.round)),
    h("span", {}, "Dealer : ", h("strong", { "data-dealer": state.dealer }, players[state.dealer].name)),
    state.plays_first && h("span", {}, "Joue en premier : ", h("strong", { "data-first": state.plays_first }, players[state.plays_first].name)));
}

function winnerBanner(state, players) {
  if (!state.over) return null;
  const names = state.winners.map((id) => players[id].name).join(" et ");
  return h("section", { class: "card winner", "data-winners": state.winners.join(",") },
    state.winners.length > 1 ? `🏆 Victoire partagée : ${names}` : state.winners.length ? `🏆 ${names} gagne !` : "Personne ne gagne",
    h("div", { class: "muted", lang: "en" }, state.winners.length > 1
      ? `Shared win: ${state.winners.map((id) => players[id].name).join(" and ")}` : `${names} wins!`));
}

function pills(state, p) {
  return [
    p.dealer && !state.over ? h("span", { class: "pill dealer" }, "dealer") : null,
    p.id === state.plays_first ? h("span", { class: "pill first" }, "joue en 1er") : null,
    !p.alive ? h("span", { class: "pill dead" }, "mort·e") : null,
    p.alive && !p.dealt && !state.over ? h("span", { class: "pill" }, "sans carte ce tour") : null,
  ];
}

// --- referee ---------------------------------------------------------------------------------

export function referee(root, state, ctx) {
  const players = byId(state);
  resetDraftOnNewRound(state);
  const dead = state.players.filter((p) => !p.alive);
  // In the order a round happens: touches before the knock, the swaps, then the reveal.
  fill(root,
    winnerBanner(state, players),
    state.over ? h("p", { class: "hint center" }, "Partie terminée. « Annuler » rejoue le dernier tour si la table le préfère.") : null,
    state.over ? null : h("section", { class: "card" }, statusLine(state, players),
      dead.length ? h("p", { class: "muted" }, "☠ Mort·es : ", h("strong", {}, dead.map((p) => p.name).join(", "))) : null),
    playersCard(state, players, ctx, dead),
    state.over ? null : swapHelper(state, players, ctx),
    state.over ? null : revealSheet(state, players, ctx),
  );
}

function revealSheet(state, players, ctx) {
  const order = state.play_order;
  const chosen = order.filter((id) => draft.cards[id] !== undefined);
  const complete = chosen.length === order.length;
  const lowest = complete ? Math.min(...order.map((id) => draft.cards[id])) : null;
  const rows = order.map((id) => {
    const p = players[id];
    return h("div", { class: `reveal-row${complete && draft.cards[id] === lowest ? " loses" : ""}`, "data-reveal": id },
      h("span", { class: "player-name" }, p.name), p.dealer ? h("span", { class: "pill dealer" }, "dealer") : null,
      h("div", { class: "ranks", role: "group", "aria-label": `Carte de ${p.name}` },
        RANKS.map(([rank, label, name]) => h("button", {
          type: "button", "data-rank": rank, "aria-label": `${name} pour ${p.name}`,
          "aria-pressed": draft.cards[id] === rank ? "true" : "false",
          onclick: () => { draft.cards[id] = rank; ctx.render(); },
        }, label))));
  });
  return h("section", { class: "card sheet" },
    h("h2", {}, "Révélation ", h("small", {}, `Reveal — ${chosen.length}/${order.length}`)),
    h("p", { class: "hint" }, "Une carte par joueur·euse servi·e, puis validez : la plus petite perd une vie."),
    rows,
    h("div", { class: "row", style: "margin-top:.8rem" },
      h("button", { type: "button", class: "primary", id: "confirm-reveal", disabled: !complete, onclick: async () => {
        const cards = Object.fromEntries(order.map((id) => [id, draft.cards[id]]));
        await ctx.send("reveal", { cards }); // the next round clears the draft; a refusal keeps it to correct
      } }, complete ? confirmLabel(order.filter((id) => draft.cards[id] === lowest).map((id) => players[id].name)) : "Valider la révélation"),
      chosen.length ? h("button", { type: "button", class: "secondary", onclick: () => { draft.cards = {}; ctx.render(); } }, "Effacer") : null));
}

function confirmLabel(losers) {
  return `Valider — ${losers.join(", ")} ${losers.length > 1 ? "perdent" : "perd"} une vie`;
}

function playersCard(state, players, ctx, dead) {
  return h("section", { class: "card" },
    h("h2", {}, "Joueur·euses ", h("small", {}, "Players")),
    h("div", { class: "players" }, state.players.map((p) => {
      const canAct = !state.over && p.alive && !p.dealer;
      const speaking = draft.speaker === p.id;
      return h("div", { class: `player${p.alive ? "" : " is-dead"}`, "data-player": p.id },
        h("div", { class: "player-head" }, h("span", { class: "player-name" }, p.name), pills(state, p), hearts(p.lives, state.lives)),
        canAct ? h("div", { class: "actions" },
          p.dealt ? h("button", { type: "button", "data-action": "touched_early", onclick: () => ctx.send("touched_early", { player: p.id }) },
            "✋ Touché avant le toc") : null,
          dead.length ? h("button", { type: "button", "data-action": "spoke", "aria-pressed": speaking ? "true" : "false",
            onclick: () => { draft.speaker = speaking ? null : p.id; ctx.render(); } }, "🗣 A parlé à un·e mort·e") : null) : null,
        speaking ? h("div", { class: "picker", "data-picker": p.id },
          h("span", { class: "hint" }, `${p.name} a parlé à… (donne une vie)`),
          dead.map((d) => h("button", { type: "button", "data-dead": d.id, onclick: async () => {
            draft.speaker = null;
            await ctx.send("spoke_to_dead", { living: p.id, dead: d.id });
          } }, `☠ ${d.name}`)),
          h("button", { type: "button", class: "secondary", onclick: () => { draft.speaker = null; ctx.render(); } }, "Annuler")) : null);
    })));
}

function swapHelper(state, players, ctx) {
  const answers = Object.fromEntries((draft.swap || []).map((a) => [a.player, a]));
  const ask = async () => {
    try {
      draft.swap = (await ctx.check("swap", { face_up: draft.faceUp })).turns;
    } catch (err) {
      draft.swap = []; // not null: a failed check must not be asked again on every redraw
    }
    ctx.render();
  };
  if (draft.swap === null) queueMicrotask(ask);
  return h("details", { class: "card", id: "swap-helper", open: draft.swapOpen || null,
    ontoggle: (e) => { draft.swapOpen = e.target.open; } },
    h("summary", {}, "Aide à l'échange ", h("small", {}, "Swap helper")),
    h("p", { class: "hint" }, "Indiquez les cartes posées face visible ; chacun·e voit ce qu'il·elle peut faire à son tour."),
    state.play_order.map((id) => {
      const answer = answers[id];
      return h("div", { class: "reveal-row", "data-swap": id },
        h("div", { class: "row" }, h("span", { class: "player-name" }, players[id].name),
          h("span", { class: "segmented", role: "group" },
            [[null, "—"], [9, "Cavallo"], [10, "Re"]].map(([rank, label]) => h("button", {
              type: "button", "data-face-up": rank ?? "none",
              "aria-pressed": (draft.faceUp[id] ?? null) === rank ? "true" : "false",
              onclick: () => { if (rank) draft.faceUp[id] = rank; else delete draft.faceUp[id]; ask(); },
            }, label)))),
        answer ? h("div", { class: `swap-answer${answer.may_swap ? " yes" : ""}` }, answer.message) : null);
    }));
}

// --- table view --------------------------------------------------------------------------------

export function view(root, state) {
  const players = byId(state);
  const dead = state.players.filter((p) => !p.alive);
  fill(root,
    winnerBanner(state, players),
    dead.length && !state.over ? h("section", { class: "dead-banner", id: "dead" },
      h("h2", {}, "☠ Mort·es — ne leur parlez pas !"),
      h("div", { class: "dead-names" }, dead.map((p) => h("span", { "data-dead": p.id }, p.name))),
      h("div", { class: "muted", lang: "en" }, "The dead — do not speak to them!")) : null,
    !state.over ? h("section", { class: "card" }, statusLine(state, players)) : null,
    h("section", { class: "card" }, h("div", { class: "players" }, state.players.map((p) =>
      h("div", { class: `player${p.alive ? "" : " is-dead"}`, "data-player": p.id },
        h("div", { class: "player-head" }, h("span", { class: "player-name" }, p.name), pills(state, p), hearts(p.lives, state.lives)))))),
  );
}
