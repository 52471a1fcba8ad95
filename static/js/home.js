// Home: join a table by its code, and the tables this phone referees or follows.
import { h } from "./ui.js";
import { list } from "./tables.js";

const GAMES = { morto: "Il Morto", existentiel: "Le jeu existentiel", gjdlv: "Le Grand Jeu de la Vie" };

document.getElementById("join").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = document.getElementById("join-code").value.trim().toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (code) location.href = `/join/${code}`;
});

const mine = list();
if (mine.length) {
  document.getElementById("my-tables-card").hidden = false;
  document.getElementById("my-tables").replaceChildren(
    ...mine.map((t) => h("li", {},
      h("a", { href: t.secret ? `/r/${t.code}` : `/t/${t.code}` },
        h("span", {}, h("strong", {}, GAMES[t.game] || t.game), " ", h("span", { class: "code" }, `${t.code.slice(0, 4)}-${t.code.slice(4)}`)),
        h("span", { class: "pill" }, t.secret ? "arbitre" : "suivie")))));
}
