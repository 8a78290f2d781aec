"""Cosine similarity over term-frequency vectors, as docs/algorithm.md#cosine defines it.

cos(A, B) = Σ AᵢBᵢ / (√Σ Aᵢ² · √Σ Bᵢ²). Seed 000's Java throws on empty input;
here an empty vector has similarity 0.0 with anything (two empty documents are
not evidence of a copy), so a caller never crashes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine of two TF (or weighted) vectors; 0.0 when either is empty.

    Components may be negative (the semantic library's antonym atoms); the result is then
    in [-1, 1].
    """
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    if dot == 0:
        return 0.0
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    # Rounding can push identical vectors a hair above 1.0.
    return max(-1.0, min(1.0, dot / (na * nb)))
