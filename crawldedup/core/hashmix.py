"""The fingerprint's innermost loops in numpy: MinHash values, shingle-window hashes and
LSH band hashes (all built on splitmix64's finalizer, ``mix64``), and the SimHash's bit
votes.

Every function works on whole arrays (uint64, wrapping arithmetic), so there is nothing
to compile and nothing to cache: the same bits in every process, from the first call.
``tests/unit/test_fingerprint_speed_identity.py`` compares every field with a plain
definition.
"""

from __future__ import annotations

import numpy as np

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
# MinHash rows are computed in blocks of this many values (seeds x shingles), so that the
# temporaries stay in the CPU's cache.
_BLOCK = 1 << 16


def _mix_in_place(z: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer of every value of ``z``, computed in ``z``."""
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def window_hashes(cp: np.ndarray, size: int) -> np.ndarray:
    """``mix(...mix(mix(0 ^ c[j]) ^ c[j+1])... ^ c[j+size-1])`` of every window of ``size``
    consecutive values, in order (``len(cp) >= size >= 1``)."""
    values = np.asarray(cp, dtype=np.uint64)
    m = values.shape[0] - size + 1
    h = values[:m].copy()
    _mix_in_place(h)
    for i in range(1, size):
        h ^= values[i : i + m]
        _mix_in_place(h)
    return h


def band_hashes(signature: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """The same chain over each band: the ``rows`` values ``b*rows .. b*rows+rows-1``."""
    grid = np.asarray(signature, dtype=np.uint64)[: bands * rows].reshape(bands, rows)
    h = grid[:, 0].copy()
    _mix_in_place(h)
    for r in range(1, rows):
        h ^= grid[:, r]
        _mix_in_place(h)
    return h


def bit_majority(hashes: np.ndarray) -> np.uint64:
    """Bit ``b`` of the result is set iff more than half of ``hashes`` have bit ``b`` set
    (Charikar's SimHash rule when every feature votes once).

    The ones per bit are counted by a float32 matrix product, exact below 2**24 values
    and about ten times faster than numpy's integer reduction along the first axis.
    """
    n = hashes.shape[0]
    bits = np.unpackbits(
        np.ascontiguousarray(hashes, dtype="<u8").view(np.uint8), bitorder="little"
    ).reshape(n, 64)
    if n < _EXACT_FLOAT32:
        ones = np.ones(n, dtype=np.float32) @ bits.astype(np.float32)
    else:
        ones = bits.sum(axis=0, dtype=np.int64)
    packed = np.packbits(2 * ones > n, bitorder="little")
    return np.uint64(packed.view("<u8")[0])


_EXACT_FLOAT32 = 1 << 24


def minhash_values(distinct: np.ndarray, premixed_seeds: np.ndarray) -> np.ndarray:
    """Value i is ``min over h of mix64(h ^ s_i)`` (splitmix64's finalizer).

    ``premixed_seeds[i]`` is ``s_i ^ (s_i >> 30)``: mix64's first step of ``h ^ s`` is
    ``(h ^ (h >> 30)) ^ (s ^ (s >> 30))``, so each half is computed once. ``distinct``
    is nonempty. Seeds go in blocks whose rows x shingles fit the CPU's cache, computed
    in two reused buffers (numpy would allocate a temporary per operation).
    """
    a = distinct ^ (distinct >> _S30)
    n, seeds = a.shape[0], premixed_seeds.shape[0]
    out = np.empty(seeds, dtype=np.uint64)
    step = max(1, _BLOCK // n)
    z = np.empty((min(step, seeds), n), dtype=np.uint64)
    tmp = np.empty_like(z)
    for start in range(0, seeds, step):
        s = premixed_seeds[start : start + step, None]
        zz, tt = z[: s.shape[0]], tmp[: s.shape[0]]
        np.bitwise_xor(a[None, :], s, out=zz)
        np.multiply(zz, _M1, out=zz)
        np.right_shift(zz, _S27, out=tt)
        np.bitwise_xor(zz, tt, out=zz)
        np.multiply(zz, _M2, out=zz)
        np.right_shift(zz, _S31, out=tt)
        np.bitwise_xor(zz, tt, out=zz)
        zz.min(axis=1, out=out[start : start + s.shape[0]])
    return out
