"""Seed 003's weighting formulas on hand-computed examples, and the HTML position split."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from crawldedup.core.similarity import cosine
from crawldedup.relevance.library import parse_library
from crawldedup.relevance.page import split_html, split_plain
from crawldedup.relevance.weighting import (
    atom_components,
    cascade_vector,
    idf,
    page_stats,
    stats_from_json,
    stats_to_json,
    tfidf_vector,
    twf,
)


def words(text: str) -> list[str]:
    return text.split()


def test_formula_5_weights_and_formula_4_6_twf() -> None:
    every = ["title", "meta", "heading", "anchor", "body"]  # Σ m(j) = 10+8+6+6+3 = 33
    assert twf(["title"], every) == pytest.approx(1 + 10 / 33)
    assert twf(["title", "anchor"], every) == pytest.approx(1 + 16 / 33)  # 1.4848…
    assert twf(["body"], every) == pytest.approx(1 + 3 / 33)
    assert twf(every, every) == 2.0  # everywhere: the top of [1, 2]
    assert twf([], every) == 1.0  # formula 6's second case
    assert twf(["heading"], ["heading", "body"]) == pytest.approx(1 + 6 / 9)


def test_formula_1_idf() -> None:
    assert idf(10, 5) == pytest.approx(math.log(2.01))  # 0.69813
    assert idf(10, 10) == pytest.approx(0.00995033, abs=1e-8)  # in every doc: small, > 0
    assert idf(0, 0) == pytest.approx(math.log(1.01))


def test_tag_weighted_tfidf_on_a_hand_computed_page() -> None:
    # Title "足球 新闻", body "足球 比赛 比赛": positions title (10) and body (3), Σ = 13.
    page = split_plain("足球 新闻", "足球 比赛 比赛")
    stats = page_stats(page, words)
    assert stats.present == ("title", "body")
    assert stats.counts == Counter({"足球": 2, "比赛": 2, "新闻": 1}) and stats.total == 5
    df = {"w|足球": 5, "w|新闻": 10, "w|比赛": 2}.__getitem__  # N = 10
    plain = tfidf_vector(stats, 10, df, tag_weighted=False)
    tagged = tfidf_vector(stats, 10, df, tag_weighted=True)
    # 足球: tf 2/5, idf ln(10/5 + .01) = 0.698135, Twf 1 + 13/13 = 2
    assert plain["足球"] == pytest.approx(0.279254, abs=1e-6)
    assert tagged["足球"] == pytest.approx(0.558508, abs=1e-6)
    # 新闻: tf 1/5, idf ln(1.01) = 0.0099503, Twf 1 + 10/13 = 1.769231
    assert tagged["新闻"] == pytest.approx(0.0035209, abs=1e-7)
    # 比赛: tf 2/5, idf ln(5.01) = 1.611436, Twf 1 + 3/13 = 1.230769
    assert tagged["比赛"] == pytest.approx(0.793322, abs=1e-6)
    # Against the keyword 足球 alone the cosine is 足球's share of the vector's length.
    assert cosine(tagged, {"足球": 1.0}) == pytest.approx(
        0.558508 / math.sqrt(0.558508**2 + 0.0035209**2 + 0.793322**2), abs=1e-5
    )


def test_formula_7_atom_component_and_dot_product() -> None:
    lib = parse_library("topics:\n  fb:\n    synonyms:\n      - {pattern: 足球, weight: 1.5}\n")
    atom = lib.topic("fb").synonyms[0]
    page = split_plain("足球 新闻", "足球 比赛 比赛")
    stats = page_stats(page, words, [atom])
    assert stats.atom_counts[atom.key] == 2 and stats.atom_positions[atom.key] == {"title", "body"}
    df = {f"a|fb|{atom.key}": 4}.__getitem__
    comp = atom_components(stats, "fb", [atom], 10, df)
    # Twf 2 · t_k/T = 2/5 · ln(10/4 + .01) = 0.920283 → 0.736226; C_j = f(k) · that.
    (value,) = comp.values()
    assert value == pytest.approx(0.736226, abs=1e-6)
    assert 1.5 * value == pytest.approx(1.104340, abs=1e-6)


def test_an_atom_is_counted_where_it_matches_on_folded_text() -> None:
    lib = parse_library("topics:\n  t:\n    synonyms:\n      - {pattern: laravel}\n")
    atom = lib.topic("t").synonyms[0]
    page = split_html(
        "<title>Ｌａｒａｖｅｌ tips</title><h2>x</h2><p>laravel and LARAVEL</p>", "http://a/"
    )
    stats = page_stats(page, words, [atom])
    assert stats.atom_counts[atom.key] == 3  # full width and upper case fold
    assert stats.atom_positions[atom.key] == {"title", "body"}
    assert stats_from_json(stats_to_json(stats)) == stats


def test_html_positions_and_links() -> None:
    page = split_html(
        '<html><head><title>T1</title><meta name="keywords" content="k1,k2">'
        '<meta property="og:title" content="ignored"><style>.x{}</style></head><body>'
        '<h1>H1 <a href="/in">A-in-H</a></h1><p>P1 <a href="b.html#top">A1</a> P2</p>'
        '<a href="mailto:x@y">M</a><script>var s</script><p>P3</p></body></html>',
        "https://site.example/dir/page.html",
    )
    assert page.texts == {
        "title": ["T1"],
        "meta": ["k1,k2"],
        "heading": ["H1", "A-in-H"],  # the heaviest tag around the text wins
        "anchor": ["A1", "M"],
        "body": ["P1", "P2", "P3"],
    }
    assert [(lk.href, lk.anchor) for lk in page.links] == [
        ("https://site.example/in", "A-in-H"),
        ("https://site.example/dir/b.html", "A1"),
    ]


def test_cascade_vector_weights_raw_tf_by_position_and_idf() -> None:
    tf = {"a": 3, "b": 1, "z": 2}
    where = {"a": {"title", "body"}, "b": {"body"}}
    df = {"c|a": 1, "c|b": 2, "c|z": 4}.__getitem__
    vec = cascade_vector(tf, where, ("title", "body"), 4, df)
    assert vec["a"] == pytest.approx(3 * 2.0 * math.log(4.01))
    assert vec["b"] == pytest.approx(1 * (1 + 3 / 13) * math.log(2.01))
    assert vec["z"] == pytest.approx(2 * 1.0 * math.log(1.01))  # not located: Twf 1
