"""The two ways of scoring a batch of pairs agree, and agree with the per-pair
definitions: ``pair_scoring.score_batch`` (both sides joined to every pair, with the
cosine, as the JVM hands them over) and ``pair_scoring.score_id_batch`` (pairs of ids,
sides read once), on real fingerprints of same-day and earlier-day pairs."""

from __future__ import annotations

import datetime as dt
import json
import random

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.config import Config
from crawldedup.core.editions import are_editions, edition_of
from crawldedup.core.fingerprint import hamming64, runs_sketch, sketch_containment, sketch_jaccard
from crawldedup.core.similarity import cosine
from crawldedup.ingest.records import fingerprint_fields
from crawldedup.pipeline import schemas
from crawldedup.pipeline.pair_scoring import score_batch, score_id_batch, sides_of

_VECTOR = pa.map_(pa.string(), pa.float64())
DAY = "2026-11-02"
Doc = dict[str, object]


def _documents(n: int, prefix: str) -> list[Doc]:
    from crawldedup_demo import corpus

    rng, cfg = random.Random(len(prefix) * 7 + n), Config()
    out: list[Doc] = []
    for i in range(n):
        lang = "zh" if i % 3 else "en"
        text = corpus.compose_article(rng, lang, dt.date(2026, 11, 1), target=600).text
        if i % 4 == 0 and out:  # a repost of the previous article, so some pairs are close
            text = "转载自东方日报：" + str(out[-1]["text"])
        if i == 5:
            text = "短"  # a sketch shorter than its shingle size
        # Pages of one docs site under three releases (editions of each other page by
        # page), and news pages whose paths name no version.
        if i % 2:
            url = f"https://docs.example.org/en/{('1.11', '2.2', 'latest')[i % 3]}/ref/p{i % 4}/"
        else:
            url = f"https://news.example.com/a/20261102/{prefix}{i}.html"
        fields = fingerprint_fields(f"t{i}", text, cfg)
        # Some pages have an own text (their host's frequent lines are not theirs): here
        # the text's first half, measured on its own.
        own = runs_sketch([text[: len(text) // 2]], cfg.simhash, cfg.lsh) if i % 3 == 1 else None
        out.append({"id": f"{prefix}{i}", "text": text, "url": url, **fields, "own_sketch": own})
    return out


def _joined_batch(pairs: list[tuple[Doc, Doc]]) -> pa.RecordBatch:
    """What ``arrow_inputs`` hands to Python: both sides on every pair."""

    def side(prefix: str, pick: int) -> dict[str, pa.Array]:
        docs = [p[pick] for p in pairs]
        return {
            f"{prefix}tf": pa.array(
                [list(json.loads(str(d["tf"])).items()) for d in docs], _VECTOR
            ),
            f"{prefix}simhash": pa.array([d["simhash"] for d in docs]),
            f"{prefix}sketch": pa.array([bytes.fromhex(str(d["sketch"])) for d in docs]),
            f"{prefix}length": pa.array([d["length"] for d in docs], pa.int32()),
            f"{prefix}url": pa.array([str(d["url"]) for d in docs]),
            ("cand_own" if prefix else "own_sketch"): pa.array(
                [bytes.fromhex(str(d["own_sketch"])) if d["own_sketch"] else None for d in docs],
                pa.binary(),
            ),
        }

    a, b = side("", 0), side("cand_", 1)
    columns = {
        "id": pa.array([str(x["id"]) for x, _ in pairs]),
        "cand_id": pa.array([str(y["id"]) for _, y in pairs]),
        **{n: c for pair in zip(a.items(), b.items(), strict=True) for n, c in pair},
    }
    return pa.RecordBatch.from_pydict(columns)


def _sides_table(docs: list[Doc]) -> pa.Table:
    return pa.table(
        {
            "id": [str(d["id"]) for d in docs],
            "sketch": [str(d["sketch"]) for d in docs],
            "simhash": [str(d["simhash"]) for d in docs],
            "length": pa.array([d["length"] for d in docs], pa.int32()),
            "url": [str(d["url"]) for d in docs],
            "own_sketch": pa.array([d["own_sketch"] for d in docs], pa.string()),
        }
    )


def test_pairs_of_ids_score_as_joined_pairs_and_as_the_definitions() -> None:
    today, earlier = _documents(40, "d"), _documents(12, "e")
    pairs = [(today[i], today[i - 1]) for i in range(4, len(today), 4)]  # reposts
    pairs += [
        (a, b) for i, a in enumerate(today) for j, b in enumerate(today[:i]) if (i + j) % 5 == 0
    ]
    pairs += [(a, b) for a in today[::3] for b in earlier]  # earlier-day candidates
    k = Config().simhash.sketch_size
    joined = score_batch(_joined_batch(pairs), k).to_pydict()
    ids = pa.RecordBatch.from_pydict(
        {
            "id": [str(a["id"]) for a, _ in pairs],
            "cand_id": [str(b["id"]) for _, b in pairs],
            "cand_day": [DAY if str(b["id"]).startswith("d") else "2026-11-01" for _, b in pairs],
        }
    )
    sides = sides_of(_sides_table(today), _sides_table(earlier), k)
    by_id = score_id_batch(ids, DAY, sides, k, to_arrow_schema(schemas.PAIR_SCORES)).to_pydict()
    assert by_id["similarity"] == [None] * len(pairs)
    names = ("id", "cand_id", "hamming", "jaccard", "containment", "smaller_shingles", "editions")
    for name in names:
        assert by_id[name] == joined[name], name
    assert by_id["shorter_chars"] == joined["shorter_chars"]
    close = owns = 0
    for i, (a, b) in enumerate(pairs):
        sa, sb = str(a["sketch"]), str(b["sketch"])
        # An own text is what its page is measured on: the Jaccard of the own texts (or
        # whole pages), the best containment of an own text in the other's own or whole,
        # when the own texts share nothing (what the pages share is then lines their
        # hosts have on many pages), the latter only as far as the whole pages lie in
        # each other.
        oa, ob = str(a["own_sketch"] or sa), str(b["own_sketch"] or sb)
        want = cosine(json.loads(str(a["tf"])), json.loads(str(b["tf"])))
        assert joined["similarity"][i] == want
        assert joined["jaccard"][i] == sketch_jaccard(oa, ob, k)
        own = sketch_containment(oa, ob, k)
        cross = max(sketch_containment(oa, sb, k), sketch_containment(sa, ob, k))
        whole = sketch_containment(sa, sb, k)
        contained = max(own, cross) if own > 0 else min(cross, whole)
        assert joined["containment"][i] == contained
        owns += bool(a["own_sketch"] or b["own_sketch"])
        assert joined["hamming"][i] == hamming64(
            int(str(a["simhash"]), 16), int(str(b["simhash"]), 16)
        )
        assert joined["editions"][i] == are_editions(
            edition_of(str(a["url"])), edition_of(str(b["url"]))
        )
        close += joined["jaccard"][i] > 0.7
    assert close >= 3  # the reposts are among them, not only unrelated pairs
    assert 0 < owns < len(pairs)
    assert 0 < sum(joined["editions"]) < len(pairs)


def test_a_pair_with_an_unknown_side_is_left_out() -> None:
    today = _documents(6, "d")
    k = Config().simhash.sketch_size
    sides = sides_of(_sides_table(today), _sides_table([]), k)
    ids = pa.RecordBatch.from_pydict(
        {
            "id": ["d1", "d2", "gone", "d3"],
            "cand_id": ["d0", "e9", "d0", "d1"],
            "cand_day": [DAY, "2026-11-01", DAY, DAY],
        }
    )
    out = score_id_batch(ids, DAY, sides, k, to_arrow_schema(schemas.PAIR_SCORES)).to_pydict()
    assert list(zip(out["id"], out["cand_id"], strict=True)) == [("d1", "d0"), ("d3", "d1")]


def test_pages_whose_own_texts_share_nothing_are_not_contained_in_each_other() -> None:
    """Two help pages of one site with the site's standard headings, one on the site
    (where the headings are frequent: its own text is its saying) and a repost of
    another page on a second host (where they are not: its own text holds them): all
    they share is the headings, so their own texts share nothing and the containment is
    the whole pages', under the bar. A repost of the first page on that host holds its
    own text: contained. So is a saying on a host that reposts it again and again (there
    it is a frequent line, no own text): the whole page lies in the other."""
    from crawldedup.core.fingerprint import own_sketch_measures

    cfg = Config()
    sh, lsh = cfg.simhash, cfg.lsh
    headings = ["说明", "返回值：", "参数：", "相关条目", "返回目录", "参见", "常见问题汇总"]
    mine = "季康子问政于孔子。孔子对曰：“政者，正也。子帅以正，孰敢不正？”"
    other = "子曰：“朝闻道，夕死可矣。”"

    def sketch(*lines: str) -> str:
        return runs_sketch(["\n".join(lines)], sh, lsh)

    page, page_own = sketch(*headings, mine), sketch(mine)
    elsewhere = sketch(*headings, other, "（来源：云帆软件帮助中心）")
    elsewhere_own = sketch(*headings)  # its host has the saying and the source line often
    assert sketch_containment(elsewhere_own, page) == 1.0  # the headings, whole
    contained = own_sketch_measures(page, page_own, elsewhere, elsewhere_own)[1]
    assert contained == sketch_containment(page, elsewhere) < 0.9
    repost = sketch(*headings, mine, "（来源：云帆软件帮助中心）")
    assert own_sketch_measures(page, page_own, repost, repost)[1] == 1.0
    saying, credit = sketch(mine), sketch("——摘自星火知识库")
    assert own_sketch_measures(sketch(mine, "——摘自星火知识库"), credit, saying, saying)[1] == 1.0
