"""The day's counts and the data-quality gate: ``crawldedup run`` (exit 3 over the
quarantine limit) and the DAG's report task (fails on any rule) apply the same ``[gate]``.

Pure functions over report dicts (the JSON the report stage writes to
``H/work/dt=D/report.json`` and to the store's ``days`` table); the store is passed in.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawldedup.config import GateConfig
    from crawldedup.store import Store


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
        # The parameters the day was committed with (the store's, not this run's conf).
        "profile": report.get("config", {}).get("profile"),
        "threshold": report.get("config", {}).get("threshold"),
        "rules": report.get("config", {}).get("rules"),
        "config_digest": report.get("config", {}).get("config_digest"),
        # Which run published the day (a DAG run's token; None from the command line).
        "published_by": report.get("config", {}).get("run"),
        "store": report.get("store"),
    }


def quarantine_failure(report: Mapping[str, Any], limits: GateConfig) -> str | None:
    """Why the day's quarantined share fails the gate, or None when it is within the limit."""
    share = quarantined_share(report)
    if share <= limits.max_quarantined_share:
        return None
    return (
        f"{report.get('day')}: quarantined share {share:.1%} is above the limit "
        f"{limits.max_quarantined_share:.1%} ({report.get('quarantined_total')} of "
        f"{report.get('records_in')} records; reasons {report.get('quarantined')})"
    )


def gate_failures(
    report: Mapping[str, Any], history: Sequence[Mapping[str, Any]], limits: GateConfig
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
    failures = [f for f in (quarantine_failure(report, limits),) if f]
    rate, avg = duplicate_rate(report), trailing_average(history)
    if rate is not None and avg is not None and abs(rate - avg) > limits.duplicate_rate_tolerance:
        failures.append(
            f"{day}: duplicate rate {rate:.1%} is {abs(rate - avg):.1%} away from the "
            f"trailing average {avg:.1%} of the previous {len(history)} day(s) "
            f"(tolerance {limits.duplicate_rate_tolerance:.1%})"
        )
    return failures
