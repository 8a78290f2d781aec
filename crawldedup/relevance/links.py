"""Outgoing links of relevant pages, ranked for the crawl frontier (docs/relevance.md).

The paper's URL selector queues the links of pages that match the topic. A link's
priority here is the mean of its page's relevance and its anchor text's own relevance
(negative anchor scores count as 0): a link out of a relevant page whose anchor also
speaks of the topic comes first. A URL linked from several relevant pages keeps its best
priority and counts its linking pages; ties go to more linking pages, then the URL.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class LinkCandidate:
    href: str
    anchor: str
    page_id: str
    page_score: float
    anchor_score: float

    @property
    def priority(self) -> float:
        return 0.5 * self.page_score + 0.5 * max(self.anchor_score, 0.0)


@dataclass(frozen=True)
class RankedLink:
    rank: int
    href: str
    priority: float
    anchor: str  # the anchor text of the best-scoring occurrence
    from_page: str  # the page that gave the best priority
    linking_pages: int


def rank_links(links: Iterable[LinkCandidate]) -> list[RankedLink]:
    """One entry per URL, best first; deterministic for equal scores."""
    best: dict[str, LinkCandidate] = {}
    pages: dict[str, set[str]] = {}
    for link in links:
        pages.setdefault(link.href, set()).add(link.page_id)
        cur = best.get(link.href)
        if cur is None or (link.priority, cur.page_id) > (cur.priority, link.page_id):
            best[link.href] = link
    order = sorted(best.values(), key=lambda c: (-c.priority, -len(pages[c.href]), c.href))
    return [
        RankedLink(i, c.href, c.priority, c.anchor, c.page_id, len(pages[c.href]))
        for i, c in enumerate(order, start=1)
    ]
