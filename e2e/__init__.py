"""End-to-end tests (a package so that ``e2e/conftest.py`` and ``e2e/test_morto.py`` do not clash with
``tests/conftest.py`` and ``tests/test_morto.py`` when one ``pytest`` run collects both folders)."""
