"""What every end-to-end run of the sample crawl must show, whatever ran it (the command
line on either store, the DAG, the cluster): checks over ``crawldedup verdicts`` output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crawldedup.rules import RULES
from crawldedup.stage_registry import DEDUP_STAGES
from crawldedup_demo import TruthRecord, pairwise_scores

Verdicts = Mapping[str, Mapping[str, Any]]  # document id -> verdict line

VERDICT_FIELDS = {
    "id",
    "verdict",
    "rule",
    "duplicate_of",
    "similarity",
    "group",
    "type",
    "measure",
}
# The least value of each deciding measure under the default config.
MEASURE_FLOOR = {
    "exact": 1.0,
    "jaccard": 0.7,
    "containment": 0.9,
    "cosine": 0.9,
    "edition_jaccard": 1.0,
}
# What the sample plants on its second day (crawldedup_demo.generator).
DAY2_QUARANTINE = {"bad_json": 1, "duplicate_id": 1, "no_text": 1, "too_large": 1, "wrong_type": 1}
# The stages `crawldedup run` prints under the default configuration.
STAGE_NAMES = DEDUP_STAGES


def check_contract_verdicts(
    by_day: Mapping[str, Verdicts], truth: Mapping[str, TruthRecord]
) -> None:
    """One verdict per input document of each day, each as the README's contract says."""
    for day, found in by_day.items():
        assert set(found) == {i for i, t in truth.items() if t.day == day}, day
        for r in found.values():
            assert set(r) == VERDICT_FIELDS, r
            assert r["verdict"] in ("unique", "duplicate"), r
            if r["verdict"] == "unique":
                assert r["duplicate_of"] is None and r["rule"] is None, r
                # "edition": an edition of it was kept apart by the editions' bar
                assert r["measure"] in (None, "edition"), r
            else:
                assert r["rule"] in RULES, r
                assert r["type"] in ("full", "content", "partial", "near"), r
                assert r["duplicate_of"] != r["id"], r
                assert r["similarity"] >= MEASURE_FLOOR[r["measure"]], r


def check_planted_reposts(by_day: Mapping[str, Verdicts], truth: Mapping[str, TruthRecord]) -> None:
    """Mirrors found as exact copies of their original, cross-day reposts grouped under the
    earlier original, hard negatives left alone, precision and recall on the planted truth."""
    days = set(by_day)
    allv = {i: r for found in by_day.values() for i, r in found.items()}
    mirrors = [t for t in truth.values() if t.transform == "exact_mirror" and t.day in days]
    assert mirrors
    for t in mirrors:
        r = allv[t.id]
        # Found by the exact rule, or (when the boilerplate pass removed a line on one
        # host and not on the other, so the cleaned texts differ) typed a full copy.
        assert r["group"] == t.cluster, (t, r)
        assert r["rule"] == "content_md5" or r["type"] == "full", (t, r)
    cross = [
        t
        for t in truth.values()
        if t.day in days
        and t.transform != "original"
        and truth[t.cluster].day < t.day
        and t.seed_reachable
    ]
    if len(days) > 1:
        assert cross
    assert all(allv[t.id]["group"] == t.cluster for t in cross)
    negatives = [
        t
        for t in truth.values()
        if t.day in days and t.negative in ("shared_boilerplate", "generic_title")
    ]
    assert negatives
    for t in negatives:
        assert allv[t.id]["group"] == t.cluster, (t, allv[t.id])
    seen = {i: t for i, t in truth.items() if t.day in days}
    scores = pairwise_scores({i: r["group"] for i, r in allv.items()}, seen)
    assert scores.precision >= 0.99 and scores.recall >= 0.95, scores


def check_progress_lines(stderr: str) -> None:
    """``crawldedup run`` prints one line per stage and none of Spark's log noise."""
    for stage in STAGE_NAMES:
        assert f" {stage} " in stderr, stderr[-2000:]
    assert "INFO" not in stderr and "WARN TaskSetManager" not in stderr, stderr[-2000:]
