"""The index's lifetime (crawldedup/retention.py): twelve daily days with
``index.keep_days = 5``, run by the stages on the embedded store and on a real HBase.

After day 12 the index holds days 8 .. 12 only; a copy of a day-3 page arriving on day 12
is unique (day 3 is outside the window), a copy of a day-9 page a duplicate of it, and
every verdict published before reads as it did when it was published."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from crawldedup.rules import Rule
from crawldedup.store import open_store
from crawldedup.store.schema import parse_posting
from tests.hbase_fixtures import drop_prefix, hbase_url, unique_prefix
from tests.spark.test_stages import long_article, rec, small_day_config, verdicts, write_day

DAYS = [(date(2026, 10, 1) + timedelta(days=i)).isoformat() for i in range(12)]
KEEP = 5


def _records(n: int, day: str) -> list[dict[str, Any] | str]:
    """Day n (1-based): two articles of its own, on two hosts; day 12 adds copies of
    day 3's and day 9's first article, on a mirror host."""
    t = f"{day}T03:00:00Z"
    out: list[dict[str, Any] | str] = [
        rec(f"d{n}-{k}", long_article(100 * n + k), t, url=f"http://site{k}.example/p/{n}")
        for k in range(2)
    ]
    if n == 12:
        for old in (3, 9):
            out.append(
                rec(
                    f"copy-of-{old}", long_article(100 * old), t, url=f"http://mirror.example/{old}"
                )
            )
    return out


def _index_days(url: str) -> dict[str, set[str]]:
    """The days the index still holds rows of: postings by rule table, documents with
    index cells, host line counts."""
    out: dict[str, set[str]] = {}
    with open_store(url) as store:
        for rule in Rule:
            for _, cells in store.scan(rule.table):
                for value in cells.values():
                    out.setdefault("postings", set()).add(parse_posting(value)[0])
        for _, cells in store.scan("docs"):
            if cells.get("m:keys"):
                out.setdefault("documents", set()).add(cells["m:day"].decode())
        for _key, cells in store.scan("host_lines"):
            days = {c[2:] for c in cells if not c.startswith("d:@")}
            days |= {c.rpartition("|")[2] for c in cells if c.startswith("d:@")}
            out.setdefault("line counts", set()).update(days)
    return out


# On HBase in make test-all (100 s more); make test runs the forget tests on HBase.
HBASE = pytest.param("hbase", marks=[pytest.mark.hbase, pytest.mark.exhaustive])


@pytest.fixture(params=["sqlite", HBASE])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    request.getfixturevalue("hbase")
    prefix = unique_prefix("keep")
    yield hbase_url(prefix)
    drop_prefix(prefix)


def test_twelve_days_with_a_five_day_window(spark: Any, tmp_path: Path, store_url: str) -> None:
    cfg = small_day_config().replace(store_url=store_url, **{"index.keep_days": KEEP})
    home = tmp_path / "home"
    published: dict[str, dict[str, Any]] = {}
    for n, day in enumerate(DAYS, start=1):
        folder = write_day(tmp_path / "in", day, _records(n, day))
        ctx = DayContext(day=day, home=home, cfg=cfg, input_dir=folder)
        run_stages(spark, ctx)
        published[day] = verdicts(ctx)

    last = published[DAYS[-1]]
    assert last["copy-of-3"]["verdict"] == "unique", last["copy-of-3"]
    assert last["copy-of-9"]["verdict"] == "duplicate", last["copy-of-9"]
    assert last["copy-of-9"]["duplicate_of"] == "d9-0"

    # The index holds the window of the newest day: days 8 .. 12.
    window = set(DAYS[-KEEP:])
    held = _index_days(store_url)
    assert held["postings"] == window, held
    assert held["documents"] == window, held
    assert held["line counts"] <= window, held
    # Every verdict published reads as it did when its day was published.
    for day in DAYS:
        ctx = DayContext(day=day, home=home, cfg=cfg)
        assert verdicts(ctx) == published[day], day
    # Each forgotten day is logged done, with what went; the commit said so too.
    with open_store(store_url) as store:
        log = {k: c for k, c in store.scan("forgotten")}
        report = json.loads(store.get("days", [DAYS[7]])[DAYS[7]]["r:report"])
    assert {k for k, c in log.items() if c["f:state"] == b"done"} == {
        f"day|{d}" for d in DAYS[:-KEEP]
    }
    day1 = json.loads(log[f"day|{DAYS[0]}"]["f:counts"])
    assert day1["documents"] == 2 and day1["postings"] > 0, day1
    assert "keep_days = 5" in log[f"day|{DAYS[0]}"]["f:why"].decode()
    assert report  # the days keep their reports
