"""A class-data-sharing archive of the local driver JVM's classes (the JDK's dynamic CDS).

A day's driver JVM loads and verifies about the same classes every run (Spark, Scala,
Hadoop, Parquet): measured on a 20-record day, about a third of its CPU before any page
is read. The JDK can keep them, parsed and verified, in an archive a later JVM maps
instead (``-XX:SharedArchiveFile``). JDK 17 writes one on request while it runs
(``-XX:+RecordDynamicDumpInfo``, then the ``VM.cds dynamic_dump`` diagnostic command),
so the first driver of a machine that finishes its work writes the archive, and every
later driver with the same Java, the same Spark jars and the same JVM options starts
from it (docs/operations.md#the-drivers-class-archive).

The archive sits under ``$XDG_CACHE_HOME/crawldedup/jvm`` (``~/.cache``), named by a
digest of what it depends on, written under a temporary name and renamed whole. A JVM
that finds it unusable (another Java, another class path) ignores it silently and runs
as without it. Only drivers started by crawldedup under the Spark configuration it ships
use it (``[spark] class_archive``): a deployment's own configuration folder is on the
JVM's class path, and the JDK archives no class path that holds a folder with files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# The system property that tells the driver where to write the archive it was asked for.
TARGET_PROPERTY = "crawldedup.classArchive"
# The JDK's class-sharing messages (an archive it cannot use, classes it skips) stay out
# of the run's output.
QUIET = "-Xlog:cds*=off"
# A lock older than this belongs to a driver that died while writing.
STALE_LOCK_SECONDS = 600
# Archives kept in the folder (other Java or Spark versions): the newest ones.
KEEP = 3
FAILED_SUFFIX = ".failed"


def cache_folder(env: Mapping[str, str] | None = None) -> Path:
    """Where the archives live: ``$XDG_CACHE_HOME/crawldedup/jvm``, else ``~/.cache``."""
    e = os.environ if env is None else env
    base = e.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "crawldedup" / "jvm"


def java_executable(env: Mapping[str, str] | None = None) -> Path | None:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the PATH's."""
    e = os.environ if env is None else env
    if e.get("JAVA_HOME"):
        return Path(e["JAVA_HOME"]) / "bin" / "java"
    found = shutil.which("java", path=e.get("PATH"))
    return Path(found) if found else None


def _file_stamp(path: Path) -> str:
    st = path.stat()
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def archive_key(
    java: Path, jars: Path, conf_dir: str, java_options: str, extra: Mapping[str, str]
) -> str:
    """The digest naming an archive: the JVM's binary, every jar of Spark's class path,
    the configuration folder on that class path, the driver's JVM options and any other
    class path the environment adds. A change of any of them names another archive."""
    real_java = java.resolve()
    parts = [_file_stamp(real_java)]
    libjvm = real_java.parent.parent / "lib" / "server" / "libjvm.so"
    if libjvm.is_file():
        parts.append(_file_stamp(libjvm))
    parts += sorted(_file_stamp(p) for p in jars.glob("*.jar"))
    parts += [f"conf:{conf_dir}", f"options:{java_options}"]
    parts += [f"{k}={v}" for k, v in sorted(extra.items())]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def launch_options(archive: Path, write: bool = True) -> str:
    """The driver's JVM options for ``archive``: start from it when it is there, else,
    for a driver that will write it (``write``: one that calls :func:`write_if_asked`),
    record what a dump needs and name where it goes. Recording costs a session about
    1.6 CPU s, so a driver that will not write gets nothing. None after a dump on this
    machine failed (its reason is in ``<archive>.failed``), nor for a path with
    whitespace, which Spark would split into two JVM options."""
    if any(c.isspace() for c in str(archive)):
        return ""
    if archive.is_file():
        return f"-XX:SharedArchiveFile={archive} {QUIET}"
    if not write or archive.with_name(archive.name + FAILED_SUFFIX).exists():
        return ""
    return f"-XX:+RecordDynamicDumpInfo -D{TARGET_PROPERTY}={archive} {QUIET}"


def _take_lock(lock: Path) -> bool:
    """Whether this process may write the archive (no other one is writing it)."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime < STALE_LOCK_SECONDS:
                    return False
                lock.unlink()
            except FileNotFoundError:
                pass
            continue
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        return True
    return False


# MBeanServerConnection.invoke(ObjectName, String, Object[], String[])
_INVOKE_TYPES = (
    "javax.management.ObjectName",
    "java.lang.String",
    "[Ljava.lang.Object;",
    "[Ljava.lang.String;",
)


def _dynamic_dump(jvm: Any, gateway: Any, path: Path) -> str:
    """``VM.cds dynamic_dump PATH`` in the running JVM, through its DiagnosticCommand
    MBean (called by reflection: the platform MBean server's class is not exported);
    returns the command's output."""
    cls = jvm.java.lang.Class.forName
    strings = gateway.new_array(jvm.java.lang.String, 2)
    strings[0], strings[1] = "dynamic_dump", str(path)
    params = gateway.new_array(jvm.java.lang.Object, 1)
    params[0] = strings
    signature = gateway.new_array(jvm.java.lang.String, 1)
    signature[0] = "[Ljava.lang.String;"
    types = gateway.new_array(jvm.java.lang.Class, 4)
    for i, name in enumerate(_INVOKE_TYPES):
        types[i] = cls(name)
    invoke = cls("javax.management.MBeanServerConnection").getMethod("invoke", types)
    args = gateway.new_array(jvm.java.lang.Object, 4)
    args[0] = jvm.javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")
    args[1], args[2], args[3] = "vmCds", params, signature
    server = jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer()
    return str(invoke.invoke(server, args))


def _prune(folder: Path, keep: Path) -> None:
    """Leave the ``KEEP`` newest archives (another Java's or Spark's are never read), and
    no part file of a writer that died (older than ``STALE_LOCK_SECONDS``)."""
    others = sorted((p for p in folder.glob("*.jsa") if p != keep), key=lambda p: p.stat().st_mtime)
    for old in others[: max(0, len(others) - (KEEP - 1))]:
        old.unlink(missing_ok=True)
    for part in folder.glob(".*.part"):
        with contextlib.suppress(OSError):
            if time.time() - part.stat().st_mtime > STALE_LOCK_SECONDS:
                part.unlink()


# Free space a dump needs (an archive is about 130 MB): JDK 17 ends the JVM when it cannot
# write one, which under spark-submit (the DAG's driver) is the task's own process.
MIN_FREE_BYTES = 1 << 30


def refusal(class_path: str) -> str | None:
    """Why the JDK would refuse to archive classes of this class path, or None: a folder
    on it that holds files (JDK 17 ends the JVM on such a dump request rather than
    answering it, so it is checked here first)."""
    for entry in class_path.split(os.pathsep):
        folder = Path(entry)
        if entry and folder.is_dir() and any(folder.iterdir()):
            return f"the class path holds a folder with files: {folder}"
    return None


def _enough_space(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free >= MIN_FREE_BYTES
    except OSError:
        return False


def write_if_asked(spark: Any) -> Path | None:
    """Write the archive the driver was started to write (``launch_options``), once the
    day's work is done; returns its path, or None when none was asked for, another
    driver writes it, or it cannot be written. A class path the JDK refuses (checked
    first: :func:`refusal`) or a dump that writes nothing leaves ``<archive>.failed``
    with the reason, and no later driver asks again; under 1 GiB free, it waits for a
    later driver. Never raises: the archive only saves time."""
    try:
        jvm, gateway = spark._jvm, spark._sc._gateway
        target = jvm.java.lang.System.getProperty(TARGET_PROPERTY)
        class_path = str(jvm.java.lang.System.getProperty("java.class.path") or "")
    except Exception:
        return None
    if not target:
        return None
    archive = Path(str(target))
    failed = archive.with_name(archive.name + FAILED_SUFFIX)
    refused = refusal(class_path)
    if refused is not None:
        with contextlib.suppress(OSError):
            archive.parent.mkdir(parents=True, exist_ok=True)
            failed.write_text(refused + "\n")
        return None
    lock = archive.with_name(archive.name + ".lock")
    try:
        if archive.exists():
            return None
        archive.parent.mkdir(parents=True, exist_ok=True)
        if not _enough_space(archive.parent) or not _take_lock(lock):
            return None
        if archive.exists():  # another driver wrote it while this one got here
            lock.unlink(missing_ok=True)
            return None
    except OSError:  # the cache folder cannot be written: run without
        return None
    part = archive.with_name(f".{archive.name}.{os.getpid()}.part")
    try:
        said = _dynamic_dump(jvm, gateway, part)
        if part.is_file() and part.stat().st_size:
            os.replace(part, archive)
            _prune(archive.parent, archive)
            return archive
        failed.write_text(said.strip() + "\n")
        return None
    except Exception:  # the JVM went away, py4j, the disk: a later driver tries again
        return None
    finally:
        part.unlink(missing_ok=True)
        lock.unlink(missing_ok=True)
