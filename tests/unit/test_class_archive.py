"""The driver JVM's class archive: which options a JVM start gets, and how a dump becomes
the archive (crawldedup.pipeline.class_archive). The JVM's side (it writes the dump, a
later one maps it, the verdicts stay the same) is in tests/integration/test_hbase_end_to_end.py.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from crawldedup.config import Config, ConfigError
from crawldedup.pipeline.class_archive import (
    KEEP,
    QUIET,
    WRITTEN,
    archive_key,
    class_archive_options,
)


def _key() -> str:
    key = archive_key()
    assert key is not None, "pyspark and a java are installed in the test environment"
    return key


def _dump(folder: Path, token: str, pid: int, written: bool) -> tuple[Path, Path]:
    """A dump as a JVM leaves it: its log (named with its pid) and, once written, the file."""
    stem = f"spark-{_key()}.{token}"
    log = folder / f"{stem}.{pid}.log"
    log.write_text(f"[info][cds,dynamic] {WRITTEN} 0x0 - 0x1\n" if written else "[info] ...\n")
    part = folder / f"{stem}.part"
    if written:
        part.write_bytes(b"archive")
    return log, part


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_without_an_archive_the_jvm_is_told_to_write_one_at_exit(tmp_path: Path) -> None:
    opts = class_archive_options(True, tmp_path)
    part = tmp_path / f"spark-{_key()}."
    assert f"-XX:ArchiveClassesAtExit={part}" in opts and opts.split()[0].endswith(".part")
    # The log names the JVM's pid (HotSpot fills in %p), the dump's completion shows in it.
    assert f"-Xlog:cds+dynamic=info:file={part}" in opts and ".%p.log" in opts
    assert QUIET in opts


def test_a_written_dump_is_promoted_and_mapped(tmp_path: Path) -> None:
    log, part = _dump(tmp_path, "abc", _dead_pid(), written=True)
    opts = class_archive_options(True, tmp_path)
    final = tmp_path / f"spark-{_key()}.jsa"
    assert opts == f"-XX:SharedArchiveFile={final} {QUIET}"
    assert final.read_bytes() == b"archive"
    assert not log.exists() and not part.exists()


def test_no_second_dump_while_a_jvm_that_will_write_one_runs(tmp_path: Path) -> None:
    log, _ = _dump(tmp_path, "abc", os.getpid(), written=False)  # this process: alive
    assert class_archive_options(True, tmp_path) == ""
    assert log.exists()


def test_a_dump_whose_jvm_died_unwritten_is_removed_and_never_mapped(tmp_path: Path) -> None:
    log, part = _dump(tmp_path, "abc", _dead_pid(), written=False)
    part.write_bytes(b"half")  # killed while dumping
    opts = class_archive_options(True, tmp_path)
    assert opts.startswith("-XX:ArchiveClassesAtExit=")
    assert not log.exists() and not part.exists()
    assert not list(tmp_path.glob("*.jsa"))


def test_off_or_read_only_use_or_a_path_with_spaces_gives_no_options(tmp_path: Path) -> None:
    assert class_archive_options(False, tmp_path) == ""
    assert class_archive_options(True, tmp_path, write=False) == ""
    assert class_archive_options(True, tmp_path / "with space") == ""
    assert not list(tmp_path.iterdir())  # nothing was left behind either
    (tmp_path / f"spark-{_key()}.jsa").write_bytes(b"archive")
    assert class_archive_options(True, tmp_path, write=False).startswith("-XX:SharedArchiveFile=")


def test_only_the_newest_archives_are_kept(tmp_path: Path) -> None:
    for i in range(KEEP + 2):
        old = tmp_path / f"spark-{i:016x}.jsa"
        old.write_bytes(b"x")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    _dump(tmp_path, "abc", _dead_pid(), written=True)
    class_archive_options(True, tmp_path)
    kept = sorted(p.name for p in tmp_path.glob("*.jsa"))
    assert f"spark-{_key()}.jsa" in kept and len(kept) == KEEP


def test_the_key_follows_what_changes_the_class_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARK_CONF_DIR", raising=False)
    plain = _key()
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))  # an empty folder: on the path
    assert _key() != plain
    monkeypatch.delenv("SPARK_CONF_DIR")
    assert _key() == plain


def test_a_folder_with_files_on_the_class_path_rules_the_archive_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HotSpot 17 cannot dump with one ("Cannot have non-empty directory in paths")."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.eventLog.enabled true\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf))
    assert archive_key() is None
    assert class_archive_options(True, tmp_path / "archives") == ""


def test_class_archive_is_a_boolean_in_the_config() -> None:
    assert Config().spark.class_archive is True
    with pytest.raises(ConfigError, match=r"spark\.class_archive"):
        Config().replace(**{"spark.class_archive": "maybe"})


def test_each_install_of_spark_has_an_archive_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same jars in another folder (a second venv) are another class path."""
    for name in ("one", "two"):
        jars = tmp_path / name / "jars"
        jars.mkdir(parents=True)
        (jars / "spark-core.jar").write_bytes(b"jar")
        os.utime(jars / "spark-core.jar", (1_000_000, 1_000_000))
    monkeypatch.setenv("SPARK_HOME", str(tmp_path / "one"))
    one = _key()
    monkeypatch.setenv("SPARK_HOME", str(tmp_path / "two"))
    assert _key() != one
