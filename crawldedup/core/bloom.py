"""Bloom filters on pybloom-live: sized from capacity and error rate, serializable, mergeable."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from dataclasses import dataclass

from pybloom_live import BloomFilter


@dataclass(frozen=True)
class BloomSizing:
    """Derived once from capacity and error rate (the textbook optimum)."""

    capacity: int
    error_rate: float

    @property
    def num_bits(self) -> int:
        return math.ceil(-self.capacity * math.log(self.error_rate) / (math.log(2) ** 2))

    @property
    def num_hashes(self) -> int:
        return max(1, round(self.num_bits / self.capacity * math.log(2)))


def new_filter(capacity: int, error_rate: float) -> BloomFilter:
    return BloomFilter(capacity=max(1, capacity), error_rate=error_rate)


def build_filter(keys: Iterable[str], capacity: int, error_rate: float) -> BloomFilter:
    bf = new_filter(capacity, error_rate)
    for k in keys:
        bf.add(k, skip_check=True)
    return bf


def merge_filters(filters: Iterable[BloomFilter]) -> BloomFilter | None:
    """Union of filters built with the same capacity and error rate."""
    out: BloomFilter | None = None
    for f in filters:
        out = f.copy() if out is None else out.union(f)
    return out


def to_bytes(bf: BloomFilter) -> bytes:
    buf = io.BytesIO()
    bf.tofile(buf)
    return buf.getvalue()


def from_bytes(data: bytes) -> BloomFilter:
    return BloomFilter.fromfile(io.BytesIO(data))


def measured_false_positive_rate(bf: BloomFilter, absent_keys: Iterable[str]) -> float:
    """Share of keys known to be absent that the filter still claims to hold."""
    probes = hits = 0
    for k in absent_keys:
        probes += 1
        hits += k in bf
    return hits / probes if probes else 0.0
