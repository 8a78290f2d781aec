"""Reruns never destroy history: rerunning an earlier day leaves later days' verdicts and
group rows as they were, and a recrawl of the same urls without ids is a new fetch, judged
against the earlier one instead of overwriting it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from tests.cli_helpers import table_dump
from tests.spark.test_stages import ARTICLE, OTHER, rec, verdicts, write_day


def _day_rows(dump: dict[str, list[tuple[str, dict[str, bytes]]]], table: str, day: str) -> Any:
    return [(k, r) for k, r in dump[table] if k.startswith(f"{day}|")]


def test_rerunning_an_earlier_day_keeps_later_days_groups_and_verdicts(
    spark: Any, sample_crawl: Path, embedded_sample_days: Any, tmp_path: Path
) -> None:
    # A copy of the shared fixture's home: sample days 1 and 2 published by the stages.
    home = tmp_path / "home"
    shutil.copytree(embedded_sample_days.home, home)
    days = embedded_sample_days.days
    cfg = Config().replace(store_url=f"sqlite:///{home / 'store.db'}")
    ctx = {
        d: DayContext(day=d, home=home, cfg=cfg, input_dir=sample_crawl / f"dt={d}") for d in days
    }
    url = ctx[days[0]].store
    before = table_dump(url)
    # Later days' duplicates of day 1's pages: the groups this rerun must not cut.
    later_dups = [
        v for day in days[1:] for v in verdicts(ctx[day]).values() if v["verdict"] == "duplicate"
    ]
    first_ids = set(verdicts(ctx[days[0]]))
    assert any(v["group"] in first_ids for v in later_dups), "no cross-day group to check"

    run_stages(spark, ctx[days[0]])  # the same day again, the same input

    after = table_dump(url)
    assert after["groups"] == before["groups"]
    for day in days:
        assert _day_rows(after, "verdicts", day) == _day_rows(before, "verdicts", day), day
    assert after["docs"] == before["docs"]


@pytest.mark.exhaustive  # make test-all: a slow scenario (30-60 s)
def test_a_recrawl_without_ids_is_judged_against_the_first_fetch(
    spark: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    cfg = Config().replace(**{"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000})
    pages = {"http://site.example/a": ARTICLE, "http://site.example/b": OTHER}

    def fetch(day: str) -> DayContext:
        records: list[dict[str, Any] | str] = [
            {"url": u, "title": "标题", "content": c, "fetched_at": f"{day}T02:00:00Z"}
            for u, c in pages.items()
        ]
        folder = write_day(tmp_path / "in", day, records)
        return DayContext(day=day, home=home, cfg=cfg, input_dir=folder)

    first, recrawl = fetch("2026-11-01"), fetch("2026-11-02")
    run_stages(spark, first)
    run_stages(spark, recrawl)

    day1, day2 = verdicts(first), verdicts(recrawl)
    assert len(day1) == len(day2) == 2 and not set(day1) & set(day2)
    assert all(v["verdict"] == "unique" for v in day1.values())
    assert {v["duplicate_of"] for v in day2.values()} == set(day1)
    docs = dict(table_dump(first.store)["docs"])
    assert {docs[i]["m:day"] for i in day1} == {b"2026-11-01"}  # the first fetch kept


def _small_days(tmp_path: Path, days: dict[str, list[dict[str, Any] | str]]) -> dict[str, Any]:
    home = tmp_path / "home"
    cfg = Config().replace(**{"spark.shuffle_partitions": 4, "bloom.capacity_docs": 1000})
    return {
        d: DayContext(day=d, home=home, cfg=cfg, input_dir=write_day(tmp_path / "in", d, r))
        for d, r in days.items()
    }


@pytest.mark.exhaustive  # make test-all: a slow scenario (30-60 s)
def test_a_rerun_with_far_fewer_documents_is_refused_unless_replace(
    spark: Any, tmp_path: Path
) -> None:
    from dataclasses import replace

    from crawldedup.day_state import RerunRefused

    pages = [OTHER + str(i) * 40 for i in range(4)]
    day = "2026-11-01"
    ctx = _small_days(
        tmp_path, {day: [rec(f"p{i}", p, f"{day}T0{i}:00:00Z") for i, p in enumerate(pages)]}
    )[day]
    run_stages(spark, ctx)
    before = table_dump(ctx.store)
    # A partial copy of the day's folder: one file of four pages' worth left.
    partial = write_day(tmp_path / "partial", day, [rec("p0", pages[0], f"{day}T00:00:00Z")])
    shrunk = replace(ctx, input_dir=partial)
    with pytest.raises(RerunRefused) as refused:
        run_stages(spark, shrunk)
    assert "published with 4 documents and this run has 1" in str(refused.value)
    assert "--replace" in str(refused.value)
    after = table_dump(ctx.store)
    assert after["verdicts"] == before["verdicts"] and after["docs"] == before["docs"]
    # Rerun on purpose: the three missing pages' verdicts and rows go.
    run_stages(spark, replace(shrunk, replace=True))
    assert set(verdicts(ctx)) == {"p0"}


@pytest.mark.exhaustive  # three days and a cascade of three: 52 s, over make test's budget
def test_cascade_later_rejudges_later_days_against_a_late_file_of_day_one(
    spark: Any, tmp_path: Path
) -> None:
    from crawldedup.pipeline.later_days import LaterDaysError, later_days, rerun_with_later_days

    d1, d2, d3 = "2026-11-01", "2026-11-02", "2026-11-03"
    ctx = _small_days(
        tmp_path,
        {
            d1: [rec("a", OTHER, f"{d1}T01:00:00Z")],
            d2: [rec("copy", ARTICLE + "版权所有。", f"{d2}T01:00:00Z", "乙")],
            d3: [rec("again", ARTICLE, f"{d3}T01:00:00Z", "丙")],
        },
    )
    for d in (d1, d2, d3):
        run_stages(spark, ctx[d])
    assert verdicts(ctx[d2])["copy"]["verdict"] == "unique"
    # Day 1's late file lands: the article that day 2 and 3 copied.
    (ctx[d1].input_dir / "part-00001.jsonl").write_text(
        json.dumps(rec("orig", ARTICLE, f"{d1}T02:00:00Z", "网页判重方法"), ensure_ascii=False)
        + "\n"
    )
    # Without the cascade, later days keep their verdicts.
    run_stages(spark, ctx[d1])
    assert verdicts(ctx[d2])["copy"]["verdict"] == "unique"
    later = later_days(ctx[d1])
    assert [c.day for c in later] == [d2, d3]
    reports = rerun_with_later_days(spark, ctx[d1], later)
    assert [r["day"] for r in reports] == [d1, d2, d3]
    assert verdicts(ctx[d2])["copy"]["duplicate_of"] == "orig"
    assert verdicts(ctx[d3])["again"]["duplicate_of"] == "orig"
    # A later day's folder gone: refused before anything runs.
    (ctx[d3].input_dir / "part-00000.jsonl").unlink()
    ctx[d3].input_dir.rmdir()
    with pytest.raises(LaterDaysError, match=r"have no crawl folder.*dt=2026-11-03"):
        later_days(ctx[d1])


def test_through_runs_the_following_days_in_order_each_against_the_days_before(
    spark: Any, tmp_path: Path
) -> None:
    # `crawldedup run --through`'s days (the command line end to end: test_cli_end_to_end).
    from crawldedup.pipeline.later_days import LaterDaysError, following_days, rerun_with_later_days

    d1, d2, d3 = "2026-11-01", "2026-11-02", "2026-11-03"
    ctx = _small_days(
        tmp_path,
        {
            d1: [rec("orig", ARTICLE, f"{d1}T01:00:00Z", "网页判重方法")],
            d2: [rec("copy", ARTICLE + "版权所有。", f"{d2}T01:00:00Z", "乙")],
        },
    )
    following = following_days(ctx[d1], d2)
    assert [(c.day, c.input_dir) for c in following] == [(d2, ctx[d2].input_dir)]
    reports = rerun_with_later_days(spark, ctx[d1], following)
    assert [r["day"] for r in reports] == [d1, d2]
    # Day 2 was judged after day 1 was published: its copy found day 1's page.
    assert verdicts(ctx[d2])["copy"]["duplicate_of"] == "orig"
    with pytest.raises(LaterDaysError, match=r"1 day\(s\) in the range have no crawl folder"):
        following_days(ctx[d1], d3)
