"""Whether a published day is complete: a marker in the store's ``days`` table.

The publish stage writes ``r:incomplete`` on the day's row before its first write and the
report stage removes it after the day's last one, so a day stopped in between (a killed
publish, a lost store) stays marked in the store itself, on SQLite and HBase alike.
Readers of that day and runs of later days refuse it with one line; a rerun of the day
completes it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from crawldedup.store import Store

MARKER = "r:incomplete"


class IncompleteDay(RuntimeError):
    """A day's publish started and did not finish."""


def mark_incomplete(store: Store, day: str) -> None:
    since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    store.put("days", {day: {MARKER: f"publish started {since}".encode()}})


def mark_complete(store: Store, day: str) -> None:
    store.delete("days", [day], columns=[MARKER])


def published_days(store: Store, before: str | None = None) -> list[str]:
    """Days whose publish finished, in order (only those strictly before ``before``)."""
    return [day for day, cells in store.scan("days", stop=before) if MARKER not in cells]


def incomplete_days(store: Store, before: str | None = None) -> list[str]:
    """Days marked incomplete, in order (only those strictly before ``before``)."""
    return [day for day, cells in store.scan("days", stop=before) if MARKER in cells]


def require_complete(store: Store, day: str) -> None:
    """Raise ``IncompleteDay`` when ``day`` is marked incomplete (for readers)."""
    row = store.get("days", [day], columns=[MARKER]).get(day, {})
    if MARKER in row:
        raise IncompleteDay(f"{day} is incomplete ({row[MARKER].decode()}, not finished): rerun it")


def earlier_incomplete(days: list[str]) -> IncompleteDay:
    """The error of a run whose earlier ``days`` are marked incomplete: a later day must
    not be judged against a half-written one."""
    return IncompleteDay(
        f"earlier day {days[-1]} is incomplete (its run stopped while publishing): "
        f"rerun {', '.join(days)} first"
    )
