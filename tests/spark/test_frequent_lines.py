"""A host's frequent lines are not a page's text (docs/algorithm.md#boilerplate), through
the one runner on the embedded store.

A download site puts one related list on every page: titles of another site's manual
pages. The lines are on every page of the site, yet they are not its template (the
manual site has each as ordinary text), so they stay in the pages' text, and before a
short page was "contained" in every other page of the site. Now two pages of the site
are measured on their own text, without the site's frequent lines; a repost elsewhere is
measured on the whole text; a page that holds nothing else (an article another site
serves again and again) is its article.

The manual titles are real man-page summaries (Linux man-pages, zh_CN translation); the
own texts are Chinese proverbs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crawldedup.config import Config
from crawldedup.explain import explain
from crawldedup.pipeline.context import DayContext
from crawldedup.store import open_store
from tests.rerun_equality import differences, published_state
from tests.spark.test_stages import ARTICLE, rec, run_all, small_day_config, verdicts, write_day

RELATED = [
    "nohup - 使程序运行时不挂起，不向 tty 输出信息",
    "daemon - 编写与打包系统守护进程",
    "puts - 向一个通道写",
    "break - 终止循环命令",
    "rdev - 查询/设置内核映像文件的根设备，RAM 磁盘大小或视频模式",
    "perlboot - 初学者的面向对象教程",
    "comm - 按行比较两个已排序的文件",
    "tzfile - 时区信息",
    "sha1sum - 计算并校验 SHA1 信息摘要",
    "LDP - Linux文档工程的简介，包括帮助，向导和文档",
    "UNLISTEN - 停止监听通知信息",
    "systemd-notify - 向 systemd 报告服务状态的变化",
    "truncate - 缩减或扩展文件尺寸至指定大小",
    "rmdir - 删除空目录",
    "bootparam - 介绍Linux核心的启动参数",
    "ANALYZE - 收集与数据库有关的统计",
]
PROVERBS = [
    "吃了省钱瓜，害了绞肠痧。",
    "千里之堤，溃于蚁穴。",
    "三个臭皮匠，顶个诸葛亮。",
    "不入虎穴，焉得虎子。",
    "路遥知马力，日久见人心。",
    "近朱者赤，近墨者黑。",
]
DL_HEAD = ["绿色软件园 — 安全、绿色、免费的软件下载站", "首页 | 系统工具 | 网络软件 | 编程开发"]
DL_FOOT = ["Copyright © 2008-2026 绿色软件园 版权所有", "关于我们 | 联系我们 | 网站地图"]
AGG = ["聚合资讯 首页 | 推荐 | 热点", "本页内容来自网络，如有侵权请联系删除"]


def _dl_page(proverb: str, heading: str | None = None) -> str:
    """A download-site page: its template, its proverb (under ``heading``), the list."""
    own = [proverb] if heading is None else [heading, proverb]
    return "\n".join([*DL_HEAD, *own, "同类软件", *RELATED, *DL_FOOT])


def _manual_pages(lines: list[str]) -> list[dict[str, Any] | str]:
    """The manual site: each title is ordinary text there (one page each)."""
    return [
        rec(
            f"man{i}",
            f"{line}\n这是手册第 {i} 页的正文，说明命令的用法、选项和例子。",
            f"2026-11-01T00:{i:02d}:00Z",
            line,
            f"http://man.example/{i}",
        )
        for i, line in enumerate(lines)
    ]


def test_a_sites_frequent_lines_decide_nothing_where_a_page_has_text_of_its_own(
    spark: Any, tmp_path: Path
) -> None:
    cfg: Config = small_day_config()
    day = _manual_pages(RELATED)
    # The download site: its template, one proverb of its own a page, the related list.
    for i, proverb in enumerate(PROVERBS):
        day.append(
            rec(
                f"dl{i}",
                _dl_page(proverb),
                f"2026-11-01T01:0{i}:00Z",
                proverb[:4],
                f"http://dl.example/{i}",
            )
        )
    # A repost of one page's proverb, with a credit line and the same title.
    day.append(
        rec(
            "repost",
            f"{PROVERBS[2]}\n（本文转自绿色软件园，版权归原作者所有）",
            "2026-11-01T02:00:00Z",
            PROVERBS[2][:4],
            "http://other.example/r",
        )
    )
    # An article first served once, then by an aggregator on five pages that differ in
    # their date line only: the article's lines are frequent there and all those pages
    # hold, so they stay.
    day.append(rec("orig", ARTICLE, "2026-11-01T03:00:00Z", "原文", "http://orig.example/a"))
    for i in range(5):
        text = "\n".join([AGG[0], f"发布时间：2026-10-2{i}", ARTICLE, AGG[1]])
        day.append(
            rec(f"agg{i}", text, f"2026-11-01T04:0{i}:00Z", f"转{i}", f"http://agg.example/{i}")
        )
    d = write_day(tmp_path / "in", "2026-11-01", day)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    stats = json.loads((ctx.work / "stats" / "fingerprint.json").read_text())
    # The list is the site's frequent text (16 lines), not its template.
    assert stats["boilerplate"]["frequent_lines"] >= len(RELATED)
    for i in range(len(PROVERBS)):
        if i != 2:
            assert v[f"dl{i}"]["verdict"] == "unique", (i, v[f"dl{i}"])
    assert v["dl2"]["verdict"] == "unique"
    assert (v["repost"]["verdict"], v["repost"]["duplicate_of"]) == ("duplicate", "dl2")
    for i in range(len(RELATED)):
        assert v[f"man{i}"]["verdict"] == "unique", v[f"man{i}"]
    assert v["orig"]["verdict"] == "unique"
    for i in range(5):
        assert (v[f"agg{i}"]["verdict"], v[f"agg{i}"]["group"]) == ("duplicate", "orig"), v

    # explain: a pair of the site's pages shows the list as frequent text and how little
    # of each page is its own.
    with open_store(ctx.store) as store:
        lines = explain(store, ctx.home, ctx.day, "dl1", cfg, other="dl0")
    text = "\n".join(lines)
    assert f"  = [fq] {RELATED[0]}" in lines, text
    assert f"  - [bp] {DL_HEAD[0]}" not in lines and f"  = [bp] {DL_HEAD[0]}" in lines, text
    assert f"  -      {PROVERBS[1]}" in lines, text
    own = next(x for x in lines if x.startswith("own text"))
    assert "characters, 8 without [fq]; the compared one" in own, own  # the proverb, normalized
    measures = next(x for x in lines if x.startswith("measures"))
    assert "on own text (what decided): Jaccard 0.000, containment 0.000" in measures, measures


POEMS = [
    ("李白", "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。"),
    ("王之涣", "白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。"),
    ("孟浩然", "春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。"),
    ("柳宗元", "千山鸟飞绝，万径人踪灭。\n孤舟蓑笠翁，独钓寒江雪。"),
    ("王维", "红豆生南国，春来发几枝。\n愿君多采撷，此物最相思。"),
]


def test_a_poem_joined_onto_the_author_line_keeps_its_text(spark: Any, tmp_path: Path) -> None:
    """Issue 45, class 2: a site whose every page has an "作者：X" line (its shape is the
    site's template) reposts a poem joined onto that line. The line loses its label, not
    the poem: the repost is the original's copy."""
    cfg: Config = small_day_config()
    day: list[dict[str, Any] | str] = []
    for i, (author, poem) in enumerate(POEMS):
        text = f"诗词天地 首页 | 唐诗 | 宋词\n作者：{author}\n{poem}\n版权所有 © 诗词天地"
        day.append(rec(f"p{i}", text, f"2026-11-01T01:0{i}:00Z", f"诗{i}", f"http://a.example/{i}"))
    # The reposting site: its own pages have the author line too (four of them).
    others = ["人生得意须尽欢，莫使金樽空对月。", "君不见黄河之水天上来，奔流到海不复回。"]
    for i, body in enumerate(others * 2):
        text = f"古韵网 首页\n作者：佚名{i}\n{body}\n古韵网 版权所有"
        day.append(rec(f"b{i}", text, f"2026-11-01T02:0{i}:00Z", f"文{i}", f"http://b.example/{i}"))
    author, poem = POEMS[3]
    joined = f"古韵网 首页\n作者：{author} {poem.replace(chr(10), '')}\n古韵网 版权所有"
    day.append(rec("repost", joined, "2026-11-01T03:00:00Z", "诗3", "http://b.example/r"))
    d = write_day(tmp_path / "in", "2026-11-01", day)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    assert (v["repost"]["verdict"], v["repost"]["duplicate_of"]) == ("duplicate", "p3"), v["repost"]
    assert v["repost"]["measure"] != "boilerplate_only"
    for i in range(1, len(POEMS)):
        assert v[f"p{i}"]["verdict"] == "unique", v[f"p{i}"]
    with open_store(ctx.store) as store:
        lines = explain(store, ctx.home, ctx.day, "repost", cfg)
    assert any(x.startswith(f"  - [sh] 作者：{author} ") for x in lines), "\n".join(lines)


MIRROR_HEAD = ["好书推荐网 — 每日一句", "首页 | 名言 | 谚语 | 专题"]
MIRROR_FOOT = ["好书推荐网 版权所有"]


# The second site's related list: other manual pages' titles (man-pages zh_CN summaries).
RELATED2 = [
    "ls - 列出目录内容",
    "cp - 复制文件和目录",
    "mv - 移动(重命名)文件",
    "cat - 连接文件并在标准输出上显示",
    "chmod - 改变文件的访问权限",
    "grep - 打印匹配给定模式的行",
    "tar - tar 档案工具",
    "kill - 终止进程",
]


def _mirror_page(own: str) -> str:
    return "\n".join([*MIRROR_HEAD, own, "相关推荐", *RELATED2, *MIRROR_FOOT])


def _two_sites_day(tmp_path: Path) -> Path:
    day = _manual_pages(RELATED + RELATED2)
    for i, proverb in enumerate(PROVERBS):
        url = f"http://dl.example/{i}"
        day.append(rec(f"dl{i}", _dl_page(proverb), f"2026-11-01T01:0{i}:00Z", f"软件{i}", url))
    # The second site: four pages of its own, then the download site's proverb 2, under
    # another title: the two pages share no line but the proverb.
    mine = [
        "人心齐，泰山移，众人拾柴火焰高。",
        "读书破万卷，下笔如有神，功夫不负有心人。",
        "少壮不努力，老大徒伤悲，莫等闲白了少年头。",
        "书山有路勤为径，学海无涯苦作舟。",
    ]
    for i, own in enumerate(mine):
        url = f"http://mirror.example/{i}"
        day.append(rec(f"m{i}", _mirror_page(own), f"2026-11-01T02:0{i}:00Z", f"每日{i}", url))
    day.append(
        rec(
            "mrepost",
            _mirror_page(PROVERBS[2]),
            "2026-11-01T03:00:00Z",
            "今日谚语",
            "http://mirror.example/r",
        )
    )
    return write_day(tmp_path / "in", "2026-11-01", day)


def test_a_copy_whose_hosts_frequent_lines_differ_is_found_by_its_own_text(
    spark: Any, tmp_path: Path
) -> None:
    """Issue 45: a short page copied into another site's template with another related
    list (both lists frequent on their hosts) shares no key with its original on the
    whole text; its own text's key (rule lsh, ``boilerplate.own_text_key``) finds it, and
    its own text decides. Without that key the copy stays unique: the same day, the knob
    off."""
    d = _two_sites_day(tmp_path)
    found = {}
    for on in (True, False):
        cfg = small_day_config().replace(**{"boilerplate.own_text_key": on})
        home = tmp_path / f"home-{on}"
        ctx = DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d)
        run_all(spark, ctx)
        found[on] = verdicts(ctx)
    v = found[True]
    assert (v["mrepost"]["verdict"], v["mrepost"]["duplicate_of"]) == ("duplicate", "dl2"), v
    assert v["mrepost"]["rule"] == "lsh", v["mrepost"]
    for i in range(4):
        assert v[f"m{i}"]["verdict"] == "unique", (i, v[f"m{i}"])
    for i in range(len(PROVERBS)):
        assert v[f"dl{i}"]["verdict"] == "unique", (i, v[f"dl{i}"])
    assert found[False]["mrepost"]["verdict"] == "unique", found[False]["mrepost"]

    # A rerun with the key off equals the fresh run with it off (its key postings gone).
    cfg = small_day_config().replace(**{"boilerplate.own_text_key": False})
    home_on, home_off = tmp_path / "home-True", tmp_path / "home-False"
    rerun = DayContext(day="2026-11-01", home=home_on, cfg=cfg, input_dir=d, replace=True)
    run_all(spark, rerun)
    fresh = DayContext(day="2026-11-01", home=home_off, cfg=cfg, input_dir=d)
    days = ["2026-11-01"]
    assert not differences(
        published_state(rerun.store, home_on, days, cfg),
        published_state(fresh.store, home_off, days, cfg),
    )


def test_a_repost_without_the_title_heading_and_with_a_source_line_is_found(
    spark: Any, tmp_path: Path
) -> None:
    """Issue 45: the download site shows each page's title above its proverb; a repost
    elsewhere drops that heading and puts a source line on top. The heading is not the
    page's text (``core/boilerplate.py: without_title_heading``): the original's own text
    is the proverb alone, which the repost contains. Measured with the heading, the
    repost is short of the bar (a proverb of 10 characters under a heading of 5)."""
    day = _manual_pages(RELATED)
    for i, proverb in enumerate(PROVERBS):
        heading = proverb[:5].rstrip("，")
        text = _dl_page(proverb, heading)
        url = f"http://dl.example/{i}"
        day.append(rec(f"dl{i}", text, f"2026-11-01T01:0{i}:00Z", f"{heading}_绿色软件园", url))
    day.append(
        rec(
            "repost",
            f"转自 绿色软件园\n{PROVERBS[2]}",
            "2026-11-01T02:00:00Z",
            "三个臭皮匠_绿色软件园",
            "http://other.example/r",
        )
    )
    d = write_day(tmp_path / "in", "2026-11-01", day)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=small_day_config(), input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    assert (v["repost"]["verdict"], v["repost"]["duplicate_of"]) == ("duplicate", "dl2"), v
    for i in range(len(PROVERBS)):
        assert v[f"dl{i}"]["verdict"] == "unique", (i, v[f"dl{i}"])
    with open_store(ctx.store) as store:
        lines = explain(store, ctx.home, ctx.day, "repost", ctx.cfg)
    measures = next(x for x in lines if x.startswith("measures"))
    assert "on own text (what decided)" in measures, "\n".join(lines)
    assert measures.endswith("containment 1.000"), "\n".join(lines)
