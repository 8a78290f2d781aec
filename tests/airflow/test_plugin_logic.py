"""The plugins' pure logic: crawl day, readiness, stage arguments, store URLs, the gate.

No Airflow import (these modules have none), no JVM.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from crawldedup.store import open_store
from crawldedup_airflow.day import (
    RULES,
    SPARK_STAGES,
    RunSetupError,
    crawl_date,
    crawl_ready,
    day_dir,
    stage_args,
)
from crawldedup_airflow.quality import (
    GateLimits,
    day_counts,
    gate_failures,
    trailing_average,
    trailing_reports,
)
from crawldedup_airflow.stores import StoreSetupError, embedded_store_url, hbase_store_url

RUN = {
    "crawl_date": "2026-11-02",
    "input": "/crawl/dt=2026-11-02",
    "home": "/h",
    "store": "sqlite:////h/store.db",
}
PARAMS: dict[str, Any] = {"threshold": 0.9, "rules": list(RULES), "dry_run": False}


def test_crawl_date_prefers_the_param_then_the_logical_date() -> None:
    logical = datetime(2026, 11, 1, 3, 0, tzinfo=UTC)
    assert crawl_date("2026-11-05", logical) == "2026-11-05"
    assert crawl_date("", logical) == "2026-11-01"
    assert crawl_date(None, logical) == "2026-11-01"
    with pytest.raises(RunSetupError, match="no logical date and no crawl_date"):
        crawl_date("", None)
    with pytest.raises(RunSetupError, match="not a date"):
        crawl_date("2026-13-01", None)


def test_crawl_ready_by_marker_or_by_data_files(tmp_path: Path) -> None:
    folder = day_dir(tmp_path, "2026-11-01")
    assert folder == tmp_path / "dt=2026-11-01"
    assert crawl_ready(folder, "success_marker") == (False, f"{folder} does not exist yet")
    folder.mkdir()
    (folder / ".part.jsonl").write_text("{}\n")  # a hidden in-progress file is no data
    (folder / "notes.txt").write_text("x")  # nor is a file the readers skip
    assert not crawl_ready(folder, "data_files")[0]
    assert not crawl_ready(folder, "success_marker")[0]
    (folder / "sub").mkdir()
    (folder / "sub" / "part-0.jsonl.gz").write_bytes(b"")
    assert crawl_ready(folder, "data_files") == (True, "data file sub/part-0.jsonl.gz found")
    assert not crawl_ready(folder, "success_marker")[0]  # files alone may still be growing
    (folder / "_SUCCESS").touch()
    assert crawl_ready(folder, "success_marker")[0]
    with pytest.raises(RunSetupError, match="wait_for"):
        crawl_ready(folder, "whenever")


def test_stage_args_carry_the_day_the_store_and_the_params() -> None:
    common = [
        "--date",
        "2026-11-02",
        "--home",
        "/h",
        "--store",
        "sqlite:////h/store.db",
        "--set",
        "cascade.threshold=0.9",
        "--set",
        f"cascade.rules={json.dumps(list(RULES))}",
    ]
    assert stage_args("bloom", PARAMS, RUN) == common
    assert stage_args("fingerprint", PARAMS, RUN) == [*common, "--input", "/crawl/dt=2026-11-02"]
    rerun = {"threshold": 1, "rules": ["content_md5", "head"], "dry_run": True}
    args = stage_args("publish", rerun, RUN)
    # An integer threshold from a form still reaches the CLI as a TOML float.
    assert "cascade.threshold=1.0" in args
    assert 'cascade.rules=["content_md5", "head"]' in args
    assert args[-1] == "--dry-run"
    with pytest.raises(RunSetupError):
        stage_args("report", PARAMS, RUN)  # not a spark-submit stage
    assert SPARK_STAGES == ("fingerprint", "bloom", "candidates", "similarity", "publish")
    relevance = stage_args("relevance", {**PARAMS, "topics_library": "/etc/topics.yaml"}, RUN)
    assert relevance == [
        *common,
        "--input",
        "/crawl/dt=2026-11-02",
        "--set",
        'relevance.library="/etc/topics.yaml"',
    ]
    assert stage_args("relevance", PARAMS, RUN) == [*common, "--input", "/crawl/dt=2026-11-02"]


def test_stage_args_parse_with_the_real_cli() -> None:
    """The overrides are valid for ``crawldedup stage`` (argparse and config validation)."""
    from crawldedup.cli import _config, build_parser

    argv = ["stage", "publish", *stage_args("publish", {**PARAMS, "threshold": 0.85}, RUN)]
    args = build_parser().parse_args(argv)
    cfg = _config(args)
    assert cfg.cascade.threshold == 0.85
    assert cfg.cascade.rules == RULES
    assert cfg.store_url == RUN["store"]
    params = {**PARAMS, "topics_library": "/etc/topics.yaml"}
    rel = build_parser().parse_args(["stage", "relevance", *stage_args("relevance", params, RUN)])
    assert _config(rel).relevance.library == "/etc/topics.yaml"


def test_hbase_store_url_from_connection_fields() -> None:
    assert hbase_store_url("hb1", 9090, {}) == "hbase://hb1:9090/crawldedup"
    extra = {
        "table_prefix": "crawl",
        "batch_size": 1000,
        "timeout_ms": 120000,
        "retries": 8,
        "transport": "framed",
        "protocol": "compact",
    }
    url = hbase_store_url("hb1", None, extra)
    assert url == (
        "hbase://hb1:9090/crawl?timeout_ms=120000&retries=8&batch_size=1000"
        "&transport=framed&protocol=compact"
    )
    with pytest.raises(StoreSetupError, match="unknown keys"):
        hbase_store_url("hb1", 9090, {"table_prefx": "x"})
    with pytest.raises(StoreSetupError, match="no host"):
        hbase_store_url(None, 9090, {})
    with pytest.raises(StoreSetupError, match="table_prefix"):
        hbase_store_url("hb1", 9090, {"table_prefix": "a/b"})


def test_hbase_store_url_opens_with_the_stores_own_parser() -> None:
    """The URL's options are the ones ``crawldedup.store.open`` accepts (no server needed)."""
    from crawldedup.store.hbase_store import HBaseStore

    store = open_store(hbase_store_url("127.0.0.1", 1, {"table_prefix": "p", "retries": 0}))
    assert isinstance(store, HBaseStore)
    assert (store.prefix, store.retries) == ("p", 0)


def test_embedded_store_url_is_the_clis_default(tmp_path: Path) -> None:
    assert embedded_store_url(tmp_path) == f"sqlite:///{tmp_path.resolve() / 'store.db'}"


def _report(day: str, docs: int, dups: int, quarantined: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "day": day,
        "input": f"/crawl/dt={day}",
        "files": 1 if docs else 0,
        "records_in": docs + quarantined,
        "documents": docs,
        "unique": docs - dups,
        "duplicates": {"head": dups},
        "duplicates_total": dups,
        "quarantined": {"bad_json": quarantined} if quarantined else {},
        "quarantined_total": quarantined,
        "config": {"threshold": 0.9, "rules": list(RULES)},
        **extra,
    }


LIMITS = GateLimits(max_quarantined_share=0.1, duplicate_rate_tolerance=0.2, trailing_days=7)
HISTORY = [_report("2026-11-01", 100, 30), _report("2026-11-02", 100, 34)]


def test_gate_passes_an_ordinary_day() -> None:
    day = _report("2026-11-03", 100, 35, quarantined=5)
    assert gate_failures(day, HISTORY, LIMITS) == []
    counts = day_counts(day, HISTORY)
    assert counts["duplicate_rate"] == 0.35
    assert counts["trailing_duplicate_rate"] == 0.32
    assert counts["quarantined_share"] == round(5 / 105, 4)
    assert counts["trailing_days"] == 2


def test_gate_fails_a_day_without_documents() -> None:
    (reason,) = gate_failures(_report("2026-11-03", 0, 0, quarantined=3), HISTORY, LIMITS)
    assert reason.startswith("2026-11-03: no input documents")
    assert "3 quarantined" in reason and "/crawl/dt=2026-11-03" in reason


def test_gate_fails_too_many_quarantined_records() -> None:
    (reason,) = gate_failures(_report("2026-11-03", 80, 25, quarantined=20), HISTORY, LIMITS)
    assert "quarantined share 20.0% is above the limit 10.0%" in reason


def test_gate_fails_a_duplicate_rate_far_from_the_trailing_average() -> None:
    (reason,) = gate_failures(_report("2026-11-03", 100, 90), HISTORY, LIMITS)
    assert "duplicate rate 90.0% is 58.0% away from the trailing average 32.0%" in reason
    # Without history there is nothing to compare against.
    assert gate_failures(_report("2026-11-03", 100, 90), [], LIMITS) == []
    # Days without documents do not drag the average to zero.
    assert trailing_average([*HISTORY, _report("2026-10-31", 0, 0)]) == pytest.approx(0.32)


def test_trailing_reports_are_the_last_n_days_before_the_day(tmp_path: Path) -> None:
    with open_store(embedded_store_url(tmp_path)) as store:
        for d in ("2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02", "2026-11-03"):
            store.put("days", {d: {"r:report": json.dumps(_report(d, 10, 3)).encode()}})
        got = trailing_reports(store, "2026-11-03", 3)
    assert [r["day"] for r in got] == ["2026-10-31", "2026-11-01", "2026-11-02"]
