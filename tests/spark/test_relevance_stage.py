"""The relevance stage on a small generated day, in the shared local[2] session."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from crawldedup.code_version import code_version
from crawldedup.config import Config
from crawldedup.pipeline import fingerprint_stage, relevance_stage
from crawldedup.pipeline.context import DayContext
from crawldedup.relevance.library import load_library
from crawldedup.relevance.page import split_html
from crawldedup.relevance.scoring import Scorer, default_tokenizer
from crawldedup.stage_registry import RELEVANCE_LINKS, RELEVANCE_SCORES
from crawldedup.store import open_store
from crawldedup_demo.topics import generate_pages, write_topic_day

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "config" / "topics.example.yaml"


def _count(store_url: str, table: str, prefix: str = "") -> int:
    with open_store(store_url) as store:
        return sum(1 for _ in store.scan_prefix(table, prefix, keys_only=True))


def _ctx(home: Path, day: str, folder: Path | None, **overrides: Any) -> DayContext:
    cfg = Config().replace(**{"spark.shuffle_partitions": 2, **overrides})
    return DayContext(day=day, home=home, cfg=cfg, input_dir=folder)


def test_relevance_stage_scores_ranks_and_reruns_idempotently(spark: Any, tmp_path: Path) -> None:
    day, day2 = "2026-11-01", "2026-11-02"
    folder = write_topic_day(tmp_path / "in1", day, seed=2, per_topic=4, unrelated=4)
    with (folder / "part-00000.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")  # quarantined by fingerprint: never scored
    opts = {"relevance.library": str(LIBRARY), "cascade.cosine_weights": "tag_tfidf"}
    ctx = _ctx(tmp_path / "home", day, folder, **opts)
    fingerprint_stage.run(spark, ctx)
    stats = relevance_stage.run(spark, ctx)
    pages = generate_pages(seed=2, per_topic=4, unrelated=4, day=day)
    n = len(pages)
    assert stats["pages"] == n == 22 and stats["docs_so_far"] == n
    assert stats["tag_vectors"] == n

    # The Spark scores are the pure scorer's, with IDF from this one day.
    scorer = Scorer(load_library(LIBRARY), default_tokenizer())
    term_stats = {p.id: scorer.stats(split_html(p.html, p.url)) for p in pages}
    df = Counter(k for s in term_stats.values() for k in scorer.df_keys(s))
    expected = {
        (pid, ts.topic): ts.score
        for pid, s in term_stats.items()
        for ts in scorer.score(s, n, lambda k: df[k], "semantic")
    }
    scores = spark.read.parquet(ctx.path(RELEVANCE_SCORES)).collect()
    got = {(r["id"], r["topic"]): r["score"] for r in scores}
    assert got.keys() == expected.keys()
    assert all(abs(got[k] - expected[k]) < 1e-9 for k in got)
    # Every on-topic page of the sample is kept; no unrelated page is.
    labels = {(p.id, t): lbl for p in pages for t, lbl in p.label_for.items()}
    kept = {(r["id"], r["topic"]) for r in scores if r["relevant"]}
    assert {k for k, lbl in labels.items() if lbl == "on"} <= kept
    assert not {k for k in kept if labels[k] == "unrelated"}
    assert all(json.loads(r["atoms"]) for r in scores if r["relevant"])

    links = spark.read.parquet(ctx.path(RELEVANCE_LINKS)).collect()
    by_topic: dict[str, list[Any]] = {}
    for r in links:
        by_topic.setdefault(r["topic"], []).append(r)
    assert set(by_topic) == {"football", "php_framework", "new_energy_vehicle"}
    for rows in by_topic.values():
        rows.sort(key=lambda r: r["rank"])
        assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
        assert [r["priority"] for r in rows] == sorted((r["priority"] for r in rows), reverse=True)
        assert all(r["from_page"] in {k[0] for k in kept} for r in rows)

    url = ctx.store
    before = {t: _count(url, t) for t in ("rel_scores", "rel_links", "rel_docs")}
    assert before["rel_scores"] == 3 * n and before["rel_links"] == len(links)
    assert before["rel_docs"] == n
    # The next day's N and document frequencies add to the first day's.
    folder2 = write_topic_day(tmp_path / "in2", day2, seed=9, per_topic=2, unrelated=2)
    ctx2 = _ctx(tmp_path / "home", day2, folder2, **opts)
    fingerprint_stage.run(spark, ctx2)
    st2 = relevance_stage.run(spark, ctx2)
    assert st2["pages"] == 3 * 2 + 3 * 1 + 2
    assert st2["docs_so_far"] == n + st2["pages"]
    # A rerun of day 1 replaces its rows and still sees only days <= day 1: same N, same
    # IDF, same row counts.
    again = relevance_stage.run(spark, ctx)
    assert again["docs_so_far"] == n and again["df_keys"] == stats["df_keys"]
    assert _count(url, "rel_scores", f"{day}|") == 3 * n
    assert _count(url, "rel_links", f"{day}|") == before["rel_links"]
    assert _count(url, "rel_docs") == n + st2["pages"]
    assert _count(url, "rel_scores", f"{day2}|") == 3 * st2["pages"]


def test_relevance_stage_is_skipped_without_a_library(spark: Any, tmp_path: Path) -> None:
    ctx = _ctx(tmp_path / "home", "2026-11-03", None)
    stats = relevance_stage.run(spark, ctx)
    assert stats == {"skipped": "no relevance.library configured"}
    written = json.loads((ctx.work / "stats" / "relevance.json").read_text())
    # Stamped with the code that ran it, and the run (none: not a resumable run).
    assert written == {**stats, "code": code_version(), "run": None}
    assert not (ctx.work / "relevance").exists()
