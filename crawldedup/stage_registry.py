"""The stages of a day, in order: the one list that the CLI, ``run_day``, the submit helper,
the Airflow plugins and DAG, and the ``jobs/`` entry points all read.

Pure (no pyspark): the DAG imports it while parsing. What each stage does is in
``docs/algorithm.md``; the functions that run them are in :mod:`crawldedup.pipeline.stages`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str
    spark: bool
    """Needs a SparkSession: a ``spark-submit jobs/<name>.py`` task in Airflow."""
    reads_input: bool
    """Reads the day's crawl folder (``--input``)."""
    optional: bool
    """Runs only when the configuration enables it (relevance: a topic library)."""
    doc: str
    """One paragraph for the DAG's task docs."""


STAGES: tuple[Stage, ...] = (
    Stage(
        "fingerprint",
        spark=True,
        reads_input=True,
        optional=False,
        doc="Reads `dt=D/` (JSON Lines, Parquet, WARC), quarantines bad records, normalizes "
        "and computes the md5 keys, SimHash and term vectors → `work/dt=D/docs`.",
    ),
    Stage(
        "relevance",
        spark=True,
        reads_input=True,
        optional=True,
        doc="Scores every page of the day against the topics of the semantic library "
        "(tag-weighted TF-IDF and the library's patterns), updates the document "
        "frequencies, writes scores and the ranked crawl frontier (store and Parquet).",
    ),
    Stage(
        "bloom",
        spark=True,
        reads_input=False,
        optional=False,
        doc="Rebuilds the Bloom filters of the index keys from the store's index tables "
        "(key-only scans, one task per key range).",
    ),
    Stage(
        "candidates",
        spark=True,
        reads_input=False,
        optional=False,
        doc="Probes the filters, multi-gets the index rows of earlier days and joins "
        "same-day keys → candidate pairs per rule.",
    ),
    Stage(
        "similarity",
        spark=True,
        reads_input=False,
        optional=False,
        doc="Scores every candidate pair on the executors; the cascade picks each "
        "document's verdict (the earliest candidate above the threshold).",
    ),
    Stage(
        "publish",
        spark=True,
        reads_input=False,
        optional=False,
        doc="Writes verdicts, groups, document rows and capped postings; replaces the "
        "day's earlier results. Writes nothing in a dry run.",
    ),
    Stage(
        "report",
        spark=False,
        reads_input=False,
        optional=False,
        doc="Sums the stages' counts into the day's report (`work/dt=D/report.json` and "
        "the store's `days` row); no Spark needed.",
    ),
)

BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}
NAMES: tuple[str, ...] = tuple(BY_NAME)
DEDUP_STAGES: tuple[str, ...] = tuple(s.name for s in STAGES if not s.optional)
"""The stages every day runs, in order."""
SPARK_STAGES: tuple[str, ...] = tuple(s.name for s in STAGES if s.spark and not s.optional)
"""The dedup chain's spark-submit stages, in order."""
OPTIONAL_STAGES: tuple[str, ...] = tuple(s.name for s in STAGES if s.optional)


def stage(name: str) -> Stage:
    """The stage called ``name``; ValueError naming the known ones otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; known: {list(NAMES)}") from None


def day_stages(enabled_optional: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The stages of one day in order, with the optional ones that are enabled."""
    return tuple(s.name for s in STAGES if not s.optional or s.name in enabled_optional)


def stage_argv(
    name: str,
    *,
    day: str,
    home: str,
    store: str,
    input_dir: str | None = None,
    config: str | None = None,
    overrides: Sequence[str] = (),
    dry_run: bool = False,
    replace: bool = False,
) -> list[str]:
    """The arguments of ``crawldedup stage NAME`` (and of ``jobs/NAME.py``) for one day:
    what the DAG's tasks and the submit helper pass. ``replace`` reaches publish only
    (the stage that refuses to shrink a published day)."""
    s = stage(name)
    args = ["--date", day, "--home", home, "--store", store]
    if config:
        args += ["--config", config]
    for item in overrides:
        args += ["--set", item]
    if s.reads_input:
        if not input_dir:
            raise ValueError(f"the {name} stage needs an input folder")
        args += ["--input", input_dir]
    if dry_run:
        args.append("--dry-run")
    if replace and name == "publish":
        args.append("--replace")
    return args
