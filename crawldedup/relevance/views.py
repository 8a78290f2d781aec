"""What ``crawldedup relevance`` prints: a day's top pages and top links for a topic."""

from __future__ import annotations

import json
from typing import Any

from crawldedup.store.base import Store


def top_pages(store: Store, day: str, topic: str, top: int) -> list[dict[str, Any]]:
    """The day's pages by score (best first, then id), with the atoms that matched."""
    rows = []
    for key, row in store.scan_prefix("rel_scores", f"{day}|{topic}|"):
        rows.append(
            {
                "kind": "page",
                "id": key.rsplit("|", 1)[1],
                "score": round(float(row["s:score"]), 6),
                "relevant": row["s:relevant"] == b"True",
                "url": row.get("s:url", b"").decode(),
                "title": row.get("s:title", b"").decode(),
                "atoms": json.loads(row.get("s:atoms", b"[]")),
            }
        )
    rows.sort(key=lambda r: (-r["score"], r["id"]))
    return rows[:top]


def top_links(store: Store, day: str, topic: str, top: int) -> list[dict[str, Any]]:
    """The day's frontier for the topic, in rank order (rows are keyed by rank)."""
    out = []
    for key, row in store.scan_prefix("rel_links", f"{day}|{topic}|"):
        out.append(
            {
                "kind": "link",
                "rank": int(key.rsplit("|", 1)[1]),
                "href": row["l:href"].decode(),
                "priority": round(float(row["l:priority"]), 6),
                "anchor": row.get("l:anchor", b"").decode(),
                "from_page": row.get("l:from_page", b"").decode(),
                "linking_pages": int(row.get("l:linking_pages", b"1")),
            }
        )
        if len(out) >= top:
            break
    return out
