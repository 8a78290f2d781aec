"""The command line against a real HBase, as production runs it: two sample days, the
Thrift server killed while day 2 is being published, then a rerun of day 2. The rerun
completes the day exactly: verdicts and every table equal, cell for cell, those of the
same days run by the same stages on the embedded store (in the shared Spark session).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from crawldedup_demo import load_truth
from tests.cli_helpers import BIN, cli, rows_missing_from_the_line_filter, table_dump, verdicts
from tests.conftest import SAMPLE_DAYS, EmbeddedDays
from tests.hbase_fixtures import ROOT, drop_prefix, ensure_hbase, hbase_url, unique_prefix
from tests.verdict_checks import (
    DAY2_QUARANTINE,
    check_contract_verdicts,
    check_planted_reposts,
    check_progress_lines,
)

pytestmark = pytest.mark.hbase

DAYS = SAMPLE_DAYS[:2]
# Few, short retries: the run should give up while Thrift is down, not wait for it.
FAST_FAIL = "?retries=2&backoff_s=0.2&timeout_ms=5000"


@dataclass
class HBaseDays:
    url: str
    home: Path
    first: subprocess.CompletedProcess[str]  # day 1
    killed_code: int  # day 2, Thrift killed when publish started
    killed_stderr: str
    rerun: subprocess.CompletedProcess[str]  # day 2 again, Thrift back
    verdicts: dict[str, dict[str, dict[str, Any]]]


def thrift_pid() -> int:
    data = Path(os.environ.get("HBASE_DATA_DIR", ROOT / ".hbase"))
    return int((data / "run" / "thrift.pid").read_text().strip())


def run_day_killing_thrift_at_publish(day: str, sample: Path, home: Path, url: str) -> Any:
    """``crawldedup run`` of ``day``; SIGKILL to the Thrift server once similarity is done
    (the progress line of stage 4), i.e. as publish starts writing."""
    env = {**os.environ, "CRAWLDEDUP_HOME": str(home)}
    cmd = [str(BIN), "run", "--date", day, "--input", str(sample / f"dt={day}"), "--store", url]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if " similarity " in line:
            os.kill(thrift_pid(), signal.SIGKILL)
            break
    _, rest = proc.communicate(timeout=600)
    return proc.returncode, "".join(lines) + rest


@pytest.fixture(scope="module")
def on_hbase(
    hbase: str, sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HBaseDays]:
    prefix = unique_prefix("e")
    url, home = hbase_url(prefix), tmp_path_factory.mktemp("hbase-e2e") / "home"

    def run(day: str) -> subprocess.CompletedProcess[str]:
        return cli(
            "run",
            "--date",
            day,
            "--input",
            str(sample_crawl / f"dt={day}"),
            "--store",
            url,
            home=home,
        )

    try:
        first = run(DAYS[0])
        code, err = run_day_killing_thrift_at_publish(DAYS[1], sample_crawl, home, url + FAST_FAIL)
        ensure_hbase()  # restarts only the Thrift server
        rerun = run(DAYS[1])
        found = {d: verdicts(d, home, url) for d in DAYS}
        yield HBaseDays(url, home, first, code, err, rerun, found)
    finally:
        ensure_hbase()
        drop_prefix(prefix)


@pytest.fixture(scope="module")
def embedded(embedded_sample_days: EmbeddedDays) -> Any:
    """The same days on the embedded store, by the same stages in this process."""
    e = embedded_sample_days
    assert e.days == DAYS
    return e.url, {d: verdicts(d, e.home, e.url) for d in DAYS}


def test_thrift_killed_mid_publish_fails_the_run_with_one_line(on_hbase: HBaseDays) -> None:
    err = on_hbase.killed_stderr
    assert on_hbase.killed_code == 1, err[-3000:]
    last = [x for x in err.splitlines() if x.startswith("crawldedup: failed")]
    assert last and "publish" in last[0] and "hbase" in last[0].lower(), err[-3000:]


def test_rerun_after_the_kill_equals_the_embedded_store(on_hbase: HBaseDays, embedded: Any) -> None:
    url, found = embedded
    assert on_hbase.verdicts == found
    assert table_dump(on_hbase.url) == table_dump(url)
    # HBase keeps the line filter (bloom.line_filter "auto"): after the kill and the
    # rerun it still holds every line-count row.
    assert rows_missing_from_the_line_filter(on_hbase.url) == []


def test_verdicts_follow_the_contract_and_the_planted_truth(
    on_hbase: HBaseDays, sample_crawl: Path
) -> None:
    truth = load_truth(sample_crawl / "truth.jsonl")
    check_contract_verdicts(on_hbase.verdicts, truth)
    check_planted_reposts(on_hbase.verdicts, truth)


def test_quarantine_is_counted_and_progress_is_one_line_per_stage(on_hbase: HBaseDays) -> None:
    report = json.loads(
        cli("report", "--date", DAYS[1], "--store", on_hbase.url, home=on_hbase.home).stdout
    )
    assert report["quarantined"] == DAY2_QUARANTINE
    assert report["documents"] == len(on_hbase.verdicts[DAYS[1]])
    assert "5 quarantined" in on_hbase.rerun.stdout
    check_progress_lines(on_hbase.first.stderr)
