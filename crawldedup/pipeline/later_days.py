"""``run --cascade-later``: rerun a day, then every later published day in order.

A rerun of an earlier day leaves later days as they were (their verdicts were judged
against the earlier results); on request, the later days are rerun from their crawl
folders, each judged against the new results of the days before it. The folders are the
``dt=D`` siblings of the rerun day's folder, all checked before anything runs. A cascade
cut short leaves the day it was in marked incomplete (publish's marker), so later runs
refuse to build on it until the cascade is run again from that day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.day_state import published_days
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_day
from crawldedup.store import open_store

DT_FOLDER = "dt={day}"


class LaterDaysError(ValueError):
    """The later days cannot be rerun (no dt=D input folder, a missing later folder)."""


def later_days(ctx: DayContext) -> list[DayContext]:
    """The contexts of the published days after ``ctx.day``, in order, with their folders."""
    if ctx.dry_run:
        raise LaterDaysError("--cascade-later cannot be a dry run")
    folder = ctx.input_dir
    if folder is None or folder.name != DT_FOLDER.format(day=ctx.day):
        name = folder.name if folder is not None else None
        raise LaterDaysError(
            "--cascade-later finds the later days beside the input folder, which must be "
            f"named {DT_FOLDER.format(day=ctx.day)} (got {name})"
        )
    with open_store(ctx.store, read_only=True) as store:
        days = [d for d in published_days(store) if d > ctx.day]
    # --replace is for the day asked for: a later folder that shrank is refused as usual.
    later = [
        replace(ctx, day=d, input_dir=folder.parent / DT_FOLDER.format(day=d), replace=False)
        for d in days
    ]
    missing = [str(c.input_dir) for c in later if c.input_dir is None or not c.input_dir.is_dir()]
    if missing:
        raise LaterDaysError(
            f"--cascade-later: {len(missing)} later published day(s) have no crawl folder, "
            f"first {missing[0]}"
        )
    return later


def rerun_with_later_days(
    spark: SparkSession,
    ctx: DayContext,
    later: list[DayContext],
    progress: Callable[[str], None] | None = None,
    stages: tuple[str, ...] | None = None,
) -> list[dict[str, Any]]:
    """Reports of ``ctx``'s day and of each of ``later`` (from ``later_days``), run in order."""
    kwargs: dict[str, Any] = {} if stages is None else {"stages": stages}
    return [run_day(spark, c, progress, **kwargs) for c in [ctx, *later]]
