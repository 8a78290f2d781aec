"""The embedded backend: one SQLite file (WAL), one table per HBase table.

Each table is (row, col, val) with primary key (row, col) and no rowid, so rows are
stored in key order and a range scan is an index walk, as in HBase. SQLite compares
TEXT with memcmp on UTF-8, which is HBase's byte order.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import quote

from crawldedup.store.base import TABLES, Row, Store, StoreError, StoreStats

_IN_CHUNK = 500  # SQLite's default limit on host parameters is well above this


class SqliteStore(Store):
    def __init__(
        self,
        path: str | Path,
        prefix: str = "",
        busy_timeout_s: float = 120.0,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.prefix = prefix
        self.stats = StoreStats()
        self.read_only = read_only
        if read_only:
            self._conn = self._open_read_only(busy_timeout_s)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            str(self.path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA synchronous=NORMAL")
        # Up to 64 MiB of pages per connection (SQLite's default is 2 MiB): a day's puts
        # and lookups touch pages across index tables of hundreds of MB. Rerunning the
        # publish of a 16,500-record day: its Python workers 9.5 and 8.9 CPU s, 10.5
        # and 10.4 s with the default.
        self._conn.execute("PRAGMA cache_size=-65536")
        self._init_schema()

    def _open_read_only(self, busy_timeout_s: float) -> sqlite3.Connection:
        """A connection that never writes the file or its folder (the read commands: a
        home on a read-only mount, a reader without write permission).

        A WAL database needs its ``-shm`` index, which a read-only folder may lack; then
        the file is opened as immutable: nobody writes it through a read-only mount.
        Tables the file lacks are empty temporary tables (the temp schema is in memory).
        """
        if not self.path.is_file():
            raise StoreError(f"sqlite store {self.path}: no such file")
        base = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        conn: sqlite3.Connection | None = None
        for uri in (base, base + "&immutable=1"):
            conn = sqlite3.connect(
                uri,
                uri=True,
                timeout=busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            try:
                have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
                break
            except sqlite3.OperationalError as exc:
                conn.close()
                conn = None
                error = exc
        if conn is None:
            raise StoreError(f"sqlite store {self.path} (read-only): {error}") from error
        conn.execute("PRAGMA temp_store=MEMORY")
        for t in TABLES:
            if f"{self.prefix}{t}" not in have:
                conn.execute(self._create_sql(t).replace("CREATE TABLE", "CREATE TEMP TABLE"))
        return conn

    def _t(self, table: str) -> str:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}")
        return f'"{self.prefix}{table}"'

    def _init_schema(self) -> None:
        # Many executors open the file at once. Switching to WAL and creating tables
        # take the write lock, and the WAL switch ignores the busy timeout, so both are
        # done only when needed and retried when another process holds the lock.
        for attempt in range(10):
            try:
                mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode != "wal":
                    self._conn.execute("PRAGMA journal_mode=WAL")
                have = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
                missing = [t for t in TABLES if f"{self.prefix}{t}" not in have]
                if missing:
                    sqls = [self._create_sql(t) for t in missing]
                    self._write(lambda c, sqls=sqls: [c.execute(q) for q in sqls])
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise StoreError(f"sqlite store {self.path}: {exc}") from exc
                self.stats.retries += 1
                time.sleep(0.1 * (attempt + 1))
        raise StoreError(f"sqlite store {self.path}: still locked after retries")

    def _create_sql(self, table: str) -> str:
        return (
            f"CREATE TABLE IF NOT EXISTS {self._t(table)} "
            "(row TEXT NOT NULL, col TEXT NOT NULL, val BLOB, PRIMARY KEY (row, col)) WITHOUT ROWID"
        )

    def _write(self, fn: object) -> None:
        # Spark tasks write from several processes: BEGIN IMMEDIATE takes the write
        # lock up front, and the busy timeout queues writers instead of failing them.
        if self.read_only:
            raise StoreError(f"sqlite store {self.path}: opened readonly, a write was attempted")
        for attempt in range(5):
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    fn(self._conn)  # type: ignore[operator]
                    self._conn.execute("COMMIT")
                except BaseException:
                    # SQLite has already rolled back after some errors (a full disk): a
                    # second ROLLBACK would hide the cause behind "no transaction".
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise
                self.stats.round_trips += 1
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise StoreError(f"sqlite store {self.path}: {self._explain(exc)}") from exc
                self.stats.retries += 1
                time.sleep(0.2 * 2**attempt)
        raise StoreError(f"sqlite store {self.path}: still locked after retries")

    def _explain(self, exc: sqlite3.OperationalError) -> str:
        """SQLite's message, with the cause named when the file system is full (SQLite
        says "database or disk is full", or only "disk I/O error" when the journal or
        the WAL could not grow)."""
        text = str(exc)
        if "full" in text or "disk I/O" in text:
            try:
                free = shutil.disk_usage(self.path.parent).free
            except OSError:
                return text
            if "full" in text or free < 16 * 2**20:
                return (
                    f"{text}: the disk is full ({free / 2**20:.1f} MiB free on the file "
                    f"system of {self.path.parent}); free space, then rerun the day"
                )
        return text

    def put(self, table: str, rows: Mapping[str, Mapping[str, bytes]]) -> None:
        self.put_cells(table, [(r, c, v) for r, cols in rows.items() for c, v in cols.items()])

    def put_cells(self, table: str, cells: Sequence[tuple[str, str, bytes]]) -> None:
        if not cells:
            return
        sql = f"INSERT OR REPLACE INTO {self._t(table)} (row, col, val) VALUES (?, ?, ?)"
        self._write(lambda c: c.executemany(sql, cells))
        self.stats.cells_written += len(cells)

    def get(
        self, table: str, rows: Sequence[str], columns: Sequence[str] | None = None
    ) -> dict[str, Row]:
        out: dict[str, Row] = {}
        keys = list(dict.fromkeys(rows))
        t = self._t(table)
        cols = list(columns or [])
        col_cond = f" AND col IN ({','.join('?' * len(cols))})" if cols else ""
        for i in range(0, len(keys), _IN_CHUNK):
            chunk = keys[i : i + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            cur = self._conn.execute(
                f"SELECT row, col, val FROM {t} WHERE row IN ({marks}){col_cond}", [*chunk, *cols]
            )
            for r, c, v in cur:
                out.setdefault(r, {})[c] = bytes(v) if v is not None else b""
            self.stats.round_trips += 1
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
        t = self._t(table)
        where, args = [], []
        if start is not None:
            where.append("row >= ?")
            args.append(start)
        if stop is not None:
            where.append("row < ?")
            args.append(stop)
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        if keys_only:
            cur = self._conn.execute(f"SELECT DISTINCT row FROM {t}{cond} ORDER BY row", args)
            self.stats.round_trips += 1
            for (r,) in cur:
                self.stats.rows_read += 1
                yield r, {}
            return
        cur = self._conn.execute(f"SELECT row, col, val FROM {t}{cond} ORDER BY row, col", args)
        self.stats.round_trips += 1
        current: str | None = None
        acc: Row = {}
        for r, c, v in cur:
            if r != current:
                if current is not None:
                    self.stats.rows_read += 1
                    yield current, acc
                current, acc = r, {}
            acc[c] = bytes(v) if v is not None else b""
        if current is not None:
            self.stats.rows_read += 1
            yield current, acc

    def delete(self, table: str, rows: Iterable[str], columns: Sequence[str] | None = None) -> None:
        keys = list(rows)
        if not keys:
            return
        t = self._t(table)
        if columns is None:
            self._write(
                lambda c: c.executemany(f"DELETE FROM {t} WHERE row = ?", [(k,) for k in keys])
            )
        else:
            pairs = [(k, col) for k in keys for col in columns]
            self._write(
                lambda c: c.executemany(f"DELETE FROM {t} WHERE row = ? AND col = ?", pairs)
            )
        self.stats.rows_deleted += len(keys)

    def delete_cells(self, table: str, cells: Mapping[str, Sequence[str]]) -> None:
        pairs = [(row, col) for row, columns in cells.items() for col in columns]
        if not pairs:
            return
        t = self._t(table)
        self._write(lambda c: c.executemany(f"DELETE FROM {t} WHERE row = ? AND col = ?", pairs))
        self.stats.rows_deleted += len(cells)

    def check_and_put(
        self, table: str, row: str, column: str, expected: bytes | None, value: bytes
    ) -> bool:
        t = self._t(table)
        done: list[bool] = []

        def swap(c: sqlite3.Connection) -> None:
            # Inside BEGIN IMMEDIATE: no other writer between the read and the write.
            found = c.execute(f"SELECT val FROM {t} WHERE row = ? AND col = ?", (row, column))
            cur = found.fetchone()
            have = None if cur is None else bytes(cur[0] if cur[0] is not None else b"")
            if have == expected:
                c.execute(
                    f"INSERT OR REPLACE INTO {t} (row, col, val) VALUES (?, ?, ?)",
                    (row, column, value),
                )
                done.append(True)

        self._write(swap)
        return bool(done)

    def close(self) -> None:
        self._conn.close()
