"""The fast path equals the definitions, and the slow path, on real stage output.

Two sample days run by the stages (the session's embedded reference): every pair the
similarity stage scored in Arrow batches has, bit for bit, the measures the per-pair
definitions give on the same documents (earlier days' from the store), and every
document has the verdict ``crawldedup.core.cascade.decide`` gives on its candidates.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from crawldedup.config import Config
from crawldedup.core.cascade import UNIQUE, Candidate, Decision, Policy, decide
from crawldedup.core.fingerprint import (
    hamming64,
    sketch_containment,
    sketch_jaccard,
    sketch_set_size,
)
from crawldedup.store import open_store
from crawldedup.store.schema import get_docs
from tests.conftest import EmbeddedDays


def _frame(e: EmbeddedDays, day: str, name: str) -> pd.DataFrame:
    return pd.read_parquet(e.home / "work" / f"dt={day}" / name)


def _sides(e: EmbeddedDays, day: str, ids: set[str]) -> dict[str, dict[str, Any]]:
    """tf, sketch, simhash, length per document: the day's from its docs, the rest from
    the store (as the stage reads them)."""
    docs = _frame(e, day, "docs")
    out = {
        r.id: {
            "tf": r.tf,
            "sketch": r.sketch,
            "simhash": r.simhash,
            "length": r.length,
            "own": r.own_sketch or "",
        }
        for r in docs.itertuples()
    }
    with open_store(e.url) as store:
        rows = get_docs(store, sorted(ids - out.keys()))
    for i, row in rows.items():
        out[i] = {
            "tf": row["v:tf"].decode(),
            "sketch": row["v:sketch"].decode(),
            "simhash": row["m:simhash"].decode(),
            "length": int(row["m:length"]),
            "own": (row.get("v:own") or b"").decode(),
        }
    return out


def test_arrow_scores_equal_the_per_pair_definitions(embedded_sample_days: EmbeddedDays) -> None:
    e, k = embedded_sample_days, Config().simhash.sketch_size
    checked = owns = 0
    for day in e.days:
        scores = _frame(e, day, "scores")
        sides = _sides(e, day, set(scores.cand_id))
        for r in scores.itertuples():
            a, b = sides[r.id], sides[r.cand_id]
            # The default profile decides without the cosine, so it is not computed.
            assert pd.isna(r.similarity)
            # A page with an own text is measured on it (docs/algorithm.md#boilerplate).
            oa, ob = a["own"] or a["sketch"], b["own"] or b["sketch"]
            owns += bool(a["own"] or b["own"])
            assert r.jaccard == sketch_jaccard(oa, ob, k)
            assert r.containment == max(
                sketch_containment(oa, ob, k),
                sketch_containment(oa, b["sketch"], k),
                sketch_containment(a["sketch"], ob, k),
            )
            assert r.smaller_shingles == min(sketch_set_size(oa, k), sketch_set_size(ob, k))
            want_h = hamming64(int(a["simhash"], 16), int(b["simhash"], 16))
            assert r.hamming == want_h
            assert r.shorter_chars == min(a["length"], b["length"])
            checked += 1
    assert checked > 100  # both days scored pairs, same-day and earlier-day
    assert owns > 0  # an article its host serves again and again, edited: frequent there


def test_decisions_equal_the_cascade_definition(embedded_sample_days: EmbeddedDays) -> None:
    """Every document's verdict in work/decisions is ``decide``'s on its candidates (the
    sample has no edition parted through a copy: ``edition_groups``)."""
    e, cfg = embedded_sample_days, Config()
    for day in e.days:
        scores = _frame(e, day, "scores").set_index(["id", "cand_id"])
        per_doc: dict[str, list[Candidate]] = defaultdict(list)
        for c in _frame(e, day, "candidates").itertuples():
            s = scores.loc[(c.id, c.cand_id)] if (c.id, c.cand_id) in scores.index else None

            def val(name: str, s: Any = s) -> Any:
                return None if s is None or pd.isna(s[name]) else s[name].item()

            per_doc[c.id].append(
                Candidate(
                    c.cand_id,
                    c.cand_fetched_at,
                    c.rule,
                    val("similarity") or 0.0,
                    val("hamming"),
                    val("jaccard"),
                    val("containment"),
                    val("smaller_shingles"),
                    val("shorter_chars"),
                )
            )
        decided = _frame(e, day, "decisions")
        dups = 0
        for r in decided.itertuples():
            want = decide(per_doc.get(r.id, []), Policy.from_config(cfg), cfg.cascade.rules)
            got = (
                UNIQUE
                if r.verdict == "unique"
                else Decision(r.verdict, r.rule, r.duplicate_of, r.similarity, r.measure)
            )
            assert got == want, r.id
            dups += r.verdict == "duplicate"
        assert dups > 10


def test_pairs_of_ids_give_the_verdicts_of_the_joined_path(
    spark: Any,
    sample_crawl: Path,
    embedded_sample_days: EmbeddedDays,
    tmp_path: Path,
) -> None:
    """The default path (pairs of ids, sides read once, no cosine) against the joined
    path (both sides' vectors on every pair, ``cascade.score_cosine``): the same days
    give the same scores but the cosine, and the same verdicts, document by document."""
    from crawldedup.pipeline.context import DayContext
    from crawldedup.pipeline.stages import run_stages

    e, home = embedded_sample_days, tmp_path / "joined"
    cfg = Config().replace(
        store_url=f"sqlite:///{home / 'store.db'}", **{"cascade.score_cosine": True}
    )
    for day in e.days:
        run_stages(
            spark, DayContext(day=day, home=home, cfg=cfg, input_dir=sample_crawl / f"dt={day}")
        )
    joined = EmbeddedDays(home, cfg.store_url, e.days)
    keys = ["id", "cand_id"]
    for day in e.days:
        fast = _frame(e, day, "scores").sort_values(keys).reset_index(drop=True)
        slow = _frame(joined, day, "scores").sort_values(keys).reset_index(drop=True)
        assert fast["similarity"].isna().all() and slow["similarity"].notna().all()
        pd.testing.assert_frame_equal(
            fast.drop(columns="similarity"), slow.drop(columns="similarity")
        )
        fast_v = _frame(e, day, "decisions").sort_values("id").reset_index(drop=True)
        slow_v = _frame(joined, day, "decisions").sort_values("id").reset_index(drop=True)
        pd.testing.assert_frame_equal(fast_v, slow_v)
        assert (fast_v["verdict"] == "duplicate").sum() > 10
