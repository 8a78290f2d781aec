"""Which pairs of a candidates file are scored (id_pair_scores.pairs_of_file), and the
bucket of an earlier candidate's id."""

from __future__ import annotations

import pyarrow as pa

from crawldedup.pipeline.bucket_files import text_bucket as id_bucket
from crawldedup.pipeline.id_pair_scores import pairs_of_file

DAY = "2026-11-03"


def _cands(rows: list[tuple[str, str, str, str]]) -> pa.Table:
    names = ["id", "rule", "cand_id", "cand_day"]
    return pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})


def test_a_pair_found_by_several_rules_is_scored_once_and_rule_b_documents_not_at_all() -> None:
    cands = _cands(
        [
            ("a", "lsh", "x", "2026-11-01"),
            ("a", "title", "x", "2026-11-01"),  # the same pair by another rule
            ("a", "tail", "y", DAY),
            ("b", "content_md5", "x", "2026-11-01"),  # rule B decides b without a measure
            ("b", "lsh", "z", "2026-11-02"),
            ("c", "simhash", "x", "2026-11-01"),
        ]
    )
    pairs = sorted(tuple(r.values()) for r in pairs_of_file(cands).to_pylist())
    assert pairs == [("a", "x", "2026-11-01"), ("a", "y", DAY), ("c", "x", "2026-11-01")]


def test_an_empty_file_has_no_pairs() -> None:
    assert pairs_of_file(_cands([])).num_rows == 0


def test_an_id_has_one_bucket_and_ids_spread_over_all_buckets() -> None:
    ids = [f"rt{i:015x}" for i in range(2000)]
    of = [id_bucket(i, 8) for i in ids]
    assert of == [id_bucket(i, 8) for i in ids]
    assert set(of) == set(range(8))
    assert min(of.count(b) for b in range(8)) > 150
