"""What one DAG run works on: its crawl day, its folder, readiness and stage arguments.

Pure functions, no Airflow and no Spark: the sensor, the Spark tasks' templates and the
report task call them at run time; the unit tests call them directly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from crawldedup.config import RULES

SPARK_STAGES: tuple[str, ...] = ("fingerprint", "bloom", "candidates", "similarity", "publish")
"""The stages submitted with spark-submit, in order; ``report`` runs as a Python task."""

RELEVANCE_STAGE = "relevance"
"""The optional topic-relevance stage (seed 003): after fingerprint, beside the dedup chain."""

WAIT_FOR: tuple[str, ...] = ("success_marker", "data_files")
"""What makes a crawl folder ready: the crawler's ``_SUCCESS`` marker, or any data file."""

SUCCESS_MARKER = "_SUCCESS"

__all__ = [
    "RELEVANCE_STAGE",
    "RULES",
    "SPARK_STAGES",
    "SUCCESS_MARKER",
    "WAIT_FOR",
    "RunSetupError",
    "crawl_date",
    "crawl_ready",
    "day_dir",
    "stage_args",
]


class RunSetupError(ValueError):
    """The run's params and dates do not name a day or a readiness rule."""


def crawl_date(param: str | None, logical_date: datetime | None) -> str:
    """The crawl day (YYYY-MM-DD) a run processes.

    The ``crawl_date`` param wins, so a manual rerun can name its day without a logical
    date; otherwise the run's logical date, formatted exactly like ``{{ ds }}`` (the
    schedule's data interval starts on the crawl day, see the DAG's docs).
    """
    if param:
        try:
            return date.fromisoformat(param).isoformat()
        except ValueError:
            raise RunSetupError(f"crawl_date param {param!r} is not a date (YYYY-MM-DD)") from None
    if logical_date is not None:
        return logical_date.strftime("%Y-%m-%d")
    raise RunSetupError(
        "this run has no logical date and no crawl_date param: trigger it with "
        '--logical-date YYYY-MM-DD, or with conf {"crawl_date": "YYYY-MM-DD"}'
    )


def day_dir(input_root: str | Path, day: str) -> Path:
    """The crawler's folder of one day: ``{input_root}/dt={day}``."""
    return Path(input_root) / f"dt={day}"


def crawl_ready(folder: Path, wait_for: str) -> tuple[bool, str]:
    """Whether the day's crawl folder may be read, and why (one line for the log)."""
    if wait_for not in WAIT_FOR:
        raise RunSetupError(f"wait_for param {wait_for!r} unknown; known: {list(WAIT_FOR)}")
    if not folder.is_dir():
        return False, f"{folder} does not exist yet"
    if wait_for == "success_marker":
        # The crawler writes the marker last: files without it may still be growing.
        marker = folder / SUCCESS_MARKER
        if marker.is_file():
            return True, f"{marker} found"
        return False, f"no {SUCCESS_MARKER} in {folder} yet"
    # The same filter the fingerprint stage reads with, so "ready" means "has input".
    from crawldedup.ingest.readers import is_input_file

    for path in sorted(folder.rglob("*")):
        if path.is_file() and is_input_file(path):
            return True, f"data file {path.relative_to(folder)} found"
    return False, f"no data files in {folder} yet"


def stage_args(stage: str, params: Mapping[str, Any], run: Mapping[str, Any]) -> list[str]:
    """The command line of ``jobs/<stage>.py`` for one run (a template macro of the DAG).

    ``run`` is what the sensor resolved (crawl_date, input, home, store); ``params`` are the
    run's params. Every stage gets the same overrides so that each one, and the report,
    sees the configuration the run was triggered with.
    """
    if stage not in (*SPARK_STAGES, RELEVANCE_STAGE):
        raise RunSetupError(f"stage {stage!r} unknown; known: {[*SPARK_STAGES, RELEVANCE_STAGE]}")
    args = [
        "--date",
        str(run["crawl_date"]),
        "--home",
        str(run["home"]),
        "--store",
        str(run["store"]),
        # Values are TOML for the CLI's --set: a float literal and an array of strings.
        "--set",
        f"cascade.threshold={float(params['threshold'])!r}",
        "--set",
        f"cascade.rules={json.dumps(list(params['rules']))}",
    ]
    if stage in ("fingerprint", RELEVANCE_STAGE):
        args += ["--input", str(run["input"])]
    if stage == RELEVANCE_STAGE and params.get("topics_library"):
        args += ["--set", f"relevance.library={json.dumps(str(params['topics_library']))}"]
    if params.get("dry_run"):
        args.append("--dry-run")
    return args
