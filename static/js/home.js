// Home: new tables, "My tables" (the tables this phone referees or follows, each with its last
// line as seen on this phone), joining a table by its code, and the first-run walkthrough.
import { api } from "./api.js";
import { age, displayCode, fill, h } from "./ui.js";
import { forget, list } from "./tables.js";
import { loadCatalogue, t } from "./i18n.js";
import { seen, walkthrough } from "./walkthrough.js";

const openWalkthrough = walkthrough(document.getElementById("walkthrough"));
document.getElementById("walkthrough-open").addEventListener("click", openWalkthrough);
if (!seen()) openWalkthrough();

await loadCatalogue(list().map((table) => table.game).filter(Boolean)); // every listed game's sentences

// Checks the code before leaving the page, so a mistyped code is said here.
document.getElementById("join").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("join-error");
  const code = document.getElementById("join-code").value.trim().toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (!code) return;
  try {
    const table = await api.getTable(code);
    location.href = `/t/${table.code}`;
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
  }
});


function row(table) {
  const referee = Boolean(table.secret);
  const seat = !referee && table.seat ? table.seat : null; // a player's own phone: their page
  const code = displayCode(table.code);
  const results = table.over
    ? h("a", { class: "button secondary my-results", href: `/t/${table.code}/results`,
      "aria-label": t("ui.home.results_label", { code }) }, t("ui.ending.results"))
    : null;
  const forgetButton = h("button", { type: "button", class: "secondary my-forget", "aria-label": t("ui.home.forget", { code }),
    onclick: () => {
      // The secret lives only on this phone: forgetting a refereed table gives up refereeing it.
      if (referee && !confirm(t("ui.home.forget_referee", { code }))) return;
      forget(table.code);
      draw();
    } }, "✕");
  return h("li", { class: `my-table${table.over ? " over" : ""}`, "data-code": table.code,
    "data-role": referee ? "referee" : seat ? "player" : "follower" },
  h("a", { class: "my-open", href: referee ? `/r/${table.code}` : seat ? `/t/${table.code}/p/${seat.player}` : `/t/${table.code}` },
    h("span", { class: "my-head" },
      h("strong", { class: "my-game" }, t(`ui.game.${table.game}`)),
      h("span", { class: "code" }, code),
      h("span", { class: `pill${referee ? " dealer" : ""}` },
        referee ? t("ui.home.role.referee") : seat ? t("ui.player.role", { name: seat.name }) : t("ui.home.role.follower"))),
    h("span", { class: "my-summary" }, table.summary ? t(table.summary.code, table.summary.params || {}) : t("ui.home.not_seen")),
    table.at ? h("time", { class: "my-age muted", datetime: table.at }, age(table.at)) : null),
  h("span", { class: "my-tools" }, results, forgetButton));
}

function draw() {
  const mine = list().filter((table) => table.code && table.game);
  document.getElementById("my-tables-card").hidden = !mine.length;
  fill(document.getElementById("my-tables"), mine.map(row));
}

draw();
