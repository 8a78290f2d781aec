"""The driver JVM's class archive: Spark's classes mapped from a file instead of loaded.

A driver JVM loads and verifies some 15,000 classes of Spark, Hadoop, Janino and their
dependencies before and during its first queries. On two cores that is a large part of a
small day: building the session took 6.1 s and the first (JVM-only) job 3.3 s, against
3.0 s and 1.4 s with the classes mapped from a HotSpot dynamic class-data-sharing (AppCDS)
archive; a 10k-document day took 57.4 s against 64.6 s, through the Airflow DAG 105.3 s
against 150.4 s (docs/benchmarks.md, "The driver's class archive").

The archive is written by the JVM itself: a driver started without one gets
``-XX:ArchiveClassesAtExit`` and dumps the classes it loaded when it exits (about 180 MB;
that run is slower, by about 30 s in all on a small day, once); the next start promotes
the finished dump and maps it (``-XX:SharedArchiveFile``). The dump is written under a
name of its own and promoted only when its log says it was written, so a JVM killed while
dumping leaves nothing that is used. HotSpot maps an archive only onto the class path it
was written with (folders, jar files, their sizes and times) and otherwise starts as it
would without one; so each Java runtime, Spark jars folder and class-path setting gets an
archive of its own (the file name holds their hash), and a class path with a non-empty
folder, which HotSpot 17 cannot dump, gets none. The JVM's warnings about an archive are
turned off (one that cannot be used costs time, never a result); what the JVM was given
is in the day's report.

``[spark] class_archive = false`` turns it off. The archives live in
``$CRAWLDEDUP_CLASS_ARCHIVES``, else ``$XDG_CACHE_HOME/crawldedup/jvm-classes`` (default
``~/.cache/crawldedup/jvm-classes``); the newest three are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from crawldedup.pipeline.jit import driver_jvm_flags
from crawldedup.store_lock import pid_alive

FOLDER_ENV = "CRAWLDEDUP_CLASS_ARCHIVES"
# The line HotSpot logs (tags cds+dynamic) once the archive file is complete.
WRITTEN = "Written dynamic archive"
# The JVM's messages about an archive it cannot use or dump (a stale one, a class path
# with a non-empty folder) go to stdout among the job's output: off.
QUIET = "-Xlog:cds=off,cds+dynamic=off"
KEEP = 3
# Environment that changes the driver's class path (Spark's launcher adds these).
_CLASS_PATH_ENV = ("SPARK_CONF_DIR", "HADOOP_CONF_DIR", "YARN_CONF_DIR", "SPARK_DIST_CLASSPATH")


def archive_folder() -> Path:
    """Where the archives are kept (see the module's docstring)."""
    given = os.environ.get(FOLDER_ENV)
    if given:
        return Path(given)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "crawldedup" / "jvm-classes"


def _java_identity() -> str:
    """The Java runtime the driver will run: its ``release`` file, or the binary's path."""
    home = os.environ.get("JAVA_HOME")
    java = Path(home, "bin", "java") if home else Path(shutil.which("java") or "java")
    java = java.resolve()
    release = java.parent.parent / "release"
    text = release.read_text(errors="replace") if release.is_file() else ""
    stat = java.stat()
    return f"{java}\n{stat.st_size}\n{stat.st_mtime_ns}\n{text}"


def _spark_jars() -> Path | None:
    """The jars folder of the Spark the driver will run (``SPARK_HOME``, else pyspark's)."""
    home = os.environ.get("SPARK_HOME")
    if home:
        return Path(home, "jars")
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)), "jars")


def _class_path_allows_archives(jars: Path) -> bool:
    """Whether the driver's class path has no folder with files in it: HotSpot 17 cannot
    write an archive then (its JVM says "Cannot have non-empty directory in paths" as it
    exits), so none is ever mapped either. Spark's launcher puts the configuration
    folder (``SPARK_CONF_DIR``, else ``SPARK_HOME/conf``) and the Hadoop and YARN ones
    on it; a ``spark-defaults.conf`` there rules the archive out."""
    if os.environ.get("SPARK_DIST_CLASSPATH"):
        return False
    conf = os.environ.get("SPARK_CONF_DIR") or str(jars.parent / "conf")
    for folder in (conf, os.environ.get("HADOOP_CONF_DIR"), os.environ.get("YARN_CONF_DIR")):
        if folder and Path(folder).is_dir() and any(Path(folder).iterdir()):
            return False
    return True


def archive_key() -> str | None:
    """A hash of what the archive depends on; None when Java or Spark cannot be found or
    the class path rules an archive out."""
    try:
        jars = _spark_jars()
        if jars is None or not jars.is_dir() or not _class_path_allows_archives(jars):
            return None
        h = hashlib.sha256(_java_identity().encode())
        # The JVM maps an archive only onto the class path it was written with, paths
        # included: two installs of the same pyspark wheel (two venvs) need one each.
        h.update(f"\n{jars}\n{jars.resolve()}".encode())
        for jar in sorted(jars.iterdir()):
            st = jar.stat()
            h.update(f"\n{jar.name} {st.st_size} {st.st_mtime_ns}".encode())
        for name in _CLASS_PATH_ENV:
            h.update(f"\n{name}={os.environ.get(name, '')}".encode())
    except OSError:
        return None
    return h.hexdigest()[:16]


def _written(log: Path) -> bool:
    try:
        return WRITTEN in log.read_text(errors="replace")
    except OSError:
        return False


def _tidy(folder: Path, key: str, final: Path) -> bool:
    """Promote a finished dump of ``key`` to ``final``, remove dead ones and old archives.

    A dumping JVM logs to ``spark-KEY.TOKEN.PID.log`` from its start (HotSpot puts its
    pid in the name) and writes ``spark-KEY.TOKEN.part`` when it exits. Returns whether
    a JVM that will dump ``key`` is still running.
    """
    now = time.time()
    running = False
    for log in sorted(folder.glob(f"spark-{key}.*.*.log")):
        token, _, pid = log.name[: -len(".log")].rpartition(".")
        part = folder / f"{token}.part"
        if _written(log) and part.is_file():
            if not final.exists():
                with contextlib.suppress(OSError):  # another start promoted one first
                    os.replace(part, final)  # atomic: a reader maps the whole file or none
        elif pid.isdigit() and pid_alive(int(pid)):
            running = True
            continue
        # Promoted, or its JVM died before the dump was written.
        part.unlink(missing_ok=True)
        log.unlink(missing_ok=True)
    for part in folder.glob("spark-*.part"):
        if not list(folder.glob(f"{part.stem}.*.log")) and now - part.stat().st_mtime > 3600:
            part.unlink(missing_ok=True)  # a dump whose log is gone
    archives = sorted(folder.glob("spark-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in archives[KEEP:]:
        if old != final:
            old.unlink(missing_ok=True)
    return running


def class_archive_options(enabled: bool, folder: Path | None = None, write: bool = True) -> str:
    """The driver JVM's options: map the archive, or dump one at exit, or '' (none).

    '' when turned off, when there is no archive and ``write`` is false, when Java or
    Spark cannot be found, when a folder on the class path holds files, when the folder
    cannot be written or its path holds whitespace (Spark splits JVM options at spaces),
    and while another JVM that will write the same archive runs.
    """
    if not enabled:
        return ""
    folder = archive_folder() if folder is None else folder
    key = archive_key()
    if key is None or any(c.isspace() for c in str(folder)):
        return ""
    final = folder / f"spark-{key}.jsa"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        running = _tidy(folder, key, final)
        if final.is_file():
            return f"-XX:SharedArchiveFile={final} {QUIET}"
        if not write or running or not os.access(folder, os.W_OK):
            return ""
    except OSError:
        return ""
    stem = folder / f"spark-{key}.{uuid.uuid4().hex[:12]}"
    return (
        f"-XX:ArchiveClassesAtExit={stem}.part {QUIET} "
        f"-Xlog:cds+dynamic=info:file={stem}.%p.log::filecount=0"
    )


def driver_class_archive(spark: Any) -> str:
    """What the running driver JVM was started with: ``"mapped"`` (an archive to map),
    ``"writing"`` (it dumps one when it exits) or ``"none"``.

    An archive that does not fit the JVM (another class path) is given but not mapped,
    which no public API tells; the day's seconds do (docs/benchmarks.md).
    """
    flags = driver_jvm_flags(spark)
    if any(f.startswith("-XX:ArchiveClassesAtExit=") for f in flags):
        return "writing"
    if any(f.startswith("-XX:SharedArchiveFile=") for f in flags):
        return "mapped"
    return "none"


def exit_notice(spark: Any) -> str | None:
    """The line to print before a JVM that writes the archive exits (the process then
    waits for the dump), or None."""
    if driver_class_archive(spark) != "writing":
        return None
    return (
        "the JVM writes its class archive as it exits (once per Java and Spark install; "
        "later runs start faster)"
    )
