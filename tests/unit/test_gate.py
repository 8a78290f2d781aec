"""The data-quality gate (crawldedup.gate): pure functions over day reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import RULES, GateConfig
from crawldedup.gate import (
    day_counts,
    gate_failures,
    quarantine_failure,
    trailing_average,
    trailing_reports,
)
from crawldedup.store import open_store


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


LIMITS = GateConfig(max_quarantined_share=0.1, duplicate_rate_tolerance=0.2, trailing_days=7)
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
    with open_store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        for d in ("2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02", "2026-11-03"):
            store.put("days", {d: {"r:report": json.dumps(_report(d, 10, 3)).encode()}})
        got = trailing_reports(store, "2026-11-03", 3)
    assert [r["day"] for r in got] == ["2026-10-31", "2026-11-01", "2026-11-02"]


def test_quarantine_failure_is_the_gates_quarantine_rule_alone() -> None:
    over = _report("2026-11-03", 80, 25, quarantined=20)
    assert quarantine_failure(over, LIMITS) in gate_failures(over, HISTORY, LIMITS)
    assert quarantine_failure(_report("2026-11-03", 90, 25, quarantined=10), LIMITS) is None
    assert quarantine_failure(_report("2026-11-03", 0, 0), LIMITS) is None
