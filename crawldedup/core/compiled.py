"""The fingerprint's innermost loops, compiled with numba: MinHash values, shingle-window
hashes and LSH band hashes (all built on splitmix64's finalizer, ``mix64``), and the
SimHash's bit votes.

numpy runs ``mix64(h ^ seed)`` as eight passes over an ``n × len(h)`` array and then
reduces it; the loops below keep each value in a register (and a running minimum beside
it), so they read their input once and write only their result. Same arithmetic
(uint64, wrapping), same bits:
``tests/unit/test_fingerprint_speed_identity.py`` compares every field with a plain
numpy definition.

Compiled on first call, and cached on disk beside the module (``__pycache__``) when the
package is a folder; imported from a zip (``--py-files`` on a cluster) numba cannot
cache, and each executor's Python worker compiles it once (about a second).
"""

from __future__ import annotations

import numba
import numpy as np

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(cache=True, nogil=True, inline="always")
def _mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(cache=True, nogil=True, inline="always")
def _chain(values: np.ndarray, start: int, size: int) -> np.uint64:
    """``mix(...mix(mix(0 ^ v[start]) ^ v[start+1])... ^ v[start+size-1])``."""
    h = np.uint64(0)
    for i in range(size):
        h = _mix64(h ^ values[start + i])
    return h


@numba.njit(cache=True, nogil=True)
def window_hashes(cp: np.ndarray, size: int) -> np.ndarray:
    """:func:`_chain` of every window of ``size`` consecutive values, in order
    (``len(cp) >= size >= 1``)."""
    m = cp.shape[0] - size + 1
    out = np.empty(m, dtype=np.uint64)
    for j in range(m):
        out[j] = _chain(cp, j, size)
    return out


@numba.njit(cache=True, nogil=True)
def band_hashes(signature: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """:func:`_chain` of each band: the ``rows`` values ``b*rows .. b*rows+rows-1``."""
    out = np.empty(bands, dtype=np.uint64)
    for b in range(bands):
        out[b] = _chain(signature, b * rows, rows)
    return out


@numba.njit(cache=True, nogil=True)
def bit_majority(hashes: np.ndarray) -> np.uint64:
    """Bit ``b`` of the result is set iff more than half of ``hashes`` have bit ``b`` set
    (Charikar's SimHash rule when every feature votes once)."""
    ones = np.zeros(64, dtype=np.int64)
    for j in range(hashes.shape[0]):
        h = hashes[j]
        for b in range(64):
            ones[b] += (h >> np.uint64(b)) & np.uint64(1)
    out = np.uint64(0)
    n = hashes.shape[0]
    for b in range(64):
        if 2 * ones[b] > n:
            out |= np.uint64(1) << np.uint64(b)
    return out


@numba.njit(cache=True, nogil=True)
def minhash_values(distinct: np.ndarray, premixed_seeds: np.ndarray) -> np.ndarray:
    """Value i is ``min over h of mix64(h ^ s_i)`` (splitmix64's finalizer).

    ``premixed_seeds[i]`` is ``s_i ^ (s_i >> 30)``: mix64's first step of ``h ^ s`` is
    ``(h ^ (h >> 30)) ^ (s ^ (s >> 30))``, so each half is computed once. ``distinct``
    is nonempty.
    """
    a = distinct ^ (distinct >> _S30)
    out = np.empty(premixed_seeds.shape[0], dtype=np.uint64)
    for i in range(premixed_seeds.shape[0]):
        s = premixed_seeds[i]
        best = _ALL_ONES
        for j in range(a.shape[0]):
            z = (a[j] ^ s) * _M1
            z = (z ^ (z >> _S27)) * _M2
            z = z ^ (z >> _S31)
            if z < best:
                best = z
        out[i] = best
    return out
