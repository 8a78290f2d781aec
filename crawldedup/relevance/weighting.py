"""Term weights (docs/relevance.md): TF-IDF (formulas 1-2), tag weights (formulas 4-6), atoms (7).

All pure functions over plain dicts, tested on hand-computed examples.

* Formula 1: w(i, j) = f_tf(i, j) · f_idf(i) = f_tf · log(N / n_i + 0.01), with f_tf the
  frequency of term i in document j (its count over the document's term count), N the
  documents seen so far and n_i those containing term i. The natural logarithm is used;
  the base scales every weight alike and cancels in the cosine.
* Formula 2 divides by the vector's length; the cosine
  (:func:`crawldedup.core.similarity.cosine`) does that division.
* Formula 5: m(title) = 10, m(meta) = 8, m(h1-h6) = m(a) = 6, m(elsewhere) = 3.
* Formula 4: Twf(k) = Σ m(i) over the positions holding term k, divided by Σ m(j) over the
  positions the page has ("averaged"); formula 6 maps it into [1, 2]: Twf + 1 when the
  numerator is non-zero, else 1.
* Formula 7: an atom k (one regular expression of the semantic library) contributes
  f(k) · Twf(k) · (t_k / T) · log(N / n_k + 0.01): its weight, tag weight, frequency and
  IDF. Here f(k) is the topic vector's component and the rest the document's, so the dot
  product of the two vectors is formula 7's C_j, and the cosine divides it by both lengths.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from crawldedup.core.normalize import fold
from crawldedup.relevance.library import Atom
from crawldedup.relevance.page import Page

TAG_WEIGHTS: dict[str, int] = {"title": 10, "meta": 8, "heading": 6, "anchor": 6, "body": 3}
"""m(i) of formula 5, per position of :mod:`crawldedup.relevance.page`."""

IDF_OFFSET = 0.01
"""The 0.01 of formula 1: a term in every document keeps a small positive weight."""


def idf(n_docs: int, df: int) -> float:
    """Formula 1's f_idf = log(N / n + 0.01); a term never seen counts as seen once."""
    return math.log(max(n_docs, 1) / max(df, 1) + IDF_OFFSET)


def twf(term_positions: Iterable[str], page_positions: Iterable[str]) -> float:
    """Formulas 4 and 6: the averaged tag weight of a term, mapped into [1, 2]."""
    numerator = sum(TAG_WEIGHTS[p] for p in set(term_positions))
    if numerator == 0:
        return 1.0
    total = sum(TAG_WEIGHTS[p] for p in set(page_positions))
    return 1.0 + numerator / total


@dataclass
class TermStats:
    """Counts and positions of a page's terms and of the atoms that matched it."""

    present: tuple[str, ...]
    counts: Counter[str] = field(default_factory=Counter)
    positions: dict[str, set[str]] = field(default_factory=dict)
    atom_counts: Counter[str] = field(default_factory=Counter)  # atom key → matches
    atom_positions: dict[str, set[str]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """T: the page's term count, the denominator of every f_tf (atoms included)."""
        return sum(self.counts.values())


def page_stats(
    page: Page, tokenize: Callable[[str], list[str]], atoms: Iterable[Atom] = ()
) -> TermStats:
    """Terms of every position (case/width folded, then ``tokenize``) and atom matches.

    Each atom is run once per piece of text of the document, over the folded text
    (docs/relevance.md: each regular expression is evaluated once per document); its
    matches are counted where they stand, so its Twf comes from its own positions.
    """
    stats = TermStats(present=page.present)
    atoms = list(atoms)
    for position, pieces in page.texts.items():
        for piece in pieces:
            folded = fold(piece)
            for term in tokenize(folded):
                stats.counts[term] += 1
                stats.positions.setdefault(term, set()).add(position)
            for atom in atoms:
                n = sum(1 for _ in atom.regex.finditer(folded))
                if n:
                    stats.atom_counts[atom.key] += n
                    stats.atom_positions.setdefault(atom.key, set()).add(position)
    return stats


Df = Callable[[str], int]
"""Document frequency of a term (``w|term``) or atom (``a|topic|key``) so far."""


def term_key(term: str) -> str:
    return f"w|{term}"


def atom_key(topic: str, atom: Atom) -> str:
    return f"a|{topic}|{atom.key}"


def tfidf_vector(stats: TermStats, n_docs: int, df: Df, tag_weighted: bool) -> dict[str, float]:
    """Formula 1 per term (times formula 6's Twf when ``tag_weighted``)."""
    total = stats.total
    if not total:
        return {}
    out = {}
    for term, count in stats.counts.items():
        w = count / total * idf(n_docs, df(term_key(term)))
        if tag_weighted:
            w *= twf(stats.positions[term], stats.present)
        out[term] = w
    return out


ATOM_DIM = "\x00atom:"
"""Atom dimensions are prefixed so that they never collide with a word."""


def atom_components(
    stats: TermStats, topic: str, atoms: Iterable[Atom], n_docs: int, df: Df
) -> dict[str, float]:
    """Formula 7's document side per matched atom: Twf(k) · (t_k / T) · log(N / n_k + 0.01)."""
    total = max(stats.total, 1)
    out = {}
    for atom in atoms:
        t_k = stats.atom_counts.get(atom.key, 0)
        if t_k:
            out[ATOM_DIM + atom.key] = (
                twf(stats.atom_positions[atom.key], stats.present)
                * (t_k / total)
                * idf(n_docs, df(atom_key(topic, atom)))
            )
    return out


def keyword_vector(
    keywords: Iterable[tuple[str, float]], tokenize: Callable[[str], list[str]]
) -> dict[str, float]:
    """The topic's keywords as a vector: each keyword's words carry its weight."""
    out: dict[str, float] = {}
    for word, weight in keywords:
        for term in tokenize(fold(word)):
            out[term] = out.get(term, 0.0) + weight
    return out


MASKS = {p: 1 << i for i, p in enumerate(TAG_WEIGHTS)}


def positions_mask(positions: Iterable[str]) -> int:
    """Positions as a bit mask (compact in Parquet and JSON)."""
    return sum(MASKS[p] for p in set(positions))


def mask_positions(mask: int) -> set[str]:
    return {p for p, bit in MASKS.items() if mask & bit}


def stats_to_json(stats: TermStats) -> dict[str, object]:
    return {
        "p": list(stats.present),
        "t": {t: [c, positions_mask(stats.positions[t])] for t, c in stats.counts.items()},
        "a": {
            k: [c, positions_mask(stats.atom_positions[k])] for k, c in stats.atom_counts.items()
        },
    }


def stats_from_json(data: Mapping[str, object]) -> TermStats:
    terms = data["t"]
    atoms = data["a"]
    present = data["p"]
    assert isinstance(terms, dict) and isinstance(atoms, dict) and isinstance(present, list)
    stats = TermStats(present=tuple(present))
    for t, (c, m) in terms.items():
        stats.counts[t] = c
        stats.positions[t] = mask_positions(m)
    for k, (c, m) in atoms.items():
        stats.atom_counts[k] = c
        stats.atom_positions[k] = mask_positions(m)
    return stats


def cascade_term_key(term: str) -> str:
    return f"c|{term}"


def cascade_vector(
    tf: Mapping[str, int],
    term_positions: Mapping[str, set[str]],
    present: Iterable[str],
    n_docs: int,
    df: Df,
) -> dict[str, float]:
    """The dedup cascade's terms weighted as docs/relevance.md says: tf · Twf · log(N / n + 0.01).

    ``tf`` is the fingerprint's raw term-frequency vector (docs/algorithm.md#cosine); a term the
    page's positions do not hold (extraction changed it) keeps Twf = 1.
    """
    present = tuple(present)
    out = {}
    for term, count in tf.items():
        where = term_positions.get(term)
        weight = twf(where, present) if where else 1.0
        out[term] = count * weight * idf(n_docs, df(cascade_term_key(term)))
    return out
