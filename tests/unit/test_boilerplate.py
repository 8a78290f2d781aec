"""Site boilerplate lines: what a line is, which a page has, what is left without them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crawldedup.core.boilerplate import (
    FILL_PREFIX,
    SHAPE_PREFIX,
    host_of,
    is_boilerplate_only,
    line_key,
    line_keys,
    own_text,
    page_line_keys,
    strip_boilerplate,
)

NAV = "首页 | 新闻 | 体育 | 财经 | 科技 | 娱乐 | 联系我们"
COPY = "版权所有 © 2026 示例新闻网 未经授权禁止转载"
ARTICLE = (
    "今年秋季的城市马拉松比赛吸引了来自全国各地的两万多名跑者参加。"
    "\n组委会在沿途设置了二十个补给站。"
)


def test_line_keys_ignore_width_case_punctuation_and_short_lines() -> None:
    assert line_key("Hello, World!", 5) == line_key("ｈｅｌｌｏ　ｗｏｒｌｄ", 5)
    assert line_key("更多", 8) is None
    page = f"{NAV}\n{ARTICLE}\n{COPY}\n{NAV}"
    keys = page_line_keys(page, 8)
    lines = [k for k in keys if not k.startswith(SHAPE_PREFIX)]
    assert len(lines) == 4 and keys == sorted(keys)  # NAV counts once


def test_a_template_line_filled_in_has_one_shape_on_every_page() -> None:
    """A label and its fill, or a line whose only change is its numbers: the text differs
    from page to page, the shape does not; prose has no shape."""

    def shape(line: str) -> str | None:
        found = [k for k in line_keys(line, 2) if k.startswith(SHAPE_PREFIX)]
        return found[0] if found else None

    assert shape("上一篇：上山擒虎易") == shape("上一篇: 城门失火") is not None
    assert shape("Previous: When your memory goes") == shape("previous:  brokee, n") is not None
    assert shape("Posted 2026-08-24 · 1115 views") == shape("Posted 2026-11-01 · 7 views")
    assert shape("Posted 2026-08-24 · 1115 views") is not None
    assert shape("上一篇：上山擒虎易") != shape("下一篇：城门失火")
    assert shape("玉阶生白露，夜久侵罗袜。") is None
    assert shape("Here is a simple echo server implementation:") is None  # no fill
    assert shape("As the proverb says: a long label is prose, not a template field") is None
    # A label before a whole paragraph is the start of the text, not a field to fill in.
    article = "本站公告：" + "新学期开始后，市教育局发布了关于中小学课后服务的指导意见，" * 4
    assert shape(article) is None
    assert shape(f"In 2026 the city counted {'many new residents and ' * 8}") is None
    # Stripped by its shape, whatever the title it is filled with.
    boiler = {shape("上一篇：上山擒虎易")}
    page = "上一篇：城门失火\n床前明月光\n疑是地上霜"
    assert strip_boilerplate(page, boiler, 2) == "床前明月光\n疑是地上霜"


def test_a_line_removed_by_its_shape_keeps_a_fill_no_other_page_has() -> None:
    """Issue 45, class 2: a repost joins a poem onto the author line ("作者：X ...").
    The label's shape is the site's template, the poem is no other page's: the line
    loses its label, the poem stays. A fill is text only when it holds sentences (a
    neighbour's title after "上一篇：" is a field's fill) and no other page of the host
    has it (its key among ``shared``)."""
    shape = next(k for k in line_keys("作者：李白", 2) if k.startswith(SHAPE_PREFIX))
    nav = "上一篇：将进酒"
    nav_shape = next(k for k in line_keys(nav, 2) if k.startswith(SHAPE_PREFIX))
    assert not [k for k in line_keys(nav, 2) if k.startswith(FILL_PREFIX)]  # a title
    poem = "貫休 三千功未了，大道本無程。好共禪師好，牆將藥犬行。"
    page = f"{NAV}\n作者：{poem}\n{nav}"
    template = {line_key(NAV, 2), shape, nav_shape}
    assert strip_boilerplate(page, template, 2) == poem
    # The same fill on another page of the host: the site's, not this page's text.
    fill = [k for k in line_keys(f"作者：{poem}", 2) if k.startswith(FILL_PREFIX)]
    assert len(fill) == 1 and fill[0] in page_line_keys(f"{NAV}\n作者：{poem}", 2)
    assert strip_boilerplate(page, template, 2, shared=set(fill)) == ""
    # English: sentences after the label; an abbreviation ("n.:") is not one.
    by = next(k for k in line_keys("By Jane Doe: x", 2) if k.startswith(SHAPE_PREFIX))
    listed = "By Jane Doe: Keep it simple. Measure twice; cut once."
    assert strip_boilerplate(f"{listed}\n{ARTICLE}", {by}, 2) == (
        f"Keep it simple. Measure twice; cut once.\n{ARTICLE}"
    )
    prev = next(k for k in line_keys("Previous: x", 2) if k.startswith(SHAPE_PREFIX))
    assert strip_boilerplate(f"Previous: problem drinker, n.:\n{ARTICLE}", {prev}, 2) == ARTICLE
    # A whole line the host repeats goes whole.
    assert strip_boilerplate(f"作者：李白\n{poem}", {line_key("作者：李白", 2), shape}, 2) == poem


def test_strip_removes_boilerplate_whatever_its_share_of_the_page() -> None:
    boiler = {line_key(NAV, 8), line_key(COPY, 8)}
    page = f"{NAV}\n{ARTICLE}\n{COPY}"
    assert strip_boilerplate(page, boiler, 8) == ARTICLE
    assert strip_boilerplate(ARTICLE, boiler, 8) is None  # nothing to remove
    # A short poem in a template three times its size keeps only the poem.
    poem = "床前明月光\n疑是地上霜"
    big = "\n".join([NAV, COPY, NAV, poem, COPY, NAV])
    assert strip_boilerplate(big, boiler, 2) == poem
    assert not is_boilerplate_only(strip_boilerplate(big, boiler, 2))


def test_a_page_of_nothing_but_boilerplate_is_said_so() -> None:
    boiler = {line_key(NAV, 8), line_key(COPY, 8)}
    assert is_boilerplate_only(strip_boilerplate(f"{NAV}\n{COPY}\n»", boiler, 2))
    assert not is_boilerplate_only(strip_boilerplate(ARTICLE, boiler, 2))  # None: untouched


def test_a_pages_own_text_is_what_its_hosts_frequent_lines_leave() -> None:
    """A host's frequent lines (on min_pages of its pages, but ordinary text of another
    host: a related list of other sites' titles) are not the page's own text when it has
    other text; the own text is the runs of lines between them (no shingle spans a
    removed line)."""
    related = ["nohup - 使程序运行时不挂起，不向 tty 输出信息", "comm - 按行比较两个已排序的文件"]
    frequent = frozenset(line_key(x, 2) for x in related)
    proverb = "吃了省钱瓜，害了绞肠痧。"
    page = "\n".join([proverb, "——《谚语》", related[0], "注释：瓜指便宜货", *related])
    assert own_text(page, frequent, 2) == [f"{proverb}\n——《谚语》", "注释：瓜指便宜货"]
    # Nothing of its own besides the frequent lines: measured on the whole text.
    assert own_text("\n".join(related), frequent, 2) is None
    assert own_text(ARTICLE, frequent, 2) is None  # no frequent line
    assert own_text(page, frozenset(), 2) is None


def test_an_own_text_sketch_is_inside_the_whole_pages_sketch_set() -> None:
    """Its shingles are among the page's: a copy of the whole page contains it."""
    from crawldedup.config import Config
    from crawldedup.core.fingerprint import fingerprint, runs_sketch

    cfg = Config()
    related = [f"第{i}条：相关文章标题，很多页面都有这一行，内容各不相同" for i in range(30)]
    page = "\n".join([ARTICLE, *related, NAV])
    runs = own_text(page, frozenset(line_key(x, 2) for x in related), 2)
    assert runs == [ARTICLE, NAV]
    own = runs_sketch(runs, cfg.simhash, cfg.lsh)
    whole = fingerprint("", page, cfg.fingerprint, cfg.simhash, cfg.lsh).sketch
    alone = fingerprint("", ARTICLE, cfg.fingerprint, cfg.simhash, cfg.lsh).sketch
    assert runs_sketch([ARTICLE], cfg.simhash, cfg.lsh) == alone
    from crawldedup.core.fingerprint import sketch_containment

    assert sketch_containment(own, whole, cfg.simhash.sketch_size) == 1.0


def test_host_of_drops_www_and_default_ports() -> None:
    assert host_of("https://www.News.example:443/a/b?x=1") == "news.example"
    assert host_of("http://news.example:8080/") == "news.example:8080"
    assert host_of(None) == ""


def test_an_own_texts_key_is_its_normalized_text_and_needs_ten_characters() -> None:
    from crawldedup.core.boilerplate import OWN_KEY_SUFFIX, own_text_key

    one = own_text_key(["三个臭皮匠，顶个诸葛亮。"])
    # Width, case and punctuation do not change it; the runs are one text.
    assert (
        one
        == own_text_key(["三个臭皮匠 顶个诸葛亮"])
        == own_text_key(["三个臭皮匠，", "顶个诸葛亮！"])
    )
    assert one is not None and one.endswith(OWN_KEY_SUFFIX) and len(one) == 16 + len(OWN_KEY_SUFFIX)
    assert own_text_key(["路遥知马力，日久见人心。"]) not in (None, one)
    assert own_text_key(["千里之堤，溃于蚁穴。"]) is None  # 8 characters
    assert own_text_key(["热药冷吃"]) is None  # 4 characters: a name, not a text
    assert own_text_key(["Yow!  Am I having fun yet?"]) == own_text_key(
        ["YOW! Am I having fun yet"]
    )


def test_a_first_line_repeating_the_title_is_not_in_the_own_texts_key() -> None:
    from crawldedup.core.boilerplate import (
        own_text_key,
        title_heading,
        whole_text_key,
        without_title_heading,
    )
    from crawldedup.core.fingerprint import md5_hex
    from crawldedup.core.normalize import normalize_text

    poem = "紫詔隨鸞下玉京，元君相命會三清。\n便將金鼎丹砂餌，時拂霞衣駕鶴行。"
    title = "七言 四十九_古韵诗词网"
    assert title_heading("七言 四十九", title) == len("七言四十九")
    assert title_heading("紫詔隨鸞下玉京", title) == 0
    # One site shows the title above the poem, the other does not: one key.
    shown = own_text_key(without_title_heading(["七言 四十九\n" + poem], title))
    assert shown is not None and shown == own_text_key(
        without_title_heading([poem], "七言 四十九 - 城南区人民政府门户网站")
    )
    # The whole-text key (a page holding none of its host's frequent lines) is the same.
    norm = normalize_text(poem)
    assert whole_text_key(md5_hex(norm), len(norm), poem, title) == shown
    with_heading = "七言 四十九\n" + poem
    whole = normalize_text(with_heading)
    assert whole_text_key(md5_hex(whole), len(whole), with_heading, title) == shown
    # A page that is nothing but its title keeps its text as its key.
    saying = "We must die because we have known them."
    assert own_text_key(
        without_title_heading([saying], saying + " | The Quotation Archive")
    ) == own_text_key([saying])
    assert own_text_key([saying]) is not None


def test_a_title_heading_is_not_in_the_text_a_page_is_measured_on() -> None:
    from crawldedup.core.boilerplate import without_title_heading

    title = "千里江山寒色远_云帆软件帮助中心"
    saying = "千里江山寒色远，芦花深处泊孤舟，笛在月明楼。"
    assert without_title_heading(["千里江山寒色远\n" + saying, "参见下文"], title) == [
        saying,
        "参见下文",
    ]
    assert without_title_heading(["千里江山寒色远", saying], title) == [saying]
    # Not a heading of this title, or nothing long enough left: the runs as they were.
    assert without_title_heading([saying], title) == [saying]
    assert without_title_heading(["千里江山寒色远\n芦花"], title) == ["千里江山寒色远\n芦花"]
    assert without_title_heading(["千里江山寒色远\n" + saying], "") == ["千里江山寒色远\n" + saying]


def test_a_heading_longer_than_the_text_under_it_stays() -> None:
    from crawldedup.core.boilerplate import own_text_key, without_title_heading

    # A manual's section page: its name, then a shorter line; that is not a heading
    # above a text, and the short line alone would be contained in every section.
    title = "mount - mount filesystem · NAME — download and reviews"
    runs = ["mount - mount filesystem · NAME\nmount - mount filesystem"]
    assert without_title_heading(runs, title) == runs
    assert own_text_key(without_title_heading(runs, title)) == own_text_key(runs)


def _runs_sketch_run_by_run(runs: list[str]) -> str:
    """runs_sketch's definition: each run's term shingles on its own, then one sketch."""
    import numpy as np

    from crawldedup.config import Config
    from crawldedup.core.fingerprint import (
        codepoint_shingle_hashes,
        sketch_of_hashes,
        term_ids,
    )
    from crawldedup.core.normalize import codepoints, fold

    cfg = Config()
    shingled = [
        codepoint_shingle_hashes(term_ids(fold(r), codepoints(fold(r))), cfg.lsh.shingle_terms)
        for r in runs
    ]
    hashes = np.concatenate(shingled) if shingled else np.zeros(0, dtype=np.uint64)
    return sketch_of_hashes(hashes, cfg.simhash.sketch_size)


_RUN_TEXT = st.text(
    alphabet=st.sampled_from(list("ab z9,.\n\u3000ＡＢ１") + list("中文页面转载自网站相关")),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_RUN_TEXT | st.text(max_size=12), max_size=8))
def test_the_sketch_of_runs_is_each_runs_shingles_on_its_own(runs: list[str]) -> None:
    """Terms found over the runs laid end to end and cut back per run give the shingles of
    each run on its own: none spans two runs, none is lost."""
    from crawldedup.config import Config
    from crawldedup.core.fingerprint import runs_sketch

    cfg = Config()
    assert runs_sketch(runs, cfg.simhash, cfg.lsh) == _runs_sketch_run_by_run(runs)
