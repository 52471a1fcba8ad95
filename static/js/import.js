// The import page: read an exported game (JSON), post it to make a new table, keep its referee
// secret on this phone (as the new-table form does) and open its referee page.
import { ApiError } from "./api.js";
import { remember } from "./tables.js";
import { t, lang, loadCatalogue } from "./i18n.js";

const form = document.getElementById("import");
const error = document.getElementById("import-error");
const submit = document.getElementById("import-submit");

// POST /api/tables/import, answered like POST /api/tables (the refusal's `params.index` names the event).
async function importTable(exported) {
  let response;
  try {
    response = await fetch("/api/tables/import", { method: "POST", body: JSON.stringify(exported),
      headers: { Accept: "application/json", "Content-Type": "application/json" } });
  } catch {
    throw new ApiError(0, null);
  }
  let data = null;
  try { data = await response.json(); } catch { /* not JSON: handled below */ }
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

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
    const created = await importTable(exported);
    remember(created.code, { game: created.game, secret: created.secret, role: "referee" });
    location.href = `/r/${created.code}`;
  } catch (err) {
    const message = err.status ? err.message : err.messages[lang];
    const index = err instanceof ApiError ? err.params.index : undefined;
    show(Number.isInteger(index) ? t("ui.results.import_refused", { number: index + 1, message }) : message);
  } finally {
    submit.disabled = false;
    submit.textContent = t("ui.results.import_submit");
  }
});

await loadCatalogue();
