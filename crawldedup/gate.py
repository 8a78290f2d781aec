"""The day's counts and the data-quality gate of the report task.

Pure functions over report dicts (the JSON the report stage writes to
``H/work/dt=D/report.json`` and to the store's ``days`` table); the store is passed in.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawldedup.store import Store


@dataclass(frozen=True)
class GateLimits:
    """When a finished day fails the gate. All three come from the run's params."""

    max_quarantined_share: float = 0.10
    """Quarantined records / records read above this fails the day."""
    duplicate_rate_tolerance: float = 0.25
    """|duplicate rate - trailing average| above this (absolute, 0..1) fails the day."""
    trailing_days: int = 7
    """How many earlier days' reports make the trailing average."""

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> GateLimits:
        return cls(
            max_quarantined_share=float(params["max_quarantined_share"]),
            duplicate_rate_tolerance=float(params["duplicate_rate_tolerance"]),
            trailing_days=int(params["trailing_days"]),
        )


def duplicate_rate(report: Mapping[str, Any]) -> float | None:
    """Duplicates / documents of one day; None for a day without documents."""
    docs = int(report.get("documents", 0))
    return int(report.get("duplicates_total", 0)) / docs if docs else None


def quarantined_share(report: Mapping[str, Any]) -> float:
    """Quarantined records / records read (0 when nothing was read)."""
    records = int(report.get("records_in", 0))
    return int(report.get("quarantined_total", 0)) / records if records else 0.0


def trailing_reports(store: Store, day: str, n: int) -> list[dict[str, Any]]:
    """The reports of the last ``n`` days before ``day`` in the store, oldest first.

    The ``days`` table holds one row per published day (dry runs write none), keyed by
    ``YYYY-MM-DD``, so the days before ``day`` are the key range below it.
    """
    last: deque[dict[str, Any]] = deque(maxlen=n)
    for _, row in store.scan("days", stop=day):
        raw = row.get("r:report")
        if raw:
            last.append(json.loads(raw.decode()))
    return list(last)


def trailing_average(history: Sequence[Mapping[str, Any]]) -> float | None:
    """Mean duplicate rate of the earlier days that had documents; None without any."""
    rates = [r for r in (duplicate_rate(h) for h in history) if r is not None]
    return sum(rates) / len(rates) if rates else None


def day_counts(report: Mapping[str, Any], history: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the report task pushes to XCom: the day's counts and the gate's inputs."""
    rate = duplicate_rate(report)
    avg = trailing_average(history)
    return {
        "day": report.get("day"),
        "dry_run": bool(report.get("dry_run", False)),
        "files": int(report.get("files", 0)),
        "records_in": int(report.get("records_in", 0)),
        "documents": int(report.get("documents", 0)),
        "unique": int(report.get("unique", 0)),
        "duplicates_total": int(report.get("duplicates_total", 0)),
        "duplicates": dict(report.get("duplicates", {})),
        "quarantined_total": int(report.get("quarantined_total", 0)),
        "quarantined": dict(report.get("quarantined", {})),
        "duplicate_rate": None if rate is None else round(rate, 4),
        "quarantined_share": round(quarantined_share(report), 4),
        "trailing_days": len(history),
        "trailing_duplicate_rate": None if avg is None else round(avg, 4),
        "threshold": report.get("config", {}).get("threshold"),
        "rules": report.get("config", {}).get("rules"),
        "store": report.get("store"),
    }


def gate_failures(
    report: Mapping[str, Any], history: Sequence[Mapping[str, Any]], limits: GateLimits
) -> list[str]:
    """Why the day fails the gate (one sentence each); empty when it passes."""
    day = report.get("day")
    docs = int(report.get("documents", 0))
    if docs == 0:
        # Nothing else is meaningful for an empty day, and an empty day is always a
        # problem upstream (a crawler that wrote a marker and no pages, or bad files).
        return [
            f"{day}: no input documents ({report.get('files', 0)} files, "
            f"{report.get('records_in', 0)} records read, "
            f"{report.get('quarantined_total', 0)} quarantined) in {report.get('input')}"
        ]
    failures = []
    share = quarantined_share(report)
    if share > limits.max_quarantined_share:
        failures.append(
            f"{day}: quarantined share {share:.1%} is above the limit "
            f"{limits.max_quarantined_share:.1%} ({report.get('quarantined_total')} of "
            f"{report.get('records_in')} records; reasons {report.get('quarantined')})"
        )
    rate, avg = duplicate_rate(report), trailing_average(history)
    if rate is not None and avg is not None and abs(rate - avg) > limits.duplicate_rate_tolerance:
        failures.append(
            f"{day}: duplicate rate {rate:.1%} is {abs(rate - avg):.1%} away from the "
            f"trailing average {avg:.1%} of the previous {len(history)} day(s) "
            f"(tolerance {limits.duplicate_rate_tolerance:.1%})"
        )
    return failures
