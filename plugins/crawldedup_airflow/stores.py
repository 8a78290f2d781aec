"""Store URLs from Airflow Connection fields: pure, so they are tested without Airflow.

One ``hbase://`` URL carries a whole HBase client setup (see ``crawldedup.store.open``),
so a Connection becomes one string that every spark-submit stage receives as ``--store``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from crawldedup.store.open import HBASE_OPTIONS, resolve_store_url

DEFAULT_THRIFT_PORT = 9090
DEFAULT_TABLE_PREFIX = "crawldedup"

# Connection extras that are not client options.
_NOT_OPTIONS = frozenset({"table_prefix"})
# HBase table names allow these; the store names its tables "<prefix>_<table>".
_PREFIX = re.compile(r"^[A-Za-z0-9_.-]+$")


class StoreSetupError(ValueError):
    """A Connection or param that cannot become a store URL."""


def hbase_store_url(host: str | None, port: int | None, extra: Mapping[str, Any]) -> str:
    """``hbase://host:port/prefix?options`` from a Connection's host, port and extra.

    ``extra`` holds ``table_prefix`` and any client option the store knows
    (timeout_ms, retries, transport, protocol, pool_size, backoff_s); the rows per request
    are the run config's ``limits.store_batch_size``.
    An unknown key is an error here, at the first task, rather than in every executor.
    """
    if not host:
        raise StoreSetupError("the HBase connection has no host (the Thrift server)")
    unknown = sorted(set(extra) - set(HBASE_OPTIONS) - _NOT_OPTIONS)
    if unknown:
        known = sorted([*HBASE_OPTIONS, *_NOT_OPTIONS])
        raise StoreSetupError(f"HBase connection extra has unknown keys {unknown}; known: {known}")
    prefix = str(extra.get("table_prefix") or DEFAULT_TABLE_PREFIX)
    if not _PREFIX.match(prefix):
        raise StoreSetupError(f"HBase table_prefix {prefix!r} may hold only A-Z a-z 0-9 _ . -")
    # Ordered as HBASE_OPTIONS so one connection always gives the same URL string.
    options = [(k, str(extra[k])) for k in HBASE_OPTIONS if extra.get(k) not in (None, "")]
    query = f"?{urlencode(options)}" if options else ""
    return f"hbase://{host}:{port or DEFAULT_THRIFT_PORT}/{prefix}{query}"


def embedded_store_url(home: str | Path) -> str:
    """The embedded SQLite store under ``home``, exactly as the CLI defaults to it."""
    return resolve_store_url("", home)
