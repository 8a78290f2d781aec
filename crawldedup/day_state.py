"""Whether a published day is complete: a marker in the store's ``days`` table.

The publish stage writes ``r:incomplete`` on the day's row before its first write and the
commit stage removes it after the day's last one, so a day stopped in between (a killed
publish, a lost store) stays marked in the store itself, on SQLite and HBase alike.
Readers of that day and runs of later days refuse it with one line; a rerun of the day
completes it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from crawldedup.store import Store

MARKER = "r:incomplete"
# What the day was published with (crawldedup.pipeline.commit_stage), JSON.
PUBLISHED_WITH = "r:published"
# The day's runs record the cells they write into shared rows (crawldedup.store.day_ledger).
LEDGER = "r:ledger"
# The day's document rows are one packed cell each (crawldedup.store.schema.pack_doc),
# written by the commit of a release from 2026-12 on.
DOCS_PACKED = "r:docs"


class IncompleteDay(RuntimeError):
    """A day's publish started and did not finish."""


class RerunRefused(RuntimeError):
    """A rerun that would replace a published day with far fewer documents (exit 2)."""


def published_with(store: Store, day: str) -> dict[str, Any] | None:
    """The parameters the day was committed with (documents, configuration digest,
    cascade knobs, code version); None for a day never committed. A day committed before
    these were stored gives what its report row holds (documents, threshold, rules)."""
    row = store.get("days", [day], columns=[PUBLISHED_WITH, "r:report"]).get(day, {})
    for column in (PUBLISHED_WITH, "r:report"):
        try:
            found = json.loads(row[column])
        except (KeyError, ValueError, TypeError):
            continue
        if isinstance(found, dict):
            if column == "r:report":  # the old layout: the counts, and config inside
                return {"documents": found.get("documents"), **found.get("config", {})}
            return found
    return None


def published_documents(store: Store, day: str) -> int | None:
    """How many documents the day's last finished publish judged; None for a day never
    published (or one whose parameters are unreadable)."""
    found = published_with(store, day)
    try:
        return int(found["documents"]) if found else None
    except (KeyError, ValueError, TypeError):
        return None


def check_replacement(store: Store, day: str, documents: int, min_share: float) -> None:
    """Refuse a rerun of a published day whose input holds fewer than ``min_share`` of the
    documents published for it (an empty folder, a partial copy, a wrong path): replacing
    the day would delete the verdicts, documents and postings of the missing ones."""
    previous = published_documents(store, day)
    if previous and documents < min_share * previous:
        raise RerunRefused(
            f"{day} is published with {previous} documents and this run has {documents} "
            f"(under limits.min_rerun_share = {min_share:g} of them): replacing it would "
            "delete the rest; pass --replace to do that"
        )


def docs_a_cell_a_field(store: Store, day: str) -> bool:
    """Whether the day was published by a release that wrote its document rows a cell a
    field (no :data:`DOCS_PACKED`): a rerun deletes those cells beside the packed ones."""
    row = store.get("days", [day], columns=[DOCS_PACKED, PUBLISHED_WITH, "r:report"])
    cells = row.get(day, {})
    return DOCS_PACKED not in cells and (PUBLISHED_WITH in cells or "r:report" in cells)


def published_before_the_ledger(store: Store, day: str) -> bool:
    """Whether the day was published by a release that did not record its shared cells
    (a rerun then finds them by a scan, once)."""
    row = store.get("days", [day], columns=[LEDGER, PUBLISHED_WITH, "r:report"]).get(day, {})
    return LEDGER not in row and (PUBLISHED_WITH in row or "r:report" in row)


def mark_ledger(store: Store, day: str) -> None:
    """The day's shared cells are in the ledger from here on (after a rerun's retraction)."""
    store.put("days", {day: {LEDGER: b"1"}})


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


def published_by_other(day: str, published: Mapping[str, Any] | None, token: str) -> str | None:
    """What ``crawldedup stage report --run-id TOKEN`` (the DAG's report task) says when
    another run (``published["run"]``, the commit's run token) than this one published
    the day last: its report shows that run's parameters, and says so. None when this run
    published it (or the day predates the record of who did)."""
    if not published or "run" not in published or published["run"] == token:
        return None
    other = str(published["run"] or "the command line (crawldedup run)").split("@")[0]
    mine = token.split("@")[0]
    return (
        f"{day} was last published by {other}, not by this run ({mine}): this report shows "
        f"that run's parameters (counts.published_by). To report this run's own, clear this "
        "run from wait_for_crawl (Clear → 'Clear downstream' on the first task)"
    )
