"""The real-text set's reposting functions (benchmarks/realtext/reposting.py) on
hand-written strings: no downloaded corpus needed.

The module is loaded from its file: it is benchmark code, not an installed package.
"""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark_module

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


rp = load_benchmark_module("benchmarks/realtext/reposting.py", "realtext_reposting_under_test")

ZH = rp.Page(
    "控制台基础",
    "启动系统之后，如果你没有安装图形界面，那么你会看到字符登录界面。假设你的主机名为foo，"
    "那么登录提示符将如下所示。\n"
    "在登录提示符下，你输入你的用户名，然后按回车键，接下来输入你的密码并再次按回车键。\n"
    "遵循Unix传统，Debian系统下的用户名和密码是大小写敏感的。用户名通常由小写字母组成。\n"
    "系统以保存在/etc/motd中的欢迎信息来开始，同时显示一个命令提示符。\n"
    "现在，你就在shell下了。shell解析你的命令，可以使用它来完成很多工作。",
    "zh",
)
EN = rp.Page(
    "The shell prompt",
    "Upon starting the system, you are presented with the character based login screen "
    "if you did not install any GUI environment.\n"
    "At the login prompt, you type your username, e.g. penguin, and press the Enter-key, "
    "then type your password and press the Enter-key again.\n"
    "Following the Unix tradition, the username and password of the Debian system are "
    "case sensitive. The username is usually chosen only from the lowercase.\n"
    "The system starts with the greeting message stored in /etc/motd and presents a "
    "command prompt.\n"
    "Now you are in the shell. The shell interprets your commands.",
    "en",
)
SITE_ZH = rp.Site("山河资讯网", "shanhe-news.cn", "zh", ("首页", "新闻", "科技"), 0)
SITE_EN = rp.Site("The Daily Byte", "dailybyte.example.com", "en", ("Home", "News", "Tech"), 1)
TITLES = ["另一篇文章", "第三篇文章", "关于我们", "热门话题", "技术专栏", "每日一题"]


def _copy(kind: str, page: rp.Page, seed: int) -> rp.Page:
    site = SITE_ZH if page.lang == "zh" else SITE_EN
    return rp.make_copy(kind, random.Random(seed), page, site, "源站", TITLES)


@pytest.mark.parametrize("kind", sorted(rp.COPY_KINDS))
@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_every_kind_is_deterministic_for_a_seed(kind: str, page: rp.Page) -> None:
    assert _copy(kind, page, 7) == _copy(kind, page, 7)


def test_kinds_that_change_text_differ_across_seeds() -> None:
    outs = {_copy("source_line", ZH, s).text for s in range(20)}
    assert len(outs) > 1


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_exact_mirror_is_identical(page: rp.Page) -> None:
    assert _copy("exact_mirror", page, 1) == page


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_source_line_is_prepended(page: rp.Page) -> None:
    out = _copy("source_line", page, 3)
    first, rest = out.text.split("\n", 1)
    assert rest == page.text
    assert "源站" in first
    assert out.title == page.title


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_footer_appended_and_both(page: rp.Page) -> None:
    out = _copy("footer", page, 4)
    assert out.text.startswith(page.text + "\n")
    both = _copy("source_and_footer", page, 4)
    assert page.text in both.text
    assert not both.text.startswith(page.text) and not both.text.endswith(page.text)
    retitled = _copy("new_title_and_both", page, 4)
    assert retitled.title != page.title and page.text in retitled.text


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
@pytest.mark.parametrize("seed", range(25))
def test_excerpt_is_30_to_70_percent_and_contiguous(page: rp.Page, seed: int) -> None:
    out = _copy("excerpt", page, seed)
    share = len(out.text) / len(page.text)
    assert 0.3 <= share <= 0.7, share
    # contiguous: paragraphs (or sentences) of the original, in order, without gaps
    flat = page.text.replace("\n", "")
    assert out.text.replace("\n", "").replace(" ", "") in flat.replace(" ", "")


def test_excerpt_of_one_paragraph_without_sentences_slices_characters() -> None:
    page = rp.Page("t", "字" * 100 + "词" * 100, "zh")
    for seed in range(10):
        out = rp.excerpt(random.Random(seed), page, SITE_ZH)
        assert 60 <= len(out.text) <= 140 and out.text in page.text


def _words(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
@pytest.mark.parametrize("seed", range(10))
def test_width_and_punctuation_changes_keep_the_words(page: rp.Page, seed: int) -> None:
    out = _copy("whitespace_punct_width", page, seed)
    assert out.text != page.text
    assert _words(out.text) == _words(page.text)


def test_fullwidth_roundtrip() -> None:
    s = "ABC123 hello"
    full = rp.to_fullwidth(s, 1.0, random.Random(0))
    assert full == "ＡＢＣ１２３ ｈｅｌｌｏ"
    assert rp.to_halfwidth(full) == s


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_rerender_produces_html_containing_the_text(page: rp.Page) -> None:
    import html as _html

    for seed in range(8):  # all four layouts get a turn through the site's template
        site = rp.Site(SITE_ZH.name, SITE_ZH.host, page.lang, SITE_ZH.nav, seed % 4)
        out = rp.rerender_html(random.Random(seed), page, site, "源站", TITLES)
        assert out.html is not None
        assert out.html.lstrip().lower().startswith(("<!doctype html", "<html"))
        body = _html.unescape(out.html)
        for para in rp.paragraphs(page.text):
            assert f"<p>{para}</p>" in body
        assert "<nav" in out.html or "menu" in out.html or "bbs-head" in out.html
        assert out.text == page.text


@pytest.mark.parametrize("page", [ZH, EN], ids=["zh", "en"])
def test_small_edits_change_little(page: rp.Page) -> None:
    for seed in range(10):
        out = _copy("small_edits", page, seed)
        assert out.text != page.text
        a, b = _words(page.text), _words(out.text)
        assert abs(len(a) - len(b)) < 0.4 * len(a)


def test_title_decoration_and_site_boilerplate() -> None:
    out = _copy("title_decoration", ZH, 2)
    assert ZH.title in out.title and out.title != ZH.title
    boxed = _copy("site_boilerplate", ZH, 2)
    lines = boxed.text.split("\n")
    assert ZH.text in boxed.text
    assert len(lines) >= len(rp.paragraphs(ZH.text)) + 8  # navigation + link blocks
    assert any(t in boxed.text for t in TITLES)


def test_short_text_copy_has_a_source_or_is_html() -> None:
    poem = rp.Page("送别", "作者：王维\n下马饮君酒，问君何所之。\n君言不得意，归卧南山陲。", "zh")
    for seed in range(10):
        out = rp.short_text(random.Random(seed), poem, SITE_ZH, "源站", TITLES)
        assert out.html is not None or ("源站" in out.text and poem.text in out.text)


def test_hard_negative_builders() -> None:
    rng = random.Random(5)
    notices = rp.fill_templates(rng, "zh", 4)
    assert len({p.text for p in notices}) == 4
    block = rp.boilerplate_block(rng, SITE_ZH, min_chars=300)
    assert len(block) >= 300
    a = rp.with_boilerplate(ZH, block, at_top=True)
    assert a.text.startswith(block) and a.text.endswith(ZH.text)
    tail = rp.copyright_tail(rng, SITE_EN)
    assert len(tail) > 300 and rp.with_copyright_tail(EN, tail).text.endswith(tail)


def test_reposting_imports_nothing_from_the_product() -> None:
    import ast

    tree = ast.parse((ROOT / "benchmarks" / "realtext" / "reposting.py").read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("crawldedup") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("crawldedup")
