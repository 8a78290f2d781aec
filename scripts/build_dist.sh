#!/usr/bin/env bash
# Builds the zip that spark-submit ships with every job (--py-files): dist/crawldedup-<ver>.zip,
# the import closure of the stage modules and of the jobs' crawldedup.cli, with their package
# data; the sample, demo, submit and packaging code stay out (crawldedup/pipeline/package.py).
# Prints its absolute path. Usage: scripts/build_dist.sh [OUT_DIR]   (default <repo>/dist)
# CRAWLDEDUP_DIST_LIST=1 also lists the zip's entries on stderr.
set -euo pipefail
source "$(dirname "$0")/env.sh"
OUT="${1:-$ROOT/dist}"
# From the repo's sources (the venv holds the project as an editable install).
cd "$ROOT"
"$VENV/bin/python" -m crawldedup.pipeline.package --out "$OUT" ${CRAWLDEDUP_DIST_LIST:+--list}
