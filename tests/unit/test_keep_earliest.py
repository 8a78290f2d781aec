"""The Python ranking behind candidates_stage.earliest_per_rule, on Arrow tables."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.pipeline import schemas
from crawldedup.pipeline.candidate_ranking import keep_earliest

DAY = "2026-11-01"
RANKED = to_arrow_schema(schemas.RANKED_CANDIDATES)


def _row(doc: str, rule: str, cand: str, minute: int, shared: int | None = None,
         own: bool = False) -> dict[str, Any]:  # fmt: skip
    return {
        "id": doc,
        "fetched_at": f"{DAY}T01:00:00Z",
        "rule": rule,
        "cand_id": cand,
        "cand_fetched_at": f"{DAY}T00:{minute:02d}:00Z",
        "cand_day": DAY,
        "shared_chars": shared,
        "own_text": own,
    }


def _kept(rows: list[dict[str, Any]], cap: int) -> dict[tuple[str, str], dict[str, Any]]:
    out = keep_earliest(pa.Table.from_pylist(rows, RANKED), cap)
    assert out.schema.names == schemas.CANDIDATES.fieldNames()
    found = out.to_pylist()
    pairs = {(r["id"], r["rule"], r["cand_id"]): r for r in found}
    assert len(pairs) == len(found), "a pair twice"
    return {(d, c): r for (d, _, c), r in pairs.items()}


def test_a_pair_counts_once_per_rule_and_the_cap_keeps_the_earliest() -> None:
    rows = [_row("a", "lsh", f"c{i}", i) for i in range(5)]
    rows += [_row("a", "lsh", "c3", 3), _row("a", "lsh", "c0", 0)]  # more bands
    rows += [_row("b", "lsh", f"c{i}", 9 - i) for i in range(4)]  # another document
    kept = _kept(rows, 2)
    assert sorted(kept) == [("a", "c0"), ("a", "c1"), ("b", "c2"), ("b", "c3")]


def test_the_own_text_candidate_comes_first_and_counts_twice_with_a_band() -> None:
    rows = [_row("a", "lsh", f"s{i}", i) for i in range(4)]
    rows += [_row("a", "lsh", "orig", 30, own=True), _row("a", "lsh", "orig", 30)]
    assert sorted(_kept(rows, 2)) == [("a", "orig"), ("a", "s0")]
    # Its own-text row and its band row take two places: with a cap of 1, one of them.
    assert sorted(_kept(rows, 1)) == [("a", "orig")]


def test_paragraph_rows_of_a_pair_are_summed_and_other_rules_stay_null() -> None:
    rows = [_row("a", "paragraph", "p", 1, 120), _row("a", "paragraph", "p", 1, 80)]
    rows += [_row("a", "paragraph", "q", 2, 0), _row("a", "title", "t", 3)]
    kept = _kept(rows, 5)
    assert kept[("a", "p")]["shared_chars"] == 200
    assert ("a", "q") not in kept  # found by a frequent paragraph alone
    assert kept[("a", "t")]["shared_chars"] is None


def test_a_frequent_paragraph_finds_no_candidate_nor_takes_a_place_under_the_cap() -> None:
    # Three earlier pages share only a frequent paragraph with "a" (shared_chars 0), and
    # fetched first; the later one shares a rare one; another also shares the frequent
    # one, which adds nothing to its sum.
    rows = [_row("a", "paragraph", f"f{i}", i, 0) for i in range(3)]
    rows += [_row("a", "paragraph", "rare", 20, 150)]
    rows += [_row("a", "paragraph", "both", 30, 0), _row("a", "paragraph", "both", 30, 90)]
    kept = _kept(rows, 2)
    assert sorted(kept) == [("a", "both"), ("a", "rare")]
    assert kept[("a", "both")]["shared_chars"] == 90


def test_no_rows_give_the_schema_alone() -> None:
    out = keep_earliest(RANKED.empty_table(), 3)
    assert out.num_rows == 0 and out.schema.names == schemas.CANDIDATES.fieldNames()
