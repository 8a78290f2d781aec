#!/usr/bin/env bash
# The README's test command: installs what the tests need, starts the servers they
# need (reusing ones already up), lints, type-checks and runs the tests.
#
#   scripts/test.sh [PYTEST ARGS]         make test: every layer, without the tests
#                                         marked exhaustive
#   scripts/test.sh --all [PYTEST ARGS]   make test-all: every test
set -euo pipefail
select=(-m "not exhaustive")
if [[ "${1:-}" == "--all" ]]; then
  select=()
  shift
fi
source "$(dirname "$0")/env.sh"
"$ROOT/scripts/setup.sh" dev
cd "$ROOT"
# A real HBase (Maven Central jars cached under ~/.m2 and ~/.cache); reused when up, and
# stopped at the end (also when a test fails or pytest is killed) when this run started it.
stop_on_exit=()
cleanup() { for cmd in "${stop_on_exit[@]}"; do eval "$cmd"; done; }
trap cleanup EXIT
if ! "$ROOT/scripts/hbase.sh" status >/dev/null 2>&1; then
  stop_on_exit+=('"$ROOT/scripts/hbase.sh" down >/dev/null 2>&1 || true')
fi
"$ROOT/scripts/hbase.sh" up
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
# Every driver JVM the tests start (the session fixture, the CLI's subprocesses, the DAG's
# spark-submit tasks) runs under the Spark configuration crawldedup ships for short
# drivers (crawldedup/pipeline/spark-conf/), whatever the caller's SPARK_CONF_DIR:
# tests/integration/test_spark_conf_recipe.py checks that it reaches the driver.
unset SPARK_CONF_DIR
# tests/cluster start a Spark standalone cluster (scripts/spark_cluster.sh) from their
# fixture and stop it; should pytest be killed, the trap stops one this run started.
if ! "$ROOT/scripts/spark_cluster.sh" status >/dev/null 2>&1; then
  stop_on_exit+=('"$ROOT/scripts/spark_cluster.sh" down >/dev/null 2>&1 || true')
fi
# Two pytest processes (pytest-xdist): most of a test's time is waiting (JVM and Airflow
# starts, HBase's table operations, stage after stage of small Spark jobs), so two share
# the two cores of a small machine well. tests/conftest.py keeps a file's tests in one
# process and every HBase file in the same one. CRAWLDEDUP_TEST_WORKERS=0: one process.
workers=(-n "${CRAWLDEDUP_TEST_WORKERS:-2}")
# The slowest tests are listed at the end: timings belong to reports, not to asserts.
"$VENV/bin/pytest" "${select[@]}" "${workers[@]}" --durations=15 "$@"
