#!/usr/bin/env bash
# Writes crawldedup's Spark configuration for daily batches to DIR/spark-defaults.conf,
# a copy of the file crawldedup ships (crawldedup/pipeline/spark-conf/), to edit or to
# add your own settings to:
#
#   scripts/spark_conf.sh DIR          # then: export SPARK_CONF_DIR=DIR
#
# Without SPARK_CONF_DIR (and no spark-defaults.conf in Spark's own conf/), the drivers
# crawldedup starts use the shipped file itself: C1 only and the parallel collector
# (docs/operations.md#spark-settings-for-daily-batches). An existing spark-defaults.conf
# that this script did not write is left alone (exit 2).
set -euo pipefail
if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: scripts/spark_conf.sh DIR" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHIPPED="$ROOT/crawldedup/pipeline/spark-conf/spark-defaults.conf"
DIR="$1"
FILE="$DIR/spark-defaults.conf"
MARK="$(head -n 1 "$SHIPPED")"
if [[ -e "$FILE" ]] && ! head -n 1 "$FILE" | grep -qF -e "$MARK" -e "# Written by crawldedup's scripts/spark_conf.sh"; then
  echo "spark_conf.sh: $FILE exists and was not written by this script: add its lines by hand" >&2
  exit 2
fi
mkdir -p "$DIR"
cp "$SHIPPED" "$FILE"
echo "wrote $FILE; use it with: export SPARK_CONF_DIR=$(cd "$DIR" && pwd)"
