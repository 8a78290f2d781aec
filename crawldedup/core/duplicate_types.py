"""Duplicate types (docs/algorithm.md#grouping): full, content, partial, near."""

from __future__ import annotations

from collections.abc import Mapping


def containment(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    """Share of the smaller document's terms (with counts) that the larger one holds."""
    small, large = (a, b) if sum(a.values()) <= sum(b.values()) else (b, a)
    total = sum(small.values())
    if total == 0:
        return 0.0
    return sum(min(n, large.get(t, 0)) for t, n in small.items()) / total


def duplicate_type(
    *,
    raw_equal: bool,
    content_equal: bool,
    tf_a: Mapping[str, int],
    tf_b: Mapping[str, int],
    partial_containment: float,
    partial_max_length_ratio: float = 0.8,
) -> str:
    """``full``: the raw pages are identical. ``content``: the same normalized text in
    another layout or HTML. ``partial``: one holds at least ``partial_containment`` of
    the other's terms while being clearly longer (length ratio at most
    ``partial_max_length_ratio``). ``near``: similar, neither contains the other.
    """
    if raw_equal:
        return "full"
    if content_equal:
        return "content"
    la, lb = sum(tf_a.values()), sum(tf_b.values())
    shorter = la and lb and min(la, lb) / max(la, lb) <= partial_max_length_ratio
    if shorter and containment(tf_a, tf_b) >= partial_containment:
        return "partial"
    return "near"
