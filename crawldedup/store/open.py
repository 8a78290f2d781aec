"""Open a store from its URL: ``sqlite:///path/store.db`` or ``hbase://host:port[/prefix]``.

HBase client settings ride in the query string, so one string carries a whole
connection from the CLI, the config file or an Airflow Connection:
``hbase://hbase1:9090/crawl?timeout_ms=120000&retries=8``. How many rows go into one
request is the config's ``limits.store_batch_size`` (executors pass it as ``batch_size``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlparse

from crawldedup.config import ConfigError
from crawldedup.store.base import Store


def resolve_store_url(store_url: str, home: str | Path) -> str:
    """The configured URL, or the embedded default under ``home``."""
    if store_url:
        return store_url
    return f"sqlite:///{Path(home).resolve() / 'store.db'}"


HBASE_OPTIONS: dict[str, type] = {
    "pool_size": int,
    "timeout_ms": int,
    "retries": int,
    "backoff_s": float,
    "transport": str,
    "protocol": str,
}


def _hbase_options(query: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in HBASE_OPTIONS:
            raise ConfigError(f"hbase store option {key!r} unknown; known: {sorted(HBASE_OPTIONS)}")
        try:
            out[key] = HBASE_OPTIONS[key](value)
        except ValueError:
            raise ConfigError(f"hbase store option {key}={value!r} is not a valid number") from None
    return out


def open_store(url: str, *, read_only: bool = False, **options: Any) -> Store:
    """Open the store a URL names. Executors call this once per partition.

    ``read_only`` (the read commands): the embedded file is opened read-only and never
    created; HBase needs nothing different (a reader only sends gets and scans).
    """
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        # SQLite has no request size to tune: a batch is one transaction.
        from crawldedup.store.sqlite_store import SqliteStore

        return SqliteStore(parsed.path, read_only=read_only)
    if parsed.scheme == "hbase":
        from crawldedup.store.hbase_store import HBaseStore

        if not parsed.hostname:
            raise ConfigError(f"store url {url!r}: hbase:// needs a host")
        store: Store = HBaseStore(
            host=parsed.hostname,
            port=parsed.port or 9090,
            prefix=parsed.path.strip("/"),
            **{**_hbase_options(parsed.query), **options},
        )
        return store
    raise ConfigError(f"store url {url!r}: scheme must be sqlite:// or hbase://")
