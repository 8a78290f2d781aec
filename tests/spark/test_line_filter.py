"""The store's line filter (``bloom.line_filter``, :mod:`crawldedup.pipeline.line_filter`)
changes what the boilerplate tally asks the store, never what it counts.

One site's template lines reach ``boilerplate.min_pages`` (4) only with every day's
pages counted: 2 on day 1, 1 on day 2, 2 on day 3. A home that runs day 1 without the
filter and days 2 and 3 with it (day 2 rebuilds the blocks from the table, day 3 reads
the blocks day 2's publish added its rows to) counts, judges and stores exactly what a
home without the filter does. On the embedded store the filter is off unless asked for
("auto"); HBase's integration tests run with it on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.store import open_store
from tests.rerun_equality import differences, published_state
from tests.spark.test_stages import (
    ARTICLE,
    long_article,
    rec,
    run_all,
    small_day_config,
    write_day,
)

NAV = "示例新闻网 首页 | 国内 | 国际 | 财经 | 体育 | 科技 | 评论"
FOOT = "版权所有 © 2026 示例新闻网 未经书面授权不得转载 举报电话：四零零八八八"
SITE = "http://site.example"


def _page(body: str) -> str:
    return "\n".join([NAV, body, FOOT])


DAYS = {
    "2026-11-01": [
        rec(
            f"s{i}", _page(long_article(30 + i)), f"2026-11-01T0{i}:00:00Z", f"甲{i}", f"{SITE}/{i}"
        )
        for i in range(2)
    ]
    + [rec("orig", ARTICLE, "2026-11-01T05:00:00Z", "网页判重", "http://other.example/a")],
    "2026-11-02": [
        rec("s2", _page(long_article(40)), "2026-11-02T01:00:00Z", "乙", f"{SITE}/2"),
    ],
    "2026-11-03": [
        rec("copy", _page(ARTICLE), "2026-11-03T01:00:00Z", "转载：网页判重", f"{SITE}/c"),
        # Day 2's article again on its site: its lines' rows are day 2's new ones.
        rec("again", _page(long_article(40)), "2026-11-03T02:00:00Z", "乙", f"{SITE}/2b"),
    ],
}


@pytest.fixture
def cfg() -> Config:
    return small_day_config()


def _run(spark: Any, tmp_path: Path, name: str, modes: list[str], cfg: Config) -> dict[str, Any]:
    """The three days in one home, day i with ``bloom.line_filter = modes[i]``: each
    day's tally rows (sorted), fingerprint stats and publish stats, and the store."""
    home, out = tmp_path / name, {}
    for (day, records), mode in zip(DAYS.items(), modes, strict=True):
        folder = write_day(tmp_path / f"{name}-in", day, records)
        ctx = DayContext(
            day=day, home=home, cfg=cfg.replace(**{"bloom.line_filter": mode}), input_dir=folder
        )
        run_all(spark, ctx)
        stats = ctx.work / "stats"
        out[day] = {
            "tally": sorted(pq.read_table(ctx.work / "host_lines").to_pylist(), key=str),
            "fingerprint": json.loads((stats / "fingerprint.json").read_text())["boilerplate"],
            "publish": json.loads((stats / "publish.json").read_text()),
        }
    out["state"] = published_state(ctx.store, home, list(DAYS), cfg)
    with open_store(ctx.store) as store:
        out["blocks"] = [k for k, _ in store.scan_prefix("bloom_blocks", "lines|", keys_only=True)]
        out["rows"] = sum(
            not k.startswith("*|") for k, _ in store.scan("host_lines", keys_only=True)
        )
    return out


def test_the_line_filter_asks_less_and_counts_the_same(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    off = _run(spark, tmp_path, "off", ["auto"] * 3, cfg)
    on = _run(spark, tmp_path, "on", ["auto", "on", "on"], cfg)
    for day in DAYS:
        assert on[day]["tally"] == off[day]["tally"], day
        on_fp = dict(on[day]["fingerprint"])
        on_fp.pop("line_filter", None)
        assert on_fp == off[day]["fingerprint"], day
    # The same store but the digest of the configuration each day ran with.
    differ = differences(on["state"], off["state"])
    assert differ and all("[config_digest]: " in d for d in differ), differ
    # The template is one only with every day counted; the copy is then the article.
    assert off["2026-11-03"]["fingerprint"]["lines"] >= 2
    copy = next(v for v in off["state"]["2026-11-03"]["verdicts"] if v["id"] == "copy")
    assert (copy["duplicate_of"], copy["measure"]) == ("orig", "exact")

    # "auto" on the embedded store: no filter, no blocks, nothing added.
    assert "line_filter" not in off["2026-11-01"]["fingerprint"] and off["blocks"] == []
    assert all(off[d]["publish"]["line_filter_rows_added"] == 0 for d in DAYS)
    # Day 2 rebuilt the blocks from day 1's rows; day 3 read them, with day 2's new rows
    # added by day 2's publish, and got from the store only what they may hold.
    day2, day3 = on["2026-11-02"]["fingerprint"], on["2026-11-03"]["fingerprint"]
    rows_after_day_1 = len(off["2026-11-01"]["tally"])
    assert day2["line_filter"]["rebuilt_from_rows"] == rows_after_day_1
    assert day3["line_filter"]["rebuilt_from_rows"] == 0
    new_on_day_2 = sum(r["n"] == r["pages"] for r in on["2026-11-02"]["tally"])
    assert on["2026-11-02"]["publish"]["line_filter_rows_added"] == new_on_day_2 > 0
    recurring = sum(r["n"] > r["pages"] for r in on["2026-11-03"]["tally"])
    assert recurring <= day3["line_filter"]["looked_up"] < day3["line_filter"]["rows"]
    assert on["blocks"] == ["lines|000", "lines|001"] and on["rows"] == off["rows"]


def test_turning_the_line_filter_off_drops_its_blocks(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """Days without the filter do not add their rows to it, so they delete its blocks: a
    later day with it on rebuilds them rather than trust blocks that lack rows."""
    out = _run(spark, tmp_path, "onoff", ["on", "off", "on"], cfg)
    assert out["2026-11-01"]["fingerprint"]["line_filter"]["rebuilt_from_rows"] == 0
    rows_by_day_2 = len({(r["host"], r["line"]) for d in list(DAYS)[:2] for r in out[d]["tally"]})
    assert out["2026-11-03"]["fingerprint"]["line_filter"]["rebuilt_from_rows"] == rows_by_day_2
    copy = next(v for v in out["state"]["2026-11-03"]["verdicts"] if v["id"] == "copy")
    assert (copy["duplicate_of"], copy["measure"]) == ("orig", "exact")
