"""The stage registry is the one list: the runners, the CLI, the jobs and the args follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawldedup.stage_registry import (
    DEDUP_STAGES,
    NAMES,
    SPARK_STAGES,
    day_stages,
    stage,
    stage_argv,
)

ROOT = Path(__file__).resolve().parents[2]


def test_order_and_derived_lists() -> None:
    assert NAMES == (
        "fingerprint",
        "relevance",
        "bloom",
        "candidates",
        "similarity",
        "publish",
        "report",
    )
    assert DEDUP_STAGES == ("fingerprint", "bloom", "candidates", "similarity", "publish", "report")
    assert SPARK_STAGES == ("fingerprint", "bloom", "candidates", "similarity", "publish")
    assert day_stages() == DEDUP_STAGES
    assert day_stages(frozenset({"relevance"}))[:2] == ("fingerprint", "relevance")
    with pytest.raises(ValueError, match="known"):
        stage("dedupe")


def test_runners_cli_choices_and_job_files_follow_the_registry() -> None:
    from crawldedup.cli import build_parser
    from crawldedup.pipeline.stages import RUNNERS

    assert tuple(RUNNERS) == NAMES
    # One spark-submit entry point per stage that has a task of its own.
    jobs = {p.stem for p in (ROOT / "jobs").glob("*.py")}
    assert jobs == set(NAMES)
    for name in NAMES:
        args = build_parser().parse_args(["stage", name, "--date", "2026-11-01"])
        assert args.name == name
    with pytest.raises(Exception, match="invalid choice"):
        build_parser().parse_args(["stage", "dedupe", "--date", "2026-11-01"])


def test_stage_argv_adds_input_only_where_the_stage_reads_it() -> None:
    base = ["--date", "2026-11-01", "--home", "/h", "--store", "sqlite:////h/s.db"]
    kw = {"day": "2026-11-01", "home": "/h", "store": "sqlite:////h/s.db"}
    assert stage_argv("bloom", **kw, input_dir="/in") == base
    assert stage_argv("fingerprint", **kw, input_dir="/in") == [*base, "--input", "/in"]
    assert stage_argv("publish", **kw, config="/c.toml", overrides=["a=1"], dry_run=True) == [
        *base,
        "--config",
        "/c.toml",
        "--set",
        "a=1",
        "--dry-run",
    ]
    with pytest.raises(ValueError, match="input folder"):
        stage_argv("relevance", **kw)
