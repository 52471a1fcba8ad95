"""The page walk: every page of the app, in both languages and both themes, checked for accessibility
and for speaking one language, with a screenshot of each.

Pages: home, the three new-table forms, the referee page and the table view of each game (Il Morto,
Le jeu existentiel, GJDLV's score sheet, GJDLV played card by card stopped mid-round, and a finished
Il Morto game with its winner's card), a
player's own page where a game has one, the QR screen, the snapshot page, the rules (index and each
game), the not-found page, and the results page and the import page when the app serves them (a 404
skips them, saying so). The tables are made through the API; the referee's secret is put in the
phone's localStorage the way static/js/tables.js keeps it.

For each page, in a phone context per language (fr-FR, en-US, with the ``lang`` cookie) × theme
(``color_scheme`` light, dark):

(a) axe-core (node_modules/axe-core, pinned in package.json) is injected and run; a violation of
    impact serious or critical fails the walk. The contexts bypass the app's CSP, which would
    otherwise refuse the injected script.
(b) one language (in the light theme; the texts are the same in the dark one): every visible text
    node, and every accessible name given as an attribute (aria-label, alt, title, placeholder), is
    either data (numbers, punctuation, symbols and emoji, card faces like 10♥ / R♠ / QD, the table's
    code, the players' names, the months and weekdays of the language) or one whole string of that
    language's catalogue (``/i18n/<lang>.json``, each ``{param}`` matching any text). No element may
    carry a ``lang`` other than the page's. Text marked ``[data-no-i18n]``, ``code`` or ``.code`` is
    data by declaration. No script asked for a key its page's part of the catalogue lacks
    (``<html data-i18n-missing>``, static/js/i18n.js).
(c) a full-page screenshot: e2e/artifacts/pages/<page>-<lang>-<theme>.png (390×844, scale 2).

Every failure is listed, page by page, before the walk fails; the whole report is also written to
e2e/artifacts/pages/report.json.
"""

from __future__ import annotations

import base64
import json
import re
import string
import time
import urllib.error
import urllib.request
import zlib
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import ARTIFACTS, ROOT
from engine import messages

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ARTIFACTS / "pages"
LANGS = {"fr": "fr-FR", "en": "en-US"}
THEMES = ("light", "dark")
FAILING_IMPACTS = ("serious", "critical")
READY_MS = 15_000  # a referee page starts the engine (Pyodide) in a worker: slower than other waits

MORTO = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
EXISTENTIEL = [("Inès", 3), ("Jules", 11), ("Kenza", 7)]
GJDLV = ["Alice", "Basile", "Camille"]
PLACE = "Chez Inès"
NAMES = [*MORTO, *(name for name, _ in EXISTENTIEL), *GJDLV, PLACE]  # what the table typed: data
CARD_FACE = re.compile(r"(?<![\w])(?:10|[2-9]|[AJQKRDV])\s?(?:[♠♣♥♦]|[SCHD]\b)")
CARD_RANK = re.compile(r"^(?:10|[2-9]|[AJQKRDVFC])$")  # a face's rank drawn alone (F, C: Fante, Cavallo)
TABLE_CODE = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{4}-?[0-9A-HJKMNP-TV-Z]{2}\b")  # Crockford base32: K7QX-2M
URL = re.compile(r"\bhttps?://\S+")
ITALIAN_RANKS = ("Asso", "Fante", "Cavallo", "Re")
LANGUAGE_CODES = ("FR", "EN")

AXE_SCRIPT = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(" "), summary: n.failureSummary})),
    count: v.nodes.length,
  }));
}"""

# Every visible text node and attribute-given name, with where it is (a short CSS-like path).
TEXTS_SCRIPT = """() => {
  const data = "script, style, template, noscript, [data-no-i18n], code, .code";
  const where = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      let part = e.tagName.toLowerCase();
      if (e.id) { parts.unshift(part + "#" + e.id); break; }
      const cls = [...e.classList].slice(0, 2).join(".");
      if (cls) part += "." + cls;
      parts.unshift(part);
    }
    return parts.join(" > ");
  };
  const visible = (el) => el.checkVisibility({checkVisibilityCSS: true});
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.nodeValue.replace(/\\s+/g, " ").trim();
    if (!text || !el || el.closest(data) || !visible(el)) continue;
    out.push({text, where: where(el)});
  }
  for (const el of document.body.querySelectorAll("[aria-label], [alt], [title], [placeholder]")) {
    if (el.closest(data) || !visible(el)) continue;
    for (const name of ["aria-label", "alt", "title", "placeholder"]) {
      const value = (el.getAttribute(name) || "").replace(/\\s+/g, " ").trim();
      if (value) out.push({text: value, where: where(el) + "[" + name + "]"});
    }
  }
  const foreign = [...document.querySelectorAll("body [lang]")]
    .filter((el) => el.lang !== document.documentElement.lang)
    .map((el) => where(el) + "[lang=" + el.lang + "]");
  return {lang: document.documentElement.lang, texts: out, foreign};
}"""

CALENDAR_SCRIPT = """(lang) => {
  const names = new Set();
  for (const month of ["long", "short"]) for (let m = 0; m < 12; m++)
    names.add(new Intl.DateTimeFormat(lang, {month}).format(new Date(2031, m, 1)));
  for (const weekday of ["long", "short"]) for (let d = 1; d <= 7; d++)
    names.add(new Intl.DateTimeFormat(lang, {weekday}).format(new Date(2031, 0, d)));
  return [...names];
}"""


# --- the tables ------------------------------------------------------------------------------------


def call(base: str, path: str, body=None, secret: str | None = None):
    headers = {"Content-Type": "application/json"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(
        urllib.request.Request(base + path, data=data, headers=headers), timeout=10
    ) as response:
        return json.load(response)


def status(base: str, path: str) -> int:
    try:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        with err:
            return err.code


class Tables:
    """One table of each game, a few events in, and a finished one, made through the API."""

    def __init__(self, base: str):
        self.base = base
        self.made: dict[str, dict] = {}
        morto = self.create("morto", {"game": "morto", "players": MORTO})
        for _ in range(3):
            self.event(morto, {"type": "touched_early", "player": "p3"})  # Chiara dies
        self.event(morto, {"type": "touched_early", "player": "p2"})
        # A finished game: its winner's card (results, rematch, sharing) and its results page.
        over = self.create("morto-over", {"game": "morto", "players": MORTO[:3], "options": {"lives": 1}})
        for pid in ("p2", "p3"):
            self.event(over, {"type": "touched_early", "player": pid})
        existentiel = self.create(
            "existentiel",
            {"game": "existentiel", "players": [{"name": n, "birth_month": m} for n, m in EXISTENTIEL]},
        )
        self.event(existentiel, {"type": "roll", "player": "p1", "die": 4})
        self.event(existentiel, {"type": "accept", "player": "p1"})
        self.event(existentiel, {"type": "roll", "player": "p2", "die": 2})
        self.event(existentiel, {"type": "schedule", "at": "2031-03-07T18:30", "place": PLACE})
        sheet = self.create("gjdlv", {"game": "gjdlv", "players": GJDLV, "options": {"rules": "abondantes"}})
        self.event(sheet, {"type": "newborn", "player": "p1", "gf": "5H", "gm": "3S"})
        self.event(sheet, {"type": "newborn", "player": "p2", "gf": "KD", "gm": "JS"})
        self.event(sheet, {"type": "abortion", "player": "p3"})
        tracker = self.create(
            "gjdlv-tracker", {"game": "gjdlv", "players": GJDLV, "options": {"mode": "tracker"}}
        )
        for event in (
            {"type": "deal", "mouchoir": ["10S", "10C"]},
            {"type": "ovulate", "player": "p1", "gf": "5H"},
            {"type": "fecundate", "player": "p1", "gm": "3S"},
            {"type": "ovulate", "player": "p2", "gf": "7D"},
            {"type": "fecundate", "player": "p2", "gm": "7S"},
            {"type": "abort", "player": "p3", "gm": "7C"},
            {"type": "ovulate", "player": "p3", "gf": "2D"},
            {"type": "hold", "player": "p3"},
        ):
            self.event(tracker, event)

    def create(self, key: str, body: dict) -> dict:
        created = call(self.base, "/api/tables", body)
        table = {
            "code": created["code"],
            "game": body["game"],
            "secret": created["secret"],
            "version": created["version"],
            "state": created["state"],
        }
        self.made[key] = table
        return table

    def event(self, table: dict, event: dict) -> None:
        body = {"id": f"walk-{table['version']}", "version": table["version"], **event}
        answer = call(self.base, f"/api/tables/{table['code']}/events", body, table["secret"])
        table["version"], table["state"] = answer["version"], answer["state"]

    def stored(self) -> dict:
        """What static/js/tables.js keeps under ``arbitre.tables`` on the phone that created them."""
        return {
            t["code"]: {"code": t["code"], "game": t["game"], "secret": t["secret"], "role": "referee"}
            for t in self.made.values()
        }

    def snapshot_url(self, key: str) -> str:
        """The snapshot page of a table: its view deflated into the URL fragment (static/js/snapshot.js)."""
        table = self.made[key]
        at = datetime(2031, 3, 7, 18, 30, tzinfo=UTC).isoformat().replace("+00:00", "Z")
        packed = json.dumps({"game": table["game"], "code": table["code"], "at": at, "state": table["state"]})
        fragment = base64.urlsafe_b64encode(zlib.compress(packed.encode())).decode().rstrip("=")
        return f"/s#{fragment}"


def walk_pages(tables: Tables, base: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Every page to visit, (name, path), and the pages skipped with the reason."""
    pages = [("home", "/")]
    pages += [(f"new-{game}", f"/new/{game}") for game in ("morto", "existentiel", "gjdlv")]
    for key, table in tables.made.items():
        pages += [(f"referee-{key}", f"/r/{table['code']}"), (f"view-{key}", f"/t/{table['code']}")]
    pages.append(("qr", f"/t/{tables.made['morto']['code']}/qr"))
    pages.append(("snapshot", tables.snapshot_url("morto")))
    pages.append(("rules", "/rules"))
    pages += [(f"rules-{game}", f"/rules/{game}") for game in ("morto", "existentiel", "gjdlv")]
    pages.append(("not-found", "/t/ZZZZZZ"))
    skipped = []
    optional = [(f"player-{key}", f"/t/{table['code']}/p/p1") for key, table in tables.made.items()]
    optional += [(f"results-{key}", f"/t/{table['code']}/results") for key, table in tables.made.items()]
    optional.append(("import", "/import"))
    for name, path in optional:
        answer = status(base, path)
        if answer == 200:
            pages.append((name, path))
        elif not name.startswith("player-"):  # a game without a player's page is not news
            skipped.append(f"{name}: {path} answered {answer}, not yet served: skipped")
    return pages, skipped


# --- the checks ------------------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").replace("\u202f", " ").split())


ELIDING = re.compile(r"(?<![\w'])(" + "|".join(messages.ELIDING) + r") \Z", re.IGNORECASE)


def template_pattern(template: str) -> re.Pattern | None:
    """A catalogue string as an anchored regex, each ``{param}`` matching any text; None for a
    template with no word of its own ("{a} · {b}"), which says nothing of a language."""
    literal, pattern = "", ""
    for text, field, _spec, _conversion in string.Formatter().parse(_normal(template)):
        literal += text
        before = ELIDING.search(text) if field is not None else None
        if before:  # "de {name}" reads "d'Omar" before a name that elides (engine.messages.fill)
            word = before.group(1)
            pattern += (
                re.escape(text[: before.start(1)]) + f"(?:{re.escape(word)} |{re.escape(word[:-1])}')" + ".+?"
            )
            continue
        pattern += re.escape(text) + (".+?" if field is not None else "")
    if not any(ch.isalpha() for ch in literal):
        return None
    return re.compile(pattern + r"\Z", re.DOTALL)


class Language:
    """What one language's page may show: its catalogue's strings, and data."""

    def __init__(self, catalogue: dict[str, str], codes: set[str], calendar: list[str]):
        self.exact = {_normal(value) for value in catalogue.values()}
        self.patterns = [p for p in (template_pattern(v) for v in catalogue.values() if "{" in v) if p]
        words = [*NAMES, *codes, *calendar, *ITALIAN_RANKS, *LANGUAGE_CODES]
        self.data_words = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        self.known: dict[str, bool] = {}

    def is_data(self, text: str) -> bool:
        if CARD_RANK.match(text):
            return True
        rest = self.data_words.sub(" ", URL.sub(" ", text))
        rest = CARD_FACE.sub(" ", TABLE_CODE.sub(" ", rest))
        return not any(ch.isalpha() for ch in rest)

    def speaks(self, text: str) -> bool:
        text = _normal(text)
        if text not in self.known:
            self.known[text] = (
                text in self.exact or self.is_data(text) or any(p.match(text) for p in self.patterns)
            )
        return self.known[text]


def wait_until_drawn(page: Page, name: str) -> None:
    """The page's script has drawn it: no "loading" placeholder left, the referee's version shown,
    the table view live, the fonts in."""
    page.wait_for_load_state("load")
    page.wait_for_function("() => !document.querySelector('#app > p.hint:only-child')", timeout=READY_MS)
    if name.startswith("referee-"):
        expect(page.locator("#app[data-version]")).to_have_count(1, timeout=READY_MS)
    if name.startswith(("view-", "player-")):
        expect(page.locator("#sync")).not_to_be_empty(timeout=READY_MS)
    page.evaluate("() => document.fonts.ready.then(() => true)")


def check_axe(page: Page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    failing = []
    for violation in page.evaluate(AXE_SCRIPT):
        if violation["impact"] in FAILING_IMPACTS:
            nodes = "".join(
                f"\n        {n['target']}: {' / '.join(n['summary'].splitlines()[1:3]).strip()}"
                for n in violation["nodes"]
            )
            failing.append(
                f"[{violation['impact']}] {violation['id']} ({violation['count']}×): "
                f"{violation['help']}{nodes}"
            )
    return failing


def check_language(page: Page, lang: str, language: Language) -> list[str]:
    found = page.evaluate(TEXTS_SCRIPT)
    problems = []
    if found["lang"] != lang:
        problems.append(f'<html lang="{found["lang"]}">, not "{lang}"')
    missing = page.evaluate("() => document.documentElement.dataset.i18nMissing")
    if missing:  # asked by a script, not in the page's part of the catalogue (static/js/i18n.js)
        problems.append(f"keys its part of the catalogue lacks: {missing}")
    problems += [f"an element in another language: {where}" for where in found["foreign"]]
    seen = set()
    for item in found["texts"]:
        if (item["text"], item["where"]) in seen or language.speaks(item["text"]):
            continue
        seen.add((item["text"], item["where"]))
        problems.append(f"{item['text']!r}  @ {item['where']}")
    return problems


# --- the walk --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables(server):
    return Tables(server)


@pytest.fixture(scope="module")
def report():
    """Every finding of the module's walks, written out at the end."""
    found: dict = {}
    yield found
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "report.json").write_text(json.dumps(found, ensure_ascii=False, indent=2), encoding="utf-8")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_page_is_accessible_and_speaks_one_language(phone, server, tables, report, lang, theme):
    assert AXE.exists(), f"{AXE} is missing: npm ci installs axe-core (a devDependency)"
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = phone(locale=LANGS[lang], color_scheme=theme, bypass_csp=True, service_workers="block")
    context.add_cookies([{"name": "lang", "value": lang, "url": server}])
    page = context.new_page()
    page.goto("/")
    page.evaluate("(t) => localStorage.setItem('arbitre.tables', JSON.stringify(t))", tables.stored())

    catalogue = page.request.get(f"/i18n/{lang}.json")
    assert catalogue.ok, f"/i18n/{lang}.json answered {catalogue.status}"
    codes = {t["code"] for t in tables.made.values()}
    codes |= {f"{c[:4]}-{c[4:]}" for c in codes}  # as the pages show them (K7QX-2M)
    language = Language(catalogue.json(), codes, page.evaluate(CALENDAR_SCRIPT, LANGS[lang]))

    phone.allow_console_error(r"status of 404 .* @ .*/t/ZZZZZZ$")  # the not-found page is a 404
    pages, skipped = walk_pages(tables, server)
    timings: dict[str, float] = {}
    axe_failures: dict[str, list[str]] = {}
    language_failures: dict[str, list[str]] = {}
    started = time.monotonic()
    for name, path in pages:
        began = time.monotonic()
        page.goto(path)
        try:
            wait_until_drawn(page, name)
        except AssertionError as err:
            axe_failures.setdefault(name, []).append(f"the page was never drawn: {err}")
        page.screenshot(path=SHOTS / f"{name}-{lang}-{theme}.png", full_page=True)
        found = check_axe(page)
        if found:
            axe_failures[name] = axe_failures.get(name, []) + found
        if theme == "light":
            wrong = check_language(page, lang, language)
            if wrong:
                language_failures[name] = wrong
        timings[name] = round(time.monotonic() - began, 2)
    report[f"{lang}-{theme}"] = {
        "seconds": round(time.monotonic() - started, 1),
        "skipped": skipped,
        "timings": timings,
        "axe": axe_failures,
        "language": language_failures,
    }
    for line in skipped:
        print(f"[{lang}-{theme}] {line}")

    sections = []
    if axe_failures:
        sections.append(
            f"axe-core, impact {' or '.join(FAILING_IMPACTS)}, {lang} {theme}:\n"
            + "\n".join(
                f"  {name} ({dict(pages)[name][:40]}):\n" + "\n".join(f"    {line}" for line in lines)
                for name, lines in axe_failures.items()
            )
        )
    if language_failures:
        sections.append(
            f"texts that are neither data nor a string of the {lang} catalogue:\n"
            + "\n".join(
                f"  {name} ({dict(pages)[name][:40]}):\n" + "\n".join(f"    {line}" for line in lines)
                for name, lines in language_failures.items()
            )
        )
    assert not sections, "\n\n".join(sections)
