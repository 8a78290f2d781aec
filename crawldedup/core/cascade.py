"""The cascade's decision: which earlier document, if any, a document is a copy of.

See docs/algorithm.md#decision-order and #verification.

Candidates arrive with their measures already computed (in Spark that happens in
parallel on the executors). The product contract is that a duplicate points at the
*earliest* document it matches: an exact content match (rule B) wins outright and
points at the earliest exact copy; otherwise the earliest verified candidate under any
other rule is chosen, and the rule reported is the first rule, in cascade order, under
which that candidate was found.

How a non-exact candidate is verified is the policy's profile:

- ``shingles`` (default): the term-shingle Jaccard is at least ``min_jaccard``, or the
  smaller document lies in the larger one at least ``min_containment``
  (``short_min_jaccard`` and ``short_min_containment`` when the smaller has fewer than
  ``short_shingles`` and, when the lengths are known, the shorter has fewer than
  ``short_chars`` characters);
- ``seed``: the character cosine is strictly above ``threshold``; a SimHash candidate
  must also be within ``max_hamming`` bits and have a Jaccard of ``simhash_min_jaccard``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crawldedup.config import RULES, CascadeConfig, Config, SimhashConfig


@dataclass(frozen=True)
class Candidate:
    doc_id: str
    fetched_at: str  # ISO-8601 in UTC, so strings sort in time order
    rule: str
    similarity: float  # the character cosine
    hamming: int | None = None  # SimHash distance
    jaccard: float | None = None  # term-shingle Jaccard estimate
    containment: float | None = None  # share of the smaller's shingles in the larger
    smaller_shingles: float | None = None  # distinct shingles of the smaller document
    shorter_chars: int | None = None  # normalized length of the shorter document


@dataclass(frozen=True)
class Decision:
    verdict: str  # "unique" | "duplicate"
    rule: str | None
    duplicate_of: str | None
    similarity: float | None  # the value of the measure that decided
    measure: str | None = None  # "exact", "jaccard", "containment" or "cosine"


UNIQUE = Decision("unique", None, None, None)


@dataclass(frozen=True)
class Policy:
    """The verification knobs of ``[cascade]`` and ``[simhash]`` (see the module doc)."""

    # Defaults are the config's, so the two cannot drift apart.
    profile: str = CascadeConfig.profile
    threshold: float = CascadeConfig.threshold
    min_jaccard: float = CascadeConfig.min_jaccard
    min_containment: float = CascadeConfig.min_containment
    short_shingles: int = CascadeConfig.short_shingles
    short_chars: int = CascadeConfig.short_chars
    short_min_jaccard: float = CascadeConfig.short_min_jaccard
    short_min_containment: float = CascadeConfig.short_min_containment
    max_hamming: int = SimhashConfig.max_distance
    simhash_min_jaccard: float = SimhashConfig.min_jaccard

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        c, sh = cfg.cascade, cfg.simhash
        return cls(
            profile=c.profile,
            threshold=c.threshold,
            min_jaccard=c.min_jaccard,
            min_containment=c.min_containment,
            short_shingles=c.short_shingles,
            short_chars=c.short_chars,
            short_min_jaccard=c.short_min_jaccard,
            short_min_containment=c.short_min_containment,
            max_hamming=sh.max_distance,
            simhash_min_jaccard=sh.min_jaccard,
        )


def verify(c: Candidate, policy: Policy) -> tuple[str, float] | None:
    """(measure, value) that makes ``c`` a copy under the policy, or None."""
    if policy.profile == "seed":
        if c.rule == "simhash" and not (
            c.hamming is not None
            and c.hamming <= policy.max_hamming
            and (c.jaccard or 0.0) >= policy.simhash_min_jaccard
        ):
            return None
        return ("cosine", c.similarity) if c.similarity > policy.threshold else None
    jaccard, containment = c.jaccard or 0.0, c.containment or 0.0
    short = (
        c.smaller_shingles is not None
        and c.smaller_shingles < policy.short_shingles
        and (c.shorter_chars is None or c.shorter_chars < policy.short_chars)
    )
    if jaccard >= (policy.short_min_jaccard if short else policy.min_jaccard):
        return "jaccard", jaccard
    if containment >= (policy.short_min_containment if short else policy.min_containment):
        return "containment", containment
    return None


def decide(
    candidates: Iterable[Candidate], policy: Policy, rules: Sequence[str] = RULES
) -> Decision:
    """Verdict of one document from its scored candidates (all strictly earlier)."""
    order = {r: i for i, r in enumerate(rules)}
    cands = [c for c in candidates if c.rule in order]
    if "content_md5" in order:
        exact = [c for c in cands if c.rule == "content_md5"]
        if exact:
            best = min(exact, key=lambda c: (c.fetched_at, c.doc_id))
            return Decision("duplicate", "content_md5", best.doc_id, 1.0, "exact")
    verified = []
    for c in cands:
        if c.rule == "content_md5":
            continue
        found = verify(c, policy)
        if found is not None:
            verified.append((c, found))
    if not verified:
        return UNIQUE
    best, (measure, value) = min(
        verified, key=lambda cv: (cv[0].fetched_at, cv[0].doc_id, order[cv[0].rule])
    )
    return Decision("duplicate", best.rule, best.doc_id, value, measure)
