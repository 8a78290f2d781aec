"""The batch measures give, bit for bit, what the per-pair definitions give."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from crawldedup.core.fingerprint import (
    hamming64,
    sketch_containment,
    sketch_jaccard,
    sketch_of_hashes,
    sketch_set_size,
)
from crawldedup.core.pair_measures import (
    Ragged,
    cosines,
    hamming,
    padded,
    padded_sketch_measures,
    sketch_measures,
    sketches_from_bytes,
)
from crawldedup.core.similarity import cosine

# Small hash universes so that sides overlap; k small so that full sketches are common.
_hashes = st.lists(st.integers(0, 2**64 - 1), max_size=40)
_shared = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=30)


@st.composite
def sketch_pairs(draw: st.DrawFn) -> tuple[str, str, int]:
    k = draw(st.sampled_from([4, 8, 16, 128]))
    shared = draw(_shared)
    a = draw(_hashes) + draw(st.lists(st.sampled_from(shared), max_size=30))
    b = draw(_hashes) + draw(st.lists(st.sampled_from(shared), max_size=30))
    to_sketch = lambda h: sketch_of_hashes(np.array(h, dtype=np.uint64), k)  # noqa: E731
    return to_sketch(a), to_sketch(b), k


@settings(max_examples=150, deadline=None)
@given(st.lists(sketch_pairs(), min_size=1, max_size=12), st.sampled_from([4, 8, 16, 128]))
def test_sketch_measures_equal_the_per_pair_functions(
    pairs: list[tuple[str, str, int]], k: int
) -> None:
    a = sketches_from_bytes([bytes.fromhex(x) for x, _, _ in pairs])
    b = sketches_from_bytes([bytes.fromhex(y) for _, y, _ in pairs])
    jac, con, smaller = sketch_measures(a, b, k)
    for i, (x, y, _) in enumerate(pairs):
        assert jac[i] == sketch_jaccard(x, y, k)
        assert con[i] == sketch_containment(x, y, k)
        assert smaller[i] == min(sketch_set_size(x, k), sketch_set_size(y, k))


_terms = st.sampled_from([chr(c) for c in range(0x4E00, 0x4E30)] + ["flask", "3.9", "x"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(_terms, st.integers(1, 40), max_size=25),
            st.dictionaries(_terms, st.integers(1, 40), max_size=25),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_cosines_of_counts_equal_the_per_pair_cosine(
    pairs: list[tuple[dict[str, int], dict[str, int]]],
) -> None:
    _check_cosines([({t: float(v) for t, v in a.items()}, b) for a, b in pairs])


# Weights as the relevance stage makes them (no underflow to 0 when squared: the per-pair
# definition itself divides by zero there).
_weight = st.floats(-3.0, 30.0, allow_nan=False).filter(lambda w: abs(w) > 1e-6)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(_terms, _weight, max_size=25),
            st.dictionaries(_terms, _weight, max_size=25),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_cosines_of_float_weights_equal_the_per_pair_cosine(
    pairs: list[tuple[dict[str, float], dict[str, float]]],
) -> None:
    # Float weights (cascade.cosine_weights = "tag_tfidf", antonym atoms negative): the
    # sums must run in the per-pair order to give the same bits.
    _check_cosines(pairs)


def _check_cosines(pairs: list[tuple[dict[str, float], dict[str, float]]]) -> None:
    codes: dict[str, int] = {}

    def side(vectors: list[dict[str, float]]) -> tuple[Ragged, np.ndarray]:
        runs = [
            np.array([codes.setdefault(t, len(codes)) for t in v], dtype=np.int64) for v in vectors
        ]
        weights = [np.array(list(v.values()), dtype=np.float64) for v in vectors]
        return Ragged.of(runs, np.int64), np.concatenate(weights) if weights else np.zeros(0)

    (ta, wa), (tb, wb) = side([a for a, _ in pairs]), side([b for _, b in pairs])
    got = cosines(ta, wa, tb, wb)
    for i, (a, b) in enumerate(pairs):
        assert got[i] == cosine(a, b), (a, b)


@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)), max_size=20))
def test_hamming_equals_the_per_pair_distance(pairs: list[tuple[int, int]]) -> None:
    a = np.array([x for x, _ in pairs], dtype=np.uint64)
    b = np.array([y for _, y in pairs], dtype=np.uint64)
    assert hamming(a, b).tolist() == [hamming64(x, y) for x, y in pairs]


_TOP = 2**64 - 1  # the padding's value, which a real hash may also be


@st.composite
def sketch_pairs_with_top(draw: st.DrawFn) -> tuple[str, str]:
    shared = [*draw(_shared), _TOP]
    a = draw(_hashes) + draw(st.lists(st.sampled_from(shared), max_size=30))
    b = draw(_hashes) + draw(st.lists(st.sampled_from(shared), max_size=30))
    return tuple(sketch_of_hashes(np.array(h, dtype=np.uint64), 8) for h in (a, b))  # type: ignore[return-value]


@settings(max_examples=150, deadline=None)
@given(st.lists(sketch_pairs_with_top(), min_size=1, max_size=8), st.integers(0, 40))
def test_wider_padding_and_the_largest_hash_change_nothing(
    pairs: list[tuple[str, str]], extra: int
) -> None:
    # Rows laid out wider than the longest sketch, and sketches holding the padding's
    # own value (the largest uint64) give what the per-pair definitions give.
    k = 8
    a = sketches_from_bytes([bytes.fromhex(x) for x, _ in pairs])
    b = sketches_from_bytes([bytes.fromhex(y) for _, y in pairs])
    width = max(int(a.lengths.max()), int(b.lengths.max()), 1) + extra
    jac, con, smaller = padded_sketch_measures(
        padded(a, width), a.lengths, padded(b, width), b.lengths, k
    )
    for i, (x, y) in enumerate(pairs):
        assert jac[i] == sketch_jaccard(x, y, k)
        assert con[i] == sketch_containment(x, y, k)
        assert smaller[i] == min(sketch_set_size(x, k), sketch_set_size(y, k))
