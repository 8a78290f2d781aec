#!/usr/bin/env bash
# Builds the project's wheel and prints the path of the file that spark-submit ships with
# every job (--py-files): dist/crawldedup-<ver>.zip, the wheel itself under a name Spark
# puts on the executors' sys.path (Spark adds .zip/.egg/.jar py-files to the path, not
# .whl; a pure-Python wheel is a zip that Python's zipimport reads as it is).
# Third-party packages come from the executors' Python environment (PYSPARK_PYTHON).
# Usage: scripts/build_dist.sh [OUT_DIR]   (default <repo>/dist)
set -euo pipefail
source "$(dirname "$0")/env.sh"
OUT="${1:-$ROOT/dist}"
mkdir -p "$OUT"
"$VENV/bin/python" -m crawldedup.pipeline.submit --build-dist "$OUT"
