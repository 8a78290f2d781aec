#!/usr/bin/env bash
# The README's first command (after setup): sample crawl, three days, summary.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
exec "$VENV/bin/crawldedup" demo "$@"
