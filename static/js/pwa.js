// Every page's shell, loaded by base.html: the language switch (any `[data-set-lang]` button);
// the service worker installed, the current page kept for offline use, the rest of the app
// precached once the page is loaded and idle, and a new version announced, applied only when the
// person taps to reload.
import { h } from "./ui.js";
import { catalogueURL, has, loadCatalogue, setLang, t } from "./i18n.js";

const PAGES = "arbitre-pages";

// One listener for the bar's switch, the referee's "More" dialog and any other: the cookie is set
// for a year and the page comes back in the other language.
document.addEventListener("click", (event) => {
  const button = event.target.closest?.("[data-set-lang]");
  if (button) setLang(button.dataset.setLang);
});

async function announce(registration) {
  if (!has("ui.shell.reload")) await loadCatalogue();
  if (document.getElementById("update-banner")) return;
  const banner = h("div", { id: "update-banner", class: "toast info", role: "status" },
    h("span", {}, t("ui.shell.new_version")),
    h("button", { type: "button", onclick: () => registration.waiting?.postMessage("skipWaiting") }, t("ui.shell.reload")));
  document.body.append(banner);
}

function loadedAndIdle() {
  const loaded = document.readyState === "complete" ? Promise.resolve()
    : new Promise((resolve) => addEventListener("load", resolve, { once: true }));
  return loaded.then(() => new Promise((resolve) => {
    if ("requestIdleCallback" in window) requestIdleCallback(resolve, { timeout: 2000 });
    else setTimeout(resolve, 200);
  }));
}

async function start() {
  if (!("serviceWorker" in navigator)) return;
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/", type: "classic" });
  const hadController = Boolean(navigator.serviceWorker.controller);
  if (registration.waiting && hadController) announce(registration);
  registration.addEventListener("updatefound", () => {
    const worker = registration.installing;
    worker?.addEventListener("statechange", () => {
      if (worker.state === "installed" && navigator.serviceWorker.controller) announce(registration);
    });
  });
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (hadController && !reloading) {
      reloading = true;
      location.reload();
    }
  });
  await navigator.serviceWorker.ready;
  // The first visit is not served through the worker: keep this page for offline use now, from the
  // HTTP cache when it still holds what was just loaded (later visits are kept by the worker).
  if (!hadController && navigator.onLine) {
    try {
      const response = await fetch(location.pathname, { cache: "force-cache" });
      if (response.ok) await (await caches.open(PAGES)).put(location.pathname, response); // never a "not found"
    } catch { /* the network dropped meanwhile: the next visit keeps it */ }
  }
  navigator.serviceWorker.addEventListener("message", ({ data }) => {
    if (data?.version) document.documentElement.dataset.swVersion = data.version;
  });
  // The rest of the app (other pages' and games' modules, this page's catalogue and its language's
  // whole one) only once this page is loaded and idle: it never competes with the page itself.
  await loadedAndIdle();
  await new Promise((resolve) => {
    const done = ({ data }) => {
      if (data?.precached !== "shell") return;
      navigator.serviceWorker.removeEventListener("message", done);
      resolve();
    };
    navigator.serviceWorker.addEventListener("message", done);
    registration.active.postMessage({ precache: "shell", catalogue: catalogueURL });
    setTimeout(resolve, 60_000); // a service worker that cannot answer must not hold the page
  });
  navigator.serviceWorker.controller?.postMessage("version");
  document.documentElement.dataset.sw = "ready";
  // Look for a new version now and then while the app stays open for a whole evening.
  setInterval(() => registration.update().catch(() => {}), 30 * 60 * 1000);
}

start().catch(() => { document.documentElement.dataset.sw = "failed"; });
