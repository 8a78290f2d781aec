"""Each stage on tiny hand-written days, in the shared local[2] session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.pipeline import (
    bloom_blocks,
    bloom_stage,
    fingerprint_stage,
)
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from crawldedup.rules import DEFAULT_RULES
from crawldedup.stage_registry import CANDIDATES, DOCS
from crawldedup.store import open_store

ARTICLE = (
    "我们知道很多文章爬取下来有可能是转载的，很多用户只是在文章开头和结尾加上原文的出处，"
    "这样的内容会存在很多重复的文章。按理来说，文章与文章之间的相似度比较可以使用余弦定理来判断，"
    "但是爬虫不可能将爬取到每一篇文章都在库中进行一次相似度比较。这就需要我们找到与库中有相同特点的文章，"
    "再使用定理进行判定。一般相同的文章或者相似度极高的文章，标题相同，内容相同，开头相同，或者结尾相同。"
)
OTHER = (
    "今年秋季的城市马拉松比赛吸引了来自全国各地的两万多名跑者参加，组委会在沿途设置了二十个补给站，"
    "志愿者们从清晨五点就开始在各个路口忙碌。比赛当天天气晴朗，气温适宜，多名选手跑出了个人最好成绩，"
    "男子组冠军的成绩比去年提高了将近两分钟，赛后不少市民自发来到终点为选手们加油喝彩。"
)
BOILER_HEAD = (
    "本站公告：欢迎访问示例新闻网，本网站所有内容均由编辑整理发布，未经授权禁止转载，违者必究，谢谢合作与支持！"
    "本站提供新闻资讯、财经评论、体育赛事、科技动态、健康生活等栏目，每日更新，欢迎读者朋友投稿、留言和批评指正。"
    "客服热线：四零零八八八六六六六，工作时间周一至周五。"
)


def write_day(root: Path, day: str, records: list[dict[str, Any] | str]) -> Path:
    d = root / f"dt={day}"
    d.mkdir(parents=True)
    with (d / "part-00000.jsonl").open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n")
    return d


def rec(i: str, content: str, t: str, title: str = "标题", url: str = "") -> dict[str, Any]:
    return {
        "id": i,
        "url": url or f"http://site.example/{i}",
        "title": title,
        "content": content,
        "fetched_at": t,
    }


def run_all(spark: Any, ctx: DayContext) -> dict[str, Any]:
    """The day's stages in the registry's order, through the one runner."""
    return run_stages(spark, ctx)


def verdicts(ctx: DayContext) -> dict[str, dict[str, Any]]:
    from crawldedup.store.schema import VerdictRecord

    with open_store(ctx.store) as store:
        return {
            VerdictRecord.from_row(k, r).id: VerdictRecord.from_row(k, r).as_json()
            for k, r in store.scan_prefix("verdicts", f"{ctx.day}|")
        }


def small_day_config() -> Config:
    """Settings for days of a few documents: few partitions, small Bloom blocks."""
    return Config().replace(
        **{
            "spark.shuffle_partitions": 4,
            "bloom.min_capacity": 1000,
            "bloom.capacity_docs": 1000,
            "bloom.scan_splits": 2,
        }
    )


@pytest.fixture
def cfg() -> Config:
    return small_day_config()


def test_fingerprint_quarantines_bad_records_and_keeps_the_rest(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    day = write_day(
        tmp_path / "in",
        "2026-11-01",
        [
            rec("a", ARTICLE, "2026-11-01T01:00:00Z"),
            "{not json",
            {"id": "b", "title": "x"},
            {"id": "c", "content": 42},
            rec("a", OTHER, "2026-11-01T02:00:00Z"),
            {
                "url": "http://site.example/no-id",
                "content": OTHER,
                "fetched_at": "2026-11-01T03:00:00+08:00",
            },
        ],
    )
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=day)
    stats = fingerprint_stage.run(spark, ctx)
    assert stats["documents"] == 2
    assert stats["quarantined"] == {"bad_json": 1, "no_text": 1, "wrong_type": 1, "duplicate_id": 1}
    docs = {r["id"]: r for r in spark.read.parquet(ctx.path(DOCS)).collect()}
    derived = [i for i in docs if i != "a"]
    assert len(derived) == 1 and derived[0].startswith("u")
    assert docs[derived[0]]["fetched_at"] == "2026-10-31T19:00:00.000000Z"  # +08:00 → UTC
    quarantined = spark.read.json(str(ctx.quarantine_dir)).collect()
    assert {q["reason"] for q in quarantined} >= {"bad_json", "duplicate_id"}
    assert any(q["raw"] == "{not json" for q in quarantined)  # nothing is lost
    # The repeated id's raw record is read again from its file (the parse keeps none).
    (again,) = [q for q in quarantined if q["reason"] == "duplicate_id"]
    assert again["position"] == 5 and json.loads(again["raw"])["content"] == OTHER


@pytest.mark.parametrize("tokenizer", ["char", "jieba"])
def test_same_day_cascade_and_groups(
    spark: Any, tmp_path: Path, cfg: Config, tokenizer: str
) -> None:
    cfg = cfg.replace(**{"fingerprint.tokenizer": tokenizer})
    day = write_day(
        tmp_path / "in",
        "2026-11-01",
        [
            rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重"),
            rec("exact", ARTICLE, "2026-11-01T02:00:00Z", "别的标题"),
            rec(
                "repost",
                "转载自示例网：" + ARTICLE + "（责任编辑：王五）",
                "2026-11-01T03:00:00Z",
                "【转】网页判重",
            ),
            rec("other", OTHER, "2026-11-01T04:00:00Z", "网页判重"),
        ],
    )
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=day)
    report = run_all(spark, ctx)
    v = verdicts(ctx)
    assert v["orig"]["verdict"] == "unique" and v["orig"]["group"] == "orig"
    assert (v["exact"]["rule"], v["exact"]["duplicate_of"]) == ("content_md5", "orig")
    assert v["repost"]["verdict"] == "duplicate" and v["repost"]["rule"] == "title"
    assert v["repost"]["group"] == "orig" and v["repost"]["similarity"] > 0.9
    # Same title, different text: the title key makes it a candidate, cosine rejects it.
    assert v["other"]["verdict"] == "unique"
    assert report["duplicates"] == {"content_md5": 1, "title": 1}
    with open_store(ctx.store) as store:
        members = store.get("groups", ["orig"])["orig"]
    assert set(members) == {"d:orig", "d:exact", "d:repost"}


def test_earlier_days_via_bloom_and_store_and_rerun_is_idempotent(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    home = tmp_path / "home"
    d1 = write_day(
        tmp_path / "in",
        "2026-11-01",
        [rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法")],
    )
    run_all(spark, DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1))
    d2 = write_day(
        tmp_path / "in",
        "2026-11-02",
        [
            rec("copy", ARTICLE + "版权所有，转载请注明出处。", "2026-11-02T01:00:00Z", "乙"),
            rec("new", OTHER, "2026-11-02T02:00:00Z", "丙"),
        ],
    )
    ctx2 = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    report = run_all(spark, ctx2)
    v = verdicts(ctx2)
    assert (v["copy"]["rule"], v["copy"]["duplicate_of"], v["copy"]["group"]) == (
        "head",
        "orig",
        "orig",
    )
    assert v["new"]["verdict"] == "unique"
    assert report["bloom"]["hits"] >= 1
    with open_store(ctx2.store) as store:
        before = {t: list(store.scan(t)) for t in ("start_id", "docs", "groups", "verdicts")}
    run_all(spark, ctx2)
    assert verdicts(ctx2) == v
    with open_store(ctx2.store) as store:
        after = {t: list(store.scan(t)) for t in ("start_id", "docs", "groups", "verdicts")}
    assert after == before


# make test-all (30 s); reruns that replace a day stay in make test (test_rerun_history,
# the kill-and-rerun tests).
@pytest.mark.exhaustive
def test_rerun_with_other_threshold_replaces_the_day_only(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    # The cosine profile: seed.threshold is its knob.
    cfg = cfg.replace(**{"cascade.profile": "seed"})
    home = tmp_path / "home"
    d1 = write_day(
        tmp_path / "in",
        "2026-11-01",
        [rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法")],
    )
    run_all(spark, DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1))
    d2 = write_day(
        tmp_path / "in",
        "2026-11-02",
        [
            # Head, tail and content changed; the shared title makes it a candidate.
            rec(
                "edit",
                "编者按：" + ARTICLE.replace("余弦定理", "夹角公式") + "补充一句话。",
                "2026-11-02T01:00:00Z",
                "网页判重方法",
            ),
        ],
    )
    ctx = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    run_all(spark, ctx)
    assert verdicts(ctx)["edit"]["verdict"] == "duplicate"
    strict = DayContext(
        day="2026-11-02", home=home, cfg=cfg.replace(**{"seed.threshold": 0.999}), input_dir=d2
    )
    run_all(spark, strict)
    assert verdicts(strict)["edit"]["verdict"] == "unique"
    with open_store(ctx.store) as store:
        assert "d:edit" not in store.get("groups", ["orig"]).get("orig", {})
    assert verdicts(DayContext(day="2026-11-01", home=home, cfg=cfg))["orig"]["verdict"] == "unique"


def test_hot_head_key_is_bounded_and_boilerplate_stays_unique(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    small = cfg.replace(**{"limits.max_postings_per_key": 3})
    texts = [
        OTHER,
        ARTICLE,
        "新学期开始后，市教育局发布了关于中小学课后服务的指导意见，要求各校结合实际开设体育、艺术和科学类兴趣课程，"
        "家长可以根据孩子的兴趣自愿选择，收费标准由物价部门统一核定，低保家庭学生免费参加。",
        "央行今天公布的数据显示，上月末广义货币余额同比增长百分之八点三，人民币贷款增加较多，"
        "分析人士认为，稳健的货币政策将继续保持流动性合理充裕，支持实体经济恢复发展。",
        "气象台预计未来三天本地将出现一次明显降温过程，最低气温可能跌破零度，并伴有大风和雨夹雪，"
        "请市民注意添衣保暖，出行尽量乘坐公共交通工具，农业部门要做好大棚蔬菜的防冻工作。",
        "这款新发布的手机搭载了自研芯片，续航能力比上一代提升了两成，相机支持夜景模式和长焦拍摄，"
        "首批货源在开售后十分钟内售罄，厂商表示将加快产能爬坡，尽快满足消费者的购买需求。",
    ]
    records = [
        rec(f"n{i}", BOILER_HEAD + t, f"2026-11-01T0{i}:00:00Z", f"栏目{i}")
        for i, t in enumerate(texts)
    ]
    d = write_day(tmp_path / "in", "2026-11-01", records)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=small, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    assert all(x["verdict"] == "unique" for x in v.values()), v
    cands = spark.read.parquet(ctx.path(CANDIDATES)).filter("rule = 'head'")
    per_doc = cands.groupBy("id").count().collect()
    assert max(r["count"] for r in per_doc) <= 3
    with open_store(ctx.store) as store:
        from crawldedup.core.fingerprint import md5_hex
        from crawldedup.core.normalize import normalize_text

        key = md5_hex(normalize_text(BOILER_HEAD)[:100])
        assert len(store.get("start_id", [key])[key]) == 3  # postings capped at the earliest 3


def long_article(seed: int) -> str:
    import random
    from datetime import date

    from crawldedup_demo.corpus import compose_article

    return compose_article(random.Random(seed), "zh", date(2026, 11, 1), target=2000).text


def test_simhash_rule_catches_new_title_header_and_footer(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    from crawldedup.core.fingerprint import hamming64, text_simhash
    from crawldedup.core.normalize import normalize_text

    text, other, third = long_article(1), long_article(2), long_article(3)
    fourth, fifth = long_article(4), long_article(5)
    repost = "来源：东方日报 记者 张三 报道\n" + text + "\n（本文来自网络，如有侵权请联系删除）"
    # The premise: a near copy within 3 bits, whose title, head and tail all differ.
    assert hamming64(text_simhash(normalize_text(text)), text_simhash(normalize_text(repost))) <= 3
    shared_head = BOILER_HEAD + "\n"
    records = [
        rec("orig", text, "2026-11-01T01:00:00Z", "城市更新计划公布"),
        rec("repost", repost, "2026-11-01T02:00:00Z", "重磅！这座城市要变样了"),
        # Negatives: a generic title shared with an unrelated article, and two unrelated
        # articles of one site sharing a long boilerplate header and footer (articles of
        # their own: a page that wraps an earlier article in a site's blocks is a copy).
        rec("notice1", other, "2026-11-01T03:00:00Z", "公告"),
        rec("notice2", third, "2026-11-01T04:00:00Z", "公告"),
        rec("site1", shared_head + fourth + "\n" + BOILER_HEAD, "2026-11-01T05:00:00Z", "甲文"),
        rec("site2", shared_head + fifth + "\n" + BOILER_HEAD, "2026-11-01T06:00:00Z", "乙文"),
    ]
    d = write_day(tmp_path / "in", "2026-11-01", records)
    home = tmp_path / "home"
    ctx = DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    assert (v["repost"]["rule"], v["repost"]["duplicate_of"]) == ("simhash", "orig")
    for neg in ("notice1", "notice2", "site1", "site2"):
        assert v[neg]["verdict"] == "unique", v[neg]
    assert v["site2"]["duplicate_of"] is None
    # Without the SimHash rule the seed-000 cascade misses this repost.
    seed_only = cfg.replace(**{"cascade.rules": ("content_md5", "head", "tail", "title")})
    ctx2 = DayContext(day="2026-11-01", home=tmp_path / "home2", cfg=seed_only, input_dir=d)
    run_all(spark, ctx2)
    assert verdicts(ctx2)["repost"]["verdict"] == "unique"


def test_simhash_rule_finds_earlier_days_through_the_store(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    text = long_article(1)
    repost = "来源：东方日报\n" + text + "\n（责任编辑：李四）"
    home = tmp_path / "home"
    d1 = write_day(
        tmp_path / "in",
        "2026-11-01",
        [rec("orig", text, "2026-11-01T01:00:00Z", "城市更新计划公布")],
    )
    run_all(spark, DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1))
    d2 = write_day(
        tmp_path / "in", "2026-11-02", [rec("copy", repost, "2026-11-02T01:00:00Z", "新标题")]
    )
    ctx = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    run_all(spark, ctx)
    v = verdicts(ctx)["copy"]
    assert (v["rule"], v["duplicate_of"], v["group"]) == ("simhash", "orig", "orig")


def test_each_duplicate_type(spark: Any, tmp_path: Path, cfg: Config) -> None:
    text, extra = long_article(1), long_article(2)
    records = [
        rec("orig", text, "2026-11-01T01:00:00Z", "城市更新计划公布"),
        rec("full", text, "2026-11-01T02:00:00Z", "城市更新计划公布"),
        # Same normalized text, another layout: spaces and full-width punctuation.
        rec(
            "content",
            text.replace("，", ", ").replace("。", ". "),
            "2026-11-01T03:00:00Z",
            "另一个",
        ),
        # The whole article plus a long extra section: it contains the original.
        rec("partial", text + "\n" + extra[: len(text) * 2 // 5], "2026-11-01T04:00:00Z", "扩展版"),
        rec(
            "near",
            text.replace("城市", "都市", 3) + "（完）",
            "2026-11-01T05:00:00Z",
            "城市更新计划公布",
        ),
    ]
    d = write_day(tmp_path / "in", "2026-11-01", records)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    assert v["orig"]["type"] is None
    for kind in ("full", "content", "partial", "near"):
        assert (v[kind]["duplicate_of"], v[kind]["type"]) == ("orig", kind), v[kind]


def test_mirrors_groups_across_days_and_delete_list(
    spark: Any, tmp_path: Path, cfg: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    from crawldedup.cli import main

    cfg = cfg.replace(**{"output.delete_list": "jsonl"})
    home = tmp_path / "home"
    arts = [long_article(i) for i in (1, 2, 3)]
    day1 = [
        rec(f"o{i}", t, f"2026-11-01T0{i}:00:00Z", f"原文{i}", f"https://origin.example/n/{i}")
        for i, t in enumerate(arts)
    ]
    d1 = write_day(tmp_path / "in", "2026-11-01", day1)
    run_all(spark, DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1))
    # Day 2: a mirror host serves the same pages under the same paths, and a repost
    # site copies article 0 once more.
    day2 = [
        rec(f"m{i}", t, f"2026-11-02T0{i}:00:00Z", f"原文{i}", f"http://www.mirror.example/n/{i}/")
        for i, t in enumerate(arts)
    ]
    day2.append(
        rec("r0", "转载：" + arts[0], "2026-11-02T05:00:00Z", "原文0", "https://blog.example/p/77")
    )
    d2 = write_day(tmp_path / "in", "2026-11-02", day2)
    ctx2 = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    run_all(spark, ctx2)

    capsys.readouterr()
    assert main(["mirrors", "--date", "2026-11-02", "--home", str(home)]) == 0
    mirrors = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert mirrors[0] == {
        "host_a": "mirror.example",
        "host_b": "origin.example",
        "pairs": 3,
        "same_path": 3,
        "exact": 3,
    }
    assert all(m["host_a"] != "blog.example" for m in mirrors)  # one copy is not a mirror

    assert main(["groups", "--date", "2026-11-02", "--home", str(home), "--top", "2"]) == 0
    groups = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(g["group"], g["size"], g["new_today"]) for g in groups] == [("o0", 3, 2), ("o1", 2, 1)]
    assert groups[0]["url"] == "https://origin.example/n/0"
    assert groups[0]["first_seen"].startswith("2026-11-01") and groups[0]["last_seen"].startswith(
        "2026-11-02"
    )

    deletions = [
        json.loads(x)
        for f in (home / "deletions" / "dt=2026-11-02").glob("*.json")
        for x in f.read_text().splitlines()
    ]
    assert sorted(d["id"] for d in deletions) == ["m0", "m1", "m2", "r0"]
    assert {d["group"] for d in deletions} == {"o0", "o1", "o2"}


ORIG_AND_COPIES = {
    "2026-11-01": [
        rec("orig", ARTICLE, "2026-11-01T01:00:00Z", "网页判重方法"),
        rec("other", OTHER, "2026-11-01T02:00:00Z", "另一篇"),
    ],
    "2026-11-02": [
        rec("copy", ARTICLE + "版权所有，转载请注明出处。", "2026-11-02T01:00:00Z", "乙"),
        rec("copy2", "转载：" + ARTICLE + "版权所有，转载请注明出处。", "2026-11-02T02:00:00Z"),
        rec("again", OTHER, "2026-11-02T03:00:00Z", "另一篇"),
        rec("new", ARTICLE[:40] + OTHER, "2026-11-02T04:00:00Z", "丙"),
    ],
}


@pytest.mark.exhaustive  # make test-all: a slow scenario (30-60 s)
def test_partitioned_bloom_and_spark_components_give_the_same_results(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """The scale-out paths, forced with tiny caps, against the default ones."""
    days = ORIG_AND_COPIES
    forced = cfg.replace(**{"bloom.max_broadcast_bytes": 0, "limits.max_driver_edges": 0})
    results = []
    for name, c in (("default", cfg), ("forced", forced)):
        home = tmp_path / name
        for day, records in days.items():
            d = write_day(tmp_path / f"in-{name}", day, records)
            ctx = DayContext(day=day, home=home, cfg=c, input_dir=d)
            report = run_all(spark, ctx)
        with open_store(ctx.store) as store:
            tables = {t: list(store.scan(t)) for t in ("groups", "verdicts", "docs")}
        bloom = json.loads((ctx.work / "stats" / "candidates.json").read_text())["bloom"]
        results.append((verdicts(ctx), tables, report["duplicates"], bloom))
    (v_default, t_default, d_default, b_default), (v_forced, t_forced, d_forced, b_forced) = results
    assert b_default["partitioned_rules"] == [] and len(b_forced["partitioned_rules"]) == len(
        DEFAULT_RULES
    )
    assert b_forced["hits"] >= 1  # earlier-day keys really went through the partitioned path
    assert v_forced == v_default and t_forced == t_default and d_forced == d_default
    assert v_default["copy"]["group"] == "orig" and v_default["copy2"]["group"] == "orig"
    assert v_default["again"]["duplicate_of"] == "other"


def test_site_boilerplate_lines_are_removed_before_keys(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """A host's navigation and copyright lines, held by min_pages of its pages (this day
    and earlier days), are not part of any key: a copy wrapped in them is found by its
    head and tail, and articles that only share them stay apart."""
    nav = "示例新闻网 首页 | 国内 | 国际 | 财经 | 体育 | 科技 | 评论"
    related = "相关阅读：城市地铁新线开通 | 秋季运动会闭幕 | 新能源汽车销量创新高"
    copyright_ = "版权所有 © 2026 示例新闻网 未经书面授权不得转载 举报电话：四零零八八八"

    def page(body: str) -> str:
        return "\n".join([nav, body, related, copyright_])

    site = "http://site.example"
    day1 = [
        rec(f"s{i}", page(long_article(10 + i)), f"2026-11-01T0{i}:00:00Z", f"甲{i}", f"{site}/{i}")
        for i in range(3)
    ]
    day1.append(rec("orig", ARTICLE, "2026-11-01T05:00:00Z", "网页判重", "http://other.example/a"))
    home = tmp_path / "home"
    d1 = write_day(tmp_path / "in", "2026-11-01", day1)
    run_all(spark, DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1))
    # Three pages of the host so far (min_pages is 4): nothing was removed on day 1.
    stats1 = json.loads((home / "work/dt=2026-11-01/stats/fingerprint.json").read_text())
    assert stats1["boilerplate"] == {"hosts": 0, "lines": 0, "shapes": 0, "frequent_lines": 0}
    d2 = write_day(
        tmp_path / "in",
        "2026-11-02",
        [
            rec("copy", page(ARTICLE), "2026-11-02T01:00:00Z", "转载：网页判重", f"{site}/c"),
            rec("s9", page(long_article(20)), "2026-11-02T02:00:00Z", "乙", f"{site}/9"),
        ],
    )
    ctx = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    run_all(spark, ctx)
    stats2 = json.loads((ctx.work / "stats" / "fingerprint.json").read_text())
    # The three lines, and the shapes of two: a label and its fill ("相关阅读：…"), a line
    # with numbers ("… © 2026 …").
    assert stats2["boilerplate"] == {"hosts": 1, "lines": 3, "shapes": 2, "frequent_lines": 0}
    v = verdicts(ctx)
    assert (v["copy"]["verdict"], v["copy"]["duplicate_of"]) == ("duplicate", "orig")
    # Without its site's lines the copy is the original's text exactly.
    assert (v["copy"]["rule"], v["copy"]["measure"]) == ("content_md5", "exact")
    assert v["s9"]["verdict"] == "unique"
    from crawldedup.core.boilerplate import line_key

    with open_store(ctx.store) as store:
        rows = dict(store.scan_prefix("host_lines", "site.example|"))
    # Each template line: on the three pages of day 1 and the two of day 2.
    for line in (nav, related, copyright_):
        assert rows[f"site.example|{line_key(line, 8)}"] == {
            "d:2026-11-01": b"3",
            "d:2026-11-02": b"2",
        }
    assert all(set(r) <= {"d:2026-11-01", "d:2026-11-02"} for r in rows.values())


def test_short_texts_in_a_big_template_are_judged_on_their_own_lines(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """Issue 30: a site whose header and footer are several times longer than its short
    pages. Its different poems stay apart (the template never decides), a repost of one
    poem inside another site's big template is found, and a page that is nothing but
    the template is judged by its exact key alone and says so."""

    def template(site: str) -> tuple[list[str], list[str]]:
        head = [f"{site} 首页 | 诗词 | 名句 | 作者 | 古籍 | 登录 | 注册"] + [
            f"{site}推荐阅读：{t}" for t in ("春江花月夜", "将进酒", "长恨歌", "琵琶行", "蜀道难")
        ]
        foot = [
            "返回顶部",
            f"版权所有 © 2026 {site} 未经授权不得转载 京ICP备12345678号",
            "关于我们 | 联系我们 | 意见反馈 | 免责声明 | 网站地图",
        ]
        return head, foot

    def page(site: str, body: str) -> str:
        head, foot = template(site)
        return "\n".join([*head, body, *foot])

    poems = [
        "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。",
        "白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。",
        "春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。",
        "千山鸟飞绝，万径人踪灭。\n孤舟蓑笠翁，独钓寒江雪。",
        "红豆生南国，春来发几枝。\n愿君多采撷，此物最相思。",
    ]
    site_a, site_b = "诗词天地网", "古诗文精选"
    day = [
        rec(f"p{i}", page(site_a, p), f"2026-11-01T0{i}:00:00Z", f"诗{i}", f"http://a.example/{i}")
        for i, p in enumerate(poems)
    ]
    day.append(
        rec("nav", page(site_a, ""), "2026-11-01T06:00:00Z", "目录", "http://a.example/list")
    )
    # Another big-template site, later: two poems of its own, reposts of poems 3 and 0.
    others = ["人生得意须尽欢，莫使金樽空对月。", "君不见黄河之水天上来，奔流到海不复回。"]
    for i, body in enumerate([*others, poems[3]]):
        day.append(
            rec(
                f"b{i}",
                page(site_b, body),
                f"2026-11-01T08:{i}0:00Z",  # after every page of the first site
                f"文{i}",
                f"http://b.example/{i}",
            )
        )
    day.append(
        rec("repost", page(site_b, poems[0]), "2026-11-01T09:00:00Z", "转载", "http://b.example/r")
    )
    d = write_day(tmp_path / "in", "2026-11-01", day)
    ctx = DayContext(day="2026-11-01", home=tmp_path / "home", cfg=cfg, input_dir=d)
    run_all(spark, ctx)
    v = verdicts(ctx)
    for i in range(1, len(poems)):
        assert v[f"p{i}"]["verdict"] == "unique", v[f"p{i}"]
    assert v["b0"]["verdict"] == "unique" and v["b1"]["verdict"] == "unique"
    assert (v["repost"]["verdict"], v["repost"]["duplicate_of"]) == ("duplicate", "p0")
    assert (v["b2"]["verdict"], v["b2"]["duplicate_of"]) == ("duplicate", "p3")
    assert v["nav"]["verdict"] == "unique"
    assert v["nav"]["measure"] == "boilerplate_only"
    # What `crawldedup explain` prints for the repost: the keys, the measure, and the
    # lines, each site's template marked as boilerplate.
    from crawldedup.explain import explain

    with open_store(ctx.store) as store:
        lines = explain(store, ctx.home, ctx.day, "repost", cfg)
        nav_lines = explain(store, ctx.home, ctx.day, "nav", cfg)
    text = "\n".join(lines)
    assert "duplicate of p0" in text and "measure exact" in text, text
    assert "content_md5 same" in text
    assert "  =      床前明月光，疑是地上霜。" in lines
    assert any(x.startswith(f"  - [bp] {site_b} 首页") for x in lines), text
    assert any(x.startswith(f"  + [bp] {site_a} 首页") for x in lines), text
    assert "measure boilerplate_only" in nav_lines[1]


def _block_bits(ctx: DayContext) -> dict[str, bytes]:
    from crawldedup.core.bloom import from_bytes

    with open_store(ctx.store) as store:
        return {
            row: from_bytes(cells["b:bits"]).bitarray.tobytes()
            for row, cells in store.scan(bloom_blocks.BLOCKS)
        }


THREE_DAYS = {
    **ORIG_AND_COPIES,
    "2026-11-03": [rec("third", "转载：" + ARTICLE, "2026-11-03T01:00:00Z", "丁")],
}


def _run_three_days(
    spark: Any, tmp_path: Path, name: str, c: Config
) -> tuple[list[str], dict[str, dict[str, Any]], DayContext]:
    """The three days in one home: each day's Bloom source, all verdicts, the last context."""
    home = tmp_path / name
    sources, found = [], {}
    for day, records in THREE_DAYS.items():
        folder = write_day(tmp_path / name, day, records)
        ctx = DayContext(day=day, home=home, cfg=c, input_dir=folder)
        run_all(spark, ctx)
        sources.append(json.loads((ctx.work / "stats" / "bloom.json").read_text())["source"])
        found |= verdicts(ctx)
    return sources, found, ctx


def test_stored_bloom_blocks_equal_a_rebuild_from_the_index(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """Days OR-ed into the stored blocks give the bits a full rebuild from the index
    tables gives, and find the earlier days' copies."""
    sources, found, ctx = _run_three_days(spark, tmp_path, "blocks", cfg)
    # A new store has no blocks: day 1 builds them (from an empty index), then every day
    # reads them.
    assert sources == ["scan", "blocks", "blocks"]
    stored = _block_bits(ctx)
    assert len(stored) == len(DEFAULT_RULES) * 2 and any(any(b) for b in stored.values())
    bloom_stage.run(spark, ctx, force_scan=True)  # the repair path
    assert _block_bits(ctx) == stored
    assert found["third"]["duplicate_of"] == "orig"
    assert found["copy"]["group"] == "orig"


@pytest.mark.exhaustive  # six more days: the blocks' bits are make test's
def test_stored_bloom_blocks_give_the_verdicts_of_filters_scanned_from_the_index(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    blocks_sources, from_blocks, _ = _run_three_days(spark, tmp_path, "blocks", cfg)
    scan_sources, from_scan, _ = _run_three_days(
        spark, tmp_path, "scan", cfg.replace(**{"bloom.source": "scan"})
    )
    assert blocks_sources == ["scan", "blocks", "blocks"] and scan_sources == ["scan"] * 3
    assert from_blocks == from_scan
    assert from_blocks["third"]["duplicate_of"] == "orig"


def test_editions_are_kept_apart_and_a_repost_joins_the_edition_it_copies(
    spark: Any, tmp_path: Path, cfg: Config
) -> None:
    """Releases of one docs page (one host, the version in the path) add text to the
    one before: editions, not copies, though each contains the last. A repost of 4.2
    on another host matches both 1.11 and 4.2 and joins 4.2's group (the one it matches
    best); 2.2, fetched after a mirror of 4.2 and the repost, matches them too but does
    not join 4.2's group through them; 4.2 served again under ``latest`` is the same
    text, an exact copy."""
    home = tmp_path / "home"
    old = long_article(1)
    new = old + "\n" + long_article(2)[:600]
    docs = "https://docs.example.org/zh-cn/{}/ref/models/"
    mirror = "https://mirror.example.com/zh-cn/{}/ref/models/"
    d1 = write_day(
        tmp_path / "in",
        "2026-11-01",
        [
            rec("v1.11", old, "2026-11-01T01:00:00Z", "模型参考", docs.format("1.11")),
            rec("v4.2", new, "2026-11-01T02:00:00Z", "模型参考", docs.format("4.2")),
        ],
    )
    ctx1 = DayContext(day="2026-11-01", home=home, cfg=cfg, input_dir=d1)
    run_all(spark, ctx1)
    v = verdicts(ctx1)
    assert (v["v4.2"]["verdict"], v["v4.2"]["measure"]) == ("unique", "edition")
    d2 = write_day(
        tmp_path / "in",
        "2026-11-02",
        [
            rec("mirror", new, "2026-11-02T00:30:00Z", "模型参考", mirror.format("4.2")),
            rec(
                "repost",
                "转载自文档站：\n" + new + "\n版权所有，转载请注明出处。",
                "2026-11-02T01:00:00Z",
                "模型参考（转）",
                "https://blog.example.net/posts/8841.html",
            ),
            rec(
                "v2.2",
                old + "\n" + long_article(3)[:100],
                "2026-11-02T03:00:00Z",
                "模型参考",
                docs.format("2.2"),
            ),
            rec("latest", new, "2026-11-02T04:00:00Z", "模型参考", docs.format("latest")),
        ],
    )
    ctx2 = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=d2)
    run_all(spark, ctx2)
    v = verdicts(ctx2)
    assert (v["mirror"]["rule"], v["mirror"]["duplicate_of"]) == ("content_md5", "v4.2")
    assert (v["repost"]["duplicate_of"], v["repost"]["group"]) == ("v4.2", "v4.2")
    assert (v["v2.2"]["verdict"], v["v2.2"]["measure"], v["v2.2"]["group"]) == (
        "unique",
        "edition",
        "v2.2",
    )
    assert (v["latest"]["rule"], v["latest"]["duplicate_of"]) == ("content_md5", "v4.2")
    # `crawldedup explain` says why 2.2 stands alone beside 4.2.
    from crawldedup.explain import explain

    with open_store(ctx2.store) as store:
        lines = explain(store, ctx2.home, ctx2.day, "v2.2", cfg, other="v4.2")
    assert "verdict    unique, group v2.2 (measure edition)" in lines
    assert any(x.startswith("editions   versions 2.2 and 4.2 of docs.example.org") for x in lines)
    assert any(x.startswith("measures   Jaccard ") for x in lines)
