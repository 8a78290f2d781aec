"""``run --cascade-later`` and ``run --through``: several days in order, one session.

``--through D2`` runs the days after the given one through D2 too, each from its ``dt=D``
folder beside the first day's: a backlog (a first import, catching up after an outage)
pays one Spark start, not one a day.

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
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from crawldedup.day_state import published_days
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from crawldedup.store import open_store

DT_FOLDER = "dt={day}"


class LaterDaysError(ValueError):
    """The later days cannot be run (no dt=D input folder, a missing later folder)."""


def _day_folder(ctx: DayContext, option: str) -> Path:
    """The first day's input folder, named ``dt=D``: later days' folders are beside it."""
    if ctx.dry_run:
        raise LaterDaysError(f"{option} cannot be a dry run")
    folder = ctx.input_dir
    if folder is None or folder.name != DT_FOLDER.format(day=ctx.day):
        name = folder.name if folder is not None else None
        raise LaterDaysError(
            f"{option} finds the later days beside the input folder, which must be "
            f"named {DT_FOLDER.format(day=ctx.day)} (got {name})"
        )
    return folder


def following_days(ctx: DayContext, through: str) -> list[DayContext]:
    """The contexts of every calendar day after ``ctx.day`` through ``through``, each
    with its ``dt=D`` folder beside ``ctx.input_dir``; all checked before anything runs."""
    folder = _day_folder(ctx, "--through")
    first, last = date.fromisoformat(ctx.day), date.fromisoformat(through)
    if last < first:
        raise LaterDaysError(f"--through {through} is before --date {ctx.day}")
    days = [(first + timedelta(days=n)).isoformat() for n in range(1, (last - first).days + 1)]
    # --replace is for the day asked for: a following folder that shrank is refused as usual.
    following = [
        replace(ctx, day=d, input_dir=folder.parent / DT_FOLDER.format(day=d), replace=False)
        for d in days
    ]
    _check_folders(following, "--through", "day(s) in the range")
    return following


def _check_folders(days: list[DayContext], option: str, what: str) -> None:
    missing = [str(c.input_dir) for c in days if c.input_dir is None or not c.input_dir.is_dir()]
    if missing:
        raise LaterDaysError(
            f"{option}: {len(missing)} {what} have no crawl folder, first {missing[0]}"
        )


def later_days(ctx: DayContext) -> list[DayContext]:
    """The contexts of the published days after ``ctx.day``, in order, with their folders."""
    folder = _day_folder(ctx, "--cascade-later")
    with open_store(ctx.store, read_only=True) as store:
        days = [d for d in published_days(store) if d > ctx.day]
    # --replace is for the day asked for: a later folder that shrank is refused as usual.
    later = [
        replace(ctx, day=d, input_dir=folder.parent / DT_FOLDER.format(day=d), replace=False)
        for d in days
    ]
    _check_folders(later, "--cascade-later", "later published day(s)")
    return later


def rerun_with_later_days(
    spark: SparkSession,
    ctx: DayContext,
    later: list[DayContext],
    progress: Callable[[str], None] | None = None,
    stages: tuple[str, ...] | None = None,
) -> list[dict[str, Any]]:
    """Reports of ``ctx``'s day and of each of ``later`` (from ``later_days``), run in order."""
    return [run_stages(spark, c, stages, progress) for c in [ctx, *later]]
