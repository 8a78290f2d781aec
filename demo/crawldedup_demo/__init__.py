"""Deterministic sample crawls with known truth, and scoring of dedup groups against it.

>>> from crawldedup_demo import generate_sample, load_truth, pairwise_scores
>>> summary = generate_sample(Path("/tmp/sample"))            # doctest: +SKIP
>>> truth = load_truth(summary.truth_path)                      # doctest: +SKIP
>>> pairwise_scores({doc_id: group_id, ...}, truth).f1          # doctest: +SKIP
"""

from crawldedup_demo.generator import DaySummary, SampleSummary, generate_sample
from crawldedup_demo.truth import (
    NEGATIVE_KINDS,
    QUARANTINE_REASONS,
    TRANSFORMS,
    Ratio,
    Scores,
    TruthRecord,
    canonical_time,
    derived_id,
    false_positive_pairs_by_negative,
    groups_from_verdicts,
    load_quarantine_expected,
    load_truth,
    pairwise_scores,
    recall_by_transform,
    write_truth,
)

__all__ = [
    "NEGATIVE_KINDS",
    "QUARANTINE_REASONS",
    "TRANSFORMS",
    "DaySummary",
    "Ratio",
    "SampleSummary",
    "Scores",
    "TruthRecord",
    "canonical_time",
    "derived_id",
    "false_positive_pairs_by_negative",
    "generate_sample",
    "groups_from_verdicts",
    "load_quarantine_expected",
    "load_truth",
    "pairwise_scores",
    "recall_by_transform",
    "write_truth",
]
