#!/usr/bin/env bash
# Builds the zip that spark-submit ships to executors (--py-files): dist/crawldedup-<ver>.zip.
# Prints its absolute path. Usage: scripts/build_dist.sh [OUT_DIR]   (default <repo>/dist)
set -euo pipefail
source "$(dirname "$0")/env.sh"
OUT="${1:-$ROOT/dist}"
# From the repo's sources (the venv holds the project as an editable install).
cd "$ROOT"
"$VENV/bin/python" -m crawldedup.pipeline.package --out "$OUT"
