"""The daily job against a real HBase: same verdicts as the embedded store, and a rerun
after the Thrift server died mid-write completes the day exactly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from crawldedup.sample import generate_sample
from crawldedup.store import open_store
from crawldedup.store.base import TABLES
from tests.hbase_fixtures import ROOT, drop_prefix, ensure_hbase, hbase_url, unique_prefix
from tests.integration.test_cli_end_to_end import DAYS, cli

pytestmark = pytest.mark.hbase


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hbase-e2e") / "sample"
    generate_sample(root, days=3)
    return root


def run_day(day: str, sample: Path, home: Path, store: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "run", "--date", day, "--input", str(sample / f"dt={day}"), "--store", store, home=home
    )


def table_dump(store_url: str) -> dict[str, list[tuple[str, dict[str, bytes]]]]:
    with open_store(store_url) as store:
        return {t: list(store.scan(t)) for t in TABLES if t != "days"}


def test_three_days_on_hbase_match_the_embedded_store(
    hbase: str, sample: Path, tmp_path: Path
) -> None:
    prefix = unique_prefix("e")
    url = hbase_url(prefix)
    try:
        for d in DAYS:
            run_day(d, sample, tmp_path / "hb", url)
            run_day(d, sample, tmp_path / "lite", f"sqlite:///{tmp_path / 'lite.db'}")
        for d in DAYS:
            on_hbase = verdicts_with_store(d, tmp_path / "hb", url)
            embedded = verdicts_with_store(
                d, tmp_path / "lite", f"sqlite:///{tmp_path / 'lite.db'}"
            )
            assert on_hbase == embedded and on_hbase
        assert table_dump(url) == table_dump(f"sqlite:///{tmp_path / 'lite.db'}")
    finally:
        drop_prefix(prefix)


def verdicts_with_store(day: str, home: Path, store: str) -> dict[str, dict[str, Any]]:
    import json

    out = cli("verdicts", "--date", day, "--store", store, home=home).stdout
    return {r["id"]: r for r in (json.loads(x) for x in out.splitlines())}


def thrift_pid() -> int:
    data = Path(os.environ.get("HBASE_DATA_DIR", ROOT / ".hbase"))
    return int((data / "run" / "thrift.pid").read_text().strip())


def test_thrift_killed_mid_write_then_rerun_completes_the_day(
    hbase: str, sample: Path, tmp_path: Path
) -> None:
    clean, faulty = unique_prefix("k"), unique_prefix("f")
    # Few, short retries: the test wants the task to give up while Thrift is down.
    fast_fail = "?retries=2&backoff_s=0.2&timeout_ms=5000"
    try:
        for prefix in (clean, faulty):
            run_day(DAYS[0], sample, tmp_path / prefix, hbase_url(prefix))
        run_day(DAYS[1], sample, tmp_path / clean, hbase_url(clean))

        env = {**os.environ, "CRAWLDEDUP_HOME": str(tmp_path / faulty)}
        proc = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("crawldedup")),
                "run",
                "--date",
                DAYS[1],
                "--input",
                str(sample / f"dt={DAYS[1]}"),
                "--store",
                hbase_url(faulty) + fast_fail,
            ],
            stderr=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if " similarity " in line:  # the write phase (publish) starts now
                os.kill(thrift_pid(), signal.SIGKILL)
                break
        _, rest = proc.communicate(timeout=600)
        err = "".join(lines) + rest
        assert proc.returncode == 1, err
        last = [x for x in err.splitlines() if x.startswith("crawldedup: failed")]
        assert last and "publish" in last[0] and "hbase" in last[0].lower(), err[-3000:]

        t0 = time.time()
        ensure_hbase()  # restarts only the Thrift server
        assert time.time() - t0 < 300
        run_day(DAYS[1], sample, tmp_path / faulty, hbase_url(faulty))
        assert verdicts_with_store(
            DAYS[1], tmp_path / faulty, hbase_url(faulty)
        ) == verdicts_with_store(DAYS[1], tmp_path / clean, hbase_url(clean))
        assert table_dump(hbase_url(faulty)) == table_dump(hbase_url(clean))
    finally:
        ensure_hbase()
        drop_prefix(clean)
        drop_prefix(faulty)
