"""Spark schemas of the intermediate datasets under ``work/dt=DAY/``."""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)


def _s(*fields: tuple[str, object, bool]) -> StructType:
    return StructType([StructField(n, t, nullable) for n, t, nullable in fields])  # type: ignore[arg-type]


DOCS = _s(
    ("id", StringType(), False),
    ("url", StringType(), False),
    ("title", StringType(), False),
    ("fetched_at", StringType(), False),
    ("day", StringType(), False),
    ("source", StringType(), False),
    ("position", LongType(), False),
    ("title_key", StringType(), True),
    ("content_key", StringType(), True),
    ("head_key", StringType(), True),
    ("tail_key", StringType(), True),
    ("simhash", StringType(), False),
    ("simhash_keys", ArrayType(StringType(), False), False),
    ("lsh_keys", ArrayType(StringType(), False), False),
    ("paragraph_keys", ArrayType(StringType(), False), False),
    # Rule paragraph's sizes of the text and of its edge lines (core.fingerprint.paragraphs);
    # 0 when the rule is off.
    ("paragraph_size", IntegerType(), True),
    ("paragraph_edges", IntegerType(), True),
    ("sketch", StringType(), False),
    # The sketch of its own text, without its host's frequent lines (measures between
    # two pages of one host); null when it has none.
    ("own_sketch", StringType(), True),
    ("tf", StringType(), False),
    ("raw_md5", StringType(), False),
    ("length", IntegerType(), False),
    ("has_fetched_at", BooleanType(), False),
    # Nothing but its host's boilerplate lines: judged by its exact key alone.
    ("boilerplate_only", BooleanType(), True),
    ("raw", StringType(), True),
)

QUARANTINE = _s(
    ("source", StringType(), False),
    ("position", LongType(), False),
    ("reason", StringType(), False),
    ("detail", StringType(), False),
    ("raw", StringType(), True),
)

LOOKUPS = _s(
    ("id", StringType(), False),
    ("fetched_at", StringType(), False),
    ("rule", StringType(), False),
    ("key", StringType(), False),
    ("n_other", IntegerType(), False),  # postings of other days already in the row
    ("cand_id", StringType(), True),  # null: a key-info row without a candidate
    ("cand_fetched_at", StringType(), True),
    ("cand_day", StringType(), True),
)

CANDIDATES = _s(
    ("id", StringType(), False),
    ("fetched_at", StringType(), False),
    ("rule", StringType(), False),
    ("cand_id", StringType(), False),
    ("cand_fetched_at", StringType(), False),
    ("cand_day", StringType(), False),
    # Rule paragraph: the normalized length of the shared paragraph (the key's); after
    # earliest_per_rule, of every paragraph the pair shares. Null for other rules.
    ("shared_chars", IntegerType(), True),
)

# CANDIDATES before earliest_per_rule ranks them: whether the key that found the pair is
# the page's own-text key (such candidates are ranked first of their rule's).
RANKED_CANDIDATES = _s(
    *((f.name, f.dataType, f.nullable) for f in CANDIDATES.fields),
    ("own_text", BooleanType(), False),
)

PAIR_SCORES = _s(
    ("id", StringType(), False),
    ("cand_id", StringType(), False),
    ("similarity", DoubleType(), True),  # the cosine, null when not computed
    ("hamming", IntegerType(), True),  # SimHash distance, null when unknown
    ("jaccard", DoubleType(), True),  # term-shingle Jaccard estimate
    ("containment", DoubleType(), True),  # share of the smaller's shingles in the larger
    ("smaller_shingles", DoubleType(), True),  # distinct shingles of the smaller document
    ("shorter_chars", IntegerType(), True),  # length of the shorter, null when unknown
    ("editions", BooleanType(), True),  # URLs differ only in versions (core.editions)
    ("cand_chars", IntegerType(), True),  # the candidate's length, null when unknown
)

# The candidate side of an earlier day's candidate pair, read from the store.
CANDIDATE_SIDE = _s(
    ("cand_id", StringType(), False),
    ("cand_tf", StringType(), True),  # null when the document row is gone
    ("cand_simhash", StringType(), True),
    ("cand_sketch", StringType(), False),
    ("cand_length", IntegerType(), True),  # null in rows stored before the length was
    ("cand_url", StringType(), True),  # null when the document row is gone
    ("cand_own", StringType(), True),  # its own text's sketch; null when none
)

TYPES = _s(("id", StringType(), False), ("type", StringType(), False))
