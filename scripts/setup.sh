#!/usr/bin/env bash
# Creates the venv and installs the project (with the dev extras when given "dev").
# Downloads are cached by pip under ~/.cache/pip, so a second run downloads nothing.
set -euo pipefail
source "$(dirname "$0")/env.sh"
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
fi
extras=""
[[ "${1:-}" == "dev" ]] && extras="[dev]"
"$VENV/bin/pip" install -q -e "$ROOT$extras"
