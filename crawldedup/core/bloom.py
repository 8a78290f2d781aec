"""Bloom filters on pybloom-live: sized from capacity and error rate, serializable, mergeable."""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from bitarray import bitarray
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
    add_many(bf, list(keys))
    return bf


def _bit_positions(bf: BloomFilter, keys: Sequence[str]) -> np.ndarray:
    """The filter's bit positions of every key, shape (len(keys), num_slices).

    Exactly pybloom-live's own hashing (``make_hashfuncs``): per salt, the digest of
    ``salt + key`` cut into unsigned ints, modulo the slice size, offset per slice.
    One digest per key and salt stays in Python; the rest runs in numpy instead of
    ``BloomFilter.add`` key by key. A unit test pins equality with it.
    """
    n_slices, per_slice = bf.num_slices, bf.bits_per_slice
    code, width = (
        ("Q", 8) if per_slice >= 1 << 31 else ("I", 4) if per_slice >= 1 << 15 else ("H", 2)
    )
    hashfn = bf.hashfn
    per_salt = hashfn().digest_size // width
    n_salts = -(-n_slices // per_salt)
    dtype = np.dtype(f"={code}")  # struct.unpack's native order, as pybloom-live uses
    columns = []
    for i in range(n_salts):
        prefix = hashfn(struct.pack("I", i)).digest()
        blob = b"".join([hashfn(prefix + k.encode("utf-8")).digest() for k in keys])
        columns.append(np.frombuffer(blob, dtype=dtype).reshape(len(keys), per_salt))
    ints = np.concatenate(columns, axis=1)[:, :n_slices].astype(np.uint64)
    offsets = np.arange(n_slices, dtype=np.uint64) * np.uint64(per_slice)
    out: np.ndarray = ints % np.uint64(per_slice) + offsets
    return out


def add_many(bf: BloomFilter, keys: Sequence[str], chunk: int = 200_000) -> None:
    """``bf.add(k, skip_check=True)`` for every key, vectorized (same bits, same count)."""
    for start in range(0, len(keys), chunk):
        part = keys[start : start + chunk]
        if not part:
            continue
        # A filter read back from bytes has its bit array padded to whole bytes.
        size = len(bf.bitarray)
        marks = np.zeros(size, dtype=bool)
        marks[_bit_positions(bf, part).ravel()] = True
        bits = bitarray(endian="little")
        bits.frombytes(np.packbits(marks, bitorder="little").tobytes())
        del bits[size:]
        bf.bitarray |= bits
        bf.count += len(part)


def contains_many(bf: BloomFilter, keys: Sequence[str]) -> np.ndarray:
    """``[k in bf for k in keys]`` as a boolean array, vectorized."""
    if not keys:
        return np.zeros(0, dtype=bool)
    packed = np.frombuffer(memoryview(bf.bitarray), dtype=np.uint8)  # little-endian bits
    pos = _bit_positions(bf, keys)
    bits = (packed[pos >> np.uint64(3)] >> (pos & np.uint64(7)).astype(np.uint8)) & 1
    found: np.ndarray = bits.all(axis=1)
    return found


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
