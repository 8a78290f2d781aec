"""Shared fixtures: one local[2] SparkSession for the whole run (a cold start costs ~14 s)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ["tests.hbase_fixtures"]
os.environ.setdefault("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from crawldedup.config import Config
    from crawldedup.pipeline.spark import build_session

    cfg = Config().replace(**{"spark.shuffle_partitions": 4})
    session = build_session(cfg, "crawldedup-tests", master="local[2]")
    yield session
    session.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Markers follow the folder, so a new test cannot land in the wrong layer unmarked.
    for item in items:
        parts = Path(str(item.fspath)).parts
        for layer in ("unit", "spark", "integration", "contract"):
            if layer in parts:
                item.add_marker(getattr(pytest.mark, layer))
