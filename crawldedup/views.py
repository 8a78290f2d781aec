"""Read-side views over the store: popular groups, mirrors, the downstream delete list."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from crawldedup.store import Store
from crawldedup.store.schema import VerdictRecord, get_docs, parse_posting
from crawldedup.urls import normalize_url


def day_verdicts(store: Store, day: str) -> Iterator[VerdictRecord]:
    for key, row in store.scan_prefix("verdicts", f"{day}|"):
        yield VerdictRecord.from_row(key, row)


def given_or_read(
    store: Store, day: str, verdicts: Iterable[VerdictRecord] | None
) -> Iterable[VerdictRecord]:
    """The day's verdicts a caller has read already, else read from the store."""
    return day_verdicts(store, day) if verdicts is None else verdicts


@dataclass(frozen=True)
class GroupView:
    group: str
    url: str
    title: str
    size: int  # all members, every day so far
    copies: int  # size - 1
    new_today: int
    first_seen: str
    last_seen: str

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def top_groups(
    store: Store, day: str, top: int, verdicts: Iterable[VerdictRecord] | None = None
) -> list[GroupView]:
    """The groups that gained members on ``day``, most copied first (``verdicts``: the
    day's, when the caller has read them already).

    Size, first-seen and last-seen come from the group's membership cells, which every
    day's publish keeps current, so they cover all days up to the latest run.
    """
    found = given_or_read(store, day, verdicts)
    today: Counter[str] = Counter(v.group for v in found if v.verdict == "duplicate")
    if not today:
        return []
    rows = store.get("groups", list(today))
    docs = get_docs(store, list(today), ["m:url", "m:title"])
    out = []
    for g, cells in rows.items():
        seen = sorted(parse_posting(v)[1] for v in cells.values())
        meta = docs.get(g, {})
        out.append(
            GroupView(
                group=g,
                url=(meta.get("m:url") or b"").decode(),
                title=(meta.get("m:title") or b"").decode(),
                size=len(cells),
                copies=len(cells) - 1,
                new_today=today[g],
                first_seen=seen[0],
                last_seen=seen[-1],
            )
        )
    out.sort(key=lambda v: (-v.size, -v.new_today, v.first_seen, v.group))
    return out[:top]


@dataclass(frozen=True)
class MirrorView:
    host_a: str
    host_b: str
    pairs: int  # duplicate pairs whose documents sit on these two hosts
    same_path: int  # of them, served under the same normalized path
    exact: int  # of them, of type full or content

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def mirrors(
    store: Store, day: str, min_pairs: int = 2, verdicts: Iterable[VerdictRecord] | None = None
) -> list[MirrorView]:
    """Host pairs serving the same content for many paths on ``day``, most first
    (``verdicts``: the day's, when the caller has read them already)."""
    found = given_or_read(store, day, verdicts)
    dups = [v for v in found if v.verdict == "duplicate" and v.duplicate_of]
    ids = sorted({v.id for v in dups} | {v.duplicate_of for v in dups if v.duplicate_of})
    urls = {k: (r.get("m:url") or b"").decode() for k, r in get_docs(store, ids, ["m:url"]).items()}
    acc: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for v in dups:
        a, b = urls.get(v.id, ""), urls.get(v.duplicate_of or "", "")
        if not a or not b:
            continue
        (ha, pa), (hb, pb) = normalize_url(a), normalize_url(b)
        if not ha or not hb or ha == hb:
            continue
        key = (min(ha, hb), max(ha, hb))
        acc[key][0] += 1
        acc[key][1] += pa == pb
        acc[key][2] += v.type in ("full", "content")
    out = [MirrorView(h1, h2, *c) for (h1, h2), c in acc.items() if c[0] >= min_pairs]
    out.sort(key=lambda m: (-m.pairs, -m.same_path, m.host_a, m.host_b))
    return out
