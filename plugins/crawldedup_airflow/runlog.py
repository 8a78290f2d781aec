"""The line every task of ``crawl_dedup_daily`` writes first: which crawl day it works on,
and which store (and why: the precedence of docs/operations.md#which-store).

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


def store_line(context: Mapping[str, Any], sensor_task_id: str = "wait_for_crawl") -> str:
    """`` · store URL (from where)``, as the sensor resolved it; empty before that."""
    ti = context.get("ti")
    if ti is None or getattr(ti, "task_id", sensor_task_id) == sensor_task_id:
        return ""
    run = ti.xcom_pull(task_ids=sensor_task_id) or {}
    if not run.get("store"):
        return ""
    return f" · store {run['store']} (from {run.get('store_source', '?')})"


def log_crawl_day(context: Mapping[str, Any], log: logging.Logger | Any) -> str:
    """Log :func:`crawl_day_line` and the run's store at INFO and return the line."""
    line = crawl_day_line(context) + store_line(context)
    log.info("%s", line)
    return line
