"""The Spark SQL decision gives every document the verdict the cascade's definition gives."""

from __future__ import annotations

import random
from dataclasses import astuple

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import BooleanType, DoubleType, IntegerType, StringType

from crawldedup.config import RULES
from crawldedup.core.cascade import UNIQUE, Candidate, Decision, Policy, decide
from crawldedup.pipeline.decisions import decide_all
from crawldedup.pipeline.schemas import _s

SCORED = _s(
    ("id", StringType(), False),
    # the fields of a Candidate, in its order
    ("cand_id", StringType(), False),
    ("cand_fetched_at", StringType(), False),
    ("rule", StringType(), False),
    ("similarity", DoubleType(), True),
    ("hamming", IntegerType(), True),
    ("jaccard", DoubleType(), True),
    ("containment", DoubleType(), True),
    ("smaller_shingles", DoubleType(), True),
    ("shorter_chars", IntegerType(), True),
    ("editions", BooleanType(), True),
    ("shared_chars", IntegerType(), True),
    ("cand_chars", IntegerType(), True),
    ("paragraph_size", IntegerType(), True),
    ("paragraph_edges", IntegerType(), True),
)


def _random_candidates(rng: random.Random, n_docs: int) -> dict[str, list[Candidate]]:
    """Documents with 0-6 candidates each, drawn so that every branch is hit: ties in
    fetched_at, one candidate under several rules, values on and around the bars,
    unknown measures, unknown lengths, editions on either side of their bars."""
    near = [0.0, 0.5, 0.69, 0.7, 0.71, 0.89, 0.9, 0.91, 0.95, 0.97, 1.0]
    out: dict[str, list[Candidate]] = {}
    for i in range(n_docs):
        cands = []
        # As in the stage: one score per (document, candidate), whatever rules found it.
        for cand in rng.sample([f"c{k}" for k in range(10)], rng.randint(0, 5)):
            fetched = f"2026-11-0{rng.randint(1, 3)}T0{rng.randint(0, 1)}:00:00Z"
            measures = (
                rng.choice(near),
                rng.choice([None, 0, 2, 3, 4, 9]),
                rng.choice([None, *near]),
                rng.choice([None, *near]),
                rng.choice([None, 20.0, 149.0, 150.0, 400.0]),
                rng.choice([None, 100, 299, 300, 2000]),
                rng.random() < 0.3,
            )
            for rule in rng.sample(RULES, rng.randint(1, 2)):
                # Rule paragraph's shared paragraph lengths, around the excerpt bars.
                shared = rng.choice([None, 0, 59, 60, 61, 180, 299, 300, 2000])
                shared = shared if rule == "paragraph" else None
                # The candidate's length: unknown, shorter than the document, around twice
                # the shorter's (the excerpt's length bar), or much longer.
                shorter = measures[5]
                cand_chars = rng.choice([None, 50, *((shorter * f) for f in (1, 2, 3) if shorter)])
                # The document's paragraph size (unknown, 0, about its length, three times
                # it: Chinese) and its edge lines' (none, small, around the shared size).
                size = rng.choice([None, 0, shorter, 3 * shorter if shorter else 90])
                edges = rng.choice([None, 0, 20, 59, 60, 80, 180, 300])
                cands.append(
                    Candidate(cand, fetched, rule, *measures, shared, cand_chars, size, edges)
                )
        out[f"d{i}"] = cands
    return out


POLICIES = [
    Policy(),
    Policy(profile="seed"),
    Policy(profile="seed", threshold=0.7, max_hamming=3, simhash_min_jaccard=0.5),
    Policy(min_jaccard=0.5, min_containment=0.7, short_shingles=0),
    Policy(editions=False),
    Policy(edition_min_jaccard=0.9),
    Policy(excerpt_min_share=0.3, excerpt_min_chars=300),
    Policy(excerpt_max_length_share=0.9),
    Policy(excerpt_min_share=0.5, excerpt_min_chars=20),
]


def _policy_id(p: Policy) -> str:
    return (
        f"{p.profile}-{p.min_jaccard}-{p.editions}-{p.edition_min_jaccard}-{p.excerpt_min_share}"
        f"-{p.excerpt_max_length_share}"
    )


@pytest.mark.parametrize("policy", POLICIES, ids=_policy_id)
@pytest.mark.parametrize("rules", [RULES, ("title", "simhash", "head"), ("paragraph", "lsh")])
def test_sql_decisions_equal_the_definition(
    spark: SparkSession, policy: Policy, rules: tuple[str, ...]
) -> None:
    docs = _random_candidates(random.Random(POLICIES.index(policy) * 10 + len(rules)), 400)
    rows = [(d, *astuple(c)) for d, cands in docs.items() for c in cands]
    got = {
        r["id"]: Decision(r["verdict"], r["rule"], r["duplicate_of"], r["similarity"], r["measure"])
        for r in decide_all(spark.createDataFrame(rows, SCORED), policy, rules).collect()
    }
    for doc, cands in docs.items():
        want = decide(cands, policy, rules)
        assert got.get(doc, UNIQUE) == want, (doc, cands)
