#!/usr/bin/env bash
# Creates the venv and installs the project:
#   scripts/setup.sh          the engine and its CLI (`make demo`)
#   scripts/setup.sh airflow  with Airflow and the Spark provider, for dags/ and plugins/
#                             (`make airflow`)
#   scripts/setup.sh dev      with everything the tests, lint and benchmarks use (the
#                             airflow extra included)
# Downloads are cached by pip under ~/.cache/pip, so a second run downloads nothing.
set -euo pipefail
source "$(dirname "$0")/env.sh"
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'
case "${1:-}" in
  "") extras="" ;;
  dev | airflow) extras="[$1]" ;;
  *)
    echo "usage: $0 [dev|airflow]" >&2
    exit 2
    ;;
esac
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
fi
"$VENV/bin/pip" install -q -e "$ROOT$extras"
