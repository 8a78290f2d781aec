"""Relevance of a page to a topic: cosine between the document and topic vectors.

See docs/algorithm.md#relevance.

Three ways to build the vectors, compared in docs/relevance.md:

* ``tfidf``: formula 1 over the page's words against the topic's keywords (the paper's
  "原始的 TF-IDF" baseline);
* ``tag_tfidf``: the same with each word's weight times its tag weight Twf (formula 6);
* ``semantic``: ``tag_tfidf`` plus one dimension per semantic atom of the topic's library
  (formula 7). The topic vector holds +f(k) for a synonym atom and -f(k) for an antonym
  atom, so an antonym match lowers the dot product (and lengthens the document vector):
  "同义语义集合是增强主题相似度，反义语义集合则是削弱主题相似度" (§3.1.1).

The document vector holds every word of the page, not only the topic's: a page that
mentions a keyword among a thousand unrelated words stays far from the topic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from crawldedup.core.similarity import cosine
from crawldedup.relevance.library import Atom, Library, Topic
from crawldedup.relevance.page import Page
from crawldedup.relevance.weighting import (
    ATOM_DIM,
    Df,
    TermStats,
    atom_components,
    atom_key,
    keyword_vector,
    page_stats,
    term_key,
    tfidf_vector,
)

MODES: tuple[str, ...] = ("tfidf", "tag_tfidf", "semantic")


@dataclass(frozen=True)
class TopicModel:
    """A topic's vectors, built once from its library entry."""

    topic: Topic
    keywords: dict[str, float]  # word → weight
    vector: dict[str, float]  # keywords plus ±f(k) per atom

    @classmethod
    def build(cls, topic: Topic, tokenize: Callable[[str], list[str]]) -> TopicModel:
        kw = keyword_vector(topic.keywords, tokenize)
        vec = dict(kw)
        for atom in topic.atoms:
            vec[ATOM_DIM + atom.key] = atom.signed_weight
        return cls(topic, kw, vec)


@dataclass(frozen=True)
class TopicScore:
    topic: str
    score: float
    atoms: tuple[tuple[str, str, int], ...]  # (pattern, synonym|antonym, matches)


def matched_atoms(stats: TermStats, atoms: Iterable[Atom]) -> tuple[tuple[str, str, int], ...]:
    return tuple(
        (a.pattern, a.kind, stats.atom_counts[a.key]) for a in atoms if stats.atom_counts[a.key]
    )


def score_topic(stats: TermStats, model: TopicModel, mode: str, n_docs: int, df: Df) -> TopicScore:
    """The page's relevance to one topic under ``mode`` (see :data:`MODES`)."""
    if mode not in MODES:
        raise ValueError(f"relevance mode {mode!r} unknown; known: {list(MODES)}")
    topic = model.topic
    doc = tfidf_vector(stats, n_docs, df, tag_weighted=mode != "tfidf")
    if mode == "semantic":
        doc.update(atom_components(stats, topic.name, topic.atoms, n_docs, df))
        target = model.vector
    else:
        target = model.keywords
    return TopicScore(topic.name, cosine(doc, target), matched_atoms(stats, topic.atoms))


class Scorer:
    """Scores pages against every topic of a library with one tokenizer."""

    def __init__(self, library: Library, tokenize: Callable[[str], list[str]]) -> None:
        self.library = library
        self.tokenize = tokenize
        self.models = {n: TopicModel.build(t, tokenize) for n, t in library.topics.items()}
        self.atoms = [a for t in library.topics.values() for a in t.atoms]

    def stats(self, page: Page) -> TermStats:
        return page_stats(page, self.tokenize, self.atoms)

    def df_keys(self, stats: TermStats) -> set[str]:
        """The document-frequency keys a page adds to: its words and its matched atoms."""
        keys = {term_key(t) for t in stats.counts}
        for name, topic in self.library.topics.items():
            keys.update(atom_key(name, a) for a in topic.atoms if stats.atom_counts[a.key])
        return keys

    def score(self, stats: TermStats, n_docs: int, df: Df, mode: str) -> list[TopicScore]:
        return [score_topic(stats, m, mode, n_docs, df) for m in self.models.values()]

    def anchor_score(self, anchor: str, topic: str, n_docs: int, df: Df) -> float:
        """Relevance of a link's anchor text alone (a page with only an anchor position)."""
        page = Page()
        page.texts["anchor"].append(anchor)
        model = self.models[topic]
        stats = page_stats(page, self.tokenize, model.topic.atoms)
        return score_topic(stats, model, "semantic", n_docs, df).score


def default_tokenizer() -> Callable[[str], list[str]]:
    """jieba words (the issue: keywords and documents are tokenized with jieba)."""
    from crawldedup.core.tokenize import jieba_terms

    return jieba_terms
