"""Which candidates a document keeps when its rule's cap is reached
(candidates_stage.earliest_per_rule)."""

from __future__ import annotations

from typing import Any

from crawldedup.pipeline import schemas
from crawldedup.pipeline.candidates_stage import earliest_per_rule

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
