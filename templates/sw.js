// Arbitre's service worker, version {{ version }}: precaches the shell, the engine and the Pyodide
// runtime so the referee keeps working with no network; pages are network-first, the rest cache-first.
const VERSION = "{{ version }}";
const PRECACHE = `arbitre-${VERSION}`;
const PAGES = "arbitre-pages";
const ASSETS = {{ assets | tojson }};

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(PRECACHE);
    // "reload" skips the HTTP cache: a new version must not precache an old file.
    await cache.addAll(ASSETS.map((url) => new Request(url, { cache: "reload" })));
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((name) => name.startsWith("arbitre-") && name !== PRECACHE && name !== PAGES)
      .map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data === "skipWaiting") self.skipWaiting();
  if (event.data === "version") event.source.postMessage({ version: VERSION });
});

async function pageFirstFromNetwork(request) {
  const pages = await caches.open(PAGES);
  try {
    const response = await fetch(request);
    if (response.ok) await pages.put(request, response.clone());
    return response;
  } catch (err) {
    const cached = (await pages.match(request)) || (await caches.match(request, { cacheName: PRECACHE }));
    if (cached) return cached;
    const home = await caches.match("/", { cacheName: PRECACHE });
    if (home) return home;
    throw err;
  }
}

async function assetFromCache(request) {
  const cached = await caches.match(request, { cacheName: PRECACHE, ignoreSearch: true });
  if (cached) return cached;
  return fetch(request);
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) return; // live data: the pages keep their own copy offline
  if (request.mode === "navigate") event.respondWith(pageFirstFromNetwork(request));
  else event.respondWith(assetFromCache(request));
});
