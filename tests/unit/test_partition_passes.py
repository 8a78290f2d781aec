"""The Python passes that replaced SQL plans: same-day pairs per key partition
(candidates_stage._group_pairs) and a partition's host line counts
(site_boilerplate._tally_hosts). No Spark: they take and give Arrow batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import patch

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.pipeline.candidates_stage import _group_pairs
from crawldedup.pipeline.site_boilerplate import _tally_hosts
from crawldedup.store import open_store
from crawldedup.store.schema import line_hosts_row
from crawldedup.store.sqlite_store import SqliteStore

DAY = "2026-11-01"


def _keys(rows: list[tuple[str, str, str, str, str]]) -> list[pa.RecordBatch]:
    names = ["id", "fetched_at", "rule", "key", "simhash"]
    return [pa.RecordBatch.from_pylist([dict(zip(names, r, strict=True)) for r in rows])]


def _pairs(
    batches: list[pa.RecordBatch], cap: int, max_distance: int = 3
) -> set[tuple[str, str, str, str]]:
    out = set()
    for b in _group_pairs(iter(batches), cap, DAY, max_distance):
        for r in b.to_pylist():
            out.add((r["id"], r["rule"], r["cand_id"], r["cand_day"]))
    return out


def test_each_document_pairs_with_the_earlier_holders_of_its_key_up_to_the_cap() -> None:
    h = "0" * 16
    rows = [  # given out of order: the pass orders by (fetched_at, id) itself
        ("d", "2026-11-01T04", "title", "k1", h),
        ("a", "2026-11-01T01", "title", "k1", h),
        ("c", "2026-11-01T03", "title", "k1", h),
        ("b", "2026-11-01T01", "title", "k1", h),  # same time as a: id breaks the tie
        ("e", "2026-11-01T05", "title", "k2", h),  # a key held once pairs nothing
        ("a", "2026-11-01T01", "head", "k1", h),  # same key text, another rule
    ]
    assert _pairs(_keys(rows), cap=2) == {
        ("b", "title", "a", DAY),
        ("c", "title", "a", DAY),
        ("c", "title", "b", DAY),
        ("d", "title", "a", DAY),
        ("d", "title", "b", DAY),  # not c: the first two holders only
    }


def test_simhash_block_keys_pair_only_hashes_within_the_distance() -> None:
    rows = [
        ("a", "1", "simhash", "b0:ffff", "000000000000000f"),
        ("b", "2", "simhash", "b0:ffff", "0000000000000007"),  # 1 bit from a
        ("c", "3", "simhash", "b0:ffff", "00000000ffff000f"),  # 16 bits: a block collision
    ]
    assert _pairs(_keys(rows), cap=10) == {("b", "simhash", "a", DAY)}


def test_a_pair_sharing_several_band_keys_is_one_row() -> None:
    h = "0" * 16
    rows = [(d, t, "lsh", f"band{i}", h) for d, t in (("a", "1"), ("b", "2")) for i in range(3)]
    rows.append(("b", "2", "title", "t", h))
    rows.append(("a", "1", "title", "t", h))
    out = [
        (r["id"], r["rule"], r["cand_id"])
        for b in _group_pairs(iter(_keys(rows)), 10, DAY, 3)
        for r in b.to_pylist()
    ]
    # One row per rule: three shared bands, one shared title.
    assert sorted(out) == [("b", "lsh", "a"), ("b", "title", "a")]


def test_the_own_text_key_row_stays_beside_a_band_row_met_first() -> None:
    # "band0" sorts before the own-text key: the task meets the pair through a band
    # first. The own-text row must stay, or the ranking (own text first) would depend
    # on which keys share a task.
    h = "0" * 16
    rows = [(d, t, "lsh", k, h) for d, t in (("a", "1"), ("b", "2")) for k in ("band0", "zz.own")]
    out = [
        (r["id"], r["cand_id"], r["own_text"])
        for b in _group_pairs(iter(_keys(rows)), 10, DAY, 3)
        for r in b.to_pylist()
    ]
    assert sorted(out) == [("b", "a", False), ("b", "a", True)]


def test_a_paragraph_is_frequent_by_the_days_and_the_earlier_days_documents_together() -> None:
    # Three of the day's pages hold a paragraph key of 64 characters; the bar is 4
    # documents. Alone, the day's three keep it rare; with two earlier days' documents
    # holding it (five in all) it is frequent text, whose pairs carry no shared size.
    h = "0" * 16
    rows = [
        (d, t, "paragraph", "0123456789abcdef.64", h)
        for d, t in (("a", "1"), ("b", "2"), ("c", "3"))
    ]

    def shared(held: dict[str, int]) -> set[int | None]:
        return {
            r["shared_chars"]
            for b in _group_pairs(iter(_keys(rows)), 10, DAY, 3, max_docs=4, held=held)
            for r in b.to_pylist()
        }

    assert shared({}) == {64}
    assert shared({"0123456789abcdef.64": 1}) == {64}  # four documents: at the bar
    assert shared({"0123456789abcdef.64": 2}) == {0}
    assert shared({"another.64": 2}) == {64}


def test_an_empty_partition_gives_no_batch() -> None:
    assert list(_group_pairs(iter([]), 5, DAY, 3)) == []


def test_host_lines_count_pages_with_the_same_lines_once_and_add_earlier_days(
    tmp_path: Path,
) -> None:
    store = f"sqlite:///{tmp_path / 'store.db'}"
    with open_store(store) as s:
        s.put("host_lines", {"x.example|a2": {"d:2026-10-31": b"2"}})  # 2 pages a day before
        s.put("host_lines", {"x.example|a1": {"d:2026-11-01": b"5"}})  # this day's earlier run
        s.put("host_lines", {line_hosts_row("a1"): {"d:@z.example": b"2026-10-31"}})
    pages = [
        ("x.example", ["nav", "a1"]),
        ("x.example", ["nav", "a1"]),  # an exact copy: counts once
        ("x.example", ["nav", "a2"]),
        ("y.example", ["nav"]),
        ("y.example", None),  # no lines
    ]
    batch = pa.RecordBatch.from_pylist([{"host": h, "line_keys": k} for h, k in pages])
    # min_pages 1: every line is held by enough pages, so each is looked up in ``*|line``.
    tally = _tally_hosts(iter([batch]), store, DAY, 100, "", 1)
    rows = [r for b in tally for r in b.to_pylist()]
    got = {(r["host"], r["line"]): (r["pages"], r["n"], r["elsewhere"]) for r in rows}
    assert got == {
        ("x.example", "nav"): (2, 2, False),
        ("x.example", "a1"): (1, 1, True),  # ordinary text of z.example the day before
        ("x.example", "a2"): (1, 3, False),
        ("y.example", "nav"): (1, 1, False),
    }


def test_whether_a_line_is_ordinary_elsewhere_is_asked_only_for_lines_on_min_pages_pages(
    tmp_path: Path,
) -> None:
    # Two lines an earlier day saw as ordinary text of z.example: "hot" is on 3 pages of
    # x.example with that day's (min_pages), "rare" on one.
    store = f"sqlite:///{tmp_path / 'store.db'}"
    with open_store(store) as s:
        s.put("host_lines", {"x.example|hot": {"d:2026-10-31": b"2"}})
        for line in ("hot", "rare"):
            s.put("host_lines", {line_hosts_row(line): {"d:@z.example|2026-10-31": b"2026-10-31"}})
    batch = pa.RecordBatch.from_pylist([{"host": "x.example", "line_keys": ["hot", "rare"]}])
    # A spy on the real store's reads (what is asked, not what is answered).
    read: list[list[str]] = []
    real_get = SqliteStore.get

    def counting_get(self: SqliteStore, table: str, rows: Any, columns: Any = None) -> Any:
        read.append(list(rows))
        return real_get(self, table, rows, columns)

    with patch.object(SqliteStore, "get", counting_get):
        tally = list(_tally_hosts(iter([batch]), store, DAY, 100, "", 3))
    got = {r["line"]: (r["n"], r["elsewhere"]) for b in tally for r in b.to_pylist()}
    assert got == {"hot": (3, True), "rare": (1, False)}
    # The rows read: both lines' counts, then "hot"'s hosts only.
    assert read == [["x.example|hot", "x.example|rare"], [line_hosts_row("hot")]]


def test_the_same_day_pass_writes_every_key_row_ranked_within_the_day(tmp_path: Path) -> None:
    # Rows of three keys in no order, one key held once, one rule's key also another's.
    rows = [
        ("d3", "2026-11-01T03", "lsh", "k1", "0" * 16),
        ("d1", "2026-11-01T01", "lsh", "k1", "0" * 16),
        ("d2", "2026-11-01T01", "lsh", "k1", "0" * 16),
        ("d2", "2026-11-01T01", "title", "k1", "0" * 16),
        ("d4", "2026-11-01T00", "title", "k2", "0" * 16),
        ("d1", "2026-11-01T05", "title", "k2", "0" * 16),
        ("d5", "2026-11-01T09", "head", "k9", "0" * 16),
    ]
    folder = tmp_path / "day_keys"
    folder.mkdir()
    list(_group_pairs(iter(_keys(rows)), 10, DAY, 3, ranked_dir=str(folder)))
    written = pq.read_table(folder / "part-00000.parquet").to_pylist()
    ranks = {(r["rule"], r["key"], r["id"]): r["rank"] for r in written}
    # Ranked by (fetched_at, id) within (rule, key), as a row_number() window would.
    assert ranks == {
        ("head", "k9", "d5"): 1,
        ("lsh", "k1", "d1"): 1,
        ("lsh", "k1", "d2"): 2,
        ("lsh", "k1", "d3"): 3,
        ("title", "k1", "d2"): 1,
        ("title", "k2", "d4"): 1,
        ("title", "k2", "d1"): 2,
    }
    one = tmp_path / "one"
    one.mkdir()
    list(_group_pairs(iter(_keys(rows[:1])), 10, DAY, 3, ranked_dir=str(one)))
    assert pq.read_table(one / "part-00000.parquet").column("rank").to_pylist() == [1]


def test_key_buckets_are_one_file_per_task_read_one_bucket_at_a_time(tmp_path: Path) -> None:
    """Every key row lands in its key's bucket whichever task wrote it; a task writes one
    file (not one per bucket), each of its row groups holding one bucket."""
    from crawldedup.pipeline.bucket_files import (
        BUCKET,
        key_bucket,
        read_bucket,
        write_key_buckets,
    )

    buckets = 7
    # Band keys (hex, by range) and keys of no hex prefix (by their crc32) alike.
    key = [
        f"{i * 2749 % 65536:04x}{i:012x}.{i % 3}" if i % 2 else f"k{i % 23}.{i % 3}"
        for i in range(60)
    ]
    tasks = [
        [(f"d{t}{i}", "2026-11-01T00:00:00", "lsh", key[i], "") for i in range(60)]
        for t in range(3)
    ]
    for t, rows in enumerate(tasks):
        write_key_buckets(pa.Table.from_batches(_keys(rows)), str(tmp_path), t * 10, buckets)
    files = sorted(tmp_path.glob("*.parquet"))
    assert [f.name for f in files] == [
        "part-00000.parquet",
        "part-00010.parquet",
        "part-00020.parquet",
    ]
    for f in files:
        meta = pq.ParquetFile(f).metadata
        col = meta.schema.names.index(BUCKET)
        groups = [meta.row_group(g).column(col).statistics for g in range(meta.num_row_groups)]
        assert all(s.min == s.max for s in groups)  # a row group, one bucket
    seen: list[tuple[str, str]] = []
    for b in range(buckets):
        found = [r for batch in read_bucket(str(tmp_path), b) for r in batch.to_pylist()]
        assert all(key_bucket(r["key"], buckets) == b for r in found)
        assert all(BUCKET not in r for r in found)
        seen += [(r["id"], r["key"]) for r in found]
    every = [(r[0], r[3]) for rows in tasks for r in rows]
    assert sorted(seen) == sorted(every)


def test_hex_keys_fall_into_buckets_by_range_others_by_their_crc32() -> None:
    """A bucket holds one run of the hex keys (so the postings publish writes from it
    are one run of the table's rows), the buckets share the keys about evenly, and a
    key without four leading hex digits still gets a bucket of its own, always the
    same."""
    import random
    import zlib

    from crawldedup.pipeline.bucket_files import key_bucket

    rng = random.Random(5)
    keys = sorted(f"{rng.getrandbits(64):016x}.{rng.randrange(24)}" for _ in range(8000))
    of = [key_bucket(k, 8) for k in keys]
    assert of == sorted(of)  # sorted keys, non-decreasing buckets: each bucket one run
    assert (of[0], of[-1]) == (0, 7)
    sizes = [of.count(b) for b in range(8)]
    assert min(sizes) > 0.8 * 1000 and max(sizes) < 1.2 * 1000
    assert key_bucket("ffff0123", 8) == 7 and key_bucket("0000ab", 8) == 0
    assert key_bucket("1fff.2", 8) == 0 and key_bucket("2000.2", 8) == 1
    for odd in ("k12.1", "-fff.1", "ab", "", "中文键", "0x1f.2"):
        b = key_bucket(odd, 8)
        assert 0 <= b < 8 and b == key_bucket(odd, 8)
    assert key_bucket("k12.1", 8) == zlib.crc32(b"k12.1") % 8
