"""Ground truth of a generated sample, and pairwise scoring of predicted groups against it.

Truth file ``truth.jsonl``: one JSON object per *valid* input record::

    {"id", "day", "url", "cluster", "transform", "negative",
     "lang", "fetched_at", "file", "seed_reachable"}

``cluster`` is the id of the original the record copies (an original's cluster is
its own id), so two records are true duplicates iff they share a cluster.
``transform`` is ``"original"`` or one of ``TRANSFORMS``; ``negative`` is null or
one of ``NEGATIVE_KINDS`` (hard negatives are originals that must stay unique).
``lang``, ``fetched_at``, ``file`` and ``seed_reachable`` are informational extras.
``seed_reachable`` (copies only, else null) says whether the seed-000 cascade can
find the copy at all: it shares a title/full/head/tail key with an earlier doc of
its cluster and their cosine is > 0.9 (or the full-text key matches). It is
computed on the intended plain text, before any HTML wrapping; a miss on a copy
with ``seed_reachable: false`` is a limit of the seed algorithm, not a bug.

Scoring counts doc *pairs*. Everything is computed from group/cluster sizes
(contingency counts), so the cost is linear in the number of documents, never
quadratic over all documents.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# One derivation of ids and times, shared with the pipeline.
from crawldedup.ingest.records import canonical_time, derived_id

__all__ = [
    "NEGATIVE_KINDS",
    "QUARANTINE_REASONS",
    "TRANSFORMS",
    "Ratio",
    "Scores",
    "TruthRecord",
    "canonical_time",
    "derived_id",
    "false_positive_pairs_by_negative",
    "groups_from_verdicts",
    "load_quarantine_expected",
    "load_truth",
    "pairwise_scores",
    "recall_by_transform",
    "write_truth",
]

TRANSFORMS: tuple[str, ...] = (
    "exact_mirror",
    "source_line",
    "footer",
    "retitle",
    "whitespace_punct",
    "small_edit",
    "source_and_footer",
    "html_template",
)
NEGATIVE_KINDS: tuple[str, ...] = (
    "generic_title",
    "shared_boilerplate",
    "short_text",
    "template_page",
)
QUARANTINE_REASONS: tuple[str, ...] = (
    "bad_json",
    "no_text",
    "wrong_type",
    "too_large",
    "duplicate_id",
)


@dataclass(frozen=True)
class TruthRecord:
    """What one valid input record really is."""

    id: str
    day: str
    url: str
    cluster: str
    transform: str
    negative: str | None = None
    lang: str | None = None
    fetched_at: str | None = None
    file: str | None = None
    seed_reachable: bool | None = None

    @property
    def is_original(self) -> bool:
        """True for originals (including hard negatives)."""
        return self.transform == "original"


def write_truth(path: Path, records: Iterable[TruthRecord]) -> int:
    """Write ``records`` as JSON Lines; returns how many were written."""
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(asdict(rec), ensure_ascii=False, sort_keys=False) + "\n")
            n += 1
    return n


def load_truth(path: Path | str) -> dict[str, TruthRecord]:
    """Read ``truth.jsonl`` into ``{id: TruthRecord}``; unknown extra keys are ignored."""
    fields = set(TruthRecord.__dataclass_fields__)
    out: dict[str, TruthRecord] = {}
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            data: dict[str, Any] = json.loads(line)
            rec = TruthRecord(**{k: v for k, v in data.items() if k in fields})
            if rec.id in out:
                raise ValueError(f"duplicate id in truth file: {rec.id}")
            out[rec.id] = rec
    return out


def load_quarantine_expected(path: Path | str) -> dict[str, Any]:
    """Read ``quarantine_expected.json``: ``{"by_day": {day: {reason: n}}, "total": {...}}``."""
    with Path(path).open(encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def groups_from_verdicts(lines: Iterable[str]) -> dict[str, str]:
    """``{id: group}`` from ``crawldedup verdicts`` JSON Lines (days may be concatenated)."""
    out: dict[str, str] = {}
    for line in lines:
        if line.strip():
            data = json.loads(line)
            out[str(data["id"])] = str(data["group"])
    return out


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class Scores:
    """Pairwise precision/recall of predicted groups against true clusters.

    ``judged``: predicted ids found in the truth; ``unknown``: predicted ids not in
    the truth (ignored for pairs); ``missing``: truth ids with no prediction (their
    true pairs count as false negatives).
    """

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    judged: int = 0
    unknown: int = 0
    missing: int = 0


@dataclass(frozen=True)
class Ratio:
    """``hits`` out of ``total``; ``value`` is 1.0 for an empty total."""

    hits: int
    total: int

    @property
    def value(self) -> float:
        """hits / total, or 1.0 when there is nothing to find."""
        return self.hits / self.total if self.total else 1.0


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def _judged_groups(
    predicted_group: Mapping[str, str], truth: Mapping[str, TruthRecord]
) -> dict[str, list[TruthRecord]]:
    groups: dict[str, list[TruthRecord]] = defaultdict(list)
    for doc, group in predicted_group.items():
        rec = truth.get(doc)
        if rec is not None:
            groups[group].append(rec)
    return groups


def pairwise_scores(predicted_group: Mapping[str, str], truth: Mapping[str, TruthRecord]) -> Scores:
    """Score ``predicted_group`` (doc id -> predicted group id) against ``truth``.

    A predicted pair is two judged docs with the same group; a true pair is two
    truth docs with the same cluster. Pass the truth restricted to the scope you
    judged (e.g. days 1-2 only): every truth doc is expected to be judged, and the
    true pairs of a doc that was not judged count as false negatives.

    precision = tp / predicted pairs (1.0 when nothing was paired), recall =
    tp / true pairs (1.0 when there are none), f1 their harmonic mean (0.0 when
    both are 0). Computed from contingency counts: O(number of docs).
    """
    groups = _judged_groups(predicted_group, truth)
    predicted_pairs = 0
    tp = 0
    for members in groups.values():
        predicted_pairs += _pairs(len(members))
        # True positives: pairs agreeing on both the group and the cluster.
        for count in Counter(rec.cluster for rec in members).values():
            tp += _pairs(count)
    true_pairs = sum(_pairs(n) for n in Counter(rec.cluster for rec in truth.values()).values())
    fp = predicted_pairs - tp
    fn = true_pairs - tp
    precision = tp / predicted_pairs if predicted_pairs else 1.0
    recall = tp / true_pairs if true_pairs else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    judged = sum(len(m) for m in groups.values())
    return Scores(
        precision=precision,
        recall=recall,
        f1=f1,
        tp=tp,
        fp=fp,
        fn=fn,
        judged=judged,
        unknown=len(predicted_group) - judged,
        missing=sum(1 for doc in truth if doc not in predicted_group),
    )


def recall_by_transform(
    predicted_group: Mapping[str, str], truth: Mapping[str, TruthRecord]
) -> dict[str, Ratio]:
    """Per transform: how many copies landed in the same predicted group as their original.

    Only non-original truth docs count. A copy that was not judged is a miss. If
    the original itself was not judged (e.g. only a later day's verdicts were
    passed), its group is taken to be its own id: the pipeline names a group after
    its earliest doc, which for a whole cluster is the original.
    Every transform in ``TRANSFORMS`` is present in the result.
    """
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for rec in truth.values():
        if rec.is_original:
            continue
        totals[rec.transform] += 1
        group = predicted_group.get(rec.id)
        if group is not None and group == predicted_group.get(rec.cluster, rec.cluster):
            hits[rec.transform] += 1
    names = list(TRANSFORMS) + sorted(t for t in totals if t not in TRANSFORMS)
    return {t: Ratio(hits[t], totals[t]) for t in names}


def false_positive_pairs_by_negative(
    predicted_group: Mapping[str, str], truth: Mapping[str, TruthRecord]
) -> dict[str, int]:
    """Wrongly merged pairs (same predicted group, different cluster) per hard-negative kind.

    A pair is counted under every negative kind one of its two docs has, and under
    ``"none"`` when neither doc is a hard negative; so the values can sum to more
    than the total false positives. Counted per group from sizes:
    pairs with >= 1 doc of kind k = C(n, 2) - C(n - n_k, 2), minus the same within
    each cluster, which leaves the cross-cluster ones.
    """
    out: dict[str, int] = {k: 0 for k in NEGATIVE_KINDS}
    out["none"] = 0
    for members in _judged_groups(predicted_group, truth).values():
        n = len(members)
        if n < 2:
            continue
        per_kind: Counter[str] = Counter()
        per_cluster: Counter[str] = Counter()
        per_cluster_kind: Counter[tuple[str, str]] = Counter()
        for rec in members:
            kind = rec.negative or "none"
            per_kind[kind] += 1
            per_cluster[rec.cluster] += 1
            per_cluster_kind[(rec.cluster, kind)] += 1
        for kind in list(NEGATIVE_KINDS) + sorted(k for k in per_kind if k not in out):
            n_k = per_kind[kind]
            if not n_k:
                continue
            touching = _pairs(n) - _pairs(n - n_k)
            same = sum(
                _pairs(m) - _pairs(m - per_cluster_kind[(c, kind)]) for c, m in per_cluster.items()
            )
            out[kind] = out.get(kind, 0) + touching - same
        # Pairs of two non-negative docs from different clusters.
        plain = per_kind["none"]
        same_plain = sum(_pairs(per_cluster_kind[(c, "none")]) for c in per_cluster)
        out["none"] += _pairs(plain) - same_plain
    return out
