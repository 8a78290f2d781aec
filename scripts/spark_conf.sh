#!/usr/bin/env bash
# Writes Spark configuration for crawldedup's daily batches: DIR/spark-defaults.conf.
#
#   scripts/spark_conf.sh DIR          # then: export SPARK_CONF_DIR=DIR
#
# A day's driver JVM lives minutes, not days. Two JVM options suit that life
# (docs/operations.md#spark-settings-for-daily-batches has the measurements):
#   -XX:TieredStopAtLevel=1  compile with C1 only: C2's optimizing compiles cost more
#                            CPU than they earn back before the driver exits;
#   -XX:+UseParallelGC       a throughput collector without G1's concurrent threads.
# They go in spark.driver.defaultJavaOptions, the property Spark keeps for what a
# deployment sets, so crawldedup's own extraJavaOptions (its log4j file) add to them.
# Executors of a long-lived cluster keep the JVM's defaults. An existing
# spark-defaults.conf that this script did not write is left alone (exit 2).
set -euo pipefail
if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: scripts/spark_conf.sh DIR" >&2
  exit 2
fi
DIR="$1"
FILE="$DIR/spark-defaults.conf"
MARK="# Written by crawldedup's scripts/spark_conf.sh"
if [[ -e "$FILE" ]] && ! head -n 1 "$FILE" | grep -qF "$MARK"; then
  echo "spark_conf.sh: $FILE exists and was not written by this script: add its lines by hand" >&2
  exit 2
fi
mkdir -p "$DIR"
cat > "$FILE" <<CONF
$MARK: settings for short daily batch drivers.
spark.driver.defaultJavaOptions -XX:TieredStopAtLevel=1 -XX:+UseParallelGC
CONF
echo "wrote $FILE; use it with: export SPARK_CONF_DIR=$(cd "$DIR" && pwd)"
