// Opens a snapshot QR: the table's view travels in the URL fragment (deflated JSON, base64url),
// so an installed phone shows it with no network at all.
import { fill, h } from "./ui.js";
import { lang, loadCatalogue, t } from "./i18n.js";

const app = document.getElementById("app");

async function unpack(fragment) {
  const base64 = fragment.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

const catalogue = loadCatalogue();
try {
  const snapshot = await unpack(location.hash.slice(1));
  const [module] = await Promise.all([import(`./games/${snapshot.game}.js`), catalogue]);
  const at = new Date(snapshot.at);
  const age = document.getElementById("snapshot-age");
  age.textContent = t("ui.snapshot.age", { time: at.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" }) });
  age.dataset.at = snapshot.at;
  app.dataset.code = snapshot.code;
  app.dataset.game = snapshot.game;
  module.view(app, snapshot.state, { code: snapshot.code, snapshot: true });
} catch {
  await catalogue;
  fill(app, h("p", { class: "error" }, t("ui.snapshot.unreadable")));
}
