"""The line every task of ``crawl_dedup_daily`` writes first: which crawl day it works on.

Airflow's run ids and the grid show when a run was planned or triggered; the crawl day
is what an engineer looks for. Each task logs it before doing anything else (the first
line after Airflow's collapsed "Pre task execution logs" group), resolved exactly as the
sensor resolves it (:func:`crawldedup_airflow.day.crawl_date`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from crawldedup_airflow.day import RunSetupError, crawl_date, crawl_day_source


def crawl_day_line(context: Mapping[str, Any]) -> str:
    """``crawl day 2026-11-02 (from ...) · run <run id>``, or why the run has none."""
    params = context.get("params") or {}
    param = params.get("crawl_date")
    start = context.get("data_interval_start")
    run_id = context.get("run_id", "?")
    try:
        day = crawl_date(param, start)
    except RunSetupError as exc:
        return f"crawl day: none · run {run_id}: {exc}"
    return f"crawl day {day} (from {crawl_day_source(param, start)}) · run {run_id}"


def log_crawl_day(context: Mapping[str, Any], log: logging.Logger | Any) -> str:
    """Log :func:`crawl_day_line` at INFO and return it."""
    line = crawl_day_line(context)
    log.info("%s", line)
    return line
