"""The driver's class archive: what names it, which JVM options a driver gets, and the
lock that lets one driver write it (the JVM's side: tests/spark/test_class_archive.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from crawldedup.pipeline import class_archive as ca


@pytest.fixture
def install(tmp_path: Path) -> tuple[Path, Path]:
    """A java binary beside a libjvm.so, and a folder of jars: what a key reads."""
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "lib" / "server").mkdir(parents=True)
    (home / "bin" / "java").write_bytes(b"java")
    (home / "lib" / "server" / "libjvm.so").write_bytes(b"jvm")
    jars = tmp_path / "jars"
    jars.mkdir()
    for name in ("spark-core.jar", "scala-library.jar"):
        (jars / name).write_bytes(name.encode())
    return home / "bin" / "java", jars


def _key(java: Path, jars: Path, options: str = "-XX:TieredStopAtLevel=1") -> str:
    return ca.archive_key(java, jars, "/spark/conf", options, {})


def test_the_key_is_stable_and_follows_java_jars_and_options(install: tuple[Path, Path]) -> None:
    java, jars = install
    first = _key(java, jars)
    assert _key(java, jars) == first
    assert _key(java, jars, "-XX:+UseG1GC") != first
    assert ca.archive_key(java, jars, "/other/conf", "-XX:TieredStopAtLevel=1", {}) != first
    (jars / "delta-core.jar").write_bytes(b"new jar")
    with_jar = _key(java, jars)
    assert with_jar != first
    libjvm = java.parent.parent / "lib" / "server" / "libjvm.so"
    libjvm.write_bytes(b"another jvm build")
    assert _key(java, jars) != with_jar


def test_a_driver_starts_from_the_archive_or_is_asked_to_write_it(tmp_path: Path) -> None:
    archive = tmp_path / "driver-abc.jsa"
    asked = ca.launch_options(archive).split()
    assert "-XX:+RecordDynamicDumpInfo" in asked
    assert f"-D{ca.TARGET_PROPERTY}={archive}" in asked
    assert ca.QUIET in asked
    assert not any(a.startswith("-XX:SharedArchiveFile") for a in asked)

    archive.write_bytes(b"archive")
    started = ca.launch_options(archive).split()
    assert started == [f"-XX:SharedArchiveFile={archive}", ca.QUIET]


def test_after_the_jdk_refused_no_driver_asks_again(tmp_path: Path) -> None:
    archive = tmp_path / "driver-abc.jsa"
    archive.with_name(archive.name + ca.FAILED_SUFFIX).write_text("Cannot have non-empty dir\n")
    assert ca.launch_options(archive) == ""


def test_one_writer_at_a_time_and_a_dead_writers_lock_expires(tmp_path: Path) -> None:
    lock = tmp_path / "driver-abc.jsa.lock"
    assert ca._take_lock(lock)
    assert lock.read_text() == str(os.getpid())
    assert not ca._take_lock(lock)  # another driver is writing
    old = time.time() - ca.STALE_LOCK_SECONDS - 5
    os.utime(lock, (old, old))
    assert ca._take_lock(lock)  # its writer died


def test_the_cache_folder_follows_xdg_cache_home(tmp_path: Path) -> None:
    assert ca.cache_folder({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "crawldedup" / "jvm"
    assert ca.cache_folder({}) == Path.home() / ".cache" / "crawldedup" / "jvm"


def test_pruning_keeps_the_newest_archives(tmp_path: Path) -> None:
    paths = []
    for i in range(5):
        p = tmp_path / f"driver-{i}.jsa"
        p.write_bytes(b"x")
        os.utime(p, (1000 + i, 1000 + i))
        paths.append(p)
    ca._prune(tmp_path, paths[0])  # the one just written is kept whatever its age
    left = sorted(p.name for p in tmp_path.glob("*.jsa"))
    assert left == ["driver-0.jsa", "driver-3.jsa", "driver-4.jsa"]


def test_a_folder_with_files_on_the_class_path_is_refused_before_the_jdk_is_asked(
    tmp_path: Path,
) -> None:
    empty, full, jar = tmp_path / "empty", tmp_path / "conf", tmp_path / "spark-core.jar"
    empty.mkdir()
    full.mkdir()
    jar.write_bytes(b"jar")
    missing = tmp_path / "no-such-conf"
    assert ca.refusal(os.pathsep.join([str(missing), str(empty), str(jar)])) is None
    (full / "log4j2.properties").write_text("x")
    said = ca.refusal(os.pathsep.join([str(empty), str(full), str(jar)]))
    assert said is not None and str(full) in said


def test_a_cache_path_with_whitespace_gets_no_archive_options(tmp_path: Path) -> None:
    # Spark splits spark.driver.extraJavaOptions on whitespace: the path would become two
    # JVM arguments and the driver would not start.
    assert ca.launch_options(tmp_path / "John Doe" / "driver-abc.jsa") == ""


def test_pruning_removes_a_dead_writers_part_file_only(tmp_path: Path) -> None:
    keep = tmp_path / "driver-0.jsa"
    keep.write_bytes(b"x")
    dead, live = tmp_path / ".driver-1.jsa.41.part", tmp_path / ".driver-1.jsa.42.part"
    for p in (dead, live):
        p.write_bytes(b"half an archive")
    old = time.time() - ca.STALE_LOCK_SECONDS - 5
    os.utime(dead, (old, old))
    ca._prune(tmp_path, keep)
    assert not dead.exists() and live.exists() and keep.exists()


def test_a_driver_that_will_not_write_the_archive_records_nothing(tmp_path: Path) -> None:
    # Recording what a dump needs costs a session about 1.6 CPU s (docs/operations.md).
    archive = tmp_path / "driver-abc.jsa"
    assert ca.launch_options(archive, write=False) == ""
    archive.write_bytes(b"archive")
    assert ca.launch_options(archive, write=False).split()[0] == f"-XX:SharedArchiveFile={archive}"
