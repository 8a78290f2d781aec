"""The day's key rows cut from work/docs in pyarrow (day_keys.key_rows, what a probe task
reads itself) are the rows Spark's explode_keys makes: the same rows, each document's
keys of a rule in the same order (the first key row of a rule to find a candidate is the
one kept)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from crawldedup.pipeline.day_keys import explode_keys, key_rows
from crawldedup.rules import Rule

SCHEMA = (
    "id string, fetched_at string, simhash string, title_key string, content_key string, "
    "head_key string, tail_key string, simhash_keys array<string>, lsh_keys array<string>, "
    "paragraph_keys array<string>"
)


def _doc(i: int, **over: Any) -> dict[str, Any]:
    doc = {
        "id": f"d{i}",
        "fetched_at": f"2026-11-01T0{i}",
        "simhash": f"{i:016x}",
        "title_key": f"t{i % 2}",
        "content_key": f"c{i}",
        "head_key": f"h{i}",
        "tail_key": f"e{i}",
        "simhash_keys": [f"s{i}.{b}" for b in range(4)],
        "lsh_keys": [f"l{(i + b) % 3}.{b}" for b in range(5)] + [f"o{i}.own"],
        "paragraph_keys": [f"p{i}.{n}" for n in range(i % 3)],
    }
    return {**doc, **over}


def test_key_rows_are_explode_keys_rows_in_the_same_order(spark: Any) -> None:
    docs = [
        _doc(1),
        _doc(2, title_key=None, paragraph_keys=[]),
        _doc(3, lsh_keys=[], tail_key=None),
        _doc(4),
    ]
    rules = [r for r in Rule if r is not Rule.PARAGRAPH] + [Rule.PARAGRAPH]
    got = key_rows(pa.Table.from_pylist(docs), rules).to_pylist()
    want = [r.asDict() for r in explode_keys(spark.createDataFrame(docs, SCHEMA), rules).collect()]

    def order(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
        out: dict[tuple[str, str], list[str]] = {}
        for r in rows:
            out.setdefault((r["id"], r["rule"]), []).append(r["key"])
        return out

    assert sorted(got, key=str) == sorted(want, key=str)
    assert order(got) == order(want)
    assert ("d2", "title") not in order(got) and ("d2", "paragraph") not in order(got)
    assert key_rows(pa.Table.from_pylist(docs), []).num_rows == 0
