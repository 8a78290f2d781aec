"""Shared fixtures: one local[2] SparkSession and one sample crawl for the whole run.

Layers follow the folders (``tests/unit`` → ``unit``, ``tests/airflow`` → ``airflow``, ...),
so a new test cannot land in the wrong layer unmarked. Tests marked ``exhaustive`` run only
in ``make test-all``; ``make test`` runs every other test (``-m "not exhaustive"``).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ["tests.hbase_fixtures"]
os.environ.setdefault("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

LAYERS = ("unit", "spark", "contract", "integration", "airflow", "cluster")
SAMPLE_DAYS = ("2026-11-01", "2026-11-02", "2026-11-03")


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from crawldedup.config import Config
    from crawldedup.pipeline.spark import build_session

    cfg = Config().replace(**{"spark.shuffle_partitions": 4})
    session = build_session(cfg, "crawldedup-tests", master="local[2]")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def sample_crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 3-day sample crawl with its truth, generated once per run; tests only read it.

    Each day folder carries the crawler's ``_SUCCESS`` marker (which readers skip), so the
    DAG's default readiness rule accepts it too.
    """
    from crawldedup_demo import generate_sample

    out = tmp_path_factory.mktemp("sample-crawl")
    generate_sample(out, days=len(SAMPLE_DAYS))
    for day in SAMPLE_DAYS:
        (out / f"dt={day}" / "_SUCCESS").touch()
    return out


@dataclass(frozen=True)
class EmbeddedDays:
    """Sample days 1 and 2 run by the stages, in the shared session, on the embedded store."""

    home: Path
    url: str
    days: tuple[str, ...]


@pytest.fixture(scope="session")
def embedded_sample_days(
    spark: object, sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory
) -> EmbeddedDays:
    """Shared by the fast-path checks (tests/spark) and the HBase reference (integration)."""
    from crawldedup.config import Config
    from crawldedup.pipeline.context import DayContext
    from crawldedup.pipeline.stages import run_stages

    home = tmp_path_factory.mktemp("embedded-reference")
    url = f"sqlite:///{home / 'store.db'}"
    cfg = Config().replace(store_url=url)
    days = SAMPLE_DAYS[:2]
    for day in days:
        run_stages(
            spark, DayContext(day=day, home=home, cfg=cfg, input_dir=sample_crawl / f"dt={day}")
        )
    return EmbeddedDays(home, url, days)


HBASE_MARK = "pytest.mark.hbase"


@functools.cache
def is_hbase_file(path: Path) -> bool:
    """Whether a test file uses the HBase server: it says so with ``pytest.mark.hbase``
    (checked against its tests' fixtures when they are collected)."""
    return HBASE_MARK in path.read_text(encoding="utf-8")


def worker_group(nodeid: str) -> str:
    """Which tests share a worker under ``pytest -n N`` (scripts/test.sh).

    A file's tests stay together (its module fixtures are built once). Every file that
    uses HBase shares one worker: tests/integration/test_hbase_end_to_end.py kills the
    Thrift server, which the other files' HBase tests would meet. tests/cluster's files
    share one too: each starts and stops the standalone cluster (fixed ports).
    """
    file = nodeid.split("::", 1)[0]
    if is_hbase_file(ROOT / file):
        return "hbase"
    if file.startswith("tests/cluster/"):
        return "cluster"
    return file


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scope scheduling, by :func:`worker_group`. (Its ``loadgroup`` mode
    would do it by marks, but cannot rename the tests' ids under pytest 9.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    return ByGroup(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        parts = path.relative_to(ROOT).parts
        for layer in LAYERS:
            if layer in parts:
                item.add_marker(getattr(pytest.mark, layer))
        uses_hbase = item.get_closest_marker("hbase") or "hbase" in getattr(
            item, "fixturenames", ()
        )
        if uses_hbase and not is_hbase_file(path):
            raise pytest.UsageError(
                f"{item.nodeid} uses HBase: its file needs {HBASE_MARK} (tests/conftest.py)"
            )
    # The HBase files share one worker (worker_group) and are the longest group: first in
    # the queue, so one worker starts them at once and the other takes everything else,
    # rather than the group starting late and running on alone at the end.
    items.sort(key=lambda item: worker_group(item.nodeid) != "hbase")
