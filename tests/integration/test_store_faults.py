"""The embedded store on real faulty file systems: a home on a read-only mount is read by
the read commands, and a full disk is named as such (a tmpfs filled to the brim). The
mounts are real (tests/mounts.py); without root the tests are skipped, saying why."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from crawldedup.cli import _one_line, main
from crawldedup.store.base import StoreError
from crawldedup.store.schema import VerdictRecord, verdict_row_key
from crawldedup.store.sqlite_store import SqliteStore
from tests.mounts import read_only_view, small_file_system
from tests.spark.test_stages import ARTICLE, rec, write_day

DAY = "2026-11-01"


def _published_home(home: Path) -> None:
    """A home whose store holds one published day, written through the store's API."""
    home.mkdir(parents=True)
    store = SqliteStore(home / "store.db")
    store.put(
        "verdicts",
        {
            verdict_row_key(DAY, "a"): VerdictRecord("a", "unique", None, None, None, "a").to_row(),
            verdict_row_key(DAY, "b"): VerdictRecord(
                "b", "duplicate", "content_md5", "a", 1.0, "a", "full", "exact"
            ).to_row(),
        },
    )
    store.put("days", {DAY: {"r:report": json.dumps({"day": DAY, "documents": 2}).encode()}})
    store.close()


def test_the_read_commands_read_a_home_on_a_read_only_mount(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    _published_home(home)
    before = sorted(p.name for p in home.iterdir())
    with read_only_view(home) as ro:
        with pytest.raises(OSError) as refused:
            (ro / "probe").write_text("x")
        assert refused.value.errno == errno.EROFS  # the mount really is read-only
        capsys.readouterr()
        assert main(["verdicts", "--date", DAY, "--home", str(ro)]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert {r["id"]: r["verdict"] for r in rows} == {"a": "unique", "b": "duplicate"}
        assert main(["report", "--date", DAY, "--home", str(ro)]) == 0
        assert json.loads(capsys.readouterr().out)["documents"] == 2
        assert main(["groups", "--date", DAY, "--home", str(ro)]) == 0
    assert sorted(p.name for p in home.iterdir()) == before  # nothing written beside it


def test_a_read_only_open_creates_nothing_and_reads_missing_tables_as_empty(
    tmp_path: Path,
) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    sqlite3.connect(path).close()  # a file without any of the store's tables
    store = SqliteStore(path, read_only=True)
    assert store.get("verdicts", ["x"]) == {} and list(store.scan("days")) == []
    with pytest.raises(StoreError, match="readonly"):
        store.put("days", {DAY: {"r:report": b"{}"}})
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
    with pytest.raises(StoreError, match="no such file"):
        SqliteStore(tmp_path / "missing.db", read_only=True)


def _fill(folder: Path) -> None:
    """Write until the file system refuses: ENOSPC from then on."""
    with (folder / "filler").open("wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def test_a_full_disk_is_named_by_the_store_and_by_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with small_file_system(tmp_path, "2m") as small:
        store = SqliteStore(small / "store.db")
        with pytest.raises(StoreError, match="the disk is full") as full:
            for i in range(1000):
                store.put("docs", {f"d{i}": {"m:tf": b"x" * 65536}})
        assert "free space, then rerun the day" in str(full.value)
        store.close()

    inp = write_day(tmp_path / "in", DAY, [rec("a", ARTICLE, f"{DAY}T01:00:00Z")])
    with small_file_system(tmp_path, "1m") as small:
        _fill(small)
        capsys.readouterr()
        code = main(["run", "--date", DAY, "--input", str(inp), "--home", str(small / "home")])
        err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    assert "the disk is full" in err[0], err


def test_a_failure_line_names_a_full_disk_found_anywhere_in_the_chain() -> None:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as low:
            raise RuntimeError("stage publish failed: writing work/dt=D/postings") from low
    except RuntimeError as exc:
        line = _one_line(exc)
    assert line.startswith("the disk is full") and "stage publish failed" in line
    assert _one_line(RuntimeError("something else")) == "something else"
