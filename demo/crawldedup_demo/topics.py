"""A labelled crawl day for topic relevance, as HTML pages (docs/relevance.md, table 1).

Three kinds of page per topic, as in the paper's experiment: pages **on** the topic,
pages that contain the topic's keywords but are **off** it (a football lottery shop, a
"framework agreement", a solar farm), and **unrelated** pages (recipes, travel, weather,
stocks) that contain none of them. On-topic pages often do without the keyword itself
and speak in the topic's own vocabulary; keyword pages repeat the keyword in their body
and, sometimes, stuff it into their meta keywords or title. Every page has a <title>,
meta description and keywords, headings, a navigation bar and links to other pages of
the day, so the tag weights and the link ranking have something to work on.

The truth (``topics_truth.jsonl``: id, topic, label) sits next to the day's folder.
Deterministic for a seed. The vocabulary (topics, traps, unrelated pages, filler, menu) is
package data, ``demo/crawldedup_demo/data/relevance_topics.json``, read on first use.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html as htmllib
import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from crawldedup_demo import _data

PageSpec = tuple[str, tuple[str, ...], tuple[str, ...]]  # (title pattern, terms, sentences)


@dataclass(frozen=True)
class TopicVocabulary:
    name: str
    keywords: tuple[str, ...]  # the topic's keywords, as the user would type them
    titles: tuple[str, ...]  # on-topic title patterns; {a} {b} are filled from terms
    terms: tuple[str, ...]  # the topic's own vocabulary
    sentences: tuple[str, ...]  # on-topic sentence patterns
    traps: tuple[PageSpec, ...]  # off-topic pages that hold the keyword


@dataclass(frozen=True)
class _Vocabularies:
    topics: tuple[TopicVocabulary, ...]
    unrelated: tuple[PageSpec, ...]  # pages about none of the topics
    filler: tuple[str, ...]  # neutral sentences sprinkled into every kind of page
    nav: tuple[str, ...]  # the menu of every page


def _spec(raw: dict[str, Any]) -> PageSpec:
    return raw["title"], tuple(raw["terms"]), tuple(raw["sentences"])


@cache
def _vocabularies() -> _Vocabularies:
    raw = _data.load("relevance_topics")
    topics = tuple(
        TopicVocabulary(
            name=t["name"],
            keywords=tuple(t["keywords"]),
            titles=tuple(t["titles"]),
            terms=tuple(t["terms"]),
            sentences=tuple(t["sentences"]),
            traps=tuple(_spec(s) for s in t["traps"]),
        )
        for t in raw["topics"]
    )
    return _Vocabularies(
        topics=topics,
        unrelated=tuple(_spec(s) for s in raw["unrelated"]),
        filler=tuple(raw["filler"]),
        nav=tuple(raw["nav"]),
    )


_BY_CONSTANT = {"FOOTBALL": "football", "PHP": "php_framework", "EV": "new_energy_vehicle"}


def __getattr__(name: str) -> Any:
    # TOPICS, UNRELATED, FILLER, NAV and the three topics stay importable, loaded lazily.
    if name in ("TOPICS", "UNRELATED", "FILLER", "NAV"):
        return getattr(_vocabularies(), name.lower())
    if name in _BY_CONSTANT:
        return next(t for t in _vocabularies().topics if t.name == _BY_CONSTANT[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
            body.insert(rng.randrange(len(body) + 1), rng.choice(_vocabularies().filler))
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
    nav = "".join(f'<li><a href="/{i}/">{n}</a></li>' for i, n in enumerate(_vocabularies().nav))
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
    vocabularies = _vocabularies()
    topics = vocabularies.topics
    specs: list[tuple[str, str, Any]] = []  # (kind, topic, spec)
    for t in topics:
        specs += [("on", t.name, t)] * per_topic
        specs += [("keyword_off", t.name, rng.choice(t.traps)) for _ in range(per_topic // 2)]
    specs += [("unrelated", "", rng.choice(vocabularies.unrelated)) for _ in range(unrelated)]
    rng.shuffle(specs)
    by_name = {t.name: t for t in topics}
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
        labels = {t.name: kind if t.name == topic else "unrelated" for t in topics}
        pages.append(TopicPage(_page_id(i, day), urls[i], title, html, topic, labels))
    return pages


def contains_keyword(page: TopicPage, topic: str) -> bool:
    """Whether the page's text holds one of the topic's keywords (case-folded)."""
    text = page.html.lower()
    return any(
        k.lower() in text for k in {t.name: t for t in _vocabularies().topics}[topic].keywords
    )


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
