"""Shared fixtures: one local[2] SparkSession and one sample crawl for the whole run.

Layers follow the folders (``tests/unit`` → ``unit``, ``tests/airflow`` → ``airflow``, ...),
so a new test cannot land in the wrong layer unmarked. Tests marked ``exhaustive`` run only
in ``make test-all``; ``make test`` runs every other test (``-m "not exhaustive"``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT).parts
        for layer in LAYERS:
            if layer in parts:
                item.add_marker(getattr(pytest.mark, layer))
