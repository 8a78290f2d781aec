import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from crawldedup.config import FingerprintConfig
from crawldedup.core.fingerprint import (
    fingerprint,
    hamming64,
    md5_hex,
    simhash64,
    text_simhash,
)
from crawldedup.core.similarity import cosine

CFG = FingerprintConfig()
PINNED = "66c302b204056004"  # text_simhash('网页爬虫判重'), computed once; must never drift


def test_four_keys_are_md5_of_the_normalized_parts() -> None:
    text = "甲" * 150 + "乙" * 150
    fp = fingerprint("原创 标题", text, CFG)
    assert fp.content_key == md5_hex("甲" * 150 + "乙" * 150)
    assert fp.head_key == md5_hex("甲" * 100)
    assert fp.tail_key == md5_hex("乙" * 100)
    assert fp.title_key == md5_hex("标题")


def test_lengths_are_configurable() -> None:
    fp = fingerprint("t", "abcdefghij", FingerprintConfig(head_chars=3, tail_chars=2))
    assert fp.head_key == md5_hex("abc")
    assert fp.tail_key == md5_hex("ij")


def test_empty_parts_have_no_key() -> None:
    fp = fingerprint("【转】", "!!!", CFG)
    assert fp.title_key is None and fp.content_key is None and fp.head_key is None
    assert fp.tf == {}


def test_repost_changes_keep_content_key() -> None:
    a = fingerprint("标题", "今天天气很好，我们去公园。", CFG)
    b = fingerprint("【转】标题", "今天天气很好 我们去公园！", CFG)
    assert a.content_key == b.content_key and a.title_key == b.title_key


def test_cosine_matches_seed_000_formula() -> None:
    # Hand-computed: A = (2,1,0), B = (1,1,1) → 3 / (√5 · √3).
    a = {"我": 2, "爱": 1}
    b = {"我": 1, "爱": 1, "家": 1}
    assert math.isclose(cosine(a, b), 3 / (math.sqrt(5) * math.sqrt(3)))


def test_cosine_of_empty_is_zero_not_a_crash() -> None:
    assert cosine({}, {}) == 0.0
    assert cosine({"a": 1}, {}) == 0.0


@given(st.dictionaries(st.text(min_size=1, max_size=3), st.integers(1, 20), min_size=1))
def test_cosine_with_itself_is_one(v: dict[str, int]) -> None:
    assert math.isclose(cosine(v, v), 1.0)


@given(
    st.dictionaries(st.text(min_size=1, max_size=2), st.integers(0, 9)),
    st.dictionaries(st.text(min_size=1, max_size=2), st.integers(0, 9)),
)
def test_cosine_is_symmetric_and_bounded(a: dict[str, int], b: dict[str, int]) -> None:
    s = cosine(a, b)
    assert 0.0 <= s <= 1.0
    assert math.isclose(s, cosine(b, a))


def test_simhash_is_stable_and_near_for_small_edits() -> None:
    text = "今天我们讨论网页爬虫如何对转载的文章进行判重，这需要指纹和相似度。" * 5
    edited = text.replace("今天", "昨天", 1)
    a, b = text_simhash(text), text_simhash(edited)
    assert a == text_simhash(text)
    assert hamming64(a, b) <= 6
    other = text_simhash("完全不同的内容，关于体育比赛和足球运动员的转会新闻报道。" * 5)
    assert hamming64(a, other) > 10


def test_text_simhash_is_pinned_across_processes() -> None:
    # A stored fingerprint must mean the same thing tomorrow: the value is pinned.
    assert text_simhash("abcdefg") == text_simhash("abcdefg")
    assert f"{text_simhash('网页爬虫判重'):016x}" == PINNED
    assert text_simhash("") == 0 and text_simhash("a") != 0


def test_simhash_known_value() -> None:
    # Pinned: blake2b-based, so it cannot drift with PYTHONHASHSEED.
    assert simhash64(["a", "b", "c"]) == simhash64(["c", "b", "a"])
    assert simhash64([]) == 0


def test_short_texts_get_no_simhash_keys() -> None:
    from crawldedup.config import SimhashConfig

    notice = "Our online banking service will be unavailable from midnight on November 13."
    assert fingerprint("Notice", notice, CFG, SimhashConfig()).simhash_keys == []
    long_text = "长篇文章的内容各不相同，" * 40
    keys = fingerprint("t", long_text, CFG, SimhashConfig(max_distance=3)).simhash_keys
    assert len(keys) == 4 and len(set(keys)) == 4


def test_sketch_jaccard_estimates_shingle_overlap() -> None:
    from crawldedup.core.fingerprint import bottom_k_sketch, sketch_jaccard
    from crawldedup.core.normalize import normalize_text

    base = normalize_text("今天我们讨论网页爬虫如何对转载的文章进行判重，这需要指纹和相似度。" * 3)
    base += normalize_text("关于体育比赛和足球运动员的转会新闻报道，球迷们议论纷纷。" * 3)
    copy = "来源东方日报" + base + "本文来自网络"
    other = normalize_text(
        "气象台预计未来三天本地将出现一次明显降温过程，最低气温可能跌破零度。" * 6
    )
    a, b, c = bottom_k_sketch(base), bottom_k_sketch(copy), bottom_k_sketch(other)
    assert sketch_jaccard(a, b) > 0.8
    assert sketch_jaccard(a, c) < 0.2
    assert sketch_jaccard(a, a) == 1.0 and sketch_jaccard(a, "") == 0.0


def test_sketch_is_the_k_smallest_distinct_hashes_in_hex() -> None:
    import numpy as np

    from crawldedup.core.fingerprint import bottom_k_sketch, shingle_hashes

    text = "网页爬虫判重需要指纹" * 30 + "and some english words too" * 5
    expected = "".join(f"{int(x):016x}" for x in np.unique(shingle_hashes(text))[:16])
    assert bottom_k_sketch(text, k=16) == expected
    assert bottom_k_sketch("", k=16) == ""


def test_term_shingles_are_characters_in_chinese_and_words_in_english() -> None:
    from crawldedup.core.fingerprint import term_shingle_hashes

    assert len(term_shingle_hashes("我们知道很多", 3)) == 4  # 6 characters → 4 trigrams
    assert len(term_shingle_hashes("the city council voted on tuesday", 3)) == 4  # 6 words
    # Stable across calls (and processes: no salted hash()).
    a = term_shingle_hashes("the city council voted", 3)
    assert (a == term_shingle_hashes("the city council voted", 3)).all()
    # Word shingles of unrelated English texts barely overlap (letter trigrams would).
    x = set(term_shingle_hashes("the council approved the new park by the river", 3).tolist())
    y = set(term_shingle_hashes("the team won the final match of the season", 3).tolist())
    assert not x & y


def test_lsh_band_keys_collide_as_the_s_curve_says() -> None:
    import random

    import numpy as np

    from crawldedup.core.fingerprint import lsh_band_keys

    rnd = random.Random(5)
    bands, rows, trials = 24, 4, 300
    for jaccard in (0.3, 0.8):
        hits = 0
        for _ in range(trials):
            shared = [rnd.getrandbits(64) for _ in range(int(400 * jaccard))]
            rest = int(400 * (1 - jaccard) / 2)
            a = shared + [rnd.getrandbits(64) for _ in range(rest)]
            b = shared + [rnd.getrandbits(64) for _ in range(rest)]
            ka = lsh_band_keys(np.array(a, dtype=np.uint64), bands, rows)
            kb = lsh_band_keys(np.array(b, dtype=np.uint64), bands, rows)
            assert len(ka) == bands
            hits += bool(set(ka) & set(kb))
        expected = 1 - (1 - jaccard**rows) ** bands
        assert abs(hits / trials - expected) < 0.08, (jaccard, hits / trials, expected)
    assert lsh_band_keys(np.zeros(0, dtype=np.uint64), bands, rows) == []


def test_sketch_containment_finds_an_excerpt_inside_its_article() -> None:
    import random

    import numpy as np

    from crawldedup.core.fingerprint import (
        sketch_containment,
        sketch_jaccard,
        sketch_of_hashes,
        sketch_set_size,
    )

    rnd = random.Random(9)
    article = np.array([rnd.getrandbits(64) for _ in range(3000)], dtype=np.uint64)
    excerpt = article[:1000]
    other = np.array([rnd.getrandbits(64) for _ in range(1000)], dtype=np.uint64)
    k = 128
    sa, se, so = (sketch_of_hashes(x, k) for x in (article, excerpt, other))
    assert sketch_jaccard(sa, se, k) < 0.5  # a third of the article
    assert sketch_containment(sa, se, k) > 0.9  # but all of the excerpt is in it
    assert sketch_containment(se, sa, k) > 0.9  # symmetric: the smaller in the larger
    assert sketch_containment(so, sa, k) < 0.1
    assert abs(sketch_set_size(sa, k) - 3000) < 3000 * 0.3
    small = sketch_of_hashes(article[:50], k)  # under k values: exact
    assert sketch_set_size(small, k) == 50.0
    assert sketch_containment(small, sa, k) == 1.0


_FOLDED = st.text(
    alphabet=st.sampled_from(
        list("ab z09.,-_ \n\t") + list("中文网页判重㐀鿿豈﫿〇ぁ") + ["\u3000", "😀"]
    ),
    max_size=60,
)


@given(_FOLDED)
def test_term_ids_equal_the_term_by_term_definition(folded: str) -> None:
    """The vectorized ids are the plain definition: per char_terms term, a CJK character's
    code point, else the blake2b hash of the term."""
    import hashlib

    from crawldedup.core.fingerprint import term_ids
    from crawldedup.core.tokenize import char_terms

    def plain(t: str) -> int:
        if len(t) == 1 and ord(t) > 0x2FFF:
            return ord(t)
        return int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "big")

    assert term_ids(folded).tolist() == [plain(t) for t in char_terms(folded)]


def _splitmix64_finalizer(x: int) -> int:  # in Python ints, mod 2**64
    m = (1 << 64) - 1
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & m
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


@given(st.lists(st.integers(0, 2**64 - 1), max_size=50), st.integers(1, 40))
def test_minhash_equals_the_definition(hashes: list[int], n: int) -> None:
    """Value i is the minimum over the distinct hashes of mix64(h xor seed_i), seed_i =
    mix64(i * golden ratio), in plain Python integers."""
    from crawldedup.core.fingerprint import minhash_signature

    m = (1 << 64) - 1
    seeds = [_splitmix64_finalizer((i * 0x9E3779B97F4A7C15) & m) for i in range(1, n + 1)]
    want = [min(_splitmix64_finalizer(x ^ s) for x in set(hashes)) for s in seeds] if hashes else []
    assert minhash_signature(np.array(hashes, dtype=np.uint64), n).tolist() == want


def test_an_edge_line_naming_the_title_counts_without_it() -> None:
    """A quoting page's intro and credit name the quoted article: those characters
    repeat the page's title and count neither in its edge lines nor in its size. A line
    that is the title and nothing else, or names a run shorter than half the title,
    keeps its size."""
    cfg = FingerprintConfig(paragraph_min_chars=40, paragraph_max_keys=32)
    title = "The Inner Workings of the Debian Project"
    quote = "The severity of a bug formally assigns a degree of gravity to the reported problem."
    page = f"Here is how “{title}” puts it:\n{quote}\n(Excerpted from {title}.)"
    named = fingerprint(title, page, cfg)
    plain = fingerprint("Another title altogether", page, cfg)
    own = len("hereishowputsit") + len("excerptedfrom")
    title_size = len("theinnerworkingsofthedebianproject")
    assert plain.paragraph_edges == own + 2 * title_size
    assert named.paragraph_edges == own
    assert named.paragraph_size == plain.paragraph_size - 2 * title_size
    assert named.paragraph_keys == plain.paragraph_keys  # the keys are the lines'
    # Chinese: a CJK character counts 3.
    zh_title = "诸如etch、lenny之类的名字是什么"
    zh = fingerprint(zh_title, f"《{zh_title}》中有这样一段：\n{quote}\n——摘自《{zh_title}》", cfg)
    assert zh.paragraph_edges == 3 * len("中有这样一段") + 3 * len("摘自")
    # A heading that is the title alone, and a line naming a part of it (the section a
    # help page's title begins with): neither names the title.
    heading = fingerprint(title, f"{title}\n{quote}\nThe Inner Workings: overview", cfg)
    assert heading.paragraph_edges == title_size + len("theinnerworkingsoverview")
