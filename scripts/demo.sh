#!/usr/bin/env bash
# The README's first command (after setup): sample crawl, three days, summary.
# The demo and its sample crawl live in the repo (demo/crawldedup_demo), not in the
# installed engine: run from here, with demo/ on the path.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
export PYTHONPATH="$ROOT/demo${PYTHONPATH:+:$PYTHONPATH}"
exec "$VENV/bin/python" -m crawldedup_demo demo "$@"
