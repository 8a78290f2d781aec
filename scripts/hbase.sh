#!/usr/bin/env bash
# Run a real, standalone HBase (HMaster + in-process regionserver + in-process
# ZooKeeper) and its Thrift-1 gateway (what happybase speaks) for local
# development and tests.  No Docker and no HBase tarball are needed: the jars
# come from Maven Central via scripts/hbase/pom.xml.
#
#   scripts/hbase.sh up       start whatever is not running, wait until
#                             happybase can list tables (idempotent)
#   scripts/hbase.sh down     stop both: Thrift by SIGTERM, the master by an
#                             orderly cluster shutdown; SIGKILL if they hang
#   scripts/hbase.sh status   exit 0 iff both run and Thrift answers
#   scripts/hbase.sh presplit PREFIX [REGIONS]
#                             create the index tables of store prefix PREFIX
#                             split into REGIONS (16) regions at even hex key
#                             boundaries (before the first run; existing tables
#                             are left alone)
#   scripts/hbase.sh tune PREFIX
#                             give the tables of store prefix PREFIX a row Bloom
#                             filter and the block cache where they lack them
#                             (tables crawldedup created before 2026-12-07)
#
# Environment (all optional):
#   HBASE_DATA_DIR        data, conf, logs, pid files   (<repo>/.hbase)
#   HBASE_THRIFT_PORT     Thrift port on 127.0.0.1      (9090)
#   HBASE_ZK_PORT         in-process ZooKeeper port     (2181)
#   HBASE_THRIFT_READ_TIMEOUT_MS  hbase.thrift.server.socket.read.timeout (60000)
#   HBASE_HEAP            -Xmx of each JVM              (1g)
#   HBASE_UP_TIMEOUT      seconds `up` waits for Thrift (180)
#   HBASE_STOP_TIMEOUT    seconds `down` waits per step before escalating (60)
#   PYTHON                python with happybase         (<repo>/.venv/bin/python)
#   HBASE_JAVA_HOME       JDK to run HBase with         (Debian's Java 17)
#
# Only the data folder, ~/.cache/crawldedup and ~/.m2 are written to.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
SELF="$SCRIPT_DIR/$(basename "${BASH_SOURCE[0]}")"

# HBase 2.6 is certified on Java 17, not on the newer JDKs that may also be
# installed (and be first on PATH): pin it here rather than trusting the caller.
export JAVA_HOME=${HBASE_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA="$JAVA_HOME/bin/java"

# Keep in step with the defaults in scripts/hbase/pom.xml (explained there:
# no *-hadoop3 build of hbase-thrift is downloadable, so it is the plain one).
HBASE_VERSION=2.6.1-hadoop3
HBASE_THRIFT_VERSION=2.6.1
POM="$SCRIPT_DIR/hbase/pom.xml"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/crawldedup/hbase/$HBASE_VERSION"
LIB_DIR="$CACHE_DIR/lib"
# Written only after a successful mvn run; holds the versions and a hash of
# the pom, so a half-copied folder (interrupted mvn) or an edited pom
# triggers a fresh copy.
LIB_STAMP="$CACHE_DIR/lib.complete"

DATA_DIR=${HBASE_DATA_DIR:-$REPO_ROOT/.hbase}
CONF_DIR="$DATA_DIR/conf"
LOG_DIR="$DATA_DIR/logs"
RUN_DIR="$DATA_DIR/run"
TMP_DIR="$DATA_DIR/tmp"

# Loopback by default; the docker stack sets HBASE_BIND=0.0.0.0 inside its network.
BIND=${HBASE_BIND:-127.0.0.1}
THRIFT_PORT=${HBASE_THRIFT_PORT:-9090}
ZK_PORT=${HBASE_ZK_PORT:-2181}
THRIFT_READ_TIMEOUT_MS=${HBASE_THRIFT_READ_TIMEOUT_MS:-60000}
HEAP=${HBASE_HEAP:-1g}
UP_TIMEOUT=${HBASE_UP_TIMEOUT:-180}
STOP_TIMEOUT=${HBASE_STOP_TIMEOUT:-60}
PYTHON=${PYTHON:-$REPO_ROOT/.venv/bin/python}

# The two daemons: name -> main class.  The class name is also how we tell
# that a pid from a pid file is still *our* process and not a recycled pid.
MASTER_CLASS=org.apache.hadoop.hbase.master.HMaster
THRIFT_CLASS=org.apache.hadoop.hbase.thrift.ThriftServer

log() { echo "hbase.sh: $*" >&2; }
die() { log "$*"; exit 1; }

main_class() {
  case "$1" in
    master) echo "$MASTER_CLASS" ;;
    thrift) echo "$THRIFT_CLASS" ;;
  esac
}

# ---------------------------------------------------------------- classpath

lib_fingerprint() {
  echo "$HBASE_VERSION $HBASE_THRIFT_VERSION $(sha256sum <"$POM")"
}

lib_is_complete() {
  [[ -f "$LIB_STAMP" && "$(cat "$LIB_STAMP")" == "$(lib_fingerprint)" ]]
}

ensure_lib() {
  if lib_is_complete; then
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (needed once to fetch the HBase jars)"
  log "assembling HBase $HBASE_VERSION jars into $LIB_DIR (first run only)"
  rm -rf "$LIB_DIR" "$LIB_STAMP"
  mkdir -p "$LIB_DIR"
  # Default local repo (~/.m2): a later rebuild of the folder is offline-fast.
  # -UsePerfData: Maven's JVM would otherwise create /tmp/hsperfdata_<user>.
  # Output goes to a log, shown only on failure (-q still leaves ANSI noise).
  if ! MAVEN_OPTS="${MAVEN_OPTS:-} -XX:-UsePerfData" \
    mvn -B -q -Dstyle.color=never -f "$POM" \
      -Dhbase.version="$HBASE_VERSION" \
      -Dhbase.thrift.version="$HBASE_THRIFT_VERSION" \
      -Dhbase.lib.dir="$LIB_DIR" \
      dependency:copy-dependencies >"$CACHE_DIR/mvn.log" 2>&1; then
    tail -n 30 "$CACHE_DIR/mvn.log" >&2
    die "mvn failed (full log: $CACHE_DIR/mvn.log)"
  fi
  lib_fingerprint >"$LIB_STAMP"
}

# ---------------------------------------------------------------- config

write_config() {
  mkdir -p "$CONF_DIR" "$LOG_DIR" "$RUN_DIR" "$TMP_DIR" "$DATA_DIR/zookeeper"
  # Regenerated on every start so that env changes (ports, timeouts) apply.
  cat >"$CONF_DIR/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by scripts/hbase.sh; edits are overwritten. -->
<configuration>
  <!-- Standalone: one JVM runs master, regionserver and ZooKeeper. -->
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$DATA_DIR/hbase</value></property>
  <property><name>hbase.tmp.dir</name><value>$TMP_DIR/hbase</value></property>
  <property><name>hadoop.tmp.dir</name><value>$TMP_DIR/hadoop</value></property>
  <!-- The local file system has no hflush/hsync; without this the WAL
       refuses to start.  Fine for dev/test, never for production. -->
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>

  <!-- ZooKeeper (in-process, loopback only). -->
  <property><name>hbase.zookeeper.quorum</name><value>$BIND</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$ZK_PORT</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$DATA_DIR/zookeeper</value></property>

  <!-- Master and regionserver RPC on loopback, on random free ports (clients
       find them through ZooKeeper), so two checkouts can each run one HBase
       given distinct HBASE_THRIFT_PORT / HBASE_ZK_PORT.  Otherwise 16000
       and 16020 are fixed. -->
  <property><name>hbase.localcluster.assign.random.ports</name><value>true</value></property>
  <property><name>hbase.master.ipc.address</name><value>$BIND</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>$BIND</value></property>
  <property><name>hbase.master.hostname</name><value>localhost</value></property>
  <property><name>hbase.unsafe.regionserver.hostname</name><value>localhost</value></property>
  <!-- No web UIs: nothing needs them and fixed ports would clash. -->
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.thrift.info.port</name><value>-1</value></property>

  <!-- Thrift 1 as happybase expects it by default: thread pool server,
       buffered (not framed) transport, binary (not compact) protocol. -->
  <property><name>hbase.regionserver.thrift.ipaddress</name><value>$BIND</value></property>
  <property><name>hbase.regionserver.thrift.port</name><value>$THRIFT_PORT</value></property>
  <property><name>hbase.regionserver.thrift.server.type</name><value>threadpool</value></property>
  <property><name>hbase.regionserver.thrift.framed</name><value>false</value></property>
  <property><name>hbase.regionserver.thrift.compact</name><value>false</value></property>
  <property><name>hbase.thrift.server.socket.read.timeout</name><value>$THRIFT_READ_TIMEOUT_MS</value></property>
</configuration>
EOF

  # HBase 2.5+ logs through log4j2 and ships no config in its jars (the
  # tarball keeps it in conf/): without one, log4j2 prints only errors.
  cat >"$CONF_DIR/log4j2.properties" <<'EOF'
# Generated by scripts/hbase.sh; stdout is redirected to logs/<daemon>.log.
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_OUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,console
# Chatty at INFO and of no use here.
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = WARN
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.hbase.name = org.apache.hadoop.hbase
logger.hbase.level = INFO
# "Unable to load native-hadoop library": expected, harmless.
logger.nativecodeloader.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecodeloader.level = ERROR
EOF
}

# ---------------------------------------------------------------- processes

pid_file() { echo "$RUN_DIR/$1.pid"; }

# Prints the pid of daemon $1 if it is alive (and really is that daemon).
alive_pid() {
  local f pid
  f=$(pid_file "$1")
  [[ -f "$f" ]] || return 1
  pid=$(cat "$f")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(main_class "$1")" || return 1
  echo "$pid"
}

# Runs HBase class $2 with arguments $3... in the foreground; $1 is the heap.
run_java() {
  local heap=$1
  shift
  local jvm_opts=(
    "-Xmx$heap"
    -XX:+UseG1GC
    # Would otherwise write /tmp/hsperfdata_<user>.
    -XX:-UsePerfData
    "-Djava.io.tmpdir=$TMP_DIR"
    -Djava.net.preferIPv4Stack=true
    "-Dlog4j2.configurationFile=file:$CONF_DIR/log4j2.properties"
    "-Dhbase.log.dir=$LOG_DIR"
    "-Dhbase.home.dir=$DATA_DIR"
    # ZooKeeper 3.5+ would start a Jetty "AdminServer" on :8080.
    -Dzookeeper.admin.enableServer=false
    # HBase on JDK 11+: the same flags bin/hbase adds, for the shaded netty,
    # the off-heap allocator and Hadoop's Kerberos code.
    --add-opens=java.base/java.lang=ALL-UNNAMED
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED
    --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
    --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
    --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports=java.base/sun.net.dns=ALL-UNNAMED
    --add-exports=java.base/sun.net.util=ALL-UNNAMED
    --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED
    --add-modules=jdk.unsupported
    -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  )
  # conf dir first so hbase-site.xml is found as a classpath resource.  The
  # working dir is the data folder so that any stray relative path lands there.
  cd "$DATA_DIR"
  exec "$JAVA" "${jvm_opts[@]}" -cp "$CONF_DIR:$LIB_DIR/*" "$@"
}

start_daemon() {
  local name=$1 class log
  class=$(main_class "$name")
  log="$LOG_DIR/$name.log"
  # Keep the previous run's log for post-mortems, start a fresh one.
  if [[ -f "$log" ]]; then mv -f "$log" "$log.1"; fi

  log "starting $name ($class), log: $log"
  # nohup + & detaches it from our terminal; the subshell execs nohup, which
  # execs java, so $! is the JVM's pid.
  (exec nohup bash "$SELF" __run_java "$HEAP" "$class" start </dev/null >"$log" 2>&1) &
  echo $! >"$(pid_file "$name")"
}

# Waits up to $2 seconds for pid $1 to exit; false if it is still there.
wait_gone() {
  local pid=$1 deadline=$((SECONDS + $2))
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# SIGTERM, then SIGKILL after $2 seconds; returns once the process is gone.
terminate() {
  local name=$1 grace=$2 pid
  pid=$(alive_pid "$name") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_gone "$pid" "$grace" && return 0
  log "$name (pid $pid) still running after SIGTERM + ${grace}s, sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  # SIGKILL is not instant either (the kernel still tears the JVM down).
  wait_gone "$pid" 30 || die "$name (pid $pid) survived SIGKILL"
}

stop_thrift() {
  if alive_pid thrift >/dev/null; then
    log "stopping thrift (pid $(alive_pid thrift))"
    terminate thrift "$STOP_TIMEOUT"
  fi
  rm -f "$(pid_file thrift)"
}

stop_master() {
  local pid
  if pid=$(alive_pid master); then
    log "stopping master (pid $pid)"
    # SIGTERM alone is unreliable for the standalone master: the
    # regionserver's shutdown hook waits for the master thread, which is
    # itself shutting down, and Hadoop's hook manager then times out after
    # 30 s per hook (seen: 6 s, 27 s, >60 s).  `HMaster stop` is what
    # bin/stop-hbase.sh does: Admin.shutdown() closes (flushes) all regions
    # and lets the JVM exit by itself, in a few seconds.  SIGTERM/SIGKILL
    # remain the fallback for a master too broken to answer.
    (timeout "$STOP_TIMEOUT" bash "$SELF" __run_java 256m "$MASTER_CLASS" --shutDownCluster stop \
      </dev/null >"$LOG_DIR/master-stop.log" 2>&1) ||
      log "'HMaster stop' failed, see $LOG_DIR/master-stop.log"
    if ! wait_gone "$pid" "$STOP_TIMEOUT"; then
      log "master still running ${STOP_TIMEOUT}s after 'HMaster stop'"
      terminate master 15
    fi
  fi
  rm -f "$(pid_file master)"
}

# ---------------------------------------------------------------- readiness

# True when happybase can connect and list tables: the Thrift server runs and
# reaches an initialised master, i.e. what tests actually need.
thrift_answers() {
  PYTHONDONTWRITEBYTECODE=1 timeout 20 "$PYTHON" - "$BIND" "$THRIFT_PORT" <<'EOF' >/dev/null 2>&1
import sys
import happybase
conn = happybase.Connection(sys.argv[1], int(sys.argv[2]), timeout=10000)
try:
    conn.tables()
finally:
    conn.close()
EOF
}

both_alive() { alive_pid master >/dev/null && alive_pid thrift >/dev/null; }

# ---------------------------------------------------------------- commands

cmd_status() {
  local name pid ok=0
  for name in master thrift; do
    if pid=$(alive_pid "$name"); then
      echo "$name: running (pid $pid)"
    else
      echo "$name: not running"
      ok=1
    fi
  done
  if ((ok == 0)) && thrift_answers; then
    echo "thrift: answering on $BIND:$THRIFT_PORT"
  else
    echo "thrift: not answering on $BIND:$THRIFT_PORT"
    ok=1
  fi
  return "$ok"
}

cmd_up() {
  [[ -x "$JAVA" ]] || die "no java at $JAVA (set HBASE_JAVA_HOME)"
  [[ -x "$PYTHON" ]] || die "no python at $PYTHON (set PYTHON to one with happybase)"
  "$PYTHON" -c 'import happybase' 2>/dev/null || die "$PYTHON cannot import happybase"

  if both_alive && thrift_answers; then
    echo "HBase already up (thrift on $BIND:$THRIFT_PORT, data in $DATA_DIR)"
    return 0
  fi
  # A Thrift server that is not ours (another checkout's HBase, another HBASE_DATA_DIR):
  # ours could not bind, and the tests would talk to the other one, whose pid files
  # they do not have.
  if ! alive_pid thrift >/dev/null && thrift_answers; then
    die "another process already answers on $BIND:$THRIFT_PORT (an HBase of another checkout or HBASE_DATA_DIR?): stop it ('hbase.sh down' with its HBASE_DATA_DIR), or set HBASE_THRIFT_PORT and HBASE_ZK_PORT"
  fi

  local start=$SECONDS name
  ensure_lib
  write_config
  # Start only what is missing: a test run that lost the Thrift server keeps
  # its master (and data), and vice versa.
  for name in master thrift; do
    if ! alive_pid "$name" >/dev/null; then
      start_daemon "$name"
    fi
  done

  log "waiting up to ${UP_TIMEOUT}s for thrift on $BIND:$THRIFT_PORT"
  while ! thrift_answers; do
    for name in master thrift; do
      if ! alive_pid "$name" >/dev/null; then
        log "$name died during startup; last lines of $LOG_DIR/$name.log:"
        tail -n 30 "$LOG_DIR/$name.log" >&2 || true
        exit 1
      fi
    done
    if ((SECONDS - start >= UP_TIMEOUT)); then
      log "timed out after ${UP_TIMEOUT}s; processes left running (use 'down')"
      for name in master thrift; do
        log "last lines of $LOG_DIR/$name.log:"
        tail -n 15 "$LOG_DIR/$name.log" >&2 || true
      done
      exit 1
    fi
    sleep 1
  done
  echo "HBase up in $((SECONDS - start))s (thrift on $BIND:$THRIFT_PORT, zookeeper on $BIND:$ZK_PORT, data in $DATA_DIR)"
}

cmd_presplit() {
  local prefix=${1:?usage: $0 presplit PREFIX [REGIONS]} regions=${2:-16} tables=()
  for t in title_id start_id end_id content_id simhash_id lsh_id para_id; do tables+=("${prefix}_$t"); done
  cmd_status >/dev/null || die "HBase is not up: run $0 up first"
  # Only the result lines: the client's log lines go to the console appender too.
  bash "$SELF" __run_java "$HEAP" "$SCRIPT_DIR/hbase/PreSplit.java" "$regions" d "${tables[@]}" \
    | grep -E -e ': [0-9]+ regions$' -e 'PreSplit:' -e 'Exception'
}

cmd_tune() {
  local prefix=${1:?usage: $0 tune PREFIX} tables=()
  cmd_status >/dev/null || die "HBase is not up: run $0 up first"
  for t in $("$PYTHON" -c 'from crawldedup.store.base import TABLES; print(" ".join(TABLES))'); do
    tables+=("${prefix}_$t")
  done
  bash "$SELF" __run_java "$HEAP" "$SCRIPT_DIR/hbase/TuneFamilies.java" "${tables[@]}" \
    | grep -E -e ': (absent|tuned|already tuned)$' -e 'Exception'
}

cmd_down() {
  # Thrift first: it is a client of the master and would log reconnect noise.
  stop_thrift
  stop_master
  echo "HBase down"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  presplit)
    shift
    cmd_presplit "$@"
    ;;
  tune)
    shift
    cmd_tune "$@"
    ;;
  # Internal: the JVM launcher, re-entered via "$SELF" so that the daemons and
  # the `HMaster stop` client share one set of JVM flags.
  __run_java)
    shift
    run_java "$@"
    ;;
  *)
    echo "usage: $0 up|down|status|presplit PREFIX [REGIONS]|tune PREFIX" >&2
    exit 2
    ;;
esac
