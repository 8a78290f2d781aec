#!/usr/bin/env bash
# Quickstart: a local Airflow 3 (what `airflow standalone` starts, every listener on
# 127.0.0.1) with the crawl_dedup_daily DAG, its connections and a 3-day sample crawl (the
# three days before today, UTC), everything under <repo>/.airflow (gitignored): the
# embedded store and the HTML reports under .airflow/crawldedup (docs/operations.md,
# Quickstart).
#
#   scripts/airflow.sh up          set up, start Airflow in the background (log:
#                                  .airflow/standalone.log), wait until the API answers,
#                                  print the URL and the login
#   scripts/airflow.sh down        stop every process `up` started, wait until the ports
#                                  are free
#   scripts/airflow.sh status      what runs: the processes, the API's health, the URL
#   scripts/airflow.sh password    the admin login of the UI
#   scripts/airflow.sh setup       set up only: metadata DB, connections, sample crawl
#   scripts/airflow.sh standalone  set up, then the same Airflow in the foreground (Ctrl-C
#                                  stops it)
#   scripts/airflow.sh cli ARGS... `airflow ARGS...` against this Airflow, for example
#
#     scripts/airflow.sh cli dags unpause crawl_dedup_daily
#     scripts/airflow.sh cli backfill create --dag-id crawl_dedup_daily \
#         --from-date 2026-11-28 --to-date 2026-11-29 --max-active-runs 1
#     scripts/airflow.sh cli backfill create --dag-id crawl_dedup_daily \
#         --from-date 2026-11-28 --to-date 2026-11-28 --reprocess-behavior completed \
#         --dag-run-conf '{"rules": ["content_md5", "head"]}'
#
#   (a backfill processes every crawl day from its from-date's day through its to-date's
#   day, both included; the second one reruns 2026-11-28 with other rules.)
#
# Environment (all optional):
#   CRAWLDEDUP_AIRFLOW_HOME    the Airflow home (DB, logs, sample crawl)  (<repo>/.airflow)
#   AIRFLOW_HOST               the address the UI / API server binds       (127.0.0.1)
#                              (0.0.0.0 to reach it from other machines; the log
#                              servers, read by the API server only, stay on 127.0.0.1)
#   AIRFLOW_PORT               UI / API server port                          (8080)
#   CRAWLDEDUP_AIRFLOW_PARALLELISM  task slots = LocalExecutor workers    (nproc, >= 2)
#   CRAWLDEDUP_AIRFLOW_TRIGGERER  true to start a triggerer (and its log server) for
#                              deferrable tasks of your own DAGs; crawl_dedup_daily
#                              defers nothing (its sensor reschedules)      (false)
#   CRAWLDEDUP_AIRFLOW_STORE   auto: the hbase_default connection when scripts/hbase.sh
#                              status says HBase is up, else the embedded store;
#                              embedded; or hbase (starts HBase)              (auto)
#   CRAWLDEDUP_AIRFLOW_PREFIX  HBase table prefix of the quickstart    (airflow_quickstart)
#   CRAWLDEDUP_SCHEDULED_RUNS  true to let the scheduler plan daily runs      (false: the
#                              sample crawl has no "today", whose run would wait in its
#                              sensor for hours; the UI then shows no "Next Run")
#   CRAWLDEDUP_AIRFLOW_UP_TIMEOUT_S  how long `up` waits for the API        (240)
#   CRAWLDEDUP_ALLOWED_ROOTS   folders the DAG's path params may point into, `:`-separated
#                              (the sample crawl, the quickstart's home, <repo>/config)
#   CRAWLDEDUP_ALLOW_STORE_URL true to let the `store` param name a URL   (unset: refused;
#                              the store is hbase_default or the embedded one)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

export AIRFLOW_HOME="${CRAWLDEDUP_AIRFLOW_HOME:-$ROOT/.airflow}"
export AIRFLOW__CORE__DAGS_FOLDER="$ROOT/dags"
export AIRFLOW__CORE__PLUGINS_FOLDER="$ROOT/plugins"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
HOST="${AIRFLOW_HOST:-127.0.0.1}"
PORT="${AIRFLOW_PORT:-8080}"
export AIRFLOW__API__HOST="$HOST"
export AIRFLOW__API__PORT="$PORT"
# Where browsers and the workers reach the API: 127.0.0.1 unless bound to one address.
case "$HOST" in 0.0.0.0 | :: | "") REACH=127.0.0.1 ;; *) REACH="$HOST" ;; esac
URL="http://$REACH:$PORT"
export AIRFLOW__API__BASE_URL="${AIRFLOW__API__BASE_URL:-$URL}"
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL="${AIRFLOW__CORE__EXECUTION_API_SERVER_URL:-$URL/execution/}"
# What `airflow standalone` forces: the local executor and the simple auth manager (its
# generated admin password).
export AIRFLOW__CORE__EXECUTOR=LocalExecutor
export AIRFLOW__CORE__AUTH_MANAGER=airflow.api_fastapi.auth.managers.simple.simple_auth_manager.SimpleAuthManager
# The log servers of the scheduler (LocalExecutor workers' task logs) and the triggerer,
# which the API server reads while a task runs. Airflow binds them on every address, with
# no setting for it, so `serve` starts them itself on 127.0.0.1 (LOG_HOST) and the
# scheduler and triggerer with --skip-serve-logs; the API server finds a log server at
# http://<the task's hostname>:<port>, hence hostnames that name 127.0.0.1
# (urllib.request.localhost: socket.gethostbyname("localhost"); the machine's name may
# resolve to another address, 127.0.1.1 on Debian).
LOG_HOST=127.0.0.1
WORKER_LOG_PORT="${AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT:-8793}"
TRIGGER_LOG_PORT="${AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT:-8794}"
export AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT="$WORKER_LOG_PORT"
export AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT="$TRIGGER_LOG_PORT"
export AIRFLOW__CORE__HOSTNAME_CALLABLE="${AIRFLOW__CORE__HOSTNAME_CALLABLE:-urllib.request.localhost}"
# The scheduler's health check server (off unless [scheduler] enable_health_check).
export AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_SERVER_HOST="${AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_SERVER_HOST:-127.0.0.1}"
# Sized to the machine: LocalExecutor starts `parallelism` workers up front (32 by
# default, ~6.5 GB on a 2-core machine); one API server worker; one parsing process.
cores=$(nproc 2>/dev/null || echo 2)
slots="${CRAWLDEDUP_AIRFLOW_PARALLELISM:-$((cores < 2 ? 2 : cores))}"
export AIRFLOW__CORE__PARALLELISM="${AIRFLOW__CORE__PARALLELISM:-$slots}"
export AIRFLOW__API__WORKERS="${AIRFLOW__API__WORKERS:-1}"
export AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES="${AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES:-1}"
# SQLite waits up to 30 s for a lock instead of 5: without it, CLI writes such as
# `backfill create` failed with "database is locked" while the scheduler was writing.
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="${AIRFLOW__DATABASE__SQL_ALCHEMY_CONN:-sqlite:///$AIRFLOW_HOME/airflow.db?timeout=30}"
# The DAG reads it: no scheduled runs (and no "Next Run" in the UI) unless asked for.
export CRAWLDEDUP_SCHEDULED_RUNS="${CRAWLDEDUP_SCHEDULED_RUNS:-false}"
# The DAG's param defaults: the sample crawl and a home of its own.
export CRAWLDEDUP_INPUT_ROOT="$AIRFLOW_HOME/crawl"
export CRAWLDEDUP_HOME="$AIRFLOW_HOME/crawldedup"
# Where the DAG's path params may point (input_root, home, topics_library, config): those
# two folders and the repo's config/ (config/topics.example.yaml, example configs).
export CRAWLDEDUP_ALLOWED_ROOTS="${CRAWLDEDUP_ALLOWED_ROOTS:-$CRAWLDEDUP_INPUT_ROOT:$CRAWLDEDUP_HOME:$ROOT/config}"
# Every process `up` starts carries CRAWLDEDUP_AIRFLOW_INSTANCE=$AIRFLOW_HOME in its
# environment (set for `serve` only, not in this script's own), so that `down` also finds
# a process that left the process group.

PIDFILE="$AIRFLOW_HOME/standalone.pid"
LOGFILE="$AIRFLOW_HOME/standalone.log"
PASSWORDS="$AIRFLOW_HOME/simple_auth_manager_passwords.json.generated"
# No triggerer unless asked for: it runs deferred tasks only, and the quickstart's DAGs
# defer nothing; with its log server it costs ~265 MB (PSS) and 3 processes idle
# (benchmarks/quickstart_memory.py).
TRIGGERER="${CRAWLDEDUP_AIRFLOW_TRIGGERER:-false}"
case "$TRIGGERER" in true | false) ;; *)
  echo "airflow.sh: CRAWLDEDUP_AIRFLOW_TRIGGERER must be true or false, not '$TRIGGERER'" >&2
  exit 2
  ;;
esac
# The API server, and the log servers of the scheduler (LocalExecutor) and the triggerer
# (their ports are [logging] settings).
PORTS=("$PORT" "$WORKER_LOG_PORT")
[[ "$TRIGGERER" == true ]] && PORTS+=("$TRIGGER_LOG_PORT")

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

sample_days() { ls -d "$CRAWLDEDUP_INPUT_ROOT"/dt=*/ 2>/dev/null | sed 's#.*/dt=\(.*\)/#\1#'; }

setup() {
  mkdir -p "$AIRFLOW_HOME"
  log "migrating the metadata DB in $AIRFLOW_HOME"
  airflow db migrate >"$AIRFLOW_HOME/db-migrate.log" 2>&1 ||
    { tail -n 30 "$AIRFLOW_HOME/db-migrate.log" >&2; exit 1; }

  # One import (each airflow CLI call costs seconds); --overwrite so edits here apply.
  # spark_default: the provider falls back to master "yarn" without it. conn_type spark
  # with the master as host and no port is used verbatim as --master. hbase_default
  # (conn type hbase, registered by this project's provider entry point) when on HBase.
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
    # The three days before today: a UI trigger with the form's defaults processes
    # yesterday (the last complete day), which is then in the sample.
    local start
    start=$(date -u -d '3 days ago' +%F)
    log "writing the sample crawl ($start and the 2 days after) to $CRAWLDEDUP_INPUT_ROOT"
    # The sample generator lives in the repo's demo/ folder, not in the installed engine.
    PYTHONPATH="$ROOT/demo${PYTHONPATH:+:$PYTHONPATH}" "$VENV/bin/python" -m crawldedup_demo \
      sample --out "$CRAWLDEDUP_INPUT_ROOT" --days 3 --start "$start" >/dev/null
  fi
  # The crawler's completion markers, which the sensor waits for by default.
  for day in "$CRAWLDEDUP_INPUT_ROOT"/dt=*/; do touch "$day/_SUCCESS"; done
  local yesterday
  yesterday=$(date -u -d yesterday +%F)
  if ! sample_days | grep -qx "$yesterday"; then
    log "note: the sample crawl ($(sample_days | tr '\n' ' ')) has no $yesterday; a trigger" \
      "with defaults processes $yesterday: set Logical date to a sample day, or remove $CRAWLDEDUP_INPUT_ROOT" \
      "and .airflow/crawldedup and run setup again for a fresh sample"
  fi
}

# A log server as Airflow's (airflow.utils.serve_logs: the task logs under the logs folder,
# to the API server's signed requests), bound to LOG_HOST instead of every address.
LOG_SERVER='import sys, setproctitle, uvicorn
from airflow.utils.serve_logs.log_server import get_app
host, port = sys.argv[1], int(sys.argv[2])
setproctitle.setproctitle(f"airflow serve-logs {sys.argv[3]} {host}:{port}")
uvicorn.run(get_app(), host=host, port=port, access_log=False)'

# One component in the background, its output prefixed with its name (as standalone's).
component() {
  local name=$1
  shift
  "$@" > >(exec sed -u "s/^/$name | /") 2>&1 &
}

# The components `airflow standalone` starts but the triggerer (CRAWLDEDUP_AIRFLOW_TRIGGERER),
# each bound where this script says: the API server on HOST:PORT, the scheduler (and the
# triggerer) without their log servers (every address), log servers on LOG_HOST in their
# stead. Runs until one of them exits or
# it gets TERM / INT (`down`, Ctrl-C); then it stops the others.
serve() {
  trap 'trap - TERM INT; kill -TERM $(jobs -p) 2>/dev/null; wait; exit 143' TERM INT
  component api-server airflow api-server --host "$HOST" --port "$PORT"
  component scheduler airflow scheduler --skip-serve-logs
  component dag-processor airflow dag-processor
  component worker-logs "$VENV/bin/python" -c "$LOG_SERVER" "$LOG_HOST" "$WORKER_LOG_PORT" worker
  if [[ "$TRIGGERER" == true ]]; then
    component triggerer airflow triggerer --skip-serve-logs
    component trigger-logs "$VENV/bin/python" -c "$LOG_SERVER" "$LOG_HOST" "$TRIGGER_LOG_PORT" triggerer
  fi
  local rc=0
  wait -n || rc=$?
  trap - TERM INT
  log "a component exited (status $rc); stopping the others"
  kill -TERM $(jobs -p) 2>/dev/null || true
  wait || true
  exit 1
}

# The PID (= process group id) of a running `up`, or nothing.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# PIDs of what `up` started: the members of its session (setsid made the `serve` process
# the leader of a new session; its children stay in it even if they change their
# process group), plus processes whose environment carries this instance's marker (in
# case one started a session of its own; setproctitle may blank that environment, hence
# the session first). This shell is never one of them.
our_pids() {
  local sid="${1:-}" env_file pid
  {
    if [[ -n "$sid" ]]; then ps -eo pid=,sid= | awk -v s="$sid" '$2 == s {print $1}'; fi
    for env_file in /proc/[0-9]*/environ; do
      pid=${env_file#/proc/}
      pid=${pid%/environ}
      if { tr '\0' '\n' <"$env_file"; } 2>/dev/null |
        grep -qxF "CRAWLDEDUP_AIRFLOW_INSTANCE=$AIRFLOW_HOME"; then
        echo "$pid"
      fi
    done
  } | sort -un | grep -vx -e "$$" -e "${BASHPID:-$$}" || true
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

busy_ports() {
  local p out=()
  for p in "${PORTS[@]}"; do port_busy "$p" && out+=("$p"); done
  echo "${out[*]:-}"
}

# Airflow's health answer, not just anything on the port (a Spark master's UI also
# defaults to 8080).
api_ready() { curl -fsS -m 5 "$URL/api/v2/monitor/health" 2>/dev/null | grep -q '"metadatabase"'; }

print_login() {
  if [[ -f "$PASSWORDS" ]]; then
    python3 -c 'import json,sys; [print(f"login: {u}  password: {p}") for u, p in json.load(open(sys.argv[1])).items()]' "$PASSWORDS"
  else
    echo "no password yet: $PASSWORDS is written when Airflow first starts" >&2
    return 1
  fi
}

up() {
  if pid=$(running_pid); then
    log "already running (pid $pid): $URL"
    print_login
    return 0
  fi
  local busy
  busy=$(busy_ports)
  if [[ -n "$busy" ]]; then
    log "port(s) $busy already in use: another Airflow? (scripts/airflow.sh down, or AIRFLOW_PORT=...)"
    exit 1
  fi
  setup
  log "starting Airflow on $HOST:$PORT ($AIRFLOW__CORE__PARALLELISM task slots; log server(s) on" \
    "$LOG_HOST:${PORTS[*]:1}; triggerer: $TRIGGERER); log: $LOGFILE"
  # Its own session and process group (setsid), so that `down` stops all of it.
  CRAWLDEDUP_AIRFLOW_INSTANCE="$AIRFLOW_HOME" setsid nohup "$ROOT/scripts/airflow.sh" serve \
    >"$LOGFILE" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  local pid deadline=$((SECONDS + ${CRAWLDEDUP_AIRFLOW_UP_TIMEOUT_S:-240}))
  pid=$(cat "$PIDFILE")
  until api_ready; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "Airflow exited; the end of $LOGFILE:"
      tail -n 40 "$LOGFILE" >&2
      rm -f "$PIDFILE"
      exit 1
    fi
    if ((SECONDS > deadline)); then
      log "the API did not answer on $URL in time; see $LOGFILE (scripts/airflow.sh down stops it)"
      exit 1
    fi
    sleep 2
  done
  # The password file appears once the API server has started its auth manager.
  until [[ -f "$PASSWORDS" ]] || ((SECONDS > deadline)); do sleep 1; done
  local days
  days=$(sample_days | tr '\n' ' ')
  cat <<EOF

Airflow is up (pid $pid; log $LOGFILE).
  UI:        $URL/dags/crawl_dedup_daily
  sample crawl days: $days(in $CRAWLDEDUP_INPUT_ROOT)
  unpause the DAG (toggle in the UI, or scripts/airflow.sh cli dags unpause crawl_dedup_daily),
  then Trigger (defaults: yesterday) or Trigger -> Backfill.
  stop:      scripts/airflow.sh down
EOF
  print_login
}

down() {
  local pid="" sid="" pids left i
  if pid=$(running_pid); then
    sid=$pid
    log "stopping Airflow (pid $pid, its process group and session)"
    kill -TERM -- "-$pid" 2>/dev/null || true
  elif [[ -f "$PIDFILE" ]]; then
    sid=$(cat "$PIDFILE")  # the leader is gone; its session may still have members
  fi
  # By id, never by name: the session's members and the marked processes.
  for i in $(seq 1 30); do
    pids=$(our_pids "$sid" | tr '\n' ' ')
    [[ -z "${pids// /}" ]] && break
    ((i == 1)) && [[ -z "$pid" ]] && log "stopping leftover processes: $pids"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    sleep 1
  done
  pids=$(our_pids "$sid" | tr '\n' ' ')
  if [[ -n "${pids// /}" ]]; then
    log "killing what did not stop in 30 s: $pids"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 1
  fi
  rm -f "$PIDFILE"
  for i in $(seq 1 15); do
    left=$(busy_ports)
    [[ -z "$left" ]] && break
    sleep 1
  done
  if [[ -n "$left" ]]; then
    log "stopped, but port(s) $left are still in use (by a process this script did not start?)"
    exit 1
  fi
  log "stopped; ports ${PORTS[*]} are free"
}

status() {
  local pid pids rc=0
  if pid=$(running_pid); then
    echo "airflow: running (pid $pid, log $LOGFILE)"
  else
    echo "airflow: not running"
    rc=3
  fi
  pids=$(our_pids "${pid:-}" | paste -sd, -)
  if [[ -n "$pids" ]]; then
    ps -o pid=,rss=,args= -p "$pids" 2>/dev/null |
      awk '{printf "  pid %-7s %6.0f MB  ", $1, $2/1024; $1=$2=""; print substr($0, 3, 110)}'
  fi
  if api_ready; then
    echo "API: $URL answers; components:"
    curl -fsS -m 5 "$URL/api/v2/monitor/health" |
      python3 -c 'import json,sys; [print("  " + k + ": " + str(v.get("status"))) for k, v in json.load(sys.stdin).items()]'
  else
    echo "API: no answer on $URL"
    [[ $rc == 0 ]] && rc=1
  fi
  local busy
  busy=$(busy_ports)
  echo "ports in use: ${busy:-none} (of ${PORTS[*]})"
  return $rc
}

case "${1:-standalone}" in
  up) up ;;
  down) down ;;
  status) status ;;
  password) print_login ;;
  setup) setup ;;
  standalone)
    setup
    log "starting Airflow on $HOST:$PORT (Ctrl-C stops it; or use up/down)"
    export CRAWLDEDUP_AIRFLOW_INSTANCE="$AIRFLOW_HOME"
    serve
    ;;
  serve) serve ;; # what `up` starts in the background
  cli)
    shift
    exec airflow "$@"
    ;;
  *)
    echo "usage: $0 up|down|status|password|setup|standalone|cli ARGS..." >&2
    exit 2
    ;;
esac
