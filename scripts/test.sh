#!/usr/bin/env bash
# The README's test command: installs what the tests need, starts the servers they
# need (reusing ones already up), and runs every test layer.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh" dev
cd "$ROOT"
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
"$VENV/bin/pytest" "$@"
