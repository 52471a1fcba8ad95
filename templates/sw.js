// Arbitre's service worker, version {{ version }}. Two precaches:
// - the shell (every page's assets, under versioned URLs), for every phone, at install;
// - the engine runtime (Pyodide and the engine bundle), only when a referee page asks for it
//   (`{ precache: "engine" }`): a phone that only follows a table never downloads it.
// Pages are network-first with the last copy as fallback; the rest is cache-first.
const VERSION = "{{ version }}";
const SHELL = `arbitre-${VERSION}`;
const ENGINE = `arbitre-engine-${VERSION}`; // the bundle: it changes with every version
const RUNTIME = "arbitre-pyodide-{{ pyodide }}"; // Pyodide: kept across versions of the app
const PAGES = "arbitre-pages";
const SHELL_ASSETS = {{ shell | tojson }};
const ENGINE_ASSETS = {{ engine | tojson }};
const CATALOGUES = {{ catalogues | tojson }};
const OURS = [SHELL, ENGINE, RUNTIME, PAGES];

// Versioned URLs never change: the HTTP cache may answer (what the page just loaded is not
// downloaded again). Anything else is revalidated, so a new version never precaches an old copy.
function fresh(url) {
  return new Request(url, { cache: url.includes(`/v/${VERSION}/`) ? "default" : "no-cache" });
}

function cacheFor(url) {
  if (url.startsWith("/pyodide/")) return RUNTIME;
  if (ENGINE_ASSETS.includes(url)) return ENGINE;
  return SHELL;
}

// Adds what a cache lacks; the runtime's files come from the HTTP cache when the engine worker
// has just fetched them, so the referee's phone downloads them once.
async function precache(urls) {
  await Promise.all(urls.map(async (url) => {
    const cache = await caches.open(cacheFor(url));
    if (!(await cache.match(url))) await cache.add(url.startsWith("/pyodide/") ? url : fresh(url));
  }));
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    await cache.addAll(SHELL_ASSETS.map(fresh));
    // A phone that already referees keeps its engine offline across a new version.
    if (await caches.has(RUNTIME) || (await caches.keys()).some((name) => name.startsWith("arbitre-engine-"))) {
      await precache(ENGINE_ASSETS).catch(() => {});
    }
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((name) => name.startsWith("arbitre-") && !OURS.includes(name))
      .map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  const { data } = event;
  if (data === "skipWaiting") self.skipWaiting();
  if (data === "version") event.source.postMessage({ version: VERSION });
  if (data?.precache) {
    const urls = data.precache === "engine" ? ENGINE_ASSETS
      : CATALOGUES.filter((url) => url === `/i18n/${data.lang}.json`);
    event.waitUntil(precache(urls).then(
      () => event.source?.postMessage({ precached: data.precache }),
      () => event.source?.postMessage({ precached: data.precache, failed: true })));
  }
});

async function pageFirstFromNetwork(request) {
  const pages = await caches.open(PAGES);
  try {
    const response = await fetch(request);
    if (response.ok) await pages.put(request, response.clone());
    return response;
  } catch (err) {
    const cached = (await pages.match(request)) || (await caches.match(request, { cacheName: SHELL }));
    if (cached) return cached;
    const home = await caches.match("/", { cacheName: SHELL });
    if (home) return home;
    throw err;
  }
}

async function fromOurCaches(request) {
  for (const name of [SHELL, ENGINE, RUNTIME]) {
    const cached = await caches.match(request, { cacheName: name, ignoreSearch: true });
    if (cached) return cached;
  }
  return undefined;
}

async function assetFromCache(request, url) {
  // An unversioned static URL is answered with this version's copy.
  const key = url.pathname.startsWith("/static/") && !url.pathname.startsWith("/static/v/")
    ? `/static/v/${VERSION}/${url.pathname.slice("/static/".length)}` : request;
  const cached = await fromOurCaches(key);
  if (cached) return cached;
  const response = await fetch(request);
  // A catalogue or an engine file fetched while online is kept for offline use.
  if (response.ok && (CATALOGUES.includes(url.pathname) || ENGINE_ASSETS.includes(url.pathname))) {
    const cache = await caches.open(cacheFor(url.pathname));
    await cache.put(url.pathname, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) return; // live data: the pages keep their own copy offline
  if (request.mode === "navigate") event.respondWith(pageFirstFromNetwork(request));
  else event.respondWith(assetFromCache(request, url));
});
