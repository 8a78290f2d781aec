"""The fast path equals the definitions on real stage output.

Two sample days run by the stages (the session's embedded reference): every pair the
similarity stage scored in Arrow batches has, bit for bit, the measures the per-pair
definitions give on the same documents (earlier days' from the store), and every
document has the verdict ``crawldedup.core.cascade.decide`` gives on its candidates.
"""

from __future__ import annotations

from collections import defaultdict
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
from tests.conftest import EmbeddedDays


def _frame(e: EmbeddedDays, day: str, name: str) -> pd.DataFrame:
    return pd.read_parquet(e.home / "work" / f"dt={day}" / name)


def _sides(e: EmbeddedDays, day: str, ids: set[str]) -> dict[str, dict[str, Any]]:
    """tf, sketch, simhash, length per document: the day's from its docs, the rest from
    the store (as the stage reads them)."""
    docs = _frame(e, day, "docs")
    out = {
        r.id: {"tf": r.tf, "sketch": r.sketch, "simhash": r.simhash, "length": r.length}
        for r in docs.itertuples()
    }
    with open_store(e.url) as store:
        rows = store.get("docs", sorted(ids - out.keys()))
    for i, row in rows.items():
        out[i] = {
            "tf": row["v:tf"].decode(),
            "sketch": row["v:sketch"].decode(),
            "simhash": row["m:simhash"].decode(),
            "length": int(row["m:length"]),
        }
    return out


def test_arrow_scores_equal_the_per_pair_definitions(embedded_sample_days: EmbeddedDays) -> None:
    e, k = embedded_sample_days, Config().simhash.sketch_size
    checked = 0
    for day in e.days:
        scores = _frame(e, day, "scores")
        sides = _sides(e, day, set(scores.cand_id))
        for r in scores.itertuples():
            a, b = sides[r.id], sides[r.cand_id]
            # The default profile decides without the cosine, so it is not computed.
            assert pd.isna(r.similarity)
            assert r.jaccard == sketch_jaccard(a["sketch"], b["sketch"], k)
            assert r.containment == sketch_containment(a["sketch"], b["sketch"], k)
            assert r.smaller_shingles == min(
                sketch_set_size(a["sketch"], k), sketch_set_size(b["sketch"], k)
            )
            want_h = hamming64(int(a["simhash"], 16), int(b["simhash"], 16))
            assert r.hamming == want_h
            assert r.shorter_chars == min(a["length"], b["length"])
            checked += 1
    assert checked > 100  # both days scored pairs, same-day and earlier-day


def test_sql_decisions_equal_the_cascade_definition(embedded_sample_days: EmbeddedDays) -> None:
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
        decided = _frame(e, day, "decisions.untyped")
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
