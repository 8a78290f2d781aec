"""The postings a day adds under the per-key cap (limits.max_postings_per_key), from its
ranked key rows (work/day_keys) and what other days hold of each key (work/lookups)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.pipeline.day_keys import (
    DAY_KEYS_ARROW,
    KEY_COLUMNS,
    LOOKUP_COUNTS,
    held_elsewhere,
    postings_under_cap,
)


def _ranked(*rows: tuple[str, str, str, int]) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {"id": i, "fetched_at": "t", "rule": r, "key": k, "simhash": None, "rank": n}
            for i, r, k, n in rows
        ],
        schema=DAY_KEYS_ARROW,
    )


def _lookups(*rows: tuple[str, str, int, str | None]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"rule": r, "key": k, "n_other": n, "cand_id": c} for r, k, n, c in rows],
        schema=LOOKUP_COUNTS,
    )


def test_a_key_takes_the_days_postings_up_to_the_cap_with_other_days_counted() -> None:
    ranked = _ranked(
        ("a", "head", "k1", 1),
        ("b", "head", "k1", 2),
        ("c", "head", "k1", 3),
        ("a", "tail", "k1", 1),  # the same key text under another rule: its own count
        ("d", "lsh", "k2", 1),
        ("e", "lsh", "k2", 2),
    )
    lookups = _lookups(
        ("head", "k1", 1, None),  # other days hold one posting of head k1
        ("head", "k1", 1, "x"),  # a candidate row: not the key's count
        ("lsh", "k2", 3, None),  # lsh k2 is full already
        ("lsh", "k2", 2, None),  # the largest count of a key's rows counts
    )
    kept = postings_under_cap(ranked, held_elsewhere(lookups), cap=3)
    assert kept.column_names == KEY_COLUMNS
    got = sorted((r["id"], r["rule"], r["key"]) for r in kept.to_pylist())
    assert got == [("a", "head", "k1"), ("a", "tail", "k1"), ("b", "head", "k1")]


def test_no_lookups_file_rows_keep_every_key_under_the_cap(tmp_path: Path) -> None:
    pq.write_table(LOOKUP_COUNTS.empty_table(), tmp_path / "part-00000.parquet")
    lookups = pq.read_table(tmp_path, schema=LOOKUP_COUNTS)
    ranked = _ranked(("a", "head", "k", 1), ("b", "head", "k", 2))
    kept = postings_under_cap(ranked, held_elsewhere(lookups), 1)
    assert kept.column("id").to_pylist() == ["a"]
