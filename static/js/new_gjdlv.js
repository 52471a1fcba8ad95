// The Grand Jeu de la Vie's new-table form: the first player is chosen among the names typed above
// (new_table.js only fills a #dealer). Loaded after new_table.js, which fills the names.
const names = document.getElementById("names");
const select = document.getElementById("first-player");

function refresh() {
  const previous = select.value;
  const seated = [...names.querySelectorAll("input[name=name]")].map((input) => input.value.trim()).filter(Boolean);
  select.replaceChildren(...seated.map((name, i) => new Option(name, String(i))));
  if (previous !== "" && Number(previous) < seated.length) select.value = previous;
}

names.addEventListener("input", refresh);
new MutationObserver(refresh).observe(names, { childList: true });
refresh();
