"""``crawldedup stage report|commit --json``: the command the DAG's report and commit tasks
run (plugins/crawldedup_airflow/stage_process.py). Its JSON outcome on stdout is what the
tasks push to XCom, printed also when the gate fails (exit 3, one line on stderr)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.cli_helpers import cli

if TYPE_CHECKING:
    from tests.conftest import EmbeddedDays


def _stage(home: Path, day: str, *args: str) -> tuple[int, dict[str, object], list[str]]:
    store = f"sqlite:///{home.resolve() / 'store.db'}"
    proc = cli(
        "stage", *args, "--date", day, "--home", str(home), "--store", store, "--json",
        home=home, check=False,
    )  # fmt: skip
    printed = proc.stdout.strip().splitlines()
    assert len(printed) == 1, proc.stdout  # one JSON object, nothing else on stdout
    return proc.returncode, json.loads(printed[0]), proc.stderr.strip().splitlines()


@pytest.fixture
def day_home(embedded_sample_days: EmbeddedDays, tmp_path: Path) -> tuple[str, Path]:
    """The first sample day, in a copy of the shared home this test may write."""
    home = tmp_path / "home"
    shutil.copytree(embedded_sample_days.home, home)
    return embedded_sample_days.days[0], home


def test_stage_report_json_prints_the_counts_also_when_the_gate_fails(
    day_home: tuple[str, Path],
) -> None:
    day, home = day_home
    report = json.loads((home / "work" / f"dt={day}" / "report.json").read_text())

    code, out, err = _stage(home, day, "report", "--run-id", "a_dag_run@t0")
    assert code == 0, err
    counts = out["counts"]
    assert isinstance(counts, dict)
    assert counts["documents"] == report["documents"] > 0
    assert counts["unique"] == report["unique"]
    assert out["gate_failures"] == []
    assert out["html"] == str(home.resolve() / "reports" / f"dt={day}" / "index.html")
    # The fixture's run published the day: a DAG run's report says whose parameters it shows.
    assert any(
        line.startswith(f"warning: {day} was last published by the command line") for line in err
    ), err
    assert f"HTML report: {out['html']}" in err

    # As if as many records as the day has documents had been quarantined (the
    # fingerprint stage's counts, which the report sums): over the gate's share.
    fingerprint = home / "work" / f"dt={day}" / "stats" / "fingerprint.json"
    stats = json.loads(fingerprint.read_text())
    stats["quarantined"] = {"no_text": report["documents"]}
    fingerprint.write_text(json.dumps(stats))
    code, out, err = _stage(home, day, "report")
    assert code == 3, err
    assert err[-1].startswith("crawldedup: data-quality gate failed: "), err
    failures = out["gate_failures"]
    assert isinstance(failures, list) and len(failures) == 1
    assert err[-1].endswith(str(failures[0]))
    failed = out["counts"]  # what the DAG's task pushes before it fails
    assert isinstance(failed, dict)
    assert failed["quarantined_total"] == report["documents"] == failed["documents"]


def test_stage_commit_json_prints_what_the_day_was_published_with(
    day_home: tuple[str, Path],
) -> None:
    day, home = day_home
    code, out, err = _stage(home, day, "commit", "--run-id", "a_dag_run@t0")
    assert code == 0, err
    published = out["published_with"]
    assert isinstance(published, dict)
    assert published["run"] == "a_dag_run@t0"
    assert published["documents"] > 0
