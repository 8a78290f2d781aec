"""kill -9 at every stage boundary and inside publish, then a rerun: nothing lost, nothing
corrupted. And two runs started at once on one home: one runs, the other stops at once.

Each case starts from the same published day 1 (a copy of one home) and runs day 2 of
the sample crawl through the real command line in its own process group; at the kill
point the whole group (driver, JVM, Python workers) gets SIGKILL, as a lost machine or
an OOM kill would. Then:

- readers refuse a day whose publish was cut (the store's completion marker);
- a rerun of the day exits 0, and every input record of the day has exactly one verdict
  or one quarantine line;
- the store then equals, table by table, the store of a clean run of the same two days.

All of it is ``make test-all`` (about 12 minutes: each case is two runs of the real command
line); ``make test`` covers the same guarantees in process (tests/spark/test_day_completion.py,
tests/spark/test_rerun_history.py, tests/contract/test_store_lock.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from crawldedup.day_state import MARKER
from crawldedup.store import open_store
from crawldedup_demo import load_quarantine_expected, load_truth
from tests.cli_helpers import BIN, cli, table_dump, verdicts
from tests.conftest import SAMPLE_DAYS

DAY1, DAY2 = SAMPLE_DAYS[0], SAMPLE_DAYS[1]
# Kill when this progress line has been printed: the stage before it is done, the next
# one has started (a boundary); "publish-started" is inside publish, its first write done.
BOUNDARIES = ["fingerprint", "bloom", "candidates", "similarity", "publish"]
# A stage's progress line: "[DAY] 2/7 bloom   0.4s ..." (its number of the run's stages).
STEP = re.compile(r"\] \d+/\d+ ")


def _run_day(home: Path, sample: Path, day: str) -> None:
    cli("run", "--date", day, "--input", str(sample / f"dt={day}"), home=home)


@pytest.fixture(scope="module")
def day_one_home(sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("kill-day1") / "home"
    _run_day(home, sample_crawl, DAY1)
    return home


@pytest.fixture(scope="module")
def clean_store(
    day_one_home: Path, sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("kill-clean") / "home"
    shutil.copytree(day_one_home, home)
    _run_day(home, sample_crawl, DAY2)
    return table_dump(f"sqlite:///{home / 'store.db'}")


def _marker_set(home: Path) -> bool:
    try:
        with open_store(f"sqlite:///{home / 'store.db'}", read_only=True) as store:
            return MARKER in store.get("days", [DAY2]).get(DAY2, {})
    except Exception:
        return False  # the file is being written: ask again


def _kill_during(home: Path, sample: Path, point: str) -> str:
    """Run day 2 and SIGKILL its process group at ``point``; the stderr read so far."""
    env = {k: v for k, v in os.environ.items() if k != "CRAWLDEDUP_CONFIG"}
    env["CRAWLDEDUP_HOME"] = str(home)
    args = [str(BIN), "run", "--date", DAY2, "--input", str(sample / f"dt={DAY2}")]
    log = home.parent / f"kill-{point}.err"
    with log.open("w") as err:
        proc = subprocess.Popen(
            args, stderr=err, stdout=subprocess.DEVNULL, env=env, start_new_session=True
        )
        deadline = time.monotonic() + 600
        try:
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise AssertionError(f"the run ended before {point}: {log.read_text()}")
                text = log.read_text()
                if point == "publish-started":
                    hit = _marker_set(home)
                else:
                    hit = any(
                        f" {point} " in line and STEP.search(line) for line in text.splitlines()
                    )
                if hit:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    return text
                time.sleep(0.05)
            raise AssertionError(f"{point} not reached in 600 s: {log.read_text()}")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _quarantine_lines(home: Path, day: str) -> int:
    folder = home / "quarantine" / f"dt={day}"
    return sum(
        1
        for f in folder.glob("*.json")
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    )


def _check_kill_then_rerun(
    point: str, day_one_home: Path, clean_store: dict[str, Any], sample: Path, tmp: Path
) -> None:
    home = tmp / "home"
    shutil.copytree(day_one_home, home)
    _kill_during(home, sample, point)
    proc = cli("verdicts", "--date", DAY2, home=home, check=False)
    if point == "publish-started":
        # The store says so: readers refuse the cut day, with one line.
        assert proc.returncode == 1 and "incomplete" in proc.stderr, proc.stderr
    elif point == "publish":
        # Killed between publish and the report, or (the report takes milliseconds) just
        # after the report: refused as incomplete, or complete; never half of each.
        assert proc.returncode == 0 or "incomplete" in proc.stderr, proc.stderr
    _run_day(home, sample, DAY2)  # the rerun completes the day
    truth = load_truth(sample / "truth.jsonl")
    expected_q = load_quarantine_expected(sample / "quarantine_expected.json")
    found = verdicts(DAY2, home)
    assert set(found) == {i for i, t in truth.items() if t.day == DAY2}
    assert _quarantine_lines(home, DAY2) == sum(expected_q["by_day"][DAY2].values())
    after = table_dump(f"sqlite:///{home / 'store.db'}")
    for table, rows in clean_store.items():
        assert after[table] == rows, f"{table} differs from a clean run's after a kill at {point}"


@pytest.mark.exhaustive
def test_a_kill_inside_publish_then_a_rerun_equals_a_clean_run(
    day_one_home: Path, clean_store: dict[str, Any], sample_crawl: Path, tmp_path: Path
) -> None:
    _check_kill_then_rerun("publish-started", day_one_home, clean_store, sample_crawl, tmp_path)


@pytest.mark.exhaustive
@pytest.mark.parametrize("point", BOUNDARIES)
def test_a_kill_at_a_stage_boundary_then_a_rerun_equals_a_clean_run(
    point: str, day_one_home: Path, clean_store: dict[str, Any], sample_crawl: Path, tmp_path: Path
) -> None:
    _check_kill_then_rerun(point, day_one_home, clean_store, sample_crawl, tmp_path)


@pytest.mark.exhaustive
def test_two_runs_started_at_once_one_runs_and_the_other_stops(
    day_one_home: Path, clean_store: dict[str, Any], sample_crawl: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(day_one_home, home)
    env = {k: v for k, v in os.environ.items() if k != "CRAWLDEDUP_CONFIG"}
    env["CRAWLDEDUP_HOME"] = str(home)
    args = [str(BIN), "run", "--date", DAY2, "--input", str(sample_crawl / f"dt={DAY2}")]
    procs = [
        subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=600), p.communicate()[1]) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 1], results
    loser = next(err for code, err in results if code == 1)
    assert "another run holds" in loser and "run 2026-11-02" in loser, loser
    after = table_dump(f"sqlite:///{home / 'store.db'}")
    assert all(after[t] == rows for t, rows in clean_store.items())
    report = json.loads(cli("report", "--date", DAY2, home=home).stdout)
    assert report["documents"] == len(verdicts(DAY2, home))
