// The new-table form: names in seating order, the game's options, then off to the referee page.
import { api } from "./api.js";
import { h } from "./ui.js";
import { remember } from "./tables.js";
import { loadCatalogue, t } from "./i18n.js";

const form = document.getElementById("new-table");
const game = form.dataset.game;
const names = document.getElementById("names");
const dealer = document.getElementById("dealer");
const withMonth = game === "existentiel";

await loadCatalogue();

function addName(value = "") {
  const n = names.children.length + 1;
  const input = h("input", { name: "name", placeholder: t("ui.newtable.player_placeholder", { n }), value, maxlength: 40,
    "aria-label": t("ui.newtable.name_label", { n }), oninput: refreshSeats });
  const month = withMonth ? h("select", { name: "birth_month", "aria-label": t("ui.newtable.birth_month") },
    Array.from({ length: 12 }, (_, i) => h("option", { value: i + 1 }, t(`ui.newtable.month.${i + 1}`)))) : null;
  const remove = h("button", { type: "button", class: "secondary", "aria-label": t("ui.newtable.remove"),
    onclick: () => { item.remove(); refreshSeats(); } }, "✕");
  const item = h("li", {}, h("div", { class: "row" }, input, month, remove));
  names.append(item);
  refreshSeats();
  return input;
}

function seats() {
  return [...names.querySelectorAll("li")].map((li) => ({
    name: li.querySelector("input[name=name]").value.trim(),
    birth_month: withMonth ? Number(li.querySelector("select").value) : undefined,
  })).filter((p) => p.name);
}

function refreshSeats() {
  if (!dealer) return;
  const previous = dealer.value;
  dealer.replaceChildren(...seats().map((p, i) => h("option", { value: i }, p.name)));
  if (previous && Number(previous) < dealer.options.length) dealer.value = previous;
}

document.getElementById("add-name").addEventListener("click", () => addName().focus());
for (let i = 0; i < (form.dataset.seats ? Number(form.dataset.seats) : 3); i++) addName();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("form-error");
  error.hidden = true;
  const players = withMonth ? seats() : seats().map((p) => p.name);
  const options = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    const value = input.type === "number" || input.dataset.number ? Number(input.value) : input.value;
    if (input.type === "radio" && !input.checked) continue;
    options[input.dataset.option] = value;
  }
  if (form.elements.lives) options.lives = Number(form.elements.lives.value);
  if (dealer && dealer.value !== "") options.dealer = Number(dealer.value);
  try {
    const created = await api.createTable(game, players, options);
    remember(created.code, { game, secret: created.secret, role: "referee" });
    location.href = `/r/${created.code}`;
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
  }
});
