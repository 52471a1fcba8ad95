// Arbitre's service worker, version {{ version }}: see templates/sw.js.
{# Its comments are Jinja's, so they are not sent to every phone. Two precaches:
   - the shell (every page's assets, under versioned URLs), for every phone. Not during the first
     load: a page asks for it once it is loaded and idle (`{ precache: "shell" }`, static/js/pwa.js),
     when what it has just loaded comes from the HTTP cache, and the rest (other pages' and games'
     modules, the pages `/` and `/s`) downloads while nobody waits for it. Its requests say so
     (`X-Arbitre-Precache: idle`). A phone that already has an older version's shell precaches the
     new one whole at install, as an update;
   - the engine runtime (Pyodide and the engine bundle), only when a referee page asks for it
     (`{ precache: "engine" }`): a phone that only follows a table never downloads it.
   Pages are network-first with the last copy as fallback; the rest is cache-first. A page's
   catalogue (`/i18n/<version>/<lang>/<part>.json`) is kept when fetched; offline, a part not kept is
   answered by its language's `all` part, which holds every part. #}
const VERSION = "{{ version }}";
const SHELL = `arbitre-${VERSION}`;
const ENGINE = `arbitre-engine-${VERSION}`; {# the bundle: it changes with every version #}
const RUNTIME = "arbitre-pyodide-{{ pyodide }}"; {# Pyodide: kept across versions of the app #}
const PAGES = "arbitre-pages";
const SHELL_ASSETS = {{ shell | tojson }};
const ENGINE_ASSETS = {{ engine | tojson }};
const CATALOGUES = {{ catalogues | tojson }};
const PARTS = {{ catalogue_urls() | tojson }};
const OURS = [SHELL, ENGINE, RUNTIME, PAGES];
const IDLE = { "X-Arbitre-Precache": "idle" };

{# Versioned URLs never change: the HTTP cache may answer (what the page just loaded is not
   downloaded again). Anything else is revalidated, so a new version never precaches an old copy. #}
function fresh(url, headers = {}) {
  return new Request(url, { cache: url.includes(`/${VERSION}/`) ? "default" : "no-cache", headers });
}

function cacheFor(url) {
  if (url.startsWith("/pyodide/")) return RUNTIME;
  if (ENGINE_ASSETS.includes(url)) return ENGINE;
  return SHELL;
}

{# This version's `all` part of the catalogue in the language of `url` (a part or a whole catalogue). #}
function wholePart(url) {
  const lang = url.match(/^\/i18n\/(?:[^/]+\/)?(\w+)[/.]/)?.[1];
  return PARTS.find((part) => part === `/i18n/${VERSION}/${lang}/all.json`);
}

{# Adds what a cache lacks; the runtime's files come from the HTTP cache when the engine worker
   has just fetched them, so the referee's phone downloads them once. #}
async function precache(urls, headers = {}) {
  await Promise.all(urls.map(async (url) => {
    const cache = await caches.open(cacheFor(url));
    if (!(await cache.match(url))) await cache.add(url.startsWith("/pyodide/") ? url : fresh(url, headers));
  }));
}

{# The languages an older version's shell held a catalogue of (an update keeps them offline). #}
async function languagesKept(names) {
  const langs = new Set();
  for (const name of names) {
    for (const request of await (await caches.open(name)).keys()) {
      const url = wholePart(new URL(request.url).pathname);
      if (url) langs.add(url);
    }
  }
  return [...langs];
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    const older = names.filter((name) => /^arbitre-[0-9a-f]{12}$/.test(name) && name !== SHELL);
    if (older.length) { {# an update of an installed app: the whole shell now, as before #}
      const cache = await caches.open(SHELL);
      await cache.addAll([...SHELL_ASSETS, ...await languagesKept(older)].map((url) => fresh(url)));
    }
    {# A phone that already referees keeps its engine offline across a new version. #}
    if (names.includes(RUNTIME) || names.some((name) => name.startsWith("arbitre-engine-"))) {
      await precache(ENGINE_ASSETS).catch(() => {});
    }
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((name) => name.startsWith("arbitre-") && !OURS.includes(name))
      .map((name) => caches.delete(name)));
    {# The runtime's cache outlives app versions: a standard library built for another engine's
       imports (`/pyodide/stdlib-<key>.zip`) goes. Only a phone that referees has that cache. #}
    if (names.includes(RUNTIME)) {
      const runtime = await caches.open(RUNTIME);
      await Promise.all((await runtime.keys())
        .filter((request) => !ENGINE_ASSETS.includes(new URL(request.url).pathname))
        .map((request) => runtime.delete(request)));
    }
    await self.clients.claim();
  })());
});

{# What a page asks to keep: the engine runtime; or, once it is idle, the shell, its own catalogue
   and its language's whole one (the home page and the snapshot page offline). #}
function asked(data) {
  if (data.precache === "engine") return [ENGINE_ASSETS, {}];
  if (data.precache === "shell") {
    const parts = [data.catalogue, wholePart(data.catalogue ?? "")].filter((url) => PARTS.includes(url));
    return [[...SHELL_ASSETS, ...new Set(parts)], IDLE];
  }
  return [CATALOGUES.filter((url) => url === `/i18n/${data.lang}.json`), {}]; {# a page of an older version #}
}

self.addEventListener("message", (event) => {
  const { data } = event;
  if (data === "skipWaiting") self.skipWaiting();
  if (data === "version") event.source.postMessage({ version: VERSION });
  if (data?.precache) {
    const [urls, headers] = asked(data);
    event.waitUntil(precache(urls, headers).then(
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

{# Kept when fetched while online: this version's assets, catalogues and engine files. #}
function keep(path) {
  return SHELL_ASSETS.includes(path) || PARTS.includes(path) || CATALOGUES.includes(path)
    || ENGINE_ASSETS.includes(path);
}

async function assetFromCache(request, url) {
  {# An unversioned static URL is answered with this version's copy. #}
  const key = url.pathname.startsWith("/static/") && !url.pathname.startsWith("/static/v/")
    ? `/static/v/${VERSION}/${url.pathname.slice("/static/".length)}` : request;
  const cached = await fromOurCaches(key);
  if (cached) return cached;
  let response;
  try {
    response = await fetch(request);
  } catch (err) {
    {# Offline, a catalogue not kept (another part, another version's page): its language's whole one. #}
    const whole = url.pathname.startsWith("/i18n/") && wholePart(url.pathname);
    const fallback = whole && await caches.match(whole, { cacheName: SHELL });
    if (fallback) return fallback;
    throw err;
  }
  if (response.ok && keep(url.pathname)) {
    const cache = await caches.open(cacheFor(url.pathname));
    await cache.put(url.pathname, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/")) return; {# live data: the pages keep their own copy offline #}
  if (request.mode === "navigate") event.respondWith(pageFirstFromNetwork(request));
  else event.respondWith(assetFromCache(request, url));
});
