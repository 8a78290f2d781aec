"""The column families of crawldedup's HBase tables: a row Bloom filter and the block
cache (Thrift 1's createTable gives neither unless asked), told and repaired for tables
created without them. A real HBase; `scripts/hbase.sh tune` runs the real Admin client."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from crawldedup.store.hbase_store import HBaseStore
from tests.hbase_fixtures import HBASE_HOST, HBASE_PORT, ROOT, drop_prefix, unique_prefix

pytestmark = [pytest.mark.hbase]


@pytest.fixture
def prefix(hbase: str) -> Iterator[str]:
    p = unique_prefix("fam")
    yield p
    drop_prefix(p)


def _families(table: str) -> list[dict[str, object]]:
    import happybase

    conn = happybase.Connection(HBASE_HOST, HBASE_PORT)
    try:
        return list(conn.table(table).families().values())
    finally:
        conn.close()


def test_tables_are_created_with_a_row_bloom_filter_and_the_block_cache(prefix: str) -> None:
    store = HBaseStore(HBASE_HOST, HBASE_PORT, prefix=prefix)
    store.put("lsh_id", {"00ab.1": {"d:doc": b"2026-11-01|t|"}})
    for table in ("lsh_id", "docs", "host_lines"):
        for family in _families(f"{prefix}_{table}"):
            assert family["bloom_filter_type"] == b"ROW"
            assert family["block_cache_enabled"] is True
            assert family["max_versions"] == 1
    assert store.setup_notes() == []


def test_tables_created_without_them_are_named_and_tuned_by_the_script(prefix: str) -> None:
    import happybase

    conn = happybase.Connection(HBASE_HOST, HBASE_PORT)
    try:  # as crawldedup created its tables before 2026-12-07
        conn.create_table(f"{prefix}_lsh_id", {"d": {"max_versions": 1}})
    finally:
        conn.close()
    store = HBaseStore(HBASE_HOST, HBASE_PORT, prefix=prefix)
    store.put("lsh_id", {"00ab.1": {"d:doc": b"2026-11-01|t|"}})  # creates the others
    notes = store.setup_notes()
    assert len(notes) == 1 and f"{prefix}_lsh_id" in notes[0]
    assert f"{prefix}_docs" not in notes[0] and f"scripts/hbase.sh tune {prefix}" in notes[0]

    proc = subprocess.run(
        [str(ROOT / "scripts" / "hbase.sh"), "tune", prefix],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{prefix}_lsh_id: tuned" in proc.stdout
    assert f"{prefix}_docs: already tuned" in proc.stdout
    (family,) = _families(f"{prefix}_lsh_id")
    assert family["bloom_filter_type"] == b"ROW" and family["block_cache_enabled"] is True
    assert store.setup_notes() == []
    # The table kept its rows through the change.
    assert store.get("lsh_id", ["00ab.1"])["00ab.1"] == {"d:doc": b"2026-11-01|t|"}
