"""``score_batch`` on Arrow batches shaped as the JVM hands them over (``arrow_inputs``):
with term vectors it gives the per-pair cosine, without them a null cosine and the very
same other measures."""

from __future__ import annotations

import datetime as dt
import json
import random

import pyarrow as pa

from crawldedup.config import Config
from crawldedup.core.fingerprint import hamming64, sketch_containment, sketch_jaccard
from crawldedup.core.similarity import cosine
from crawldedup.ingest.records import fingerprint_fields
from crawldedup.pipeline.pair_scoring import score_batch
from crawldedup.sample import corpus

_VECTOR = pa.map_(pa.string(), pa.float64())


def _documents(n: int) -> list[dict[str, object]]:
    rng, cfg = random.Random(7), Config()
    out = []
    for i in range(n):
        lang = "zh" if i % 3 else "en"
        text = corpus.compose_article(rng, lang, dt.date(2026, 11, 1), target=600).text
        if i % 4 == 0 and out:  # a repost of the previous article, so some pairs are close
            text = "转载自东方日报：" + str(out[-1]["text"])
        out.append({"text": text, **fingerprint_fields(f"t{i}", text, cfg)})
    return out


def _batch(
    pairs: list[tuple[dict[str, object], dict[str, object]]], with_tf: bool
) -> pa.RecordBatch:
    def side(prefix: str, pick: int) -> dict[str, pa.Array]:
        docs = [p[pick] for p in pairs]
        cols = {
            f"{prefix}simhash": pa.array([d["simhash"] for d in docs]),
            f"{prefix}sketch": pa.array([bytes.fromhex(str(d["sketch"])) for d in docs]),
            f"{prefix}length": pa.array([d["length"] for d in docs], pa.int32()),
        }
        if with_tf:
            vectors = [list(json.loads(str(d["tf"])).items()) for d in docs]
            cols = {f"{prefix}tf": pa.array(vectors, _VECTOR), **cols}
        return cols

    ids = {"id": pa.array([f"a{i}" for i in range(len(pairs))])}
    ids["cand_id"] = pa.array([f"b{i}" for i in range(len(pairs))])
    a, b = side("", 0), side("cand_", 1)
    names = ["id", "cand_id"]
    names += [c for pair in zip(a, b, strict=True) for c in pair]
    columns = {**ids, **a, **b}
    return pa.RecordBatch.from_arrays([columns[n] for n in names], names=names)


def test_cosine_only_with_term_vectors_and_nothing_else_moves() -> None:
    docs = _documents(40)
    pairs = [(docs[i], docs[i - 1]) for i in range(4, len(docs), 4)]  # reposts
    pairs += [(docs[i], docs[j]) for i in range(len(docs)) for j in range(i) if (i + j) % 5 == 0]
    k = Config().simhash.sketch_size
    with_tf = score_batch(_batch(pairs, True), k).to_pydict()
    without = score_batch(_batch(pairs, False), k).to_pydict()
    assert without["similarity"] == [None] * len(pairs)
    for name in ("id", "cand_id", "hamming", "jaccard", "containment", "smaller_shingles"):
        assert without[name] == with_tf[name], name
    assert without["shorter_chars"] == with_tf["shorter_chars"]
    close = 0
    for i, (a, b) in enumerate(pairs):
        want = cosine(json.loads(str(a["tf"])), json.loads(str(b["tf"])))
        assert with_tf["similarity"][i] == want
        assert with_tf["jaccard"][i] == sketch_jaccard(str(a["sketch"]), str(b["sketch"]), k)
        assert with_tf["containment"][i] == sketch_containment(
            str(a["sketch"]), str(b["sketch"]), k
        )
        assert with_tf["hamming"][i] == hamming64(
            int(str(a["simhash"]), 16), int(str(b["simhash"]), 16)
        )
        close += want > 0.9
    assert close >= 3  # the reposts: pairs near 1 are among them, not only unrelated ones
