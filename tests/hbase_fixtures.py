"""A real HBase for the tests: started by scripts/hbase.sh (reused when already up)."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HBASE_HOST = os.environ.get("CRAWLDEDUP_TEST_HBASE_HOST", "127.0.0.1")
HBASE_PORT = int(os.environ.get("HBASE_THRIFT_PORT", "9090"))


def _hbase_sh(command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "hbase.sh"), command], capture_output=True, text=True, timeout=600
    )


def ensure_hbase() -> bool:
    """Start HBase unless it answers already; fail loudly when it cannot start. True when
    this call started it."""
    was_up = _hbase_sh("status").returncode == 0
    proc = _hbase_sh("up")
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/hbase.sh up failed:\n{proc.stdout}\n{proc.stderr}")
    return not was_up


def hbase_url(prefix: str) -> str:
    return f"hbase://{HBASE_HOST}:{HBASE_PORT}/{prefix}"


def unique_prefix(tag: str) -> str:
    return f"t{tag}{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def hbase() -> Iterator[str]:
    """The Thrift address of a running HBase (host:port). One this session started (a
    plain ``pytest``; ``make test`` starts it first) is stopped when the session ends:
    tests/conftest.py runs every HBase test file in one pytest process."""
    started = ensure_hbase()
    yield f"{HBASE_HOST}:{HBASE_PORT}"
    if started:
        _hbase_sh("down")


def drop_prefix(prefix: str) -> None:
    from crawldedup.store.hbase_store import HBaseStore

    HBaseStore(HBASE_HOST, HBASE_PORT, prefix=prefix).drop_all()
