from hypothesis import given
from hypothesis import strategies as st

from crawldedup.config import DEFAULT_NOISE_WORDS
from crawldedup.core.normalize import fold, normalize_text, normalize_title
from crawldedup.core.tokenize import char_terms, jieba_terms, term_frequencies


def test_keeps_only_latin_digits_and_cjk() -> None:
    assert normalize_text("Hello, 世界! 2026年 — ok?") == "hello世界2026年ok"


def test_folds_full_width_and_case() -> None:
    assert normalize_text("ＡＢＣ１２３　ｄｅｆ") == "abc123def"


def test_keeps_cjk_extension_a() -> None:
    assert normalize_text("㐀㐁 x") == "㐀㐁x"


def test_empty_text() -> None:
    assert normalize_text("") == ""
    assert normalize_text("，。！？ ...") == ""


def test_title_noise_words_removed() -> None:
    noise = DEFAULT_NOISE_WORDS
    assert normalize_title("【转】网页爬虫判重", noise) == "网页爬虫判重"
    assert normalize_title("[原创] 网页爬虫判重（转载）", noise) == "网页爬虫判重"
    assert normalize_title("置顶：网页爬虫判重", noise) == normalize_title("网页爬虫判重", noise)


def test_char_terms_per_seed_000() -> None:
    # Each Chinese character is one term; each run of letters or digits is one term.
    assert char_terms(fold("Spark 3.5 处理网页")) == ["spark", "3", "5", "处", "理", "网", "页"]
    # Word boundaries survive: English words stay separate terms.
    assert char_terms(fold("Hello World")) == ["hello", "world"]


def test_term_frequencies() -> None:
    assert term_frequencies("我爱我家abc") == {"我": 2, "爱": 1, "家": 1, "abc": 1}


def test_jieba_words_are_an_alternative() -> None:
    words = jieba_terms(fold("我们知道，很多文章爬取下来有可能是转载的。"))
    assert "我们" in words and "文章" in words
    assert "".join(words) == normalize_text("我们知道很多文章爬取下来有可能是转载的")


@given(st.text())
def test_normalize_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@given(st.text())
def test_terms_cover_the_normalized_text(text: str) -> None:
    assert "".join(char_terms(fold(text))) == normalize_text(text)


@given(st.text(), st.text(alphabet=" \t\n,.!?，。！？、；：\u3000"))
def test_punctuation_and_whitespace_do_not_change_normalization(text: str, noise: str) -> None:
    assert normalize_text(noise + text + noise) == normalize_text(text)


# Full-width ASCII forms, the ideographic space, CJK punctuation and combining marks:
# the characters around which the fast paths could differ from the plain definitions.
_TRICKY = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0xFF00, max_codepoint=0xFF65),
        st.sampled_from(list("\u3000\u3001\u3002\u0301\u0308\u2026\u2460Ａa1 网页é")),
        st.characters(),
    )
)


@given(_TRICKY)
def test_fold_equals_plain_nfkc_and_lower(text: str) -> None:
    import unicodedata

    assert fold(text) == unicodedata.normalize("NFKC", text).lower()


@given(_TRICKY)
def test_counted_terms_equal_the_seed_terms(text: str) -> None:
    from collections import Counter

    from crawldedup.core.tokenize import char_term_frequencies

    folded = fold(text)
    assert char_term_frequencies(folded) == dict(Counter(char_terms(folded)))


@given(_TRICKY)
def test_normalized_code_points_equal_the_regex(text: str) -> None:
    from crawldedup.core.normalize import (
        codepoints,
        from_codepoints,
        normalize_codepoints,
        normalize_folded,
    )

    folded = fold(text)
    assert from_codepoints(normalize_codepoints(codepoints(folded))) == normalize_folded(folded)
