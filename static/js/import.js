// The import page: read an exported game (JSON), post it to make a new table, keep its referee
// secret on this phone (as the new-table form does) and open its referee page.
import { api } from "./api.js";
import { remember } from "./tables.js";
import { t, lang, loadCatalogue } from "./i18n.js";

const form = document.getElementById("import");
const error = document.getElementById("import-error");
const submit = document.getElementById("import-submit");

function show(message) {
  error.textContent = message;
  error.hidden = false;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.hidden = true;
  const file = document.getElementById("import-file").files[0];
  if (!file) return;
  let exported;
  try {
    exported = JSON.parse(await file.text());
  } catch {
    show(t("ui.results.import_bad_file"));
    return;
  }
  submit.disabled = true;
  submit.textContent = t("ui.results.importing");
  try {
    const created = await api.importTable(exported);
    remember(created.code, { game: created.game, secret: created.secret, role: "referee" });
    location.href = `/r/${created.code}`;
  } catch (err) {
    const message = err.status ? err.message : err.messages[lang];
    const index = err.params?.index;
    show(Number.isInteger(index) ? t("ui.results.import_refused", { number: index + 1, message }) : message);
  } finally {
    submit.disabled = false;
    submit.textContent = t("ui.results.import_submit");
  }
});

await loadCatalogue();
