// Home: join a table by its code, and the tables this phone referees or follows.
import { api } from "./api.js";
import { h } from "./ui.js";
import { list } from "./tables.js";

const GAMES = { morto: "Il Morto", existentiel: "Le jeu existentiel", gjdlv: "Le Grand Jeu de la Vie" };

// Checks the code before leaving the page, so a mistyped code is said here, in both languages.
document.getElementById("join").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("join-error");
  const code = document.getElementById("join-code").value.trim().toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (!code) return;
  try {
    const table = await api.getTable(code);
    location.href = `/t/${table.code}`;
  } catch (err) {
    error.replaceChildren(h("span", {}, err.messages.fr), h("br"), h("small", { lang: "en" }, err.messages.en));
    error.hidden = false;
  }
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
