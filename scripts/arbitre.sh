#!/usr/bin/env bash
# Sets up everything Arbitre needs on a fresh Debian machine (run as root), then starts the app
# (`start`) or runs every test (`test`). Safe to run again: each step skips what is already there.
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
  # The Pyodide runtime the browser runs the engine with, pinned by package-lock.json.
  if [ ! -f node_modules/pyodide/package.json ] || ! cmp -s package-lock.json node_modules/.package-lock.json.copy; then
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.package-lock.json.copy
  fi
}

python_env() {
  if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
  .venv/bin/pip install -q --disable-pip-version-check -e ".[$1]"
}

case "${1:-}" in
  start)
    apt_install "${need_apt[@]}"
    node_env
    python_env postgres
    shift
    exec .venv/bin/companion serve "$@"
    ;;
  test)
    command -v chromium >/dev/null || need_apt+=(chromium)
    fc-list 2>/dev/null | grep -qi dejavu || need_apt+=(fonts-dejavu-core)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
    apt_install "${need_apt[@]}"
    node_env
    python_env test
    shift
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: $0 start [--host H --port P] | test [pytest args]" >&2
    exit 2
    ;;
esac
