"""Three days of the sample crawl through the real ``crawldedup`` command line, on the
embedded store (``make test-all``; ``make test`` runs the command line on HBase, see
test_hbase_end_to_end), and the exit codes of bad usage and of failures (both commands).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawldedup_demo import load_truth
from tests.cli_helpers import cli, cli_env, verdicts
from tests.conftest import SAMPLE_DAYS
from tests.verdict_checks import (
    DAY2_QUARANTINE,
    check_contract_verdicts,
    check_planted_reposts,
    check_progress_lines,
)

DAYS = list(SAMPLE_DAYS)
FROM_DAY_ONE = ["run", "--date", "2026-11-01", "--input", "{tmp}/dt=2026-11-01"]


@pytest.fixture(scope="module")
def three_days(sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # The three days in one command and one Spark session (--through); the rerun of day
    # 2 below is a run of its own, whose verdicts must equal the ones of this run.
    sample, home = sample_crawl, tmp_path_factory.mktemp("e2e") / "home"
    run = cli(
        "run",
        "--date",
        DAYS[0],
        "--through",
        DAYS[-1],
        "--input",
        str(sample / f"dt={DAYS[0]}"),
        home=home,
    )
    return {
        "sample": sample,
        "home": home,
        "run": run,
        "verdicts": {d: verdicts(d, home) for d in DAYS},
        "truth": load_truth(sample / "truth.jsonl"),
    }


@pytest.mark.exhaustive
def test_every_document_gets_one_contract_verdict(three_days: dict[str, Any]) -> None:
    check_contract_verdicts(three_days["verdicts"], three_days["truth"])


@pytest.mark.exhaustive
def test_planted_reposts_and_hard_negatives(three_days: dict[str, Any]) -> None:
    check_planted_reposts(three_days["verdicts"], three_days["truth"])


@pytest.mark.exhaustive
def test_bad_records_are_quarantined_and_the_rest_processed(three_days: dict[str, Any]) -> None:
    home = three_days["home"]
    report = json.loads(cli("report", "--date", "2026-11-02", home=home).stdout)
    assert report["quarantined"] == DAY2_QUARANTINE
    assert report["documents"] == len(three_days["verdicts"]["2026-11-02"])
    summary = [ln for ln in three_days["run"].stdout.splitlines() if ln.startswith("2026-11-02:")]
    assert len(summary) == 1 and "5 quarantined" in summary[0], three_days["run"].stdout


@pytest.mark.exhaustive
def test_progress_is_stage_by_stage_without_spark_noise(three_days: dict[str, Any]) -> None:
    stderr = three_days["run"].stderr
    check_progress_lines(stderr)
    # One Spark start for the three days, and each day's stages under its own date.
    assert stderr.count("starting Spark") == 1, stderr
    for day in DAYS:
        assert f"[{day}] 5/7 publish" in stderr, stderr


@pytest.mark.exhaustive
def test_rerunning_day_two_gives_identical_verdicts(three_days: dict[str, Any]) -> None:
    home, sample = three_days["home"], three_days["sample"]
    cli("run", "--date", "2026-11-02", "--input", str(sample / "dt=2026-11-02"), home=home)
    assert verdicts("2026-11-02", home) == three_days["verdicts"]["2026-11-02"]
    assert verdicts("2026-11-03", home) == three_days["verdicts"]["2026-11-03"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--date", "2026-13-01", "--input", "."], "not a date"),
        (["run", "--date", "2026-11-01", "--input", "/nonexistent/dt=x"], "input folder not found"),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--set", "seed.threshold=2"],
            "seed.threshold must be in (0, 1]",
        ),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--set", "cascade.threshold=0.8"],
            "cascade.threshold moved to seed.threshold",
        ),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--config", "/nonexistent.toml"],
            "not found",
        ),
        (["run", "--date", "2026-11-01", "--input", ".", "--bogus"], "unrecognized arguments"),
        (["verdicts"], "required"),
        # Only the calendar form: Python's fromisoformat alone takes both of these.
        (["run", "--date", "20261110", "--input", "."], "not a date"),
        (["run", "--date", "2026-W46-2", "--input", "."], "not a date"),
        # The data would land under another day.
        (["run", "--date", "2026-11-02", "--input", "{tmp}/dt=2026-11-01"], "input folder is"),
        (["run", "--date", "2026-11-01", "--input", ".", "--set", "store_url=1"], "store_url"),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--set", "spark.shuffle_partitions=0"],
            "shuffle_partitions",
        ),
        # --through: a range that runs forwards, with a dt=D folder for every day in it.
        ([*FROM_DAY_ONE, "--through", "2026-10-31"], "--through 2026-10-31 is before --date"),
        ([*FROM_DAY_ONE, "--through", "2026-11-03"], "2 day(s) in the range have no crawl folder"),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--through", "2026-11-02"],
            "must be named dt=2026-11-01",
        ),
        ([*FROM_DAY_ONE, "--through", "2026-11-01", "--cascade-later"], "do not go together"),
        # A typo in --home must not create an empty store and answer with nothing.
        (["verdicts", "--date", "2026-11-01", "--home", "{tmp}/typo"], "no store at"),
        (["groups", "--date", "2026-11-01", "--home", "{tmp}/typo"], "no store at"),
    ],
)
def test_bad_usage_exits_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "dt=2026-11-01").mkdir()
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = cli(*args, home=tmp_path, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not (tmp_path / "typo").exists()


def test_failure_exits_1(tmp_path: Path) -> None:
    (tmp_path / "dt=2026-11-01").mkdir()
    (tmp_path / "dt=2026-11-01" / "a.jsonl").write_text('{"id": "a", "content": "x"}\n')
    # The store path is a folder, so SQLite cannot open it: a runtime failure, not usage.
    (tmp_path / "store-is-a-dir").mkdir()
    proc = cli(
        "run",
        "--date",
        "2026-11-01",
        "--input",
        str(tmp_path / "dt=2026-11-01"),
        "--store",
        f"sqlite:///{tmp_path / 'store-is-a-dir'}",
        home=tmp_path,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("crawldedup: failed:")


def test_a_day_over_the_quarantine_limit_is_published_and_exits_3(tmp_path: Path) -> None:
    day = tmp_path / "dt=2026-11-01"
    day.mkdir()
    good = {"id": "a", "url": "http://x.example/a", "title": "t", "content": "正文" * 40}
    day.joinpath("part-0.jsonl").write_text(
        json.dumps(good, ensure_ascii=False) + '\n{"id": "b"}\nnot json\n', encoding="utf-8"
    )
    # The limit comes from the file $CRAWLDEDUP_CONFIG names (no --config flag).
    config = tmp_path / "crawldedup.toml"
    config.write_text("[gate]\nmax_quarantined_share = 0.5\n")
    env_home = tmp_path / "home"
    proc = cli_env(
        {"CRAWLDEDUP_CONFIG": str(config)},
        "run",
        "--date",
        "2026-11-01",
        "--input",
        str(day),
        home=env_home,
    )
    assert proc.returncode == 3, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("crawldedup: data-quality gate failed: 2026-11-01: quarantined share")
    assert "66.7% is above the limit 50.0%" in last
    # The day was published all the same: the good record has its verdict.
    assert set(verdicts("2026-11-01", env_home)) == {"a"}


def test_a_second_run_on_a_held_home_stops_at_once_naming_the_holder(tmp_path: Path) -> None:
    """The lock is the OS's flock on HOME/run.lock, held here by this test's process as a
    running day would hold it; the CLI's run must not start Spark or touch the store."""
    from crawldedup.run_lock import home_lock

    day = tmp_path / "dt=2026-11-01"
    day.mkdir()
    (day / "a.jsonl").write_text('{"id": "a", "content": "x"}\n')
    home = tmp_path / "home"
    with home_lock(home, "run 2026-11-02"):
        proc = cli("run", "--date", "2026-11-01", "--input", str(day), home=home, check=False)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "another run holds" in last and "run 2026-11-02" in last, proc.stderr
    assert not (home / "store.db").exists()
    # Released: the next run takes it (and the file no longer names a holder).
    with home_lock(home, "run 2026-11-01"):
        pass
    assert (home / "run.lock").read_text() == ""


def test_a_published_day_is_not_emptied_by_a_rerun_from_an_empty_folder(tmp_path: Path) -> None:
    from crawldedup.store import open_store

    home, day = tmp_path / "home", tmp_path / "dt=2026-11-01"
    day.mkdir()
    (day / "_SUCCESS").touch()  # the crawler finished, with nothing we can read
    with open_store(f"sqlite:///{home / 'store.db'}") as store:  # day 1 as publish leaves it
        store.put("days", {"2026-11-01": {"r:report": b"{}"}})
    proc = cli("run", "--date", "2026-11-01", "--input", str(day), home=home, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--replace" in lines[0] and "published" in lines[0], proc.stderr
    # --through: a following day is refused the same way, and --replace (which is for
    # --date's day) does not lift it.
    later = tmp_path / "dt=2026-11-02"
    later.mkdir()
    with open_store(f"sqlite:///{home / 'store.db'}") as store:
        store.put("days", {"2026-11-02": {"r:report": b"{}"}})
    args = ["--input", str(day), "--through", "2026-11-02", "--replace"]
    proc = cli("run", "--date", "2026-11-01", *args, home=home, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "2026-11-02 is published" in lines[0], proc.stderr
    assert "run 2026-11-02 by itself with --replace" in lines[0], proc.stderr
