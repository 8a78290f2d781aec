"""Fixtures of the store contract tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hbase_fixtures import drop_prefix, unique_prefix


@pytest.fixture(scope="module")
def hbase_prefix(hbase: str) -> Iterator[str]:
    """One set of HBase tables per test module (creating and dropping tables takes
    seconds), emptied by each test that uses it."""
    prefix = unique_prefix("c")
    yield prefix
    drop_prefix(prefix)
