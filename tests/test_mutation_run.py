"""The mutation run's own arithmetic (bench/mutation.py): which mutants a run picks, the sample's
interval, and the tests it leaves out of the judging. The run itself is too long for the suite: its
figures are in docs/RELIABILITY.md."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from types import SimpleNamespace

import pytest

from bench import mutation

NAMES = [
    f"engine.{module}.x_f{f}__mutmut_{n}"
    for module in ("core", "morto")
    for f in range(5)
    for n in range(1, 21)
]


@pytest.mark.parametrize(
    ("killed", "judged", "low", "high"),
    [(50, 100, 0.4038, 0.5962), (10, 10, 0.7225, 1.0), (0, 10, 0.0, 0.2775), (295, 300, 0.9616, 0.9929)],
)
def test_the_sample_interval_is_wilsons(killed, judged, low, high):
    assert mutation.wilson(killed, judged) == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_a_sample_is_drawn_among_the_chosen_modules_the_same_for_the_same_seed():
    sample = mutation.selected(NAMES, ["engine.morto"], 30, seed=7)
    assert len(sample) == 30 and {mutation.module_of(n) for n in sample} == {"engine.morto"}
    assert sample == mutation.selected(list(reversed(NAMES)), ["engine.morto"], 30, seed=7)
    assert sample != mutation.selected(NAMES, ["engine.morto"], 30, seed=8)
    assert mutation.selected(NAMES, ["engine.morto"], 500, seed=7) == sorted(NAMES[100:])
    assert mutation.selected(NAMES, None, None, seed=0) == sorted(NAMES)


def test_mutmut_is_asked_for_whole_modules_by_pattern_and_for_a_sample_by_name():
    def choice(modules=None, **options):
        args = SimpleNamespace(**({"equivalents": False, "sample": None, "seed": 0} | options))
        chosen = mutation.choose(args, modules, NAMES)
        return chosen, mutation.asked(chosen, chosen["names"], fresh=True)

    chosen, asked = choice(["engine.morto"])
    assert chosen["population"] == 100 and asked == ["engine.morto.x*"]
    assert choice()[1] == []  # every mutant
    chosen, asked = choice(["engine.morto"], sample=30, seed=3)
    assert chosen["population"] == 100 and asked == chosen["names"] and len(asked) == 30
    assert mutation.asked(chosen, chosen["names"][:2], fresh=False) == chosen["names"][:2]  # resumed


def test_module_names():
    assert mutation.module_of("engine.gjdlv.xǁDeckǁdraw__mutmut_3") == "engine.gjdlv"
    assert mutation.module_of_path("engine/gjdlv_play.py") == "engine.gjdlv_play"
    assert mutation.module_of_path("engine/__init__.py") == "engine"


def test_the_modules_changed_since_a_revision_are_the_engine_files_edited_or_added(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    (tmp_path / "engine").mkdir()
    for name in ("core.py", "morto.py", "gjdlv.py"):
        (tmp_path / "engine" / name).write_text("X = 1\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "start")
    (tmp_path / "engine" / "morto.py").write_text("X = 2\n")  # edited, not committed
    (tmp_path / "engine" / "gjdlv_cards.py").write_text("Y = 1\n")  # new, not tracked
    (tmp_path / "engine" / "notes.txt").write_text("not a module\n")
    assert mutation.changed_modules("HEAD", tmp_path) == ["engine.gjdlv_cards", "engine.morto"]
    git("add", ".")
    git("commit", "-q", "-m", "more")
    assert mutation.changed_modules("HEAD", tmp_path) == []
    assert mutation.changed_modules("HEAD~1", tmp_path) == ["engine.gjdlv_cards", "engine.morto"]


def test_tests_through_the_app_a_served_process_or_a_database_are_left_out_of_the_judging():
    deselected = []
    config = SimpleNamespace(hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    engine_test = SimpleNamespace(fixturenames=["monkeypatch"])
    items = [
        SimpleNamespace(fixturenames=["client", "app", "database_url", "backend"]),
        engine_test,
        SimpleNamespace(fixturenames=["postgres"]),
        SimpleNamespace(fixturenames=["live_servers", "backend"]),  # served processes (tests/test_rematch.py)
    ]
    web = [items[0], items[2], items[3]]
    mutation.pytest_collection_modifyitems(config, items)
    assert items == [engine_test] and deselected == web


def test_the_equivalent_mutants_are_read_from_the_reliability_page():
    listed = mutation.equivalents()
    assert listed and all(name.startswith("engine.") and "__mutmut_" in name for name in listed)


def test_the_score_leaves_out_the_equivalent_mutants_and_those_that_run_only_at_import(tmp_path, monkeypatch):
    page = tmp_path / "RELIABILITY.md"
    page.write_text(
        "## Mutation testing\n\n`engine.core.x_a__mutmut_1` in the prose.\n\n"
        "### Equivalent mutants\n\n- `engine.core.x_b__mutmut_2`: why.\n\n"
        "### Mutants that run only at import\n\n- `engine.gjdlv.x__sheet_only__mutmut_5`: why.\n\n"
        "### Listed on 2026-11-23, to find again\n\n- was `engine.core.x_c__mutmut_3`: why.\n"
    )
    monkeypatch.setattr(mutation, "RELIABILITY", page)
    assert mutation.equivalents() == {"engine.core.x_b__mutmut_2", "engine.gjdlv.x__sheet_only__mutmut_5"}


def test_every_judging_test_has_an_id_a_selection_can_name_back():
    """mutmut's forked clean run names each test it needs; pytest found none of those whose
    parameter id held a quote (``ids=repr``) and the whole run stopped (exit 4, twice on 2026-11-28)."""
    files = tomllib.loads((mutation.ROOT / "pyproject.toml").read_text())["tool"]["mutmut"][
        "pytest_add_cli_args_test_selection"
    ]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", *files],
        cwd=mutation.ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ids = [line for line in collected.splitlines() if "::" in line]
    assert len(ids) > 1000
    assert [test for test in ids if "'" in test or '"' in test] == []
