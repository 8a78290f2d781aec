"""Index tables pre-split at even hex boundaries (scripts/hbase.sh presplit), for real."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from crawldedup.pipeline.bloom_blocks import key_ranges
from crawldedup.store import open_store
from crawldedup.store.base import INDEX_TABLES
from tests.hbase_fixtures import HBASE_HOST, HBASE_PORT, ROOT, drop_prefix, hbase_url, unique_prefix

pytestmark = [pytest.mark.hbase, pytest.mark.exhaustive]


@pytest.fixture
def prefix(hbase: str) -> Iterator[str]:
    p = unique_prefix("split")
    yield p
    drop_prefix(p)


def test_presplit_index_tables_have_even_regions_and_work_as_a_store(prefix: str) -> None:
    import happybase

    proc = subprocess.run(
        [str(ROOT / "scripts" / "hbase.sh"), "presplit", prefix, "4"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": 4 regions") == len(INDEX_TABLES)
    conn = happybase.Connection(HBASE_HOST, HBASE_PORT)
    try:
        regions = conn.table(f"{prefix}_content_id").regions()
    finally:
        conn.close()
    starts = [r["start_key"].decode() for r in regions]
    # The same boundaries as the Bloom stage's key ranges, so one range is one region.
    assert starts == [lo for lo, _ in key_ranges(4)]
    keys = [f"{i:02x}{'0' * 30}" for i in range(0, 256, 7)]
    with open_store(hbase_url(prefix)) as store:
        store.put("content_id", {k: {"d:doc": b"2026-11-01|t"} for k in keys})
        assert [k for k, _ in store.scan("content_id", keys_only=True)] == keys
        assert set(store.get("content_id", keys[::5])) == set(keys[::5])
