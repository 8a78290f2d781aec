"""The HBase backend, through the Thrift gateway with happybase.

This module is the only place that opens ``happybase`` connections. It owns the
connection pool, batching (puts and deletes in ``Table.batch``, multi-gets with
``Table.rows``), key-only scans for the Bloom rebuild, table creation on first use,
and retries with backoff on transport errors (the Thrift server drops connections
idle longer than its read timeout: ``TSocket read 0 bytes``; see
:mod:`crawldedup.store.retry`). Every call is idempotent, so retrying a whole call is
safe.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import happybase
from thriftpy2.transport import TTransportException

from crawldedup.config import LimitsConfig
from crawldedup.store.base import TABLES, Row, Store, StoreError, StoreStats
from crawldedup.store.retry import Retry

T = TypeVar("T")

# What a dropped or refused Thrift connection raises through happybase/thriftpy2.
TRANSIENT: tuple[type[BaseException], ...] = (
    TTransportException,
    socket.error,
    BrokenPipeError,
    ConnectionError,
    EOFError,
)

_KEY_ONLY = b"KeyOnlyFilter() AND FirstKeyOnlyFilter()"

# A column family as crawldedup creates it. Thrift 1's createTable fills what it is not
# given with its struct's defaults, which are not HBase's: no row Bloom filter and no
# block cache, so every get read each store file of its region from disk and decoded the
# block again (a 100k day against a 1M index: docs/benchmarks.md). One version a cell.
FAMILY = {"max_versions": 1, "bloom_filter_type": "ROW", "block_cache_enabled": True}


Cells = tuple[bytes, list[bytes]]  # a row key and columns of it


class HBaseStore(Store):
    """A :class:`Store` on HBase tables named ``<prefix>_<table>``."""

    def __init__(
        self,
        host: str,
        port: int = 9090,
        prefix: str = "crawldedup",
        pool_size: int = 2,
        timeout_ms: int = 60_000,
        transport: str = "buffered",
        protocol: str = "binary",
        retries: int = 5,
        backoff_s: float = 0.5,
        batch_size: int = LimitsConfig.store_batch_size,
    ) -> None:
        self.host, self.port = host, port
        self.prefix = prefix or "crawldedup"
        self.retries, self.backoff_s, self.batch_size = retries, backoff_s, batch_size
        self.stats = StoreStats()
        self._pool_args: dict[str, Any] = dict(
            host=host,
            port=port,
            timeout=timeout_ms,
            table_prefix=self.prefix,
            transport=transport,
            protocol=protocol,
            autoconnect=True,
        )
        self._pool_size = pool_size
        self._pool: happybase.ConnectionPool | None = None
        self._ready = False
        self._retry = Retry(
            f"hbase {host}:{port}", TRANSIENT, retries, backoff_s, on_retry=self._reconnect
        )

    # ------------------------------------------------------------ plumbing

    def _connect(self) -> happybase.ConnectionPool:
        if self._pool is None:
            self._pool = happybase.ConnectionPool(self._pool_size, **self._pool_args)
        return self._pool

    def _reconnect(self, exc: BaseException) -> None:
        # happybase's pool already replaced the broken connection; a pool that could
        # not even connect is rebuilt from scratch on the next attempt.
        self.stats.retries += 1
        self._pool = None

    def _call(self, what: str, fn: Callable[[happybase.Connection], T]) -> T:
        """Run ``fn`` with a pooled connection, retrying transport errors with backoff."""

        def once() -> T:
            with self._connect().connection() as conn:
                if not self._ready:
                    self._ensure_tables(conn)
                result = fn(conn)
            self.stats.round_trips += 1
            return result

        return self._retry.call(what, once)

    def _each_table(
        self, names: list[str], fn: Callable[[happybase.Connection, str], None]
    ) -> None:
        """``fn(connection, name)`` for every table name at once, a connection each: the
        master creates, disables and deletes tables one procedure at a time per call (about
        a second each on a small server), and runs concurrent procedures side by side."""
        if not names:
            return

        def one(name: str) -> None:
            conn = happybase.Connection(**self._pool_args)
            try:
                fn(conn, name)
            finally:
                conn.close()

        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            for done in [pool.submit(one, n) for n in names]:
                done.result()

    def _ensure_tables(self, conn: happybase.Connection) -> None:
        existing = {t.decode() for t in conn.tables()}

        def create(c: happybase.Connection, name: str) -> None:
            try:
                c.create_table(name, {f: dict(FAMILY) for f in TABLES[name]})
            except Exception as exc:  # another executor created it first
                if "AlreadyExists" not in type(exc).__name__ and "already" not in repr(exc):
                    raise

        self._each_table([n for n in TABLES if n not in existing], create)
        self._ready = True

    def setup_notes(self) -> list[str]:
        """The tables of this prefix whose column families lack a row Bloom filter or the
        block cache (created through Thrift by crawldedup before 2026-12-07), with the
        command that sets both."""

        def untuned(conn: happybase.Connection) -> list[str]:
            found = []
            existing = {t.decode() for t in conn.tables()}
            for name in sorted(n for n in TABLES if n in existing):
                for family in conn.table(name).families().values():
                    bloom = family.get("bloom_filter_type", b"NONE").upper()
                    if bloom == b"NONE" or not family.get("block_cache_enabled"):
                        found.append(name)
                        break
            return found

        tables = self._call("describe tables", untuned)
        if not tables:
            return []
        return [
            f"HBase tables {', '.join(f'{self.prefix}_{t}' for t in tables)} have no row Bloom "
            "filter or no block cache: every lookup reads each store file of its region anew. "
            f"Set both with scripts/hbase.sh tune {self.prefix} (docs/operations.md#hbase)"
        ]

    # ------------------------------------------------------------ the interface

    def put(self, table: str, rows: Mapping[str, Mapping[str, bytes]]) -> None:
        items = [(k.encode(), {c.encode(): v for c, v in cols.items()}) for k, cols in rows.items()]
        if not items:
            return
        self._check(table)
        for i in range(0, len(items), self.batch_size):
            chunk = items[i : i + self.batch_size]

            def send(conn: happybase.Connection, chunk: list[Any] = chunk) -> None:
                with conn.table(table).batch() as b:
                    for key, cols in chunk:
                        b.put(key, cols)

            self._call(f"put {table}", send)
            self.stats.cells_written += sum(len(c) for _, c in chunk)

    def get(
        self, table: str, rows: Sequence[str], columns: Sequence[str] | None = None
    ) -> dict[str, Row]:
        self._check(table)
        keys = [k.encode() for k in dict.fromkeys(rows)]
        cols = [c.encode() for c in columns] if columns else None
        out: dict[str, Row] = {}
        for i in range(0, len(keys), self.batch_size):
            chunk = keys[i : i + self.batch_size]

            def fetch(conn: happybase.Connection, c: list[bytes] = chunk) -> list[Any]:
                return list(conn.table(table).rows(c, cols))

            found = self._call(f"get {table}", fetch)
            for key, data in found:
                out[key.decode()] = {c.decode(): v for c, v in data.items()}
        self.stats.rows_read += len(out)
        return out

    def scan(
        self,
        table: str,
        start: str | None = None,
        stop: str | None = None,
        keys_only: bool = False,
        batch_size: int = 1000,
    ) -> Iterator[tuple[str, Row]]:
        self._check(table)
        stop_b = stop.encode() if stop is not None else None
        next_start = start.encode() if start is not None else None
        # A scan that loses its connection resumes after the last row it returned.
        for attempt in self._retry.attempts(f"scan {table}"):
            with attempt, self._connect().connection() as conn:
                if not self._ready:
                    self._ensure_tables(conn)
                self.stats.round_trips += 1
                scanner = conn.table(table).scan(
                    row_start=next_start,
                    row_stop=stop_b,
                    filter=_KEY_ONLY if keys_only else None,
                    batch_size=batch_size,
                )
                for key, data in scanner:
                    next_start = key + b"\x00"
                    self.stats.rows_read += 1
                    row = {} if keys_only else {c.decode(): v for c, v in data.items()}
                    yield key.decode(), row

    def delete(self, table: str, rows: Iterable[str], columns: Sequence[str] | None = None) -> None:
        self._check(table)
        keys = [k.encode() for k in rows]
        cols = [c.encode() for c in columns] if columns else None
        for i in range(0, len(keys), self.batch_size):
            chunk = keys[i : i + self.batch_size]

            def send(conn: happybase.Connection, chunk: list[bytes] = chunk) -> None:
                with conn.table(table).batch() as b:
                    for key in chunk:
                        b.delete(key, cols)

            self._call(f"delete {table}", send)
            self.stats.rows_deleted += len(chunk)

    def delete_cells(self, table: str, cells: Mapping[str, Sequence[str]]) -> None:
        self._check(table)
        items = [(k.encode(), [c.encode() for c in cols]) for k, cols in cells.items() if cols]
        for i in range(0, len(items), self.batch_size):
            chunk = items[i : i + self.batch_size]

            def send(
                conn: happybase.Connection, chunk: list[tuple[bytes, list[bytes]]] = chunk
            ) -> None:
                with conn.table(table).batch() as b:
                    for key, cols in chunk:
                        b.delete(key, cols)

            self._call(f"delete {table}", send)
            self.stats.rows_deleted += len(chunk)

    def check_and_put(
        self, table: str, row: str, column: str, expected: bytes | None, value: bytes
    ) -> bool:
        """HBase's checkAndPut through the Thrift 1 API (happybase has no wrapper; its
        client carries the call): atomic on the region server."""
        self._check(table)
        from happybase.batch import Mutation  # the Thrift struct happybase's batches send

        def swap(conn: happybase.Connection) -> bool:
            mutation = Mutation(column=column.encode(), value=value)
            return bool(
                conn.client.checkAndPut(
                    conn._table_name(table), row.encode(), column.encode(), expected, mutation, {}
                )
            )

        # Retried like every call: a lost reply to a swap that happened reads as "not
        # written" on the retry, and the caller then finds its own value in the cell.
        return self._call(f"check_and_put {table}", swap)

    def drop_all(self) -> None:
        """Disable and delete every table of this prefix (tests and resets only)."""

        def drop(conn: happybase.Connection) -> None:
            existing = {t.decode() for t in conn.tables()}
            self._each_table(
                [n for n in TABLES if n in existing],
                lambda c, name: c.delete_table(name, disable=True),
            )

        self._call("drop tables", drop)
        self._ready = False

    def close(self) -> None:
        self._pool = None  # happybase pools close their sockets when collected

    @staticmethod
    def _check(table: str) -> None:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}")
