"""The executors' store loop: batch a partition's rows, one store connection per partition.

Every stage that reads or writes the store from executors does the same thing: cut
the partition into batches of ``limits.store_batch_size`` rows, open the store on
the first call a batch makes (a partition whose batches need nothing from the store
opens no connection), run one batch function per batch, and at the end close the
store and add its round trips and rows to the stage's counters. That loop is
:func:`store_batches`; a stage writes only its batch function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from crawldedup.store import Store, StoreStats, open_store
from crawldedup.store.base import Row

T = TypeVar("T")
Out = TypeVar("Out")


def in_batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of at most ``size`` items."""
    batch: list[T] = []
    for x in items:
        batch.append(x)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def tuple_batches(
    rows: Iterable[tuple[Any, ...]], schema: Any, size: int = 10_000
) -> Iterator[Any]:
    """Arrow record batches of ``schema`` (a ``pyarrow.Schema``) from rows given as
    tuples in the schema's column order, ``size`` rows a batch."""
    import pyarrow as pa

    for chunk in in_batches(rows, size):
        columns = list(zip(*chunk, strict=True))
        yield pa.RecordBatch.from_arrays(
            [pa.array(c, f.type) for c, f in zip(columns, schema, strict=True)], schema=schema
        )


class LazyStore(Store):
    """The store at ``url``, connected on its first call; ``close()`` is a no-op until then."""

    def __init__(self, url: str, batch_size: int | None = None) -> None:
        self.url, self.batch_size = url, batch_size
        self.stats = StoreStats()
        self._store: Store | None = None

    @property
    def opened(self) -> bool:
        return self._store is not None

    def _open(self) -> Store:
        if self._store is None:
            # The executors' batch is also the store's request size (limits.store_batch_size).
            options: dict[str, Any] = (
                {} if self.batch_size is None else {"batch_size": self.batch_size}
            )
            self._store = open_store(self.url, **options)
            self.stats = self._store.stats
        return self._store

    def put(self, table: str, rows: Mapping[str, Mapping[str, bytes]]) -> None:
        self._open().put(table, rows)

    def put_cells(self, table: str, cells: Sequence[tuple[str, str, bytes]]) -> None:
        self._open().put_cells(table, cells)

    def get(
        self, table: str, rows: Sequence[str], columns: Sequence[str] | None = None
    ) -> dict[str, Row]:
        return self._open().get(table, rows, columns)

    def scan(self, table: str, *args: Any, **kwargs: Any) -> Iterator[tuple[str, Row]]:
        return self._open().scan(table, *args, **kwargs)

    def delete(self, table: str, rows: Iterable[str], columns: Sequence[str] | None = None) -> None:
        self._open().delete(table, rows, columns)

    def delete_cells(self, table: str, cells: Mapping[str, Sequence[str]]) -> None:
        self._open().delete_cells(table, cells)

    def check_and_put(
        self, table: str, row: str, column: str, expected: bytes | None, value: bytes
    ) -> bool:
        return self._open().check_and_put(table, row, column, expected, value)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def store_batches(
    rows: Iterable[T],
    store_url: str,
    batch_size: int,
    per_batch: Callable[[Store, list[T]], Iterable[Out] | None],
    counters: Mapping[str, Any] | None = None,
    request_size: int | None = None,
) -> Iterator[Out]:
    """``per_batch(store, batch)`` for each batch of ``batch_size`` rows, chained.

    A batch function that only writes returns None (nothing to yield). The store sends
    ``request_size`` rows a request (HBase's puts and multi-gets), ``batch_size`` when
    None: a caller whose rows are whole record batches gives the rows' count here.

    ``store`` is connected on first use and closed when the partition ends (or fails).
    ``counters`` maps names to Spark accumulators; those named like a
    :class:`~crawldedup.store.StoreStats` field (``round_trips``, ``rows_read``,
    ``cells_written``, ``rows_deleted``, ``retries``) get the store's counts added.
    """
    store = LazyStore(store_url, request_size or batch_size)
    try:
        for batch in in_batches(rows, batch_size):
            out = per_batch(store, batch)
            if out is not None:
                yield from out
    finally:
        if store.opened:
            for name, value in store.stats.as_dict().items():
                if counters is not None and name in counters:
                    counters[name].add(value)
            store.close()


def write_batches(
    batches: Iterable[Any],
    store_url: str,
    batch_size: int,
    per_batch: Callable[[Store, list[dict[str, Any]]], None],
    counters: Mapping[str, Any] | None = None,
) -> int:
    """``per_batch(store, rows)`` over the rows of Arrow record batches, as plain dicts
    (``r["name"]`` as on a Row), :func:`write_record_batches`' batches of at most
    ``batch_size`` rows; returns the number of rows."""
    return write_record_batches(
        batches, store_url, batch_size, lambda s, b: per_batch(s, b.to_pylist()), counters
    )


def write_record_batches(
    batches: Iterable[Any],
    store_url: str,
    batch_size: int,
    per_batch: Callable[[Store, Any], None],
    counters: Mapping[str, Any] | None = None,
) -> int:
    """``per_batch(store, batch)`` for each Arrow record batch, cut to at most
    ``batch_size`` rows (also the store's request size), by :func:`store_batches`;
    returns the number of rows."""
    seen = [0]

    def each() -> Iterator[Any]:
        for b in batches:
            seen[0] += b.num_rows
            for start in range(0, b.num_rows, batch_size):
                yield b.slice(start, batch_size)

    def one(store: Store, batch: list[Any]) -> None:
        per_batch(store, batch[0])

    for _ in store_batches(each(), store_url, 1, one, counters, request_size=batch_size):
        pass  # the batch functions only write
    return seen[0]


def write_partitions(
    frame: Any,
    store_url: str,
    batch_size: int,
    per_batch: Callable[[Store, list[dict[str, Any]]], None],
    counters: Mapping[str, Any] | None = None,
    key_order: Sequence[Any] = (),
) -> int:
    """``per_batch(store, rows)`` over every row of the DataFrame ``frame``, run on the
    executors by :func:`store_batches`; returns the number of rows.

    The rows leave the JVM as Arrow batches and become plain dicts (``r["name"]`` as
    on a Row) without the per-row pickling of ``DataFrame.rdd``.

    ``key_order``: columns (or expressions) giving the rows' store keys; each partition
    is sorted by them first, so that its puts arrive in key order. Both stores keep rows
    sorted by key (SQLite's B-tree, HBase's regions): consecutive keys land on the pages
    (regions) the previous put touched, where random keys touch a new page each time
    (``benchmarks/store_backends.py`` measures the difference).
    """
    import pyarrow as pa

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        n = write_batches(batches, store_url, batch_size, per_batch, counters)
        yield pa.RecordBatch.from_pydict({"n": [n]})

    if key_order:
        frame = frame.sortWithinPartitions(*key_order)
    # A count per partition, summed here: one job (a sum in Spark is a second one).
    return sum(int(r["n"]) for r in frame.mapInArrow(run, "n long").collect())


@dataclass(frozen=True)
class FolderWrite:
    """One work folder to write to the store (:func:`write_work_folders`): its batch
    function, the columns each file's rows are sorted by before their puts, and the
    accumulators its store counts go to (None: not counted)."""

    folder: str
    per_batch: Callable[[Store, Any], None]
    key_order: Sequence[str] = ()
    counters: Mapping[str, Any] | None = None
    arrow: bool = False
    """``per_batch`` takes an Arrow record batch of at most the store's batch size rows,
    not a list of dicts."""


def write_work_folders(
    spark: Any, writes: Sequence[FolderWrite], store_url: str, batch_size: int
) -> list[int]:
    """The rows of work folders the stages wrote, put in the store in one Spark job (a
    warm one on a thousand rows takes 0.2-0.3 CPU s: ``benchmarks/spark_action_cost.py``);
    returns each folder's row count.

    Each task reads its Parquet files itself (pyarrow), so the rows never cross the JVM
    (a DataFrame's rows are written into Arrow batches by the JVM, a cost per value).
    Work folders are on a file system every executor mounts at the same path
    (docs/operations.md), as the similarity stage's workers read work/docs. The folders'
    files are written side by side, in no order between folders: a caller whose rows
    must reach the store before others' calls twice.
    """
    import pyarrow.parquet as pq

    files = [
        (i, str(p)) for i, w in enumerate(writes) for p in sorted(Path(w.folder).glob("*.parquet"))
    ]
    counts = [0] * len(writes)
    if not files:
        return counts
    sc = spark.sparkContext

    def batches(paths: Iterable[str], key_order: Sequence[str]) -> Iterator[Any]:
        for path in paths:
            table = pq.read_table(path)
            if key_order:
                table = table.sort_by([(c, "ascending") for c in key_order])
            yield from table.to_batches(max_chunksize=batch_size)

    def run(items: Iterable[tuple[int, str]]) -> Iterator[tuple[int, int]]:
        by_folder: dict[int, list[str]] = {}
        for i, path in items:
            by_folder.setdefault(i, []).append(path)
        for i, paths in by_folder.items():
            w = writes[i]
            rows = batches(paths, w.key_order)
            if w.arrow:
                yield i, write_record_batches(rows, store_url, batch_size, w.per_batch, w.counters)
            else:
                yield i, write_batches(rows, store_url, batch_size, w.per_batch, w.counters)

    tasks = min(len(files), 2 * sc.defaultParallelism)
    for i, n in sc.parallelize(files, tasks).mapPartitions(run).collect():
        counts[i] += n
    return counts
