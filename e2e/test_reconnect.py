"""A follower's page reconnects on its own schedule: random waits that grow while attempts fail, and
a stream resumed from the version it holds (issue 28, item 3).

When a server stops, all its phones lose their streams at once; if each came back after the same
fixed wait they would all come back at once. `static/js/live.js` waits a random time below a ceiling
that doubles with each failed attempt (`reconnectDelay`, "full jitter"), and starts again from the
smallest once a stream delivers. In Chromium at 390x844: the policy's bounds and spread, and a table
view whose stream ends, is refused twice, then comes back with every version it missed.
"""

from __future__ import annotations

import re

from playwright.sync_api import Route, expect

from e2e.test_live_pages import morto, touched
from e2e.test_offline import api

BACK_MS = 20_000  # bounds a page that never comes back: first + 2 + 4 s of waits at most, and the loads


def test_the_waits_are_random_below_a_ceiling_that_doubles_up_to_its_cap(phone, server):
    page = phone().new_page()
    page.goto("/")
    found = page.evaluate(
        """async () => {
          const { RECONNECT, reconnectDelay } = await import("/static/js/live.js");
          const attempts = [...Array(8).keys()];
          return {
            policy: RECONNECT,
            lowest: attempts.map((n) => reconnectDelay(n, () => 0)),
            highest: attempts.map((n) => reconnectDelay(n, () => 0.999999)),
            drawn: [...Array(200)].map(() => reconnectDelay(3)),
          };
        }"""
    )
    first, most = found["policy"]["first"], found["policy"]["most"]
    ceilings = [min(most, first * 2**n) for n in range(8)]
    assert ceilings[-1] == most and ceilings[0] == first  # it doubles, then stops at its cap
    assert found["lowest"] == [0] * 8
    assert found["highest"] == [ceiling - 1 for ceiling in ceilings]
    drawn = found["drawn"]
    assert all(0 <= wait < ceilings[3] for wait in drawn)
    # Two hundred phones on their fourth attempt: spread over the whole window, not bunched.
    quarters = [
        sum(q * ceilings[3] / 4 <= wait < (q + 1) * ceilings[3] / 4 for wait in drawn) for q in range(4)
    ]
    assert all(count >= 20 for count in quarters), quarters


def test_a_dropped_stream_comes_back_after_growing_random_waits_with_what_it_missed(phone, server):
    table = morto(server)
    code, secret = table["code"], table["secret"]
    phone.allow_console_error(r"ERR_CONNECTION_REFUSED @ .*/stream\?since=0$")  # the refusals below
    context = phone(service_workers="block")  # every stream request goes through the route below
    # The page's waits before it opens a stream again (the timer that calls `open`).
    context.add_init_script(
        """(() => {
          const set = window.setTimeout;
          window.reconnectWaits = [];
          window.setTimeout = (fn, ms, ...rest) => {
            if (typeof fn === "function" && fn.name === "open") window.reconnectWaits.push(ms);
            return set(fn, ms, ...rest);
          };
        })();"""
    )
    asked: list[str] = []
    tapped = {}

    def stream(route: Route) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:  # the first stream delivers nothing and ends: the server stopped
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body="retry: 1000\n\n")
        elif len(asked) in (2, 3):  # the server is not back yet; the table goes on without the phone
            if len(asked) == 2:
                body = {"id": "t1", "type": "touched_early", "player": "p3"}
                tapped.update(api(server, f"/api/tables/{code}/events", body, secret))
            route.abort("connectionrefused")
        else:
            route.continue_()

    context.route(re.compile(r"/api/tables/\w+/stream"), stream)
    page = context.new_page()
    page.goto(f"/t/{code}")
    expect(page.locator("#sync")).to_have_attribute("data-live", "1", timeout=BACK_MS)
    assert len(asked) == 4, asked
    assert all(url.endswith("?since=0") for url in asked), asked  # each attempt resumes from what it held
    waits = page.evaluate("window.reconnectWaits")
    assert len(waits) == 3, waits  # one wait before each attempt after the first
    assert all(0 <= wait < 1000 * 2**n for n, wait in enumerate(waits)), waits
    expect(page.locator("#happened")).to_have_text(touched("Chiara", "p3"))
    assert tapped["version"] == 1
