#!/usr/bin/env bash
# A Spark standalone cluster on loopback, started from the venv's pyspark (its wheel has
# bin/spark-class but no sbin/start-*.sh): one master and two workers, 1 core each.
#
#   scripts/spark_cluster.sh up       start what is not running, wait until every worker
#                                     is registered (idempotent: a healthy cluster is reused)
#   scripts/spark_cluster.sh status   exit 0 when the master answers with every worker alive
#   scripts/spark_cluster.sh down     stop the workers and the master (only the processes
#                                     whose pid files this script wrote)
#   scripts/spark_cluster.sh url      print the master URL (spark://127.0.0.1:7077)
#
# Submit to it with `spark-submit --master spark://127.0.0.1:7077 ...` (see the README,
# "Running on a Spark cluster"). Pid files, logs, the workers' work dirs (executor logs,
# shipped --py-files) and their scratch space live in $SPARK_CLUSTER_DIR.
#
# Environment (all optional):
#   SPARK_CLUSTER_DIR        state folder                              (<repo>/.spark-cluster)
#   SPARK_MASTER_PORT        master RPC port                           (7077)
#   SPARK_MASTER_WEBUI_PORT  master UI, also its JSON API (/json/)     (8080)
#   SPARK_CLUSTER_WORKERS    number of workers                         (2)
#   SPARK_WORKER_CORES       cores per worker                          (1)
#   SPARK_WORKER_MEMORY      memory per worker for executors           (2g)
#   SPARK_DAEMON_MEMORY      heap of the master and worker daemons     (512m)
#   SPARK_CLUSTER_WAIT_S     how long `up` waits for the workers       (120)
set -euo pipefail
source "$(dirname "$0")/env.sh"

DIR="${SPARK_CLUSTER_DIR:-$ROOT/.spark-cluster}"
HOST="${SPARK_LOCAL_IP:-127.0.0.1}"
PORT="${SPARK_MASTER_PORT:-7077}"
UI_PORT="${SPARK_MASTER_WEBUI_PORT:-8080}"
WORKERS="${SPARK_CLUSTER_WORKERS:-2}"
CORES="${SPARK_WORKER_CORES:-1}"
MEMORY="${SPARK_WORKER_MEMORY:-2g}"
WAIT_S="${SPARK_CLUSTER_WAIT_S:-120}"
export SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}"
# The spark-class of the venv's pyspark; SPARK_HOME is that package folder.
export SPARK_HOME="${SPARK_HOME:-$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}"
SPARK_CLASS="$SPARK_HOME/bin/spark-class"
# Executors start python workers with the driver's PYSPARK_PYTHON (env.sh: the venv's).
export PYSPARK_PYTHON SPARK_LOCAL_IP="$HOST"
# No SPARK_CONF_DIR of the developer's leaks in.
export SPARK_CONF_DIR="$DIR/conf"

MASTER_URL="spark://$HOST:$PORT"
JSON_URL="http://$HOST:$UI_PORT/json/"

log() { echo "spark_cluster.sh: $*" >&2; }

pid_alive() { # pid file
  [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

# Prints "<alive workers> <status>" from the master's JSON, or fails when it does not answer.
master_state() {
  local body
  body=$(curl -fsS --max-time 3 "$JSON_URL" 2>/dev/null) || return 1
  [[ -n "$body" ]] || return 1
  "$VENV/bin/python" -c '
import json, sys
d = json.loads(sys.argv[1])
alive = [w for w in d.get("workers", []) if w.get("state") == "ALIVE"]
print(len(alive), d.get("status", "?"))
' "$body" 2>/dev/null
}

port_busy() { # port
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

status() {
  local ok=0 state
  if pid_alive "$DIR/run/master.pid"; then
    echo "master: pid $(cat "$DIR/run/master.pid"), $MASTER_URL, UI http://$HOST:$UI_PORT"
  else
    echo "master: not running"
    ok=1
  fi
  for i in $(seq 1 "$WORKERS"); do
    if pid_alive "$DIR/run/worker$i.pid"; then
      echo "worker$i: pid $(cat "$DIR/run/worker$i.pid")"
    else
      echo "worker$i: not running"
      ok=1
    fi
  done
  if state=$(master_state); then
    echo "master says: status ${state#* }, alive workers ${state%% *}"
    [[ "${state%% *}" -ge "$WORKERS" ]] || ok=1
  else
    echo "master: not answering on $JSON_URL"
    ok=1
  fi
  return $ok
}

start() { # name, class, args...
  local name="$1" cls="$2"
  shift 2
  if pid_alive "$DIR/run/$name.pid"; then
    return 0
  fi
  log "starting $name ($DIR/logs/$name.log)"
  # setsid: the daemon outlives this shell and a Ctrl-C in it.
  setsid nohup "$SPARK_CLASS" "$cls" "$@" >"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/run/$name.pid"
}

up() {
  mkdir -p "$DIR/run" "$DIR/logs" "$DIR/conf" "$DIR/local"
  if status >/dev/null 2>&1; then
    log "already up: $MASTER_URL"
    echo "$MASTER_URL"
    return 0
  fi
  # Spark moves to the next port when its own is taken: the script would then talk to
  # someone else's service. Refuse instead.
  if ! pid_alive "$DIR/run/master.pid"; then
    for p in "$PORT" "$UI_PORT"; do
      if port_busy "$p"; then
        log "port $p on $HOST is taken by another process; set SPARK_MASTER_PORT / SPARK_MASTER_WEBUI_PORT"
        exit 1
      fi
    done
  fi
  # Workers drop the folders of finished applications after a day.
  export SPARK_WORKER_OPTS="-Dspark.worker.cleanup.enabled=true -Dspark.worker.cleanup.appDataTtl=86400"
  export SPARK_LOCAL_DIRS="$DIR/local"
  start master org.apache.spark.deploy.master.Master \
    --host "$HOST" --port "$PORT" --webui-port "$UI_PORT"
  local waited=0
  until master_state >/dev/null; do
    if ! pid_alive "$DIR/run/master.pid" || ((waited >= WAIT_S)); then
      log "the master did not come up; last lines of $DIR/logs/master.log:"
      tail -n 30 "$DIR/logs/master.log" >&2 || true
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  for i in $(seq 1 "$WORKERS"); do
    mkdir -p "$DIR/work/worker$i"
    # --webui-port 0: any free port (the workers' UIs are not needed).
    start "worker$i" org.apache.spark.deploy.worker.Worker "$MASTER_URL" \
      --host "$HOST" --cores "$CORES" --memory "$MEMORY" \
      --work-dir "$DIR/work/worker$i" --webui-port 0
  done
  local state
  while true; do
    state=$(master_state || echo "0 ?")
    if [[ "${state%% *}" -ge "$WORKERS" ]]; then break; fi
    for i in $(seq 1 "$WORKERS"); do
      if ! pid_alive "$DIR/run/worker$i.pid"; then
        log "worker$i died; last lines of $DIR/logs/worker$i.log:"
        tail -n 30 "$DIR/logs/worker$i.log" >&2 || true
        exit 1
      fi
    done
    if ((waited >= WAIT_S)); then
      log "only ${state%% *} of $WORKERS workers registered after ${WAIT_S}s"
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  log "up: $MASTER_URL with $WORKERS workers × $CORES core(s), $MEMORY (UI http://$HOST:$UI_PORT)"
  echo "$MASTER_URL"
}

stop() { # name
  local f="$DIR/run/$1.pid" pid
  [[ -f "$f" ]] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $1 (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  # Workers first: they kill their executors when they stop.
  for f in "$DIR"/run/worker*.pid; do
    [[ -e "$f" ]] || continue
    stop "$(basename "$f" .pid)"
  done
  stop master
  log "down"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  url) echo "$MASTER_URL" ;;
  *)
    echo "usage: $0 up|down|status|url" >&2
    exit 2
    ;;
esac
