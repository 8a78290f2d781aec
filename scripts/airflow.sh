#!/usr/bin/env bash
# Quickstart: Airflow 3 standalone with the crawl_dedup_daily DAG, its connections and a
# 3-day sample crawl (2026-11-01..03), everything under <repo>/.airflow (gitignored).
#
#   scripts/airflow.sh [standalone]  set up, then `airflow standalone` in the foreground
#                                    (UI on http://localhost:$AIRFLOW_PORT; the admin
#                                    password is printed and kept in .airflow/)
#   scripts/airflow.sh setup         set up only: metadata DB, connections, sample crawl
#   scripts/airflow.sh cli ARGS...   `airflow ARGS...` against this Airflow, for example
#
#     scripts/airflow.sh cli dags unpause crawl_dedup_daily
#     scripts/airflow.sh cli backfill create --dag-id crawl_dedup_daily \
#         --from-date 2026-11-01 --to-date 2026-11-03T03:00:00 \
#         --reprocess-behavior completed --max-active-runs 1
#     scripts/airflow.sh cli dags trigger crawl_dedup_daily -l 2026-11-01T12:00:00 \
#         -c '{"threshold": 0.85}'
#
#   (logical dates of the daily schedule are at 03:00 UTC, so the window must reach the
#   last day's 03:00; depends_on_past makes --reprocess-behavior mandatory.)
#
# Environment (all optional):
#   AIRFLOW_PORT               UI / API server port                          (8080)
#   CRAWLDEDUP_AIRFLOW_STORE   auto: the hbase_default connection when scripts/hbase.sh
#                              status says HBase is up, else the embedded store;
#                              embedded; or hbase (starts HBase)              (auto)
#   CRAWLDEDUP_AIRFLOW_PREFIX  HBase table prefix of the quickstart    (airflow_quickstart)
#   AIRFLOW__SCHEDULER__USE_JOB_SCHEDULE  True to let the scheduler create scheduled runs
#                              (False: the sample has no crawl for "yesterday", whose
#                              scheduled run would wait in its sensor for hours)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

export AIRFLOW_HOME="$ROOT/.airflow"
export AIRFLOW__CORE__DAGS_FOLDER="$ROOT/dags"
export AIRFLOW__CORE__PLUGINS_FOLDER="$ROOT/plugins"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__API__PORT="${AIRFLOW_PORT:-8080}"
# SQLite waits up to 30 s for a lock instead of 5: without it, CLI writes such as
# `backfill create` failed with "database is locked" while the scheduler was writing.
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="${AIRFLOW__DATABASE__SQL_ALCHEMY_CONN:-sqlite:///$AIRFLOW_HOME/airflow.db?timeout=30}"
export AIRFLOW__SCHEDULER__USE_JOB_SCHEDULE="${AIRFLOW__SCHEDULER__USE_JOB_SCHEDULE:-False}"
# The DAG's param defaults: the sample crawl and a home of its own.
export CRAWLDEDUP_INPUT_ROOT="$AIRFLOW_HOME/crawl"
export CRAWLDEDUP_HOME="$AIRFLOW_HOME/crawldedup"

log() { echo "airflow.sh: $*" >&2; }

want_hbase() {
  case "${CRAWLDEDUP_AIRFLOW_STORE:-auto}" in
    embedded) return 1 ;;
    hbase) "$ROOT/scripts/hbase.sh" up >&2 ;;
    auto) "$ROOT/scripts/hbase.sh" status >/dev/null 2>&1 ;;
    *)
      log "CRAWLDEDUP_AIRFLOW_STORE must be auto, embedded or hbase"
      exit 2
      ;;
  esac
}

setup() {
  mkdir -p "$AIRFLOW_HOME"
  log "migrating the metadata DB in $AIRFLOW_HOME"
  airflow db migrate >"$AIRFLOW_HOME/db-migrate.log" 2>&1 ||
    { tail -n 30 "$AIRFLOW_HOME/db-migrate.log" >&2; exit 1; }

  # One import (each airflow CLI call costs seconds); --overwrite so edits here apply.
  # spark_default: the provider falls back to master "yarn" without it. conn_type spark
  # with the master as host and no port is used verbatim as --master.
  local conns="$AIRFLOW_HOME/quickstart-connections.json" hbase=""
  if want_hbase; then
    local prefix="${CRAWLDEDUP_AIRFLOW_PREFIX:-airflow_quickstart}"
    hbase=$(printf ', "hbase_default": {"conn_type": "hbase", "host": "127.0.0.1", "port": %s,
      "extra": "{\\"table_prefix\\": \\"%s\\", \\"timeout_ms\\": 60000, \\"retries\\": 5}",
      "description": "crawldedup quickstart: scripts/hbase.sh"}' "${HBASE_THRIFT_PORT:-9090}" "$prefix")
    log "store: HBase on 127.0.0.1:${HBASE_THRIFT_PORT:-9090}, table prefix $prefix"
  else
    log "store: embedded SQLite under $CRAWLDEDUP_HOME"
  fi
  cat >"$conns" <<EOF
{"spark_default": {"conn_type": "spark", "host": "local[*]",
                   "description": "crawldedup quickstart: Spark in local mode"}$hbase}
EOF
  airflow connections import --overwrite "$conns" >/dev/null
  if [[ -z "$hbase" ]]; then
    airflow connections delete hbase_default >/dev/null 2>&1 || true
  fi

  if [[ ! -f "$CRAWLDEDUP_INPUT_ROOT/truth.jsonl" ]]; then
    log "writing the sample crawl to $CRAWLDEDUP_INPUT_ROOT"
    crawldedup sample --out "$CRAWLDEDUP_INPUT_ROOT" --days 3 >/dev/null
  fi
  # The crawler's completion markers, which the sensor waits for by default.
  for day in "$CRAWLDEDUP_INPUT_ROOT"/dt=*/; do touch "$day/_SUCCESS"; done

  cat >&2 <<EOF
airflow.sh: ready. In another shell:
  scripts/airflow.sh cli dags unpause crawl_dedup_daily
  scripts/airflow.sh cli backfill create --dag-id crawl_dedup_daily --from-date 2026-11-01 \\
      --to-date 2026-11-03T03:00:00 --reprocess-behavior completed --max-active-runs 1
  crawldedup verdicts --date 2026-11-03 --home $CRAWLDEDUP_HOME $( [[ -n "$hbase" ]] && echo "--store hbase://127.0.0.1:${HBASE_THRIFT_PORT:-9090}/${CRAWLDEDUP_AIRFLOW_PREFIX:-airflow_quickstart}")
EOF
}

case "${1:-standalone}" in
  setup) setup ;;
  standalone)
    setup
    log "starting airflow standalone on port $AIRFLOW__API__PORT (Ctrl-C stops it)"
    exec airflow standalone
    ;;
  cli)
    shift
    exec airflow "$@"
    ;;
  *)
    echo "usage: $0 [standalone|setup|cli ARGS...]" >&2
    exit 2
    ;;
esac
