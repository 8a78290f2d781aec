# Sourced by our scripts: pins Java 17 (Spark, Hadoop and HBase want 17; a newer JDK
# may sit beside it) and names the project's venv.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CRAWLDEDUP_VENV:-$ROOT/.venv}"
if [[ -z "${JAVA17_HOME:-}" ]]; then
  for candidate in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk* /usr/lib/jvm/temurin-17*; do
    if [[ -x "$candidate/bin/java" ]]; then JAVA17_HOME="$candidate"; break; fi
  done
fi
if [[ -z "${JAVA17_HOME:-}" ]]; then
  echo "crawldedup: no Java 17 found under /usr/lib/jvm; set JAVA17_HOME" >&2
  exit 2
fi
export JAVA_HOME="$JAVA17_HOME"
export PATH="$VENV/bin:$JAVA_HOME/bin:$PATH"
export PYSPARK_PYTHON="$VENV/bin/python"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
