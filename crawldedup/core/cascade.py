"""The cascade's decision: B → C → D → A, cosine above a threshold.

See docs/algorithm.md#decision-order.

Candidates arrive with their similarity already computed (in Spark that happens
in parallel on the executors). Seed 000 stops at the first rule that fires; the
product contract adds that a duplicate points at the *earliest* document it
matches. Both hold here: an exact content match (rule B) wins outright and points
at the earliest exact copy; otherwise the earliest candidate above the threshold
under any of C, D, A is chosen and the rule reported is the first rule, in cascade
order, under which that candidate was found.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crawldedup.config import RULES


@dataclass(frozen=True)
class Candidate:
    doc_id: str
    fetched_at: str  # ISO-8601 in UTC, so strings sort in time order
    rule: str
    similarity: float
    hamming: int | None = None  # SimHash distance; the simhash rule requires it
    jaccard: float | None = None  # shingle Jaccard estimate; the simhash rule requires it


@dataclass(frozen=True)
class Decision:
    verdict: str  # "unique" | "duplicate"
    rule: str | None
    duplicate_of: str | None
    similarity: float | None


UNIQUE = Decision("unique", None, None, None)


def _simhash_verified(c: Candidate, max_hamming: int, min_jaccard: float) -> bool:
    return (
        c.hamming is not None
        and c.hamming <= max_hamming
        and c.jaccard is not None
        and c.jaccard >= min_jaccard
    )


def decide(
    candidates: Iterable[Candidate],
    threshold: float,
    rules: Sequence[str] = RULES,
    max_hamming: int = 3,
    min_jaccard: float = 0.7,
) -> Decision:
    """Verdict of one document from its scored candidates (all strictly earlier).

    A SimHash candidate shares only one block of its fingerprint; it counts when the
    whole fingerprint is within ``max_hamming`` bits and both the cosine and the
    shingle Jaccard (at least ``min_jaccard``) verify it.
    """
    order = {r: i for i, r in enumerate(rules)}
    cands = [
        c
        for c in candidates
        if c.rule in order
        and (c.rule != "simhash" or _simhash_verified(c, max_hamming, min_jaccard))
    ]
    if "content_md5" in order:
        exact = [c for c in cands if c.rule == "content_md5"]
        if exact:
            best = min(exact, key=lambda c: (c.fetched_at, c.doc_id))
            return Decision("duplicate", "content_md5", best.doc_id, 1.0)
    matched = [c for c in cands if c.rule != "content_md5" and c.similarity > threshold]
    if not matched:
        return UNIQUE
    best = min(matched, key=lambda c: (c.fetched_at, c.doc_id, order[c.rule]))
    return Decision("duplicate", best.rule, best.doc_id, best.similarity)
