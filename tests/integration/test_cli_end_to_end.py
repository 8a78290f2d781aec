"""Three days of the sample crawl through the real ``crawldedup`` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crawldedup.sample import generate_sample, load_truth, pairwise_scores

BIN = Path(sys.executable).with_name("crawldedup")
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]


def cli(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRAWLDEDUP_HOME": str(home)}
    proc = subprocess.run([str(BIN), *args], capture_output=True, text=True, env=env, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"crawldedup {args} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def verdicts(day: str, home: Path) -> dict[str, dict[str, Any]]:
    out = cli("verdicts", "--date", day, home=home).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    return {r["id"]: r for r in rows}


@pytest.fixture(scope="module")
def three_days(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("e2e")
    sample, home = root / "sample", root / "home"
    generate_sample(sample, days=3)
    runs = {d: cli("run", "--date", d, "--input", str(sample / f"dt={d}"), home=home) for d in DAYS}
    return {
        "sample": sample,
        "home": home,
        "runs": runs,
        "verdicts": {d: verdicts(d, home) for d in DAYS},
        "truth": load_truth(sample / "truth.jsonl"),
    }


def test_every_document_gets_one_contract_verdict(three_days: dict[str, Any]) -> None:
    truth = three_days["truth"]
    for d in DAYS:
        v = three_days["verdicts"][d]
        assert set(v) == {i for i, t in truth.items() if t.day == d}
        for r in v.values():
            assert set(r) == {
                "id",
                "verdict",
                "rule",
                "duplicate_of",
                "similarity",
                "group",
                "type",
            }
            assert r["verdict"] in ("unique", "duplicate")
            if r["verdict"] == "unique":
                assert r["duplicate_of"] is None and r["rule"] is None
            else:
                assert r["rule"] in ("content_md5", "head", "tail", "title", "simhash")
                assert r["type"] in ("full", "content", "partial", "near")
                assert r["duplicate_of"] != r["id"] and r["similarity"] > 0.9


def test_planted_reposts_found_with_right_rule_and_canonical(three_days: dict[str, Any]) -> None:
    truth = three_days["truth"]
    allv = {i: r for d in DAYS for i, r in three_days["verdicts"][d].items()}
    mirrors = [t for t in truth.values() if t.transform == "exact_mirror"]
    assert mirrors
    for t in mirrors:
        r = allv[t.id]
        assert (r["rule"], r["group"]) == ("content_md5", t.cluster), (t, r)
    # A cross-day repost: its canonical is an original of an earlier day.
    cross = [
        t
        for t in truth.values()
        if t.transform != "original" and truth[t.cluster].day < t.day and t.seed_reachable
    ]
    assert cross
    assert all(allv[t.id]["group"] == t.cluster for t in cross)
    scores = pairwise_scores({i: r["group"] for i, r in allv.items()}, truth)
    assert scores.precision >= 0.99 and scores.recall >= 0.95


def test_hard_negatives_stay_unique(three_days: dict[str, Any]) -> None:
    truth = three_days["truth"]
    allv = {i: r for d in DAYS for i, r in three_days["verdicts"][d].items()}
    negatives = [t for t in truth.values() if t.negative in ("shared_boilerplate", "generic_title")]
    assert negatives
    for t in negatives:
        assert allv[t.id]["group"] == t.cluster, (t, allv[t.id])


def test_bad_records_are_quarantined_and_the_rest_processed(three_days: dict[str, Any]) -> None:
    home = three_days["home"]
    report = json.loads(cli("report", "--date", "2026-11-02", home=home).stdout)
    assert report["quarantined"] == {
        "bad_json": 1,
        "duplicate_id": 1,
        "no_text": 1,
        "too_large": 1,
        "wrong_type": 1,
    }
    assert report["documents"] == len(three_days["verdicts"]["2026-11-02"])
    assert "5 quarantined" in three_days["runs"]["2026-11-02"].stdout


def test_progress_is_stage_by_stage_without_spark_noise(three_days: dict[str, Any]) -> None:
    err = three_days["runs"]["2026-11-01"].stderr
    for stage in ("fingerprint", "bloom", "candidates", "similarity", "publish", "report"):
        assert f" {stage} " in err
    assert "INFO" not in err and "WARN TaskSetManager" not in err


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
            ["run", "--date", "2026-11-01", "--input", ".", "--set", "cascade.threshold=2"],
            "threshold",
        ),
        (
            ["run", "--date", "2026-11-01", "--input", ".", "--config", "/nonexistent.toml"],
            "not found",
        ),
        (["run", "--date", "2026-11-01", "--input", ".", "--bogus"], "unrecognized arguments"),
        (["verdicts"], "required"),
    ],
)
def test_bad_usage_exits_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = cli(*args, home=tmp_path, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


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
