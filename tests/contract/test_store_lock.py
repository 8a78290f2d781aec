"""The store's run lock (crawldedup/store_lock.py) on both backends: one holder at a time
whatever the home, stale holders taken over, the heartbeat kept fresh, and the CLI's
second run on one store (from another home) stopped at once, naming the holder."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from crawldedup.run_lock import RunLocked
from crawldedup.store import open_store
from crawldedup.store.base import TABLES
from crawldedup.store_lock import CELL, ROW, TABLE, store_lock
from tests.cli_helpers import cli
from tests.hbase_fixtures import hbase_url


@pytest.fixture(params=["sqlite", pytest.param("hbase", marks=pytest.mark.hbase)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    found = hbase_url(request.getfixturevalue("hbase_prefix"))
    with open_store(found) as s:
        for table in TABLES:
            s.delete(table, [k for k, _ in s.scan(table, keys_only=True)])
    return found


def _holder(url: str) -> bytes | None:
    with open_store(url) as s:
        return s.get(TABLE, [ROW]).get(ROW, {}).get(CELL)


def _plant(url: str, **info: object) -> None:
    with open_store(url) as s:
        s.put(TABLE, {ROW: {CELL: json.dumps(info).encode()}})


def test_one_holder_at_a_time_and_free_after(url: str) -> None:
    with store_lock(url, "run 2026-11-01"):
        held = json.loads(_holder(url) or b"{}")
        assert held["what"] == "run 2026-11-01" and held["host"] == socket.gethostname()
        with (
            pytest.raises(RunLocked, match=r"another run holds the store .*run 2026-11-01"),
            store_lock(url, "run 2026-11-02"),
        ):
            pass
    assert _holder(url) == b""
    with store_lock(url, "run 2026-11-02"):  # free again
        pass


def test_a_dead_holder_on_this_host_is_taken_over(url: str) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that existed and is gone
    _plant(url, what="run 2026-11-01", host=socket.gethostname(), pid=dead.pid, beat=time.time())
    said: list[str] = []
    with store_lock(url, "run 2026-11-01", progress=said.append):
        assert json.loads(_holder(url) or b"{}")["what"] == "run 2026-11-01"
    assert said and f"its process {dead.pid} is gone" in said[0]


def test_another_hosts_holder_counts_until_its_lease_runs_out(url: str) -> None:
    _plant(url, what="run 2026-11-01", host="elsewhere", pid=1, beat=time.time())
    with (
        pytest.raises(RunLocked, match="on elsewhere"),
        store_lock(url, "run 2026-11-02", lease_s=60),
    ):
        pass
    _plant(url, what="run 2026-11-01", host="elsewhere", pid=1, beat=time.time() - 120)
    said: list[str] = []
    with store_lock(url, "run 2026-11-02", lease_s=60, progress=said.append):
        pass
    assert said and "no heartbeat for 120 s" in said[0]


def test_the_holder_keeps_its_heartbeat_fresh(url: str) -> None:
    with store_lock(url, "run 2026-11-01", lease_s=0.5):
        first = json.loads(_holder(url) or b"{}")["beat"]
        time.sleep(0.6)
        later = json.loads(_holder(url) or b"{}")["beat"]
    assert later > first


def test_a_run_from_another_home_on_the_same_store_stops_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    day = tmp_path / "dt=2026-11-01"
    day.mkdir()
    (day / "a.jsonl").write_text('{"id": "a", "content": "x"}\n')
    with store_lock(url, "run 2026-11-02"):
        proc = cli(
            "run",
            "--date",
            "2026-11-01",
            "--input",
            str(day),
            "--store",
            url,
            home=tmp_path / "other-home",
            check=False,
        )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "another run holds the store" in last and "run 2026-11-02" in last, proc.stderr
    assert "starting Spark" not in proc.stderr
