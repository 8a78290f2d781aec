"""What the HTML day report shows, gathered through the Store interface (SQLite or HBase).

Sources, per figure:

* counts by rule, quarantine counts, Bloom probes and filters, stage timings: the
  report JSON each published day keeps in the store's ``days`` table (the report stage);
* duplicates by type: the ``v:type`` cell of the day's verdicts (the report JSON has no
  per-type counts), one prefix scan of ``verdicts`` per day of the window;
* group sizes: the ``groups`` rows of the groups holding the day's documents;
* top groups and mirror host pairs: :mod:`crawldedup.views`, plus the members' URLs
  from ``docs``;
* quarantine examples: the quarantine files under ``HOME/quarantine/dt=D/`` (JSON Lines
  written by the fingerprint stage); only counts when they are not on this machine.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from crawldedup.gate import duplicate_rate, trailing_reports
from crawldedup.rules import CASCADE
from crawldedup.store import Store
from crawldedup.store.schema import VerdictRecord, get_docs, parse_posting, posting_doc_id
from crawldedup.views import (
    GroupView,
    MirrorView,
    day_verdicts,
    given_or_read,
    mirrors,
    top_groups,
)

WINDOW = 14
"""Days with reports shown in the trailing charts (the report's day and the ones before)."""
TOP_GROUPS = 20
MEMBERS_SHOWN = 30
"""Members listed per top group (the rest are counted)."""
EXAMPLES_PER_REASON = 3
EXAMPLE_CHARS = 300
TYPES = ("full", "content", "partial", "near")
SIZE_BUCKETS: tuple[tuple[int, int | None], ...] = (
    (2, 2),
    (3, 3),
    (4, 4),
    (5, 5),
    (6, 10),
    (11, 20),
    (21, 50),
    (51, 100),
    (101, None),
)


class NoReport(LookupError):
    """The store holds no report for the day (never run, or only dry runs)."""


@dataclass(frozen=True)
class DayPoint:
    """One day of the trailing window."""

    day: str
    documents: int
    duplicates: dict[str, int]  # by rule
    types: dict[str, int]  # by duplicate type
    quarantined: int
    seconds: dict[str, float]

    @property
    def duplicate_rate(self) -> float | None:
        return duplicate_rate({"documents": self.documents, "duplicates_total": self.dups})

    @property
    def dups(self) -> int:
        return sum(self.duplicates.values())


@dataclass(frozen=True)
class Member:
    id: str
    url: str
    title: str
    day: str
    fetched_at: str


@dataclass(frozen=True)
class GroupDetail:
    view: GroupView
    members: list[Member]  # earliest first, at most MEMBERS_SHOWN
    more: int  # members not listed


@dataclass(frozen=True)
class QuarantineExample:
    source: str
    position: int
    detail: str
    raw: str


@dataclass(frozen=True)
class QuarantineReason:
    reason: str
    count: int
    examples: list[QuarantineExample]


@dataclass(frozen=True)
class BloomFilterStats:
    rule: str
    keys: int
    capacity: int
    bits: int
    hashes: int
    bytes: int
    parts: int
    mode: str

    @property
    def load(self) -> float:
        """Keys over the capacity the filter was sized for."""
        return self.keys / self.capacity if self.capacity else 0.0

    @property
    def bit_fill(self) -> float:
        """Expected share of bits set: 1 - exp(-k n / m)."""
        if not self.bits:
            return 0.0
        return 1.0 - math.exp(-self.hashes * self.keys / self.bits)

    @property
    def expected_fp_rate(self) -> float:
        """False-positive rate the filter's fill implies: fill ** k."""
        return self.bit_fill**self.hashes if self.keys else 0.0

    @property
    def design_fp_rate(self) -> float:
        """False-positive rate at full capacity (what the filter was sized for)."""
        if not self.bits:
            return 0.0
        return float((1.0 - math.exp(-self.hashes * self.capacity / self.bits)) ** self.hashes)


@dataclass(frozen=True)
class BloomSummary:
    probes: int
    hits: int
    false_positives: int
    false_positive_rate: float
    filters: list[BloomFilterStats]
    partitioned_rules: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DayReportData:
    day: str
    report: dict[str, Any]  # the report stage's JSON
    generated_at: str
    window: int  # at most this many days in ``history``
    history: list[DayPoint]  # oldest first, the day last
    singletons: int  # groups of the day's documents with one member
    group_sizes: list[tuple[str, int]]  # (size bucket, groups), sizes >= 2
    largest_group: int
    top_groups: list[GroupDetail]
    mirrors: list[MirrorView]
    quarantine: list[QuarantineReason]
    quarantine_files: bool  # the quarantine folder was found (examples are possible)
    bloom: BloomSummary
    seconds: dict[str, float]  # the day's stage timings

    @property
    def today(self) -> DayPoint:
        return self.history[-1]


def load_report(store: Store, day: str) -> dict[str, Any]:
    row = store.get("days", [day]).get(day)
    raw = (row or {}).get("r:report")
    if not raw:
        raise NoReport(day)
    report: dict[str, Any] = json.loads(raw.decode())
    return report


def _types_of_day(
    store: Store, day: str, verdicts: Iterable[VerdictRecord] | None = None
) -> tuple[dict[str, int], Counter[str]]:
    """(duplicates by type, documents by group) of one day's verdicts (``verdicts``: the
    day's, when the caller has read them already)."""
    types: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    for v in given_or_read(store, day, verdicts):
        groups[v.group] += 1
        if v.verdict == "duplicate":
            types[v.type or "untyped"] += 1
    return dict(types), groups


def _point(report: Mapping[str, Any], types: dict[str, int]) -> DayPoint:
    secs = {k: float(v) for k, v in (report.get("seconds") or {}).items() if v is not None}
    return DayPoint(
        day=str(report.get("day")),
        documents=int(report.get("documents", 0)),
        duplicates={k: int(v) for k, v in (report.get("duplicates") or {}).items()},
        types=types,
        quarantined=int(report.get("quarantined_total", 0)),
        seconds=secs,
    )


def history(
    store: Store,
    day: str,
    report: Mapping[str, Any],
    window: int,
    verdicts: Iterable[VerdictRecord] | None = None,
) -> tuple[list[DayPoint], Counter[str]]:
    """The window's days (oldest first, ``day`` last) and the day's documents by group
    (``verdicts``: the day's, when the caller has read them already).

    Per-type counts come from the report when it carries them (``duplicate_types``),
    else from a scan of that day's verdicts.
    """
    points: list[DayPoint] = []
    for earlier in trailing_reports(store, day, window - 1):
        types = earlier.get("duplicate_types")
        if types is None:
            types, _ = _types_of_day(store, str(earlier.get("day")))
        points.append(_point(earlier, dict(types)))
    types, groups = _types_of_day(store, day, verdicts)
    points.append(_point(report, dict(report.get("duplicate_types") or types)))
    return points, groups


def _bucket(size: int) -> str:
    for lo, hi in SIZE_BUCKETS:
        if lo <= size and (hi is None or size <= hi):
            return str(lo) if lo == hi else (f"{lo}–{hi}" if hi else f"{lo}+")
    return str(size)


def group_sizes(
    store: Store, day_groups: Mapping[str, int]
) -> tuple[int, list[tuple[str, int]], int]:
    """(singletons, [(bucket, groups)] for sizes >= 2, largest size) of the groups holding
    the day's documents; a size counts every member, all days in the store so far."""
    rows = store.get("groups", sorted(day_groups), columns=None)
    sizes = [max(len(rows.get(g, {})), n) for g, n in day_groups.items()]
    counts = Counter(_bucket(s) for s in sizes if s >= 2)
    buckets = [_bucket(lo) for lo, _ in SIZE_BUCKETS]
    largest = max(sizes, default=0)
    shown = [(b, counts.get(b, 0)) for b in buckets]
    while shown and shown[-1][1] == 0:
        shown.pop()
    return sum(1 for s in sizes if s < 2), shown, largest


def group_details(
    store: Store, day: str, top: int, verdicts: Iterable[VerdictRecord] | None = None
) -> list[GroupDetail]:
    views = top_groups(store, day, top, verdicts)
    if not views:
        return []
    rows = store.get("groups", [v.group for v in views])
    picked: dict[str, list[tuple[str, str, str]]] = {}
    for v in views:
        cells = rows.get(v.group, {})
        members = sorted(
            (parse_posting(val)[1], posting_doc_id(col), parse_posting(val)[0])
            for col, val in cells.items()
        )
        picked[v.group] = members[:MEMBERS_SHOWN]
    ids = sorted({m[1] for ms in picked.values() for m in ms})
    docs = get_docs(store, ids, ["m:url", "m:title"])
    out = []
    for v in views:
        listed = [
            Member(
                id=doc_id,
                url=(docs.get(doc_id, {}).get("m:url") or b"").decode(),
                title=(docs.get(doc_id, {}).get("m:title") or b"").decode(),
                day=d,
                fetched_at=fetched,
            )
            for fetched, doc_id, d in picked[v.group]
        ]
        out.append(GroupDetail(v, listed, max(0, v.size - len(listed))))
    return out


def _cut(text: str, n: int = EXAMPLE_CHARS) -> str:
    return text if len(text) <= n else text[:n] + "…"


def _quarantine_lines(folder: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(folder.glob("*.json")):
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    try:
                        yield json.loads(line)
                    except ValueError:
                        continue


def quarantine(
    counts: Mapping[str, int], folder: Path, per_reason: int = EXAMPLES_PER_REASON
) -> tuple[list[QuarantineReason], bool]:
    """The day's quarantine reasons, most frequent first, each with a few examples read
    from the quarantine files (when this machine has them)."""
    examples: dict[str, list[QuarantineExample]] = {r: [] for r in counts}
    found = folder.is_dir()
    if found and counts:
        wanted = {r for r, n in counts.items() if n > 0}
        for rec in _quarantine_lines(folder):
            reason = str(rec.get("reason", ""))
            if reason not in wanted:
                continue
            bucket = examples.setdefault(reason, [])
            if len(bucket) >= per_reason:
                continue
            bucket.append(
                QuarantineExample(
                    source=str(rec.get("source", "")),
                    position=int(rec.get("position", 0) or 0),
                    detail=_cut(str(rec.get("detail", ""))),
                    raw=_cut(str(rec.get("raw") or "")),
                )
            )
            if all(len(examples[r]) >= min(per_reason, counts[r]) for r in wanted):
                break
    reasons = [
        QuarantineReason(r, int(n), examples.get(r, []))
        for r, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return reasons, found


def bloom(report: Mapping[str, Any]) -> BloomSummary:
    b = report.get("bloom") or {}
    filters = [
        BloomFilterStats(
            rule=rule,
            keys=int(f.get("keys", 0)),
            capacity=int(f.get("capacity", 0)),
            bits=int(f.get("bits", 0)),
            hashes=int(f.get("hashes", 0)),
            bytes=int(f.get("bytes", 0)),
            parts=int(f.get("parts", 0)),
            mode=str(f.get("mode", "")),
        )
        for rule, f in (b.get("filters") or {}).items()
    ]
    filters.sort(key=lambda f: rule_order(f.rule))
    return BloomSummary(
        probes=int(b.get("probes", 0)),
        hits=int(b.get("hits", 0)),
        false_positives=int(b.get("false_positives", 0)),
        false_positive_rate=float(b.get("false_positive_rate", 0.0)),
        filters=filters,
        partitioned_rules=list(b.get("partitioned_rules") or []),
    )


def rule_order(rule: str) -> tuple[int, str]:
    names = [r.value for r in CASCADE]
    return (names.index(rule) if rule in names else len(names), rule)


def type_order(kind: str) -> tuple[int, str]:
    return (TYPES.index(kind) if kind in TYPES else len(TYPES), kind)


def gather(
    store: Store,
    day: str,
    quarantine_dir: Path,
    *,
    window: int = WINDOW,
    top: int = TOP_GROUPS,
    min_mirror_pairs: int = 2,
) -> DayReportData:
    """Everything the page shows for ``day``; :class:`NoReport` when the day has none."""
    report = load_report(store, day)
    verdicts = list(day_verdicts(store, day))  # read once, for the three views of them
    points, day_groups = history(store, day, report, window, verdicts)
    singletons, sizes, largest = group_sizes(store, day_groups)
    reasons, found = quarantine(report.get("quarantined") or {}, quarantine_dir)
    secs = points[-1].seconds
    return DayReportData(
        day=day,
        report=report,
        generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        window=window,
        history=points,
        singletons=singletons,
        group_sizes=sizes,
        largest_group=largest,
        top_groups=group_details(store, day, top, verdicts),
        mirrors=mirrors(store, day, min_mirror_pairs, verdicts),
        quarantine=reasons,
        quarantine_files=found,
        bloom=bloom(report),
        seconds=secs,
    )
