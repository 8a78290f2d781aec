"""A rerun equals a fresh run on the other roads (docs/store.md#reruns): on HBase, and
through the real ``crawldedup`` command with ``--through`` and ``--cascade-later``.

The embedded store's parameter matrix is tests/spark/test_rerun_equals_fresh.py; the
DAG's rerun is tests/airflow/test_dag_runs.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from tests.cli_helpers import cli
from tests.conftest import SAMPLE_DAYS
from tests.hbase_fixtures import drop_prefix, hbase_url, unique_prefix
from tests.rerun_equality import (
    check_a_stale_field_is_told,
    differences,
    published_state,
    unique_lines_with_duplicate_fields,
)
from tests.spark.test_rerun_equals_fresh import CASES, fewer_records, rerun_and_fresh

DAY1, DAY2, DAY3 = SAMPLE_DAYS
Y_RULES = ["content_md5", "head"]


@pytest.fixture
def hbase_prefixes(hbase: str) -> Iterator[dict[str, str]]:
    made: dict[str, str] = {}
    yield made
    for prefix in made.values():
        drop_prefix(prefix)


@pytest.mark.hbase
def test_on_hbase_a_rerun_with_fewer_records_and_rules_equals_a_fresh_run(
    spark: Any, sample_crawl: Path, tmp_path: Path, hbase_prefixes: dict[str, str]
) -> None:
    def url(name: str) -> str:
        hbase_prefixes[name] = unique_prefix(f"rr{name[0]}")
        return hbase_url(hbase_prefixes[name])

    x, y, _ = CASES["rules_removed"]
    y_crawl = fewer_records(sample_crawl, tmp_path / "fewer")
    # The days rerun are held in the verdict layout before 2026-12 (an upgraded store).
    rerun, fresh, rerun_url = rerun_and_fresh(
        spark, sample_crawl, tmp_path, x, y, y_crawl, url=url, old_layout=True
    )
    assert rerun[DAY2]["verdicts"] and not unique_lines_with_duplicate_fields(rerun_url, DAY2)
    diff = differences(rerun, fresh)
    assert not diff, "\n".join(diff[:30])
    check_a_stale_field_is_told(rerun, fresh, rerun_url, tmp_path / "rerun", DAY2)


def _run(home: Path, crawl: Path, day: str, *extra: str) -> None:
    cli("run", "--date", day, "--input", str(crawl / f"dt={day}"), *extra, home=home)


@pytest.mark.exhaustive  # make test-all: eight day runs in four commands (160 s)
def test_the_cli_rerun_with_cascade_equals_fresh_days_run_with_through(
    sample_crawl: Path, tmp_path: Path
) -> None:
    """The issue's reproduction as a user types it: days 1-3 with the defaults (one
    ``--through`` command), then day 2 again with two rules and ``--cascade-later``;
    against day 1, then days 2-3 in one ``--through`` command with the two rules."""
    y = ("--set", f"cascade.rules={json.dumps(Y_RULES)}")
    rerun, fresh = tmp_path / "rerun", tmp_path / "fresh"
    _run(rerun, sample_crawl, DAY1, "--through", DAY3)
    _run(rerun, sample_crawl, DAY2, *y, "--cascade-later")
    _run(fresh, sample_crawl, DAY1)
    _run(fresh, sample_crawl, DAY2, *y, "--through", DAY3)
    urls = {h: f"sqlite:///{h / 'store.db'}" for h in (rerun, fresh)}  # the homes' stores
    cfg = Config().replace(**{"cascade.rules": Y_RULES})
    a, b = (published_state(urls[h], h, list(SAMPLE_DAYS), cfg) for h in (rerun, fresh))
    assert not unique_lines_with_duplicate_fields(urls[rerun], DAY2)
    assert any(v["verdict"] == "duplicate" for v in a[DAY3]["verdicts"])
    diff = differences(a, b)
    assert not diff, "\n".join(diff[:30])
