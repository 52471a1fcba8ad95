// The new-table form of every game: the players in seating order, then the game's options, then off
// to the referee page. Set up in seconds: as many rows as the game's usual table (the engine's
// numbers, which the page gives: data-min, data-max, data-seats, and a player's entry: data-name-max,
// data-months where the game asks each player's birth month), Enter going to the next row and
// adding one at the end (it never sends the form), the players of this phone's recent tables in one
// tap ("the same as last time"), rows moved up and down to match the seats. A problem is said once the
// form is sent and goes away as soon as it is fixed; the server's refusals (a name taken twice, too
// long) are shown the same way, on the fields they name.
import { api } from "./api.js";
import { h } from "./ui.js";
import { recentPlayers, remember } from "./tables.js";
import { loadCatalogue, t } from "./i18n.js";

const form = document.getElementById("new-table");
const { game } = form.dataset;
const seats = { min: Number(form.dataset.min), max: Number(form.dataset.max), usual: Number(form.dataset.seats) };
const names = document.getElementById("names");
const addButton = document.getElementById("add-name");
const errorBox = document.getElementById("form-error");
const nameMax = Number(form.dataset.nameMax);
const months = Number(form.dataset.months ?? 0);
const withMonth = months > 0;

await loadCatalogue();

// --- the rows ------------------------------------------------------------------------------------

const rows = () => [...names.children];
const nameOf = (li) => li.querySelector("input[name=name]");
const monthOf = (li) => li.querySelector("select[name=birth_month]");

function monthSelect(month) {
  return h("select", { name: "birth_month", required: true },
    h("option", { value: "" }, t("ui.shell.month_choose")),
    Array.from({ length: months }, (_, i) => h("option", { value: i + 1, selected: month === i + 1 }, t(`ui.shell.month.${i + 1}`))));
}

function addRow({ name = "", birth_month: month = null } = {}) {
  const input = h("input", { name: "name", value: name, maxlength: nameMax, enterkeyhint: "next", autocapitalize: "words" });
  const li = h("li", { class: "seat" }, input, withMonth ? monthSelect(month) : null,
    h("span", { class: "seat-tools" },
      h("button", { type: "button", class: "secondary", "data-move": "up", onclick: () => move(li, -1) }, "↑"),
      h("button", { type: "button", class: "secondary", "data-move": "down", onclick: () => move(li, 1) }, "↓"),
      h("button", { type: "button", class: "secondary", "data-remove": "", onclick: () => removeRow(li) }, "✕")));
  names.append(li);
  refresh();
  return input;
}

function removeRow(li) {
  li.remove();
  if (!rows().length) addRow();
  changed();
}

// Moves a row one seat up (-1) or down (+1); the focus stays on the button pressed, with its row.
function move(li, step) {
  const other = step < 0 ? li.previousElementSibling : li.nextElementSibling;
  if (!other) return;
  const pressed = document.activeElement;
  if (step < 0) other.before(li);
  else other.after(li);
  if (li.contains(pressed)) pressed.focus();
  changed();
}

// Each row's words name its seat (they change when rows move); the seat choices follow the names.
function refresh() {
  rows().forEach((li, i) => {
    const n = i + 1;
    nameOf(li).placeholder = t("ui.newtable.player_placeholder", { n });
    nameOf(li).setAttribute("aria-label", t("ui.newtable.name_label", { n }));
    monthOf(li)?.setAttribute("aria-label", t("ui.newtable.birth_month_of", { n }));
    li.querySelector("[data-move=up]").setAttribute("aria-label", t("ui.newtable.move_up", { n }));
    li.querySelector("[data-move=down]").setAttribute("aria-label", t("ui.newtable.move_down", { n }));
    li.querySelector("[data-remove]").setAttribute("aria-label", t("ui.newtable.remove", { n }));
    li.querySelector("[data-move=up]").disabled = i === 0;
    li.querySelector("[data-move=down]").disabled = i === rows().length - 1;
  });
  addButton.hidden = rows().length >= seats.max;
  for (const select of form.querySelectorAll("select[data-seat-choice]")) seatChoice(select);
}

// Who deals (Il Morto) or plays first (the Grand Jeu): chosen among the names typed, and kept when
// the rows move (the choice is a person; the option sent is their seat).
function seatChoice(select) {
  const chosen = select.selectedOptions[0]?.textContent;
  const seated = players().map((p) => p.name);
  select.replaceChildren(...seated.map((name, i) => new Option(name, String(i))));
  const kept = seated.indexOf(chosen);
  if (kept >= 0) select.value = String(kept);
}

// The players as the rows give them, in seating order: a row without a name is no player.
function players() {
  return rows().map((li) => ({ li, name: nameOf(li).value.trim(), birth_month: Number(monthOf(li)?.value) || null }))
    .filter((p) => p.name);
}

// Enter goes to the next row, adding one at the end (while the table has room): it never sends the form.
names.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.target.name !== "name") return;
  event.preventDefault();
  const li = event.target.closest("li");
  const next = li.nextElementSibling;
  if (next) nameOf(next).focus();
  else if (rows().length < seats.max) addRow().focus();
});

addButton.addEventListener("click", () => addRow().focus());
form.addEventListener("input", changed);
form.addEventListener("change", changed);

// --- "the same as last time" -------------------------------------------------------------------

function fillWith(recent) {
  names.replaceChildren();
  for (const player of recent) addRow(withMonth ? player : { name: player.name });
  while (rows().length < seats.usual) addRow();
  changed();
}

function offerRecent() {
  const offered = recentPlayers().filter((recent) => recent.players.length <= seats.max).slice(0, 3);
  const box = document.getElementById("recent");
  box.hidden = !offered.length;
  box.querySelector(".recent-picks").replaceChildren(...offered.map((recent) => h("button", {
    type: "button", class: "secondary recent-pick", "data-recent": recent.code, onclick: () => fillWith(recent.players) },
  h("span", { class: "recent-names" }, recent.players.map((p) => p.name).join(", ")),
  h("small", {}, t(`ui.game.${recent.game}`)))));
}

// --- problems: said once the form is sent, gone once fixed -------------------------------------

let problem = null; // {message, fields, fixed()} while one is shown

const errorHome = errorBox.previousElementSibling; // the sentence's place when it names no row

// The sentence goes under the first row it is about (given the focus), else under the button.
function show(found) {
  clearProblem();
  problem = found;
  errorBox.textContent = found.message;
  const row = found.fields[0]?.closest("li");
  if (row) row.append(errorBox);
  else errorHome.after(errorBox);
  errorBox.hidden = false;
  for (const field of found.fields) field.setAttribute("aria-invalid", "true");
  found.fields[0]?.focus();
}

function clearProblem() {
  for (const field of form.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
  errorBox.hidden = true;
  errorHome.after(errorBox);
  problem = null;
}

// What the form can tell before asking the server: the engine's bounds, the months, half-filled rows.
function localProblem() {
  const named = players();
  const unnamed = rows().filter((li) => !nameOf(li).value.trim() && monthOf(li)?.value);
  if (unnamed.length) {
    return { message: t("ui.newtable.name_missing", { n: rows().indexOf(unnamed[0]) + 1 }), fields: unnamed.map(nameOf), local: true };
  }
  if (named.length < seats.min || named.length > seats.max) {
    // Too few: the first empty row is where the next name goes (given the focus).
    const empty = rows().map(nameOf).find((input) => !input.value.trim());
    return { message: t("player_count", { count: named.length, ...seats }), fields: empty && named.length < seats.min ? [empty] : [], local: true };
  }
  const monthless = named.filter((p) => withMonth && !p.birth_month);
  if (monthless.length) {
    return { message: t("ui.newtable.month_missing", { name: monthless[0].name }), fields: monthless.map((p) => monthOf(p.li)), local: true };
  }
  return null;
}

// A refusal from the server, on the rows whose name it quotes (if any), the last one first (a name
// taken twice: the later row is the one to change); gone once one of them changes.
function serverProblem(error) {
  const quoted = typeof error.params?.name === "string" ? error.params.name.trim().toLowerCase() : null;
  const fields = quoted === null ? []
    : players().filter((p) => p.name.toLowerCase() === quoted).map((p) => nameOf(p.li)).reverse();
  const values = fields.map((field) => field.value);
  return { message: error.message, fields, fixed: () => (fields.length ? fields.some((f, i) => f.value !== values[i]) : true) };
}

function changed() {
  refresh();
  if (!problem) return;
  if (problem.local) {
    const still = localProblem();
    if (!still) clearProblem();
    else if (still.message !== problem.message) show(still);
  } else if (problem.fixed()) {
    clearProblem();
  }
}

// --- sending -----------------------------------------------------------------------------------

function options() {
  const chosen = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    if (input.type === "radio" && !input.checked) continue;
    chosen[input.dataset.option] = input.dataset.number ? Number(input.value) : input.value;
  }
  return chosen;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const found = localProblem();
  if (found) {
    show(found);
    return;
  }
  clearProblem();
  const seated = players().map(({ name, birth_month: month }) => (withMonth ? { name, birth_month: month } : name));
  try {
    const created = await api.createTable(game, seated, options());
    const kept = seated.map((p) => (withMonth ? p : { name: p }));
    remember(created.code, { game, secret: created.secret, role: "referee", players: kept });
    location.href = `/r/${created.code}`;
  } catch (error) {
    show(serverProblem(error));
  }
});

for (let i = 0; i < seats.usual; i++) addRow();
offerRecent();
