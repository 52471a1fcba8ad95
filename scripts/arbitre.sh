#!/usr/bin/env bash
# Sets up everything Arbitre needs on a fresh Debian machine (run as root), then starts the app
# (`start`), or runs the linters then every test (`test`), or the linters alone (`lint`).
# Safe to run again: each step skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v python3 >/dev/null || need_apt+=(python3)
command -v npm >/dev/null || need_apt+=(nodejs npm)
python3 -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv python3-pip)

apt_install() {
  if [ "$#" -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  fi
}

node_env() {
  # The Pyodide runtime the browser runs the engine with, and ESLint (a devDependency, installed even
  # under NODE_ENV=production), pinned by package-lock.json.
  if [ ! -f node_modules/pyodide/package.json ] || [ ! -x node_modules/.bin/eslint ] \
      || ! cmp -s package-lock.json node_modules/.package-lock.json.copy; then
    npm ci --include=dev --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.package-lock.json.copy
  fi
}

python_env() {
  # The whole Python tree exactly as uv.lock pins it (each file's hash checked; --locked fails if
  # the lock no longer matches pyproject.toml), installed by uv at the version [tool.uv] requires,
  # itself installed from PyPI into the venv. --inexact keeps what another command's extras
  # installed (`start` after `test` keeps the test tools) and the venv's own pip and uv.
  if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
  local uv_version extras=()
  uv_version=$(sed -n 's/^required-version = "==\(.*\)"$/\1/p' pyproject.toml)
  [ "$(.venv/bin/uv --version 2>/dev/null | cut -d' ' -f2)" = "$uv_version" ] \
    || .venv/bin/pip install -q --disable-pip-version-check "uv==$uv_version"
  for extra in "$@"; do extras+=(--extra "$extra"); done
  .venv/bin/uv sync --locked --inexact --quiet "${extras[@]}"
}

lint() {
  # Every check always runs, so one pass lists every finding; any one failing fails the command.
  local failed=0
  echo "ruff check ." >&2
  .venv/bin/ruff check . || failed=1
  echo "ruff format --check ." >&2
  .venv/bin/ruff format --check . || failed=1
  # Every package imported anywhere is declared, and the serving code imports only what `start`
  # installs (the dependencies and `postgres`, not the dev, test or bench extras).
  echo "deptry ." >&2
  .venv/bin/deptry . || failed=1
  echo "deptry . (serving code)" >&2
  .venv/bin/deptry . --optional-dependencies-dev-groups dev,test,bench \
    --extend-exclude '^(tests|e2e|bench|scripts)/' || failed=1
  # companion's rooms and the directions between them, and no import circle ([tool.importlinter]).
  echo "lint-imports" >&2
  .venv/bin/lint-imports --no-cache || failed=1
  echo "uv lock --check" >&2
  .venv/bin/uv lock --check || failed=1
  echo "eslint" >&2
  npx --no -- eslint || failed=1  # --no: the pinned one in node_modules, never a download
  if [ "$failed" -ne 0 ]; then
    echo "lint failed: fix the findings above (bash scripts/arbitre.sh lint runs the linters alone)" >&2
  fi
  return "$failed"
}

case "${1:-}" in
  start)
    apt_install "${need_apt[@]}"
    node_env
    python_env postgres
    .venv/bin/companion build-assets
    shift
    exec .venv/bin/companion serve "$@"
    ;;
  test)
    command -v chromium >/dev/null || need_apt+=(chromium)
    fc-list 2>/dev/null | grep -qi dejavu || need_apt+=(fonts-dejavu-core)
    # The emoji a phone draws (🔁, 🏆, ☠) drawn in the screenshots too, not as empty boxes.
    fc-list 2>/dev/null | grep -qi "color emoji" || need_apt+=(fonts-noto-color-emoji)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
    apt_install "${need_apt[@]}"
    node_env
    python_env dev test
    shift
    lint
    .venv/bin/companion build-assets
    if [ "$#" -eq 0 ]; then
      # The whole suite: the engine's branch coverage is reported, and under 100% fails the run
      # ([tool.coverage] in pyproject.toml). A subset given as arguments is not judged on it.
      set -- --cov --cov-report=term-missing:skip-covered
    fi
    exec .venv/bin/python -m pytest "$@"
    ;;
  lint)
    apt_install "${need_apt[@]}"
    node_env
    python_env dev test
    lint
    ;;
  *)
    echo "usage: $0 start [--host H --port P] | test [pytest args] | lint" >&2
    exit 2
    ;;
esac
