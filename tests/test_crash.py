"""Crash safety, short: ``bench/crash.py`` with 3 referees and 5 kills, on SQLite and PostgreSQL.

The real server (``companion serve``) is SIGKILLed as a whole (the gunicorn master and every worker)
while referees tap with retries, and restarted at once. Every acknowledged tap must be in the log
once, in order, as sent; nothing else logged; undos as acknowledged; the version the count of
writes; the snapshot a replay of the log. See ``bench/crash.py`` for the harness and the checks.

Nothing here asserts on timing: waits only bound how long a broken server can hang the suite.
"""

from __future__ import annotations

from bench import crash


def test_acknowledged_taps_survive_killing_the_whole_server(served):
    make_server, _tables = served
    template = make_server()  # never started: its environment and log file, for this backend
    server = crash.restartable_server(template.env, template.log, workers=2)
    try:
        report = crash.run(server, referees=3, kills=5, seed=7)
    finally:
        server.stop()
    summary = report.text()
    assert report.kills == 5, summary
    assert len(report.come_back) == 5, summary  # the server came back and acknowledged after each kill
    assert report.events > 0 and report.undos > 0, summary
    assert report.stale_refused == report.stale_sent, summary  # every stale version on purpose got 409
    assert dict(report.failures) == {}, summary
    assert report.details == [], summary
