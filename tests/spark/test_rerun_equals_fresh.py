"""A rerun equals a fresh run (docs/store.md#reruns): after days 1-3 run with parameters
X, rerunning day 2 with Y and the later days after it (``--cascade-later``) leaves the
store, the verdicts, the groups, the reports and ``explain`` exactly as days 2-3 run
fresh with Y after day 1 with X. Day 3 is the "next day" judged against the rerun.

In the shared session, on the embedded store, through the stage runner the CLI uses
(``run_stages`` / ``rerun_with_later_days``); HBase, the CLI with ``--through``, and the DAG
have their own tests (tests/integration/test_rerun_roads.py, tests/airflow).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.later_days import later_days, rerun_with_later_days
from crawldedup.pipeline.stages import run_stages
from crawldedup.store import open_store
from crawldedup.store.schema import DOC_CELL, DOC_FIELDS, doc_fields
from tests.conftest import SAMPLE_DAYS
from tests.rerun_equality import (
    check_a_stale_field_is_told,
    differences,
    published_state,
    unique_lines_with_duplicate_fields,
    write_old_doc_layout,
    write_old_verdict_layout,
)

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = str(ROOT / "config" / "topics.example.yaml")
BASE = {"spark.shuffle_partitions": 4, "bloom.capacity_docs": 2000}
DAY1, DAY2, DAY3 = SAMPLE_DAYS
DEFAULT_RULES = list(Config().cascade.rules)

# name: (X, Y, whether Y's day 2 has a fifth of its records fewer)
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], bool]] = {
    "rules_removed": ({}, {"cascade.rules": ["content_md5", "head"]}, False),
    "relevance_off_fewer_records": ({"relevance.library": LIBRARY}, {}, True),
    "rules_added": ({"cascade.rules": ["content_md5", "tail"]}, {}, False),
    "threshold_up": ({}, {"cascade.min_jaccard": 0.9, "cascade.min_containment": 0.97}, False),
    "threshold_down": ({}, {"cascade.min_jaccard": 0.5}, False),
    "seed_profile": ({}, {"cascade.profile": "seed"}, False),
    "seed_and_back": ({"cascade.profile": "seed"}, {}, False),
    "relevance_on": ({}, {"relevance.library": LIBRARY}, False),
    "tag_tfidf_off": (
        {"relevance.library": LIBRARY, "cascade.cosine_weights": "tag_tfidf"},
        {},
        False,
    ),
    "boilerplate_off": ({}, {"boilerplate.enabled": False}, False),
    # Rule paragraph counts a key's documents over the day and the earlier days (the
    # excerpts' frequency bar): a rerun must see the index its first run saw.
    "paragraph_on": ({}, {"cascade.rules": [*DEFAULT_RULES, "paragraph"]}, False),
    "paragraph_off_fewer_records": (
        {"cascade.rules": [*DEFAULT_RULES, "paragraph"]},
        {},
        True,
    ),
}
# make test-all runs every case (make test: HBase's rerun with fewer records and rules, on
# days first written in the verdict layout before 2026-12, tests/integration/
# test_rerun_roads.py; 130 s here on a slow machine). This one reruns days in that old
# layout too, and shows the comparison can fail.
OLD_LAYOUT_CASE = "relevance_off_fewer_records"


def fewer_records(crawl: Path, out: Path) -> Path:
    """The sample crawl with every fifth record of day 2 gone (the others as they are)."""
    for day in SAMPLE_DAYS:
        src, dst = crawl / f"dt={day}", out / f"dt={day}"
        if day != DAY2:
            shutil.copytree(src, dst)
            continue
        dst.mkdir(parents=True)
        for f in src.iterdir():
            if f.suffix == ".jsonl":
                lines = f.read_text().splitlines()
                kept = [x for i, x in enumerate(lines) if i % 5 != 4]
                (dst / f.name).write_text("\n".join(kept) + "\n")
            else:
                shutil.copy(f, dst / f.name)
    return out


def contexts(home: Path, crawl: Path, store_url: str, over: dict[str, Any]) -> list[DayContext]:
    cfg = Config().replace(store_url=store_url, **BASE, **over)
    return [
        DayContext(day=d, home=home, cfg=cfg, input_dir=crawl / f"dt={d}", replace=True)
        for d in SAMPLE_DAYS
    ]


def rerun_and_fresh(
    spark: Any, crawl: Path, tmp: Path, x: dict[str, Any], y: dict[str, Any], y_crawl: Path,
    url: Any = None, old_layout: bool = False,
) -> tuple[dict[str, Any], dict[str, Any], str]:  # fmt: skip
    """(state after X then a cascaded rerun with Y, state of a fresh X, Y, Y; rerun URL).
    ``old_layout``: the verdict rows of the days rerun, and every document row, are first
    rewritten in the layout of the releases before 2026-12 (a store an upgrade finds)."""

    def store(name: str) -> str:
        return url(name) if url else f"sqlite:///{tmp / name / 'store.db'}"

    rerun_url, fresh_url = store("rerun"), store("fresh")
    xs = contexts(tmp / "rerun", crawl, rerun_url, x)
    for c in xs:
        run_stages(spark, c)
    if old_layout:
        write_old_verdict_layout(rerun_url, [DAY2, DAY3])
        write_old_doc_layout(rerun_url)
    ys = contexts(tmp / "rerun", y_crawl, rerun_url, y)
    rerun_with_later_days(spark, ys[1], later_days(ys[1]))
    run_stages(spark, contexts(tmp / "fresh", crawl, fresh_url, x)[0])
    for c in contexts(tmp / "fresh", y_crawl, fresh_url, y)[1:]:
        run_stages(spark, c)
    cfg = ys[1].cfg
    days = list(SAMPLE_DAYS)
    rerun = published_state(rerun_url, tmp / "rerun", days, cfg)
    fresh = published_state(fresh_url, tmp / "fresh", days, cfg)
    return rerun, fresh, rerun_url


@pytest.mark.exhaustive
@pytest.mark.parametrize("case", list(CASES))
def test_a_rerun_with_other_parameters_equals_a_fresh_run(
    spark: Any, sample_crawl: Path, tmp_path: Path, case: str
) -> None:
    x, y, shrink = CASES[case]
    y_crawl = fewer_records(sample_crawl, tmp_path / "fewer") if shrink else sample_crawl
    old = case == OLD_LAYOUT_CASE
    rerun, fresh, rerun_url = rerun_and_fresh(
        spark, sample_crawl, tmp_path, x, y, y_crawl, old_layout=old
    )
    assert rerun[DAY2]["verdicts"], "nothing published"
    assert not unique_lines_with_duplicate_fields(rerun_url, DAY2)
    diff = differences(rerun, fresh)
    assert not diff, "\n".join(diff[:30])
    if old:
        check_a_stale_field_is_told(rerun, fresh, rerun_url, tmp_path / "rerun", DAY2)
        # The rerun days' document rows lost their cells of the old layout (the days were
        # not marked packed); day 1's, not rerun, keep them.
        with open_store(rerun_url) as store:
            rows = dict(store.scan("docs"))
        both = [k for k, r in rows.items() if DOC_CELL in r and set(r) & set(DOC_FIELDS)]
        assert not both, both[:5]
        assert {doc_fields(r)["m:day"].decode() for r in rows.values() if DOC_CELL not in r} == {
            DAY1
        }


def test_a_day_published_before_the_ledger_loses_its_line_counts_on_a_rerun(
    spark: Any, sample_crawl: Path, tmp_path: Path
) -> None:
    """A store written before the ledger existed has no record of a day's shared cells:
    the day's first rerun finds them by a scan (store/day_ledger.retract_unrecorded)."""
    from crawldedup.day_state import LEDGER as LEDGER_MARK
    from crawldedup.store.day_ledger import LEDGER, recorded

    url = f"sqlite:///{tmp_path / 'store.db'}"
    day1 = contexts(tmp_path, sample_crawl, url, {})[0]
    run_stages(spark, day1)
    with open_store(url) as store:
        # What the older release left: no ledger, no mark, the old *|line layout.
        store.delete(LEDGER, [k for k, _ in store.scan(LEDGER, keys_only=True)])
        store.delete("days", [DAY1], columns=[LEDGER_MARK])
        store.put("host_lines", {"*|old": {"d:@old.example": DAY1.encode()}})
        assert any(f"d:{DAY1}" in cells for _, cells in store.scan("host_lines"))
    rerun = contexts(tmp_path, sample_crawl, url, {"boilerplate.enabled": False})[0]
    run_stages(spark, rerun)
    with open_store(url) as store:
        left = [(row, c) for row, cells in store.scan("host_lines") for c in cells]
        assert left == [], left[:5]  # a fresh run without boilerplate writes none
        assert not recorded(store)
