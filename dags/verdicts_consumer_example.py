"""
### crawldedup_verdicts_consumer_example: a DAG scheduled on the day's verdicts

An example to copy. `crawl_dedup_daily`'s `commit` task emits an event of the
`crawldedup_verdicts` Asset each time it commits a crawl day; this DAG, scheduled on that
Asset, runs once per event (several events when days were committed while it waited) and
lists each day's duplicates, read from the store as `crawldedup verdicts` reads them. A
real consumer would delete or de-index them instead of counting them.

**Paused on creation**: unpause it to have it scheduled (a paused DAG is not queued by
the events emitted meanwhile). The event's `extra`: `crawl_date`, `home`, `store` (the
store URL) and `published_with` (empty for a dry run, which commits nothing).
`docs/operations.md` ("Scheduling on the day's verdicts") in the crawldedup repository.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from airflow.sdk import DAG, task

from crawldedup_airflow.assets import VERDICTS

log = logging.getLogger(__name__)


def duplicate_ids(store_url: str, day: str) -> list[str]:
    """The ids of ``day``'s documents judged duplicates, read as ``crawldedup verdicts
    --date DAY`` reads them (imports here: parsing this file must not load store clients)."""
    from crawldedup.day_state import require_complete
    from crawldedup.store import open_store
    from crawldedup.store.schema import VerdictRecord

    with open_store(store_url, read_only=True) as store:
        # A rerun of the day stopped while publishing: refuse, as every reader does.
        require_complete(store, day)
        rows = store.scan_prefix("verdicts", f"{day}|")
        return [
            r.id
            for r in (VerdictRecord.from_row(k, v) for k, v in rows)
            if r.verdict == "duplicate"
        ]


with DAG(
    dag_id="crawldedup_verdicts_consumer_example",
    description="Example: runs on each committed crawl day and lists its duplicates",
    doc_md=__doc__,
    schedule=[VERDICTS],
    start_date=datetime(2026, 1, 1, tzinfo=UTC),
    catchup=False,
    max_active_runs=1,
    is_paused_upon_creation=True,
    tags=["crawldedup", "example"],
    default_args={"owner": "crawldedup", "retries": 2, "retry_delay": timedelta(minutes=1)},
):

    @task(doc_md="Lists the duplicates of each crawl day whose commit triggered the run.")
    def duplicates_to_delete(**context: Any) -> list[dict[str, Any]]:
        # Each committed (store, day) once, however often it was committed; a dry run
        # commits nothing (its published_with is empty).
        days = {
            (e.extra["store"], e.extra["crawl_date"])
            for e in context["triggering_asset_events"].get(VERDICTS, [])
            if e.extra.get("published_with")
        }
        found = []
        for store, day in sorted(days):
            ids = duplicate_ids(store, day)
            log.info("%s: %d duplicates to delete (store %s)", day, len(ids), store)
            # The ids are the task's XCom here so that the example's test can check them;
            # XComs are for small values: a real consumer acts on them in this task.
            found.append({"crawl_date": day, "store": store, "duplicates": len(ids), "ids": ids})
        return found

    duplicates_to_delete()
