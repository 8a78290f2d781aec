"""Relevance ranking, link ranking and the labelled topic generator."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from crawldedup.relevance.library import load_library, parse_library
from crawldedup.relevance.links import LinkCandidate, rank_links
from crawldedup.relevance.page import split_html
from crawldedup.relevance.scoring import Scorer, default_tokenizer, score_topic
from crawldedup_demo.topics import TOPICS, contains_keyword, generate_pages, write_topic_day

ROOT = Path(__file__).resolve().parents[2]

LIBRARY = """\
topics:
  football:
    keywords: [足球]
    synonyms:
      - {pattern: "足球", weight: 1.0}
      - {pattern: "英超|中超|欧冠", weight: 1.5}
      - {pattern: "进球|射门|门将|前锋|主教练", weight: 1.2}
    antonyms:
      - {pattern: "彩票|投注|赔率|兑奖", weight: 1.5}
"""

ON_TOPIC = """<html><head><title>英超第10轮：主队两球取胜</title>
<meta name="description" content="英超比赛报道"></head><body>
<h1>英超第10轮：主队两球取胜</h1>
<p>比赛第20分钟，前锋禁区内射门得分，第70分钟再次进球。门将多次扑救，主教练赛后表示球队
防守还需加强。这场足球比赛吸引了五万名球迷。</p>
<p>赛后积分榜上主队升至第三，下一轮将在客场迎战欧冠球队。</p></body></html>"""

STUFFED = """<html><head><title>足球彩票 足球 足球 本期开奖</title>
<meta name="keywords" content="足球,足球,足球,足球,足球彩票"></head><body>
<h1>足球彩票销量创新高</h1>
<p>本期足球彩票销售额突破十亿元，足球彩票投注站排起长队。彩民在投注站购买足球彩票，
足球彩票奖池累计五亿元，足球彩票兑奖需在六十天内完成，赔率调整后足球彩票更受欢迎。</p>
<p>足球足球足球，彩票中心提醒彩民理性投注。</p></body></html>"""

OTHER = [
    "<title>红烧肉的做法</title><p>五花肉焯水后切块，加入生抽老抽和冰糖小火慢炖。</p>",
    "<title>古镇一日游</title><p>景区门票八十元，建议早上到达，避开游客高峰，夜景很美。</p>",
    "<title>沪指收评</title><p>今日沪指上涨，成交额放大，券商板块走强，北向资金净买入。</p>",
]


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return Scorer(parse_library(LIBRARY), default_tokenizer())


def _scores(scorer: Scorer, mode: str) -> dict[str, float]:
    pages = {"on": ON_TOPIC, "stuffed": STUFFED} | {f"o{i}": h for i, h in enumerate(OTHER)}
    stats = {k: scorer.stats(split_html(h, "http://x.example/")) for k, h in pages.items()}
    df = Counter(key for s in stats.values() for key in scorer.df_keys(s))
    model = scorer.models["football"]
    return {
        k: score_topic(s, model, mode, len(pages), lambda key: df[key]).score
        for k, s in stats.items()
    }


def test_semantic_ranking_puts_the_on_topic_page_above_the_keyword_stuffed_one(
    scorer: Scorer,
) -> None:
    semantic = _scores(scorer, "semantic")
    assert semantic["on"] > 0.3
    assert semantic["stuffed"] < 0.0  # the antonym atoms pull it below zero
    # Keyword TF-IDF alone, tag-weighted or not, is fooled by the stuffing: the seed's case
    # for a semantic library.
    for mode in ("tfidf", "tag_tfidf"):
        kw = _scores(scorer, mode)
        assert kw["stuffed"] > kw["on"], mode
    assert all(semantic[f"o{i}"] == 0.0 for i in range(3))  # no shared word, no atom


def test_tag_weighting_raises_a_keyword_in_the_title(scorer: Scorer) -> None:
    in_title = "<title>足球</title><p>今天 天气 很好 我们 去 公园 散步 看 花</p>"
    in_body = "<title>天气</title><p>今天 足球 很好 我们 去 公园 散步 看 花</p>"
    pages = {"t": in_title, "b": in_body}
    stats = {k: scorer.stats(split_html(h)) for k, h in pages.items()}
    df = Counter(key for s in stats.values() for key in scorer.df_keys(s))
    model = scorer.models["football"]

    def score(k: str, mode: str) -> float:
        return score_topic(stats[k], model, mode, 2, lambda key: df[key]).score

    assert score("t", "tag_tfidf") > score("b", "tag_tfidf")
    assert score("t", "tfidf") == pytest.approx(score("b", "tfidf"), rel=0.25)


def test_anchor_scores_follow_the_topic(scorer: Scorer) -> None:
    df = Counter[str]()
    assert scorer.anchor_score("英超前锋进球", "football", 10, lambda k: df[k]) > 0.3
    assert scorer.anchor_score("足球彩票投注", "football", 10, lambda k: df[k]) < 0
    assert scorer.anchor_score("红烧肉的做法", "football", 10, lambda k: df[k]) == 0.0


def test_link_ranking_keeps_the_best_occurrence_and_counts_pages() -> None:
    ranked = rank_links(
        [
            LinkCandidate("https://a/1", "x", "p2", 0.4, 0.2),  # priority 0.3
            LinkCandidate("https://a/1", "y", "p1", 0.6, 0.6),  # 0.6: the best occurrence
            LinkCandidate("https://a/2", "z", "p3", 0.8, -0.5),  # 0.4: negative anchor → 0
            LinkCandidate("https://a/3", "w", "p3", 0.8, 0.0),  # 0.4, tie: fewer pages
            LinkCandidate("https://a/3", "w", "p3", 0.8, 0.0),
        ]
    )
    assert [(r.rank, r.href, r.anchor, r.from_page, r.linking_pages) for r in ranked] == [
        (1, "https://a/1", "y", "p1", 2),
        (2, "https://a/2", "z", "p3", 1),
        (3, "https://a/3", "w", "p3", 1),
    ]
    assert ranked[0].priority == pytest.approx(0.6)


def test_generator_labels_are_what_they_claim(tmp_path: Path) -> None:
    pages = generate_pages(seed=3, per_topic=12, unrelated=20)
    assert len(pages) == 3 * 12 + 3 * 6 + 20
    assert pages == generate_pages(seed=3, per_topic=12, unrelated=20)  # deterministic
    for p in pages:
        for t in TOPICS:
            label = p.label_for[t.name]
            if label == "keyword_off":
                assert contains_keyword(p, t.name), (p.id, t.name)
            elif label == "unrelated":
                assert not contains_keyword(p, t.name), (p.id, t.name)
    counts = Counter(lbl for p in pages for lbl in p.label_for.values())
    assert counts == {"on": 36, "keyword_off": 18, "unrelated": 3 * 74 - 54}
    assert generate_pages(seed=3, per_topic=12, unrelated=20, day="2026-11-05")[0].id == (
        "t20261105-00000"
    )
    folder = write_topic_day(tmp_path, "2026-11-05", seed=3, per_topic=12, unrelated=20)
    assert (folder / "part-00000.jsonl").read_text().count("\n") == len(pages)
    assert (tmp_path / "topics_truth.jsonl").read_text().count("\n") == 3 * len(pages)


def test_example_library_separates_a_generated_day() -> None:
    """The whole chain on a small generated day: on-topic pages rank above keyword traps."""
    scorer = Scorer(load_library(ROOT / "config" / "topics.example.yaml"), default_tokenizer())
    pages = generate_pages(seed=5, per_topic=10, unrelated=10)
    stats = [scorer.stats(split_html(p.html, p.url)) for p in pages]
    df = Counter(k for s in stats for k in scorer.df_keys(s))
    on, off = [], []
    for p, s in zip(pages, stats, strict=True):
        for ts in scorer.score(s, len(pages), lambda k: df[k], "semantic"):
            label = p.label_for[ts.topic]
            (on if label == "on" else off).append(ts.score)
    # Not a perfect separation is asserted: most on-topic pages above most others.
    on.sort()
    off.sort()
    assert on[len(on) // 10] > off[-len(off) // 20]
