"""The index's lifetime (crawldedup/retention.py): twelve daily days with
``index.keep_days = 5``, run by the stages on the embedded store and on a real HBase
(make test-all), and five days with ``keep_days = 2`` on the embedded store (make test).

After day 12 the index holds days 8 .. 12 only; a copy of a day-3 page arriving on day 12
is unique (day 3 is outside the window), a copy of a day-9 page a duplicate of it, and
every verdict published before reads as it did when it was published (with 5 days and a
window of 2: days 4 .. 5 held, copies of days 1 and 4)."""

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
from crawldedup.store.schema import doc_fields, parse_posting
from tests.hbase_fixtures import drop_prefix, hbase_url, unique_prefix
from tests.spark.test_stages import long_article, rec, small_day_config, verdicts, write_day


def _days(n: int) -> list[str]:
    return [(date(2026, 10, 1) + timedelta(days=i)).isoformat() for i in range(n)]


def _records(n: int, day: str, last: int, copies: tuple[int, int]) -> list[dict[str, Any] | str]:
    """Day n (1-based): two articles of its own, on two hosts; the last day adds copies of
    the first article of two earlier days (one outside the window, one inside), on a
    mirror host."""
    t = f"{day}T03:00:00Z"
    out: list[dict[str, Any] | str] = [
        rec(f"d{n}-{k}", long_article(100 * n + k), t, url=f"http://site{k}.example/p/{n}")
        for k in range(2)
    ]
    if n == last:
        for old in copies:
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
            fields = doc_fields(cells)
            if fields.get("m:keys"):
                out.setdefault("documents", set()).add(fields["m:day"].decode())
        for _key, cells in store.scan("host_lines"):
            days = {c[2:] for c in cells if not c.startswith("d:@")}
            days |= {c.rpartition("|")[2] for c in cells if c.startswith("d:@")}
            out.setdefault("line counts", set()).update(days)
    return out


# (backend, days, keep_days, the two copied days). The twelve days run in make
# test-all (70 s on SQLite, 100 s on HBase); make test runs five days on SQLite and the
# forget tests (tests/integration/test_forget.py) on both backends.
EXHAUSTIVE = [pytest.mark.exhaustive]
SCENARIOS = [
    pytest.param(("sqlite", 5, 2, (1, 4)), id="sqlite-5-days"),
    pytest.param(("sqlite", 12, 5, (3, 9)), id="sqlite-12-days", marks=EXHAUSTIVE),
    pytest.param(
        ("hbase", 12, 5, (3, 9)), id="hbase-12-days", marks=[pytest.mark.hbase, *EXHAUSTIVE]
    ),
]


@pytest.fixture(params=SCENARIOS)
def scenario(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    backend, n, keep, copies = request.param
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}", n, keep, copies
        return
    request.getfixturevalue("hbase")
    prefix = unique_prefix("keep")
    yield hbase_url(prefix), n, keep, copies
    drop_prefix(prefix)


def test_daily_days_with_a_window(spark: Any, tmp_path: Path, scenario: Any) -> None:
    store_url, n_days, keep, (outside, inside) = scenario
    days = _days(n_days)
    cfg = small_day_config().replace(store_url=store_url, **{"index.keep_days": keep})
    home = tmp_path / "home"
    published: dict[str, dict[str, Any]] = {}
    for n, day in enumerate(days, start=1):
        folder = write_day(tmp_path / "in", day, _records(n, day, n_days, (outside, inside)))
        ctx = DayContext(day=day, home=home, cfg=cfg, input_dir=folder)
        run_stages(spark, ctx)
        published[day] = verdicts(ctx)

    last = published[days[-1]]
    assert last[f"copy-of-{outside}"]["verdict"] == "unique", last[f"copy-of-{outside}"]
    assert last[f"copy-of-{inside}"]["verdict"] == "duplicate", last[f"copy-of-{inside}"]
    assert last[f"copy-of-{inside}"]["duplicate_of"] == f"d{inside}-0"

    # The index holds the window of the newest day (days 8 .. 12 of 12 with 5 kept).
    window = set(days[-keep:])
    held = _index_days(store_url)
    assert held["postings"] == window, held
    assert held["documents"] == window, held
    assert held["line counts"] <= window, held
    # Every verdict published reads as it did when its day was published.
    for day in days:
        ctx = DayContext(day=day, home=home, cfg=cfg)
        assert verdicts(ctx) == published[day], day
    # Each forgotten day is logged done, with what went; the commit said so too.
    with open_store(store_url) as store:
        log = {k: c for k, c in store.scan("forgotten")}
        reports = store.get("days", days)
    assert {k for k, c in log.items() if c["f:state"] == b"done"} == {
        f"day|{d}" for d in days[:-keep]
    }
    day1 = json.loads(log[f"day|{days[0]}"]["f:counts"])
    assert day1["documents"] == 2 and day1["postings"] > 0, day1
    assert f"keep_days = {keep}" in log[f"day|{days[0]}"]["f:why"].decode()
    assert all(json.loads(reports[d]["r:report"]) for d in days)  # the days keep their reports
