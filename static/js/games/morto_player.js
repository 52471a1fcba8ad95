// Il Morto on a player's own phone: my lives in large, whether I deal or play first, the table's
// dead; when I die, a full-screen "you are dead: speak to no one" (with a vibration where the phone
// has one), and when a life given brings me back, a full-screen welcome. A player records nothing
// here (the table calls every outcome: RULES.md §0): the page is their own view of the table.
// Drawn from the engine's view alone, every word from the catalogue.
import { byId, fill, h, hearts, vibrate } from "../ui.js";
import { t } from "../i18n.js";
import { icon, view } from "./morto.js";

let wasAlive = null; // whether the player was alive in the state this page last drew
let moment = null; // the full-screen moment shown: "dead", "welcome", or none
let drawn = null;

// The full-screen moment, over the whole page, until the player closes it.
function drawMoment(name) {
  const box = document.getElementById("moment");
  if (!moment) {
    box.hidden = true;
    fill(box);
    return;
  }
  const dead = moment === "dead";
  fill(box, h("div", { class: `moment-card moment-${moment}`, id: `moment-${moment}`, role: "alertdialog",
    "aria-labelledby": "moment-title", "aria-describedby": "moment-text" },
  h("div", { class: "moment-icon", "aria-hidden": "true" }, dead ? "☠" : "♥"),
  h("h1", { id: "moment-title" }, t(dead ? "ui.player.dead_title" : "ui.player.welcome_title")),
  h("p", { class: "moment-name" }, name),
  h("p", { id: "moment-text" }, t(dead ? "ui.player.dead_text" : "ui.player.welcome_text")),
  h("button", { type: "button", class: "primary", id: "moment-ok", onclick: () => { moment = null; drawMoment(name); } },
    t(dead ? "ui.player.dead_ok" : "ui.player.welcome_ok"))));
  box.classList.toggle("welcome", !dead);
  box.hidden = false;
  box.querySelector("button").focus({ preventScroll: true });
}

function roleLine(state, me, players) {
  if (state.over || !me.alive) return null;
  const dealer = state.dealer === me.id;
  const first = state.plays_first === me.id;
  return h("p", { class: "my-role", "data-dealer": String(dealer), "data-first": String(first) },
    dealer ? h("strong", { class: "pill dealer" }, t("ui.player.you_deal"))
      : h("span", {}, t("ui.player.dealer_is", { name: players[state.dealer].name })),
    " ",
    first ? h("strong", { class: "pill first" }, t("ui.player.you_play_first"))
      : state.plays_first ? h("span", {}, t("ui.player.first_is", { name: players[state.plays_first].name })) : null);
}

export function seat(root, state, ctx) {
  const players = byId(state);
  const me = players[ctx.player];
  if (!state.over && wasAlive !== null && wasAlive !== me.alive) {
    moment = me.alive ? "welcome" : "dead";
    vibrate(me.alive ? [60, 40, 60] : [400, 100, 400]);
  } else if (wasAlive === null && !me.alive && !state.over) {
    moment = "dead";
  }
  if (state.over || (moment === "dead" && me.alive) || (moment === "welcome" && !me.alive)) moment = null;
  wasAlive = me.alive;
  drawMoment(me.name);
  const key = JSON.stringify([state, ctx.player]);
  if (key === drawn && root.firstChild) return;
  drawn = key;
  const table = h("div");
  view(table, state);
  fill(root,
    h("section", { class: `card my-seat player-page${me.alive ? "" : " is-dead"}`, "data-player": me.id, "data-alive": String(me.alive) },
      h("h1", { class: "player-name" }, me.name),
      !me.alive && !state.over ? h("p", { class: "my-dead", id: "my-dead" }, icon("☠"), " ", h("strong", {}, t("ui.player.dead_banner"))) : null,
      h("div", { class: "my-lives" },
        h("span", { class: "label" }, t("ui.player.lives")),
        h("strong", { class: "my-lives-n", "data-lives": me.lives }, me.lives),
        hearts(me.lives, state.lives)),
      roleLine(state, me, players)),
    [...table.childNodes]);
}
