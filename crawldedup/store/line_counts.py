"""A host's line counts of a day, packed: one ``host_lines`` cell per host and day.

Row ``HOST|/`` (:func:`counts_row`), cell ``d:DAY`` holds every line key of the host
that the day's pages held, each with how many of those pages held it
(docs/algorithm.md#boilerplate); a host with more than :data:`CHUNK` such lines gets
cells ``d:DAY#1``, ``d:DAY#2``... for the rest. Stores written before 2026-12 hold a
row per host and line instead (``HOST|LINE``, cell ``d:DAY`` = the count); a day
committed since is marked in the ``days`` table (:data:`PACKED_MARK`), so the readers
look up the per-line rows only while a day of the window is not (:func:`old_layout_days`).

A packed cell: a version byte, the number of lines ``n`` (4 bytes), the ``n`` line keys
in order (16 ASCII bytes each: ``crawldedup.core.boilerplate`` keys), then their ``n``
counts (4 bytes each, little-endian).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from crawldedup.store.base import Row, Store

# The ``days`` row cell of a day whose line counts were written packed.
PACKED_MARK = "r:line_counts"
PACKED = b"packed"
# Line keys in one cell at most (about 400 KB).
CHUNK = 20_000
KEY_BYTES = 16
_VERSION = 1
_HEAD = struct.Struct("<BI")


def counts_row(host: str | None) -> str:
    """The row of a host's packed counts (a page without a host: ``None``, as the
    per-line rows were named)."""
    return f"{host}|/"


def _column_day(column: str) -> str:
    """The day of a counts cell: ``d:DAY`` or ``d:DAY#k``."""
    return column[2:].partition("#")[0]


def pack_counts(lines: Sequence[str], pages: Sequence[int]) -> bytes:
    """One cell's value: ``lines`` (sorted, :data:`KEY_BYTES` each) and their counts."""
    keys = np.array(lines, dtype=f"S{KEY_BYTES}")
    if any(len(k) != KEY_BYTES for k in lines):
        raise ValueError(f"a line key is not {KEY_BYTES} characters long")
    counts = np.asarray(pages, dtype="<u4")
    return _HEAD.pack(_VERSION, len(keys)) + keys.tobytes() + counts.tobytes()


def unpack_counts(value: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(line keys as ``S16``, counts) of one packed cell."""
    version, n = _HEAD.unpack_from(value)
    if version != _VERSION:
        raise ValueError(f"a host_lines cell of an unknown layout (version {version})")
    at = _HEAD.size
    keys = np.frombuffer(value, dtype=f"S{KEY_BYTES}", count=n, offset=at)
    counts = np.frombuffer(value, dtype="<u4", count=n, offset=at + n * KEY_BYTES)
    return keys, counts


def day_cells(
    host: str | None, day: str, lines: Sequence[str], pages: Sequence[int]
) -> Iterator[tuple[str, str, bytes]]:
    """(row, column, value) of a host's counts of a day, ``lines`` sorted."""
    row = counts_row(host)
    for k, start in enumerate(range(0, len(lines), CHUNK)):
        column = f"d:{day}" + (f"#{k}" if k else "")
        yield row, column, pack_counts(lines[start : start + CHUNK], pages[start : start + CHUNK])


def counts_of(cells: Row, lines: Iterable[str], since: str, before: str) -> dict[str, int]:
    """Pages of the host holding each of ``lines`` on the days ``since <= day < before``,
    summed over a packed row's cells (lines no such day held are left out)."""
    wanted = np.array(sorted(set(lines)), dtype=f"S{KEY_BYTES}")
    found_keys, found_counts = [], []
    for column, value in cells.items():
        if not since <= _column_day(column) < before:
            continue
        keys, counts = unpack_counts(value)
        held = np.isin(keys, wanted)
        found_keys.append(keys[held])
        found_counts.append(counts[held])
    if not found_keys:
        return {}
    keys = np.concatenate(found_keys)
    counts = np.concatenate(found_counts).astype(np.int64)
    distinct, at = np.unique(keys, return_inverse=True)
    sums = np.bincount(at, weights=counts, minlength=len(distinct)).astype(np.int64)
    return dict(zip((k.decode() for k in distinct.tolist()), sums.tolist(), strict=True))


def old_layout_days(store: Store, since: str, before: str) -> bool:
    """Whether a day published from ``since`` up to ``before`` (excluded) wrote its line
    counts a row per line (a release before 2026-12: no :data:`PACKED_MARK`)."""
    for _, cells in store.scan("days", start=since or None, stop=before):
        published = "r:published" in cells or "r:report" in cells
        if published and cells.get(PACKED_MARK) != PACKED:
            return True
    return False
