"""The cascade's decision: which earlier document, if any, a document is a copy of.

See docs/algorithm.md#decision-order and #verification.

Candidates arrive with their measures already computed (in Spark that happens in
parallel on the executors). An exact content match (rule B) wins outright and points
at the earliest exact copy; otherwise the document points at the verified candidate it
is *most similar* to (ties: the earliest), and the rule reported is the first rule, in
cascade order, under which that candidate was found. Its group is that candidate's
group, whose canonical is the group's earliest member.

Two pages whose URLs differ only in versions (``crawldedup.core.editions``) are
editions: they are verified only by the stricter ``[editions]`` bar.

How a non-exact candidate is verified is the policy's profile:

- ``shingles`` (default): the term-shingle Jaccard is at least ``min_jaccard``, or the
  smaller document lies in the larger one at least ``min_containment``
  (``short_min_jaccard`` and ``short_min_containment`` when the smaller has fewer than
  ``short_shingles`` and, when the lengths are known, the shorter has fewer than
  ``short_chars`` characters);
- ``seed``: the character cosine is strictly above ``threshold``; a SimHash candidate
  must also be within ``max_hamming`` bits and have a Jaccard of ``simhash_min_jaccard``
  (``[seed]``, the knobs that act only under this profile).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crawldedup.config import (
    RULES,
    CascadeConfig,
    Config,
    EditionsConfig,
    SeedConfig,
    SimhashConfig,
)


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
    editions: bool = False  # the two URLs differ only in versions (core.editions)
    shared_chars: int | None = None  # rule paragraph: the size of the shared paragraphs
    cand_chars: int | None = None  # normalized length of the candidate (the earlier page)
    # Rule paragraph: the document's size and its edge lines' (core.fingerprint.paragraphs)
    paragraph_size: int | None = None
    paragraph_edges: int | None = None


@dataclass(frozen=True)
class Decision:
    verdict: str  # "unique" | "duplicate"
    rule: str | None
    duplicate_of: str | None
    similarity: float | None  # the value of the measure that decided
    # "exact", "jaccard", "containment", "cosine" or "edition_jaccard"; on a unique
    # verdict, "edition" when an edition of it passed the ordinary bar and was kept
    # apart by the editions' stricter one.
    measure: str | None = None


UNIQUE = Decision("unique", None, None, None)


@dataclass(frozen=True)
class Policy:
    """The verification knobs of ``[cascade]``, ``[seed]``, ``[simhash]`` and
    ``[editions]`` (see the module doc)."""

    # Defaults are the config's, so the two cannot drift apart.
    profile: str = CascadeConfig.profile
    threshold: float = SeedConfig.threshold
    min_jaccard: float = CascadeConfig.min_jaccard
    min_containment: float = CascadeConfig.min_containment
    short_shingles: int = CascadeConfig.short_shingles
    short_chars: int = CascadeConfig.short_chars
    short_min_jaccard: float = CascadeConfig.short_min_jaccard
    short_min_containment: float = CascadeConfig.short_min_containment
    excerpt_min_share: float = CascadeConfig.excerpt_min_share
    excerpt_min_chars: int = CascadeConfig.excerpt_min_chars
    excerpt_max_length_share: float = CascadeConfig.excerpt_max_length_share
    max_hamming: int = SimhashConfig.max_distance
    simhash_min_jaccard: float = SeedConfig.simhash_min_jaccard
    editions: bool = EditionsConfig.enabled
    edition_min_jaccard: float = EditionsConfig.min_jaccard

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        c, seed = cfg.cascade, cfg.seed
        return cls(
            profile=c.profile,
            threshold=seed.threshold,
            min_jaccard=c.min_jaccard,
            min_containment=c.min_containment,
            short_shingles=c.short_shingles,
            short_chars=c.short_chars,
            short_min_jaccard=c.short_min_jaccard,
            short_min_containment=c.short_min_containment,
            excerpt_min_share=c.excerpt_min_share,
            excerpt_min_chars=c.excerpt_min_chars,
            excerpt_max_length_share=c.excerpt_max_length_share,
            max_hamming=cfg.simhash.max_distance,
            simhash_min_jaccard=seed.simhash_min_jaccard,
            editions=cfg.editions.enabled,
            edition_min_jaccard=cfg.editions.min_jaccard,
        )


def verify(c: Candidate, policy: Policy) -> tuple[str, float] | None:
    """(measure, value) that makes ``c`` a copy under the policy, or None.

    Editions (``c.editions``) are held to the editions' bar alone, under any profile."""
    if policy.editions and c.editions:
        jaccard = c.jaccard or 0.0
        return ("edition_jaccard", jaccard) if jaccard >= policy.edition_min_jaccard else None
    return ordinary_verify(c, policy)


def ordinary_verify(c: Candidate, policy: Policy) -> tuple[str, float] | None:
    """:func:`verify` without the editions' bar."""
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
    # A candidate that only paragraph keys found is a short page and a long one, whose
    # sketch containment is an estimate from a handful of values: its paragraphs decide.
    paragraph = c.rule == "paragraph"
    if not paragraph and containment >= (
        policy.short_min_containment if short else policy.min_containment
    ):
        return "containment", containment
    return excerpt_verify(c, policy)


def excerpt_verify(c: Candidate, policy: Policy) -> tuple[str, float] | None:
    """An excerpt (docs/algorithm.md#excerpts): a candidate found by paragraph keys, the
    document being the shorter page, at most ``excerpt_max_length_share`` of the
    candidate's length (when it is known), whose shared paragraphs have a size of at
    least ``excerpt_min_chars`` and make at least ``excerpt_min_share`` of the page, or
    of the page without its edge lines (``core.fingerprint.Paragraphs``: a quoting page's
    own intro and credit) when those are no bigger than the shared text and the shared
    text is no bigger than the rest.
    Sizes count a CJK character as ``core.fingerprint.CJK_SIZE`` letters.

    The shingle sketches cannot tell: a few paragraphs of a long page leave its bottom-k
    sketch a handful of values to compare. A long page is no copy of an earlier excerpt
    of it (it holds much more), and two pages of about one length that share paragraphs
    are editions or rewrites, which Jaccard and containment judge."""
    shared, shorter, cand = c.shared_chars, c.shorter_chars, c.cand_chars
    if c.rule != "paragraph" or not shared or not shorter:
        return None
    if cand is not None and shorter > policy.excerpt_max_length_share * cand:
        return None
    if shared < policy.excerpt_min_chars:
        return None
    # The document's own sizes when it is the shorter page (always, under the length
    # bar); else the shorter's length, without edges.
    mine = bool(c.paragraph_size) and (cand is None or shorter < cand)
    size = c.paragraph_size if mine and c.paragraph_size else shorter
    share = min(1.0, shared / size)
    if share >= policy.excerpt_min_share:
        return "excerpt", share
    edges = (c.paragraph_edges or 0) if mine else 0
    body = size - edges
    # Without its edge lines, the page is the shared text (its lines too short for a key
    # aside): the edges are its own intro and credit, not a part of the quote.
    if 0 < edges <= shared <= body and shared >= policy.excerpt_min_share * body:
        return "excerpt", shared / body
    return None


def closeness(c: Candidate, policy: Policy) -> tuple[float, float]:
    """How similar a candidate is, larger first: (Jaccard, containment) under
    ``shingles``, (cosine, 0) under ``seed``."""
    if policy.profile == "seed":
        return c.similarity, 0.0
    return c.jaccard or 0.0, c.containment or 0.0


def decide(
    candidates: Iterable[Candidate], policy: Policy, rules: Sequence[str] = RULES
) -> Decision:
    """Verdict of one document from its scored candidates (all strictly earlier).

    An exact copy points at the earliest exact match. Otherwise the document points at
    the verified candidate it is most similar to (:func:`closeness`; ties: the
    earliest), so a copy of one edition joins that edition's group, not an older
    edition's it also resembles.
    """
    order = {r: i for i, r in enumerate(rules)}
    cands = [c for c in candidates if c.rule in order]
    if "content_md5" in order:
        exact = [c for c in cands if c.rule == "content_md5"]
        if exact:
            best = min(exact, key=lambda c: (c.fetched_at, c.doc_id))
            return Decision("duplicate", "content_md5", best.doc_id, 1.0, "exact")
    verified = []
    kept_apart = False
    for c in cands:
        if c.rule == "content_md5":
            continue
        found = verify(c, policy)
        if found is not None:
            verified.append((c, found))
        elif policy.editions and c.editions and ordinary_verify(c, policy) is not None:
            kept_apart = True
    if not verified:
        return Decision("unique", None, None, None, "edition") if kept_apart else UNIQUE

    def rank(cv: tuple[Candidate, tuple[str, float]]) -> tuple[float, float, str, str, int]:
        c = cv[0]
        near, part = closeness(c, policy)
        return (-near, -part, c.fetched_at, c.doc_id, order[c.rule])

    best, (measure, value) = min(verified, key=rank)
    return Decision("duplicate", best.rule, best.doc_id, value, measure)
