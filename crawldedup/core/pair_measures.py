"""The measures of a whole batch of document pairs at once, in numpy.

Pair ``i`` is side ``a``'s document ``i`` against side ``b``'s document ``i``. Every
function gives, bit for bit, what the per-pair definitions give (``cosine`` in
``crawldedup.core.similarity``; ``sketch_jaccard``, ``sketch_containment`` and
``sketch_set_size`` in ``crawldedup.core.fingerprint``): the same operations on the same
numbers in the same order, only without a Python loop per pair. The property tests in
``tests/unit/test_pair_measures.py`` pin that.

A side is *ragged*: the values of all its documents end to end, and ``offsets`` (n + 1
numbers) where each document's run starts and ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Ragged:
    """Per document, a run of ``values`` between ``offsets[i]`` and ``offsets[i + 1]``."""

    values: np.ndarray
    offsets: np.ndarray  # int64, n + 1 entries, offsets[0] == 0

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def owner(self) -> np.ndarray:
        """The document index of every value."""
        return np.repeat(np.arange(len(self.offsets) - 1, dtype=np.int64), self.lengths)

    @classmethod
    def of(cls, runs: list[np.ndarray], dtype: type | np.dtype) -> Ragged:
        offsets = np.zeros(len(runs) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in runs], out=offsets[1:])
        values = np.concatenate(runs).astype(dtype) if runs else np.zeros(0, dtype=dtype)
        return cls(values, offsets)


def sketches_from_bytes(blobs: list[bytes | None]) -> Ragged:
    """Bottom-k sketches (big-endian 64-bit values end to end, as ``bytes.fromhex`` of the
    stored hex gives them); None or empty is an empty sketch."""
    joined = b"".join(b or b"" for b in blobs)
    offsets = np.zeros(len(blobs) + 1, dtype=np.int64)
    np.cumsum([len(b or b"") // 8 for b in blobs], out=offsets[1:])
    return Ragged(np.frombuffer(joined, dtype=">u8").astype(np.uint64), offsets)


def _padded_sizes(v: np.ndarray, lengths: np.ndarray, k: int) -> np.ndarray:
    """The distinct-shingle count each sketch (rows laid out by :func:`padded`) stands
    for: ``sketch_set_size`` of every row."""
    sizes = lengths.astype(np.float64)
    full = lengths >= k
    if full.any():
        last = v[np.flatnonzero(full), lengths[full] - 1].astype(np.float64)
        sizes[full] = (k - 1) / ((last + 1.0) / 2.0**64)
    return sizes


def _ratio(num: np.ndarray, den: np.ndarray, valid: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=np.float64)
    ok = valid & (den > 0)
    out[ok] = num[ok].astype(np.float64) / den[ok].astype(np.float64)
    return out


def padded(s: Ragged, width: int) -> np.ndarray:
    """The sketches as one (n, width) array, each row its values then padding (the
    largest uint64); ``width`` at least the longest sketch."""
    n = len(s.offsets) - 1
    values = np.full((n, width), _PAD, dtype=np.uint64)
    owner = s.owner
    cols = np.arange(len(s.values), dtype=np.int64) - s.offsets[owner]
    values[owner, cols] = s.values
    return values


_PAD = np.iinfo(np.uint64).max


def sketch_measures(a: Ragged, b: Ragged, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Jaccard, containment, smaller set size) of every pair of sketches."""
    la, lb = a.lengths, b.lengths
    width = max(int(la.max(initial=0)), int(lb.max(initial=0)), 1)
    return padded_sketch_measures(padded(a, width), la, padded(b, width), lb, k)


def padded_sketch_measures(
    va: np.ndarray, la: np.ndarray, vb: np.ndarray, lb: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`sketch_measures` of sketches laid out by :func:`padded` (any width at
    least the longest sketch gives the same results; both of one width); ``la``, ``lb``
    their lengths.

    Row by row, both sketches side by side and sorted: a value in both sketches is two
    equal neighbours. Sketches are sets (distinct values, ascending), as bottom-k
    sketches are. A row of two ascending runs sorts by one merge (``kind="stable"``),
    and as the padding is the largest value, the first ``la + lb`` places of the
    sorted row are exactly the real values, whatever they are.
    """
    n, width = va.shape[0], va.shape[1] + vb.shape[1]
    la, lb = la.astype(np.int64), lb.astype(np.int64)
    vs = np.sort(np.concatenate([va, vb], axis=1), axis=1, kind="stable")
    place = np.arange(width, dtype=np.int64)
    ok = place[None, :] < (la + lb)[:, None]
    same_next = np.zeros_like(ok)
    same_next[:, :-1] = ok[:, 1:] & (vs[:, :-1] == vs[:, 1:])
    same_prev = np.zeros_like(ok)
    same_prev[:, 1:] = same_next[:, :-1]
    first = ok & ~same_prev  # each distinct value once
    both = first & same_next  # ... that is in both sketches
    top = first & (np.cumsum(first, axis=1) <= k)  # the k smallest of the union
    pairs_ok = (la > 0) & (lb > 0)
    jaccard = _ratio((top & both).sum(axis=1), top.sum(axis=1), pairs_ok)

    # Containment: the smaller's values up to the larger's k-th value, the share in it.
    size_a, size_b = _padded_sizes(va, la, k), _padded_sizes(vb, lb, k)
    a_small = size_a <= size_b

    def bound_of(v: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        out = np.full(n, _PAD, dtype=np.uint64)
        full = lengths >= k
        out[full] = v[np.flatnonzero(full), lengths[full] - 1]
        return out

    bound = np.where(a_small, bound_of(vb, lb), bound_of(va, la))
    small_v = np.where(a_small[:, None], va, vb)
    small_len = np.where(a_small, la, lb)
    small_ok = place[None, : small_v.shape[1]] < small_len[:, None]
    below = (small_ok & (small_v <= bound[:, None])).sum(axis=1)
    hits = (both & (vs <= bound[:, None])).sum(axis=1)
    containment = _ratio(hits, below, pairs_ok)
    return jaccard, containment, np.minimum(size_a, size_b)


def cosines(
    a_terms: Ragged, a_weights: np.ndarray, b_terms: Ragged, b_weights: np.ndarray
) -> np.ndarray:
    """The cosine of every pair of term vectors (``crawldedup.core.similarity.cosine``).

    Terms are integer codes shared by both sides (any encoding where equal terms get
    equal codes); weights are float64, in the vectors' own order. As the per-pair
    definition does, the dot product runs over the shorter vector in its order, the
    norms over each vector in its order, so float weights give the same bits too.
    """
    n = len(a_terms.offsets) - 1
    la, lb = a_terms.lengths, b_terms.lengths
    pa, pb = a_terms.owner, b_terms.owner
    width = np.int64(
        max(int(a_terms.values.max(initial=0)), int(b_terms.values.max(initial=0))) + 1
    )
    ka = pa * width + a_terms.values.astype(np.int64)
    kb = pb * width + b_terms.values.astype(np.int64)
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    pm = pa[ia]
    a_first = la <= lb  # the per-pair definition walks a unless b is shorter
    order = np.lexsort((np.where(a_first[pm], ia, ib), pm))
    dot = np.bincount(pm[order], weights=(a_weights[ia] * b_weights[ib])[order], minlength=n)
    na = np.sqrt(np.bincount(pa, weights=a_weights * a_weights, minlength=n))
    nb = np.sqrt(np.bincount(pb, weights=b_weights * b_weights, minlength=n))
    out = np.zeros(n, dtype=np.float64)
    ok = (la > 0) & (lb > 0) & (dot != 0)
    out[ok] = np.clip(dot[ok] / (na[ok] * nb[ok]), -1.0, 1.0)
    return out


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bit distance of every pair of 64-bit SimHashes."""
    return np.bitwise_count(np.bitwise_xor(a.astype(np.uint64), b.astype(np.uint64)))


def with_cross(own: Any, cross: Any, whole: Any) -> Any:
    """The containment of a pair where a page has an own text: the better one of the
    own texts' (``own``) and of an own text in the other's whole page (``cross``). When
    the own texts share nothing, what the pages share are lines one of their hosts has
    on many pages (standard headings, a footer, the same saying reposted there again
    and again): then an own text in the other page counts only as far as the whole
    pages lie in each other (``whole``), so headings alone decide no containment
    (docs/algorithm.md#boilerplate). Arrays of pairs, or the numbers of one pair."""
    return np.where(own > 0, np.maximum(own, cross), np.minimum(cross, whole))
