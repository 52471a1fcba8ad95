// Installs the service worker, keeps the current page available offline, and announces a new
// version, which is applied only when the person taps to reload.
import { h } from "./ui.js";

const PAGES = "arbitre-pages";

function announce(registration) {
  if (document.getElementById("update-banner")) return;
  const banner = h("div", { id: "update-banner", class: "toast info", role: "status" },
    h("span", {}, "Nouvelle version d'Arbitre disponible. "),
    h("button", { type: "button", onclick: () => registration.waiting?.postMessage("skipWaiting") }, "Recharger"),
    h("span", { class: "en", lang: "en" }, "A new version is ready: reload to use it."));
  document.body.append(banner);
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
  // The first visit is not served through the worker: keep this page for offline use now.
  if (navigator.onLine) {
    try {
      const response = await fetch(location.pathname);
      if (response.ok) await (await caches.open(PAGES)).put(location.pathname, response); // never a "not found"
    } catch { /* the network dropped meanwhile: the next visit keeps it */ }
  }
  navigator.serviceWorker.addEventListener("message", ({ data }) => {
    if (data?.version) document.documentElement.dataset.swVersion = data.version;
  });
  navigator.serviceWorker.controller?.postMessage("version");
  document.documentElement.dataset.sw = "ready";
  // Look for a new version now and then while the app stays open for a whole evening.
  setInterval(() => registration.update().catch(() => {}), 30 * 60 * 1000);
}

start().catch(() => { document.documentElement.dataset.sw = "failed"; });
