"""Which candidates a document keeps when its rule's cap is reached
(candidates_stage.earliest_per_rule)."""

from __future__ import annotations

from typing import Any

from crawldedup.pipeline import schemas
from crawldedup.pipeline.candidate_ranking import earliest_per_rule

DAY = "2026-11-01"


def _row(cand: str, minute: int, own: bool, rule: str = "lsh") -> tuple[Any, ...]:
    at = f"{DAY}T00:{minute:02d}:00Z"
    return ("copy", f"{DAY}T01:00:00Z", rule, cand, at, DAY, None, own)


def test_the_candidates_an_own_text_key_found_are_kept_before_the_earliest(spark: Any) -> None:
    # A short page in a template with a rotating related list shares bands with five of
    # its site's pages, all fetched before the page it shares its own text with.
    rows = [_row(f"site{i}", i, False) for i in range(5)]
    rows += [_row("site0", 0, False), _row("site1", 1, False)]  # more bands, same pairs
    rows += [_row("original", 30, True), _row("original", 30, False)]  # key and a band
    rows += [_row(f"t{i}", i, False, "title") for i in range(4)]
    cands = spark.createDataFrame(rows, schemas.RANKED_CANDIDATES)
    kept = earliest_per_rule(cands, 3).collect()
    assert set(kept[0].asDict()) == set(schemas.CANDIDATES.fieldNames())
    by_rule: dict[str, list[str]] = {}
    for r in kept:
        by_rule.setdefault(r["rule"], []).append(r["cand_id"])
    # The own-text candidate first, then the earliest; each pair once.
    assert sorted(by_rule["lsh"]) == ["original", "site0", "site1"]
    assert sorted(by_rule["title"]) == ["t0", "t1", "t2"]
    # Without the own-text key, the cap keeps the earliest only.
    plain = spark.createDataFrame([(*r[:-1], False) for r in rows], schemas.RANKED_CANDIDATES)
    lsh = sorted(r["cand_id"] for r in earliest_per_rule(plain, 3).collect() if r["rule"] == "lsh")
    assert lsh == ["site0", "site1", "site2"]


def test_lookups_rank_the_same_in_pyarrow_as_in_spark(spark: Any) -> None:
    """The two roads to work/candidates (rank_by_docs_file's pyarrow, the partitioned
    filters' Spark columns) read a lookups row alike: own-text key, shared paragraph
    size, 0 for a paragraph more than max_docs documents hold, null for other rules."""
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import to_arrow_schema

    from crawldedup.core.boilerplate import OWN_KEY_SUFFIX
    from crawldedup.pipeline.candidate_ranking import (
        own_text_key_of,
        ranked_lookups,
        shared_chars_of,
    )

    at = f"{DAY}T00:00:00Z"
    rows = [
        ("a", at, "lsh", f"00ff.3{OWN_KEY_SUFFIX}", 1, "x", at, DAY),
        ("a", at, "lsh", "00ff.3", 1, "y", at, DAY),
        ("a", at, "paragraph", "1234abcd.57", 1, "x", at, DAY),  # 1 + 2 of the day: 3
        ("b", at, "paragraph", "99990000.120", 2, "x", at, DAY),  # 2 + 1 (the page): 3
        ("b", at, "paragraph", "55550000.80", 3, "z", at, DAY),  # 3 + 1: frequent
        ("b", at, "title", "beef", 0, "x", at, DAY),
        ("c", at, "lsh", "00aa.1", 4, None, None, None),  # no candidate: dropped
    ]
    n_day = {"1234abcd.57": 2}
    max_docs = 3
    table = pa.Table.from_pylist(
        [dict(zip(schemas.LOOKUPS.fieldNames(), r, strict=True)) for r in rows],
        to_arrow_schema(schemas.LOOKUPS),
    )
    mine = ranked_lookups(table, n_day, max_docs).to_pylist()
    counts = spark.createDataFrame(list(n_day.items()), "key string, n_day long")
    found = (
        spark.createDataFrame(rows, schemas.LOOKUPS)
        .filter(F.col("cand_id").isNotNull())
        .join(F.broadcast(counts.withColumn("rule", F.lit("paragraph"))), ["rule", "key"], "left")
    )
    theirs = found.select(
        *[c for c in schemas.CANDIDATES.fieldNames() if c != "shared_chars"],
        shared_chars_of(F.col("rule"), F.col("key"), F.col("n_other"), F.col("n_day"), max_docs)
        .cast("int")
        .alias("shared_chars"),
        own_text_key_of(F.col("rule"), F.col("key")).alias("own_text"),
    ).collect()

    def rank(r: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(r[c] for c in schemas.RANKED_CANDIDATES.fieldNames())

    assert sorted(map(rank, mine)) == sorted(rank(r.asDict()) for r in theirs)
    assert len(mine) == 6
    shared = {(r["cand_id"], r["rule"], r["id"]): r["shared_chars"] for r in mine}
    assert shared[("x", "paragraph", "a")] == 57 and shared[("x", "paragraph", "b")] == 120
    assert shared[("z", "paragraph", "b")] == 0 and shared[("x", "title", "b")] is None
    assert [r["own_text"] for r in mine if r["rule"] == "lsh"] == [True, False]
