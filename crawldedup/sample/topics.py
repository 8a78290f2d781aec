"""A labelled crawl day for topic relevance (seed 003 §4, table 1), as HTML pages.

Three kinds of page per topic, as in the paper's experiment: pages **on** the topic,
pages that contain the topic's keywords but are **off** it (a football lottery shop, a
"framework agreement", a solar farm), and **unrelated** pages (recipes, travel, weather,
stocks) that contain none of them. On-topic pages often do without the keyword itself
and speak in the topic's own vocabulary; keyword pages repeat the keyword in their body
and, sometimes, stuff it into their meta keywords or title. Every page has a <title>,
meta description and keywords, headings, a navigation bar and links to other pages of
the day, so the tag weights and the link ranking have something to work on.

The truth (``topics_truth.jsonl``: id, topic, label) sits next to the day's folder.
Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html as htmllib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LABELS: tuple[str, ...] = ("on", "keyword_off", "unrelated")


@dataclass(frozen=True)
class TopicVocabulary:
    name: str
    keywords: tuple[str, ...]  # the topic's keywords, as the user would type them
    titles: tuple[str, ...]  # on-topic title patterns; {a} {b} are filled from terms
    terms: tuple[str, ...]  # the topic's own vocabulary
    sentences: tuple[str, ...]  # on-topic sentence patterns
    traps: tuple[
        tuple[str, tuple[str, ...], tuple[str, ...]], ...
    ]  # off-topic (title, terms, sentences)


FOOTBALL = TopicVocabulary(
    name="football",
    keywords=("足球",),
    titles=(
        "{a}：{b}两球领先锁定胜局",
        "{a}第{n}轮前瞻：{b}能否延续不败",
        "{a}观察｜{b}的战术变化",
        "{b}伤愈复出，{a}争冠形势生变",
        "足球周报：{a}与{b}",
    ),
    terms=(
        "英超",
        "西甲",
        "中超",
        "欧冠",
        "世界杯",
        "进球",
        "射门",
        "门将",
        "前锋",
        "后卫",
        "中场",
        "主教练",
        "点球",
        "角球",
        "越位",
        "黄牌",
        "积分榜",
        "转会",
        "球迷",
        "主场",
        "客场",
        "绿茵场",
        "帽子戏法",
        "射手榜",
        "补时",
        "替补",
        "防守反击",
        "传中",
    ),
    sentences=(
        "比赛第{n}分钟，{a}的一次{b}打破了僵局。",
        "{a}在{b}中表现出色，赛后被评为全场最佳。",
        "主教练赛后表示，球队在{a}和{b}上还需要加强。",
        "本场比赛双方共出现{n}次{a}，{b}成为比赛转折点。",
        "随着这场胜利，球队在{a}上的排名升至第{n}位，{b}的压力随之增大。",
        "{a}阶段结束后，多名{b}将迎来新的挑战。",
        "这是一场典型的足球比赛，{a}与{b}决定了胜负。",
        "现场{n}万名{a}见证了{b}的精彩瞬间。",
        "赛前球场周边的店铺排起长队，{a}纷纷购买{b}主题围巾。",
        "有博彩网站开出了{a}的赔率，但{b}对此并不在意。",
    ),
    traps=(
        (
            "{a}促销：{b}限时优惠",
            ("足球彩票", "投注站", "赔率", "竞猜", "彩民", "奖池", "销售额", "兑奖"),
            (
                "本期足球彩票{a}突破{n}亿元，{b}人数明显增加。",
                "彩票中心提醒广大{a}理性投注，{b}需在{n}天内完成。",
                "多家{a}反映，足球相关玩法的{b}上涨了{n}成。",
            ),
        ),
        (
            "{a}新品上市，{b}包邮",
            ("儿童玩具", "运动鞋", "折扣", "包邮", "下单", "店铺", "优惠券", "销量"),
            (
                "这款足球造型的{a}本月{b}超过{n}件。",
                "商家推出足球主题{a}，{b}满{n}元即可使用。",
                "消费者可以在{a}领取{b}，足球系列商品一律{n}折。",
            ),
        ),
        (
            "{a}项目开工，占地相当于{n}个足球场",
            ("仓储中心", "物流园", "开发商", "占地面积", "厂房", "招商", "竣工", "投资"),
            (
                "新建{a}的面积相当于{n}个足球场，{b}预计明年完成。",
                "该{a}占地约{n}个足球场大小，{b}已陆续进场。",
                "据{a}介绍，{b}总额达到{n}亿元。",
            ),
        ),
        (
            "{a}开幕，{b}吸引观众",
            ("车展", "模特", "展台", "观众", "主办方", "展馆", "礼仪", "拍照"),
            (
                "本届{a}上，身穿足球球衣的{b}成为焦点。",
                "{a}请来{n}位足球宝贝，{b}前人头攒动。",
                "{a}透露，今年{b}人数超过{n}万。",
            ),
        ),
    ),
)

PHP = TopicVocabulary(
    name="php_framework",
    keywords=("php", "框架"),
    titles=(
        "{a}入门：用{b}写一个博客",
        "{a} {n}.0 发布，{b}大幅改进",
        "对比{a}与{b}：性能与生态",
        "PHP 开发实战：{a}中的{b}",
        "深入理解{a}的{b}",
    ),
    terms=(
        "laravel",
        "symfony",
        "thinkphp",
        "yii",
        "codeigniter",
        "composer",
        "路由",
        "控制器",
        "中间件",
        "orm",
        "mvc",
        "依赖注入",
        "模板引擎",
        "数据库迁移",
        "artisan",
        "eloquent",
        "单元测试",
        "命名空间",
        "服务容器",
        "请求生命周期",
        "restful",
        "缓存驱动",
    ),
    sentences=(
        "在{a}中定义{b}只需要几行代码。",
        "通过{a}安装依赖后，{b}会自动加载。",
        "{a}的{b}让业务逻辑和视图彻底分离。",
        "这个 php 框架的{a}支持{n}种{b}。",
        "升级到新版本后，{a}的性能提升了{n}%，{b}也更易用。",
        "我们用{a}重写了{b}，代码量减少了一半。",
        "开发者可以用{a}扩展{b}，无需修改框架核心。",
        "项目签约后，团队用{a}和{b}在{n}周内完成了第一版。",
        "上线前要做好{a}，就像施工前要检查{b}一样。",
    ),
    traps=(
        (
            "两国签署{a}，{b}迎来新机遇",
            ("框架协议", "合作备忘录", "经贸", "双边", "签约仪式", "投资额", "会谈", "贸易"),
            (
                "双方签署了{a}，涉及{b}金额{n}亿美元。",
                "根据该框架，{a}将在{n}年内落地，{b}同步推进。",
                "政策框架明确了{a}的方向，{b}有望扩大。",
            ),
        ),
        (
            "{a}怎么选？{b}全攻略",
            ("框架眼镜", "镜片", "近视", "验光", "镜架", "隐形眼镜", "度数", "配镜"),
            (
                "专家建议，{a}度数超过{n}度的人优先选择框架眼镜。",
                "挑选{a}时要注意{b}的材质，框架太重会压鼻梁。",
                "{a}和{b}各有利弊，框架款式也越来越多。",
            ),
        ),
        (
            "{a}施工进展：主体框架结构封顶",
            ("钢筋", "混凝土", "框架结构", "施工单位", "楼盘", "封顶", "工地", "抗震"),
            (
                "该楼采用{a}，{b}等级达到{n}级。",
                "{a}表示，主体框架预计{n}月完工，{b}已全部到位。",
                "工人们正在浇筑{a}，{b}施工进入关键阶段。",
            ),
        ),
        (
            "招聘：{a}（php 方向）",
            ("岗位职责", "薪资", "五险一金", "简历", "面试", "福利", "学历", "工作地点"),
            (
                "公司诚聘 php 工程师，{a}面议，{b}齐全。",
                "{a}：熟悉任一 php 框架，本科以上{b}，{n}年以上经验。",
                "请将{a}发送至邮箱，{b}在{n}个工作日内通知。",
            ),
        ),
        (
            "{a}改革：构建{b}新框架",
            ("课程改革", "教育部", "学校", "评价体系", "素质教育", "教师", "学生", "试点"),
            (
                "{a}提出构建{b}的总体框架，{n}所学校先行试点。",
                "新框架下，{a}与{b}将更加紧密衔接。",
                "{a}表示，框架文件将在{n}月正式印发，{b}需提前准备。",
            ),
        ),
    ),
)

EV = TopicVocabulary(
    name="new_energy_vehicle",
    keywords=("新能源汽车",),
    titles=(
        "{a}月销量公布：{b}领跑",
        "实测{a}：{b}表现如何",
        "{a}降价，{b}市场竞争加剧",
        "新能源汽车观察：{a}与{b}",
        "{a}新车上市，{b}提升明显",
    ),
    terms=(
        "电动车",
        "续航里程",
        "充电桩",
        "动力电池",
        "比亚迪",
        "特斯拉",
        "蔚来",
        "纯电",
        "插电混动",
        "快充",
        "电池包",
        "电机",
        "智能驾驶",
        "换电站",
        "磷酸铁锂",
        "三元锂",
        "购置税",
        "渗透率",
        "车企",
        "新车",
    ),
    sentences=(
        "这款{a}的{b}达到{n}公里。",
        "{a}表示，{b}的成本今年下降了{n}%。",
        "随着{a}普及，{b}的需求持续增长。",
        "{a}本月交付{n}万辆，{b}占比继续提升。",
        "新能源汽车的{a}在冬季会缩水约{n}%，{b}是关键。",
        "车主可以在{a}用{b}，{n}分钟充到八成。",
        "不少燃油车车主开始关注{a}，{b}成为购车时的首要考虑。",
        "二手车市场上，{a}的保值率仍低于同级燃油车，{b}是主要原因。",
    ),
    traps=(
        (
            "{a}并网发电，年发电量{n}亿千瓦时",
            ("光伏电站", "风电场", "装机容量", "电网", "发电量", "储能", "逆变器", "碳排放"),
            (
                "该{a}是新能源项目，{b}达到{n}万千瓦。",
                "新能源发电占比提升，与新能源汽车一样成为热点，{a}的{b}创新高。",
                "{a}配套建设{b}，可供{n}万户家庭用电。",
            ),
        ),
        (
            "二手车市场：{a}价格回落，{b}成交活跃",
            ("二手车", "燃油车", "车况", "过户", "评估师", "里程表", "成交价", "车商"),
            (
                "{a}市场本周成交{n}万辆，汽车{b}整体下调。",
                "{a}提醒，购买二手汽车要查看{b}。",
                "不少车主把{a}卖给{b}，再换新能源汽车。",
            ),
        ),
        (
            "{a}午评：新能源汽车板块{b}",
            ("沪指", "涨停", "北向资金", "成交额", "概念股", "主力资金", "题材", "机构"),
            (
                "新能源汽车板块午后{a}，{b}净流入{n}亿元。",
                "{a}显示，新能源汽车{b}今日有{n}只涨停。",
                "分析人士称，{a}短期仍看{b}的动向。",
            ),
        ),
    ),
)

TOPICS: tuple[TopicVocabulary, ...] = (FOOTBALL, PHP, EV)

UNRELATED: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "家常菜：{a}的做法",
        ("红烧肉", "生抽", "老抽", "冰糖", "葱姜", "火候", "砂锅", "五花肉", "焯水", "收汁"),
        ("先把{a}切块，{b}备用，大约{n}分钟。", "加入{a}和{b}，小火慢炖{n}分钟。"),
    ),
    (
        "{a}旅游攻略：{b}一日游",
        ("古镇", "门票", "景区", "自驾", "民宿", "索道", "夜景", "小吃街", "导游", "游客"),
        ("{a}的{b}每天接待游客{n}人次。", "建议早上{n}点前到达{a}，避开{b}高峰。"),
    ),
    (
        "{a}天气：未来三天{b}",
        ("降雨", "气温", "冷空气", "大风", "气象台", "暴雨预警", "多云", "湿度", "雾霾", "降温"),
        ("受{a}影响，本市{b}将下降{n}度。", "{a}发布{b}，局地雨量可达{n}毫米。"),
    ),
    (
        "{a}收评：{b}板块走强",
        ("沪指", "成交额", "涨停", "北向资金", "券商", "市盈率", "创业板", "回购", "分红", "跌幅"),
        ("今日{a}上涨{n}个点，{b}放大。", "{a}净买入{n}亿元，{b}表现亮眼。"),
    ),
)

FILLER = (
    "记者了解到，相关情况仍在进一步跟进中。",
    "业内人士认为，这一变化值得持续关注。",
    "据统计，今年以来类似情况已经出现多次。",
    "对此，有关负责人表示将认真研究大家的意见。",
    "不少网友在评论区留言，表达了自己的看法。",
)

NAV = ("首页", "新闻", "体育", "科技", "汽车", "财经", "旅游", "美食", "房产", "招聘")


@dataclass
class TopicPage:
    id: str
    url: str
    title: str
    html: str
    topic: str  # the topic it is about, or "" for unrelated pages
    label_for: dict[str, str]  # topic → label (on / keyword_off / unrelated)


def _fill(rng: random.Random, pattern: str, terms: tuple[str, ...]) -> str:
    a, b = rng.sample(terms, 2)
    return pattern.format(a=a, b=b, n=rng.randint(2, 99))


def _paragraphs(
    rng: random.Random, sentences: tuple[str, ...], terms: tuple[str, ...], n: int
) -> list[str]:
    paras = []
    for _ in range(n):
        k = rng.randint(2, 4)
        body = [_fill(rng, rng.choice(sentences), terms) for _ in range(k)]
        if rng.random() < 0.7:
            body.insert(rng.randrange(len(body) + 1), rng.choice(FILLER))
        paras.append("".join(body))
    return paras


def _esc(text: str) -> str:
    return htmllib.escape(text, quote=True)


def _render(
    rng: random.Random,
    title: str,
    description: str,
    keywords: list[str],
    headings: list[str],
    paragraphs: list[str],
    related: list[tuple[str, str]],
    host: str,
) -> str:
    nav = "".join(f'<li><a href="/{i}/">{n}</a></li>' for i, n in enumerate(NAV))
    parts = []
    for i, p in enumerate(paragraphs):
        if i < len(headings) and i % 2 == 1:
            parts.append(f"<h2>{_esc(headings[i])}</h2>")
        parts.append(f"<p>{_esc(p)}</p>")
    rel = "".join(f'<li><a href="{_esc(u)}">{_esc(t)}</a></li>' for u, t in related)
    return (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        f"<title>{_esc(title)}_{host}</title>"
        f'<meta name="description" content="{_esc(description)}">'
        f'<meta name="keywords" content="{_esc(",".join(keywords))}">'
        "<script>var _hmt = _hmt || [];</script></head><body>"
        f'<ul class="nav">{nav}</ul><article><h1>{_esc(title)}</h1>'
        + "".join(parts)
        + f"</article><aside><h3>相关阅读</h3><ul>{rel}</ul></aside>"
        f"<footer><p>Copyright © {host} 版权所有</p></footer></body></html>"
    )


def _page_id(n: int, day: str = "") -> str:
    """``t00042``; with a day ``t20261101-00042``, so that days never share an id or URL."""
    return f"t{day.replace('-', '')}-{n:05d}" if day else f"t{n:05d}"


def generate_pages(
    seed: int = 7, per_topic: int = 60, unrelated: int = 120, day: str = ""
) -> list[TopicPage]:
    """``per_topic`` on-topic and ``per_topic // 2`` keyword pages per topic, plus unrelated."""
    rng = random.Random(seed)
    specs: list[tuple[str, str, Any]] = []  # (kind, topic, spec)
    for t in TOPICS:
        specs += [("on", t.name, t)] * per_topic
        specs += [("keyword_off", t.name, rng.choice(t.traps)) for _ in range(per_topic // 2)]
    specs += [("unrelated", "", rng.choice(UNRELATED)) for _ in range(unrelated)]
    rng.shuffle(specs)
    by_name = {t.name: t for t in TOPICS}
    drafts: list[tuple[str, str, str, str, list[str], list[str], list[str]]] = []
    for kind, topic, spec in specs:
        if kind == "on":
            vocab: TopicVocabulary = spec
            title = _fill(rng, rng.choice(vocab.titles), vocab.terms)
            paras = _paragraphs(rng, vocab.sentences, vocab.terms, rng.randint(3, 6))
            terms = vocab.terms
            # Half of the on-topic pages name the keyword in their meta keywords.
            kws = rng.sample(terms, 3) + (list(vocab.keywords) if rng.random() < 0.5 else [])
        else:
            title_pat, terms, sentences = spec
            title = _fill(rng, title_pat, terms)
            paras = _paragraphs(rng, sentences, terms, rng.randint(3, 6))
            kws = rng.sample(terms, 3)
            if kind == "keyword_off":
                vocab = by_name[topic]
                # Keyword stuffing: the keyword in the meta keywords and, now and then,
                # the title of a page that is about something else.
                if rng.random() < 0.6:
                    kws += list(vocab.keywords)
                if rng.random() < 0.25:
                    title = f"{vocab.keywords[0]}{title}"
        description = paras[0][:60]
        headings = [_fill(rng, "{a}与{b}", terms) for _ in paras]
        drafts.append((kind, topic, title, description, kws, headings, paras))
    pages = []
    hosts = ("news.example.cn", "sports.example.cn", "dev.example.cn", "auto.example.cn")
    urls = [f"https://{hosts[i % 4]}/a/{_page_id(i, day)}.html" for i in range(len(drafts))]
    for i, (kind, topic, title, desc, kws, heads, paras) in enumerate(drafts):
        # Related links go mostly to pages of the same kind and topic, like a real site's.
        same = [j for j, d in enumerate(drafts) if d[1] == topic and d[0] == kind and j != i]
        # ...and to general pages; never to another topic's pages, so that a page
        # labelled unrelated to a topic holds none of its keywords.
        general = [j for j, d in enumerate(drafts) if d[1] in ("", topic) and j != i]
        picks = rng.sample(same, min(4, len(same))) + rng.sample(general, min(2, len(general)))
        related = [(urls[j], drafts[j][2]) for j in picks]
        html = _render(rng, title, desc, kws, heads, paras, related, hosts[i % 4])
        labels = {t.name: kind if t.name == topic else "unrelated" for t in TOPICS}
        pages.append(TopicPage(_page_id(i, day), urls[i], title, html, topic, labels))
    return pages


def contains_keyword(page: TopicPage, topic: str) -> bool:
    """Whether the page's text holds one of the topic's keywords (case-folded)."""
    text = page.html.lower()
    return any(k.lower() in text for k in {t.name: t for t in TOPICS}[topic].keywords)


def write_topic_day(
    out: Path, day: str = "2026-11-01", seed: int = 7, per_topic: int = 60, unrelated: int = 120
) -> Path:
    """Write ``out/dt=DAY/part-00000.jsonl`` (HTML records) and ``out/topics_truth.jsonl``."""
    pages = generate_pages(seed, per_topic, unrelated, day)
    folder = out / f"dt={day}"
    folder.mkdir(parents=True, exist_ok=True)
    base = dt.datetime.fromisoformat(f"{day}T08:00:00+00:00")
    with (folder / "part-00000.jsonl").open("w", encoding="utf-8") as fh:
        for i, p in enumerate(pages):
            at = (base + dt.timedelta(seconds=37 * i)).isoformat()
            rec = {"id": p.id, "url": p.url, "html": p.html, "fetched_at": at}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    (folder / "_SUCCESS").write_text("")
    with (out / "topics_truth.jsonl").open("w", encoding="utf-8") as fh:
        for p in pages:
            for topic, label in sorted(p.label_for.items()):
                fh.write(json.dumps({"id": p.id, "topic": topic, "label": label}) + "\n")
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="write a labelled topic-relevance crawl day")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--date", default="2026-11-01")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-topic", type=int, default=60)
    ap.add_argument("--unrelated", type=int, default=120)
    a = ap.parse_args(argv)
    print(write_topic_day(a.out, a.date, a.seed, a.per_topic, a.unrelated))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
