"""Deterministic sample crawl with known truth.

``generate_sample(out_dir)`` writes one ``dt=YYYY-MM-DD/`` folder per day in every
input format the pipeline reads, plus ``truth.jsonl`` (see ``truth.py``) and
``quarantine_expected.json``. Everything, ids and timestamps included, follows
from one ``random.Random(seed)``; nothing uses ``hash()``, wall-clock time or set
iteration order, so a seed always gives byte-identical files.

Per day (``k`` = 1-based day index):

* new originals (70 % Chinese) and hard negatives that must stay unique;
* reposts of originals of that day or any earlier day, each with one labelled
  transform, always fetched after their original;
* ``part-00000.jsonl`` and ``part-00001.jsonl.gz`` every day; day 2 adds
  ``part-00002.parquet`` and ``part-bad.jsonl`` (one record per quarantine
  reason); day 3 adds ``crawl-00000.warc.gz`` (warcinfo, request and response
  records; response docs carry no id, it is ``id_from_url(url)``).

A consistency guard keeps the truth honest against the seed algorithm: no two
docs of different clusters that share a title/full/head/tail key (after seed
normalization) may have character cosine >= 0.85. Candidates breaking that are
regenerated.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import html as htmllib
import io
import json
import math
import random
import re
import unicodedata
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from crawldedup_demo import _data, corpus
from crawldedup_demo.truth import (
    NEGATIVE_KINDS,
    QUARANTINE_REASONS,
    TRANSFORMS,
    TruthRecord,
    canonical_time,
    derived_id,
    write_truth,
)

__all__ = ["DaySummary", "SampleSummary", "generate_sample"]


def warc_date(when: dt.datetime) -> str:
    """A WARC-Date header: UTC, whole seconds."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


TZ = dt.timezone(dt.timedelta(hours=8))  # the crawler runs in China Standard Time
MAX_CONTENT_BYTES = 2_000_000  # the pipeline's size limit the too_large record exceeds
GUARD_COSINE = 0.85  # below the 0.9 duplicate bar, with a margin
ZH_SHARE = 0.70
HTML_SHARE = 0.12  # of originals served as raw HTML (~15 % of all records end up HTML)
REPOST_RATE = 0.6  # reposts per new original
TRANSFORM_WEIGHTS: dict[str, int] = {
    "exact_mirror": 14,
    "source_line": 15,
    "footer": 14,
    "retitle": 12,
    "whitespace_punct": 10,
    "small_edit": 12,
    "source_and_footer": 12,
    "html_template": 11,
}
assert tuple(TRANSFORM_WEIGHTS) == TRANSFORMS


# --------------------------------------------------------------------------- sites


@dataclass(frozen=True)
class Site:
    """A web site: where an article is published and how its pages look."""

    name: str
    host: str
    lang: str
    kind: str  # news | blog | portal | repost | forum | mirror
    topics: tuple[str, ...] = ()
    indent: bool = False  # zh news sites indent paragraphs with two ideographic spaces


@dataclass(frozen=True)
class _ForumChrome:
    """The fixed text around every post of a forum (hard negative ``template_page``)."""

    rules: str
    boards: tuple[str, ...]
    footer: str  # with {year}
    title_prefixes: tuple[str, ...]  # none: titles are not prefixed (and no draw is made)


@dataclass(frozen=True)
class _Tables:
    """The generator's text: ``data/sites.json``, ``transforms.json`` and ``negatives.json``."""

    origin_sites: tuple[Site, ...]  # where originals are published
    repost_sites: tuple[Site, ...]
    mirror_sites: tuple[Site, ...]
    boilerplate_sites: dict[str, Site]  # per language, the shared-boilerplate site
    forum_sites: dict[str, Site]
    nav: dict[str, tuple[str, ...]]  # per language, the menu of news and blog pages
    # Long boilerplate shared by every article of one site (hard negative
    # ``shared_boilerplate``): each part normalizes to well over 100 characters, so the
    # seed's head and tail keys of all those articles are identical.
    boilerplate: dict[str, tuple[str, str]]  # (head, tail)
    generic_titles: dict[str, tuple[str, ...]]
    forum_chrome: dict[str, _ForumChrome]
    source_lines: dict[str, tuple[str, ...]]
    footers: dict[str, tuple[str, ...]]
    retitle: dict[str, tuple[str, ...]]
    synonyms: dict[str, tuple[tuple[str, str], ...]]
    punctuation: dict[str, dict[str, str]]


def _site(raw: dict[str, Any]) -> Site:
    return Site(
        raw["name"],
        raw["host"],
        raw["lang"],
        raw["kind"],
        tuple(raw.get("topics", ())),
        raw.get("indent", False),
    )


def _per_lang(raw: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    return {lang: tuple(v) for lang, v in raw.items()}


@cache
def _tables() -> _Tables:
    sites = _data.load("sites")
    edits = _data.load("transforms")
    negatives = _data.load("negatives")
    return _Tables(
        origin_sites=tuple(_site(s) for s in sites["origin"]),
        repost_sites=tuple(_site(s) for s in sites["repost"]),
        mirror_sites=tuple(_site(s) for s in sites["mirror"]),
        boilerplate_sites={k: _site(v) for k, v in sites["boilerplate"].items()},
        forum_sites={k: _site(v) for k, v in sites["forum"].items()},
        nav=_per_lang(sites["nav"]),
        boilerplate={k: (v["head"], v["tail"]) for k, v in negatives["boilerplate"].items()},
        generic_titles=_per_lang(negatives["generic_titles"]),
        forum_chrome={
            k: _ForumChrome(v["rules"], tuple(v["boards"]), v["footer"], tuple(v["title_prefixes"]))
            for k, v in negatives["forum"].items()
        },
        source_lines=_per_lang(edits["source_lines"]),
        footers=_per_lang(edits["footers"]),
        retitle=_per_lang(edits["retitle"]),
        synonyms={k: tuple((a, b) for a, b in v) for k, v in edits["synonyms"].items()},
        punctuation={k: dict(v) for k, v in edits["punctuation"].items()},
    )


_NEGATIVES_PER_DAY: dict[str, dict[str, int]] = {
    "generic_title": {"zh": 3, "en": 2},
    "shared_boilerplate": {"zh": 2, "en": 1},
    "short_text": {"zh": 3, "en": 1},
    "template_page": {"zh": 2, "en": 1},
}
assert tuple(_NEGATIVES_PER_DAY) == NEGATIVE_KINDS


# --------------------------------------------------------------------------- seed-like keys


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_DROP = re.compile(f"[^a-z0-9{_CJK}]+")
_TERMS = re.compile(f"[a-z0-9]+|[{_CJK}]")
_TITLE_NOISE = ("转摘", "转载", "原创", "置顶", "转帖")


def _normalize(text: str) -> str:
    """Seed 000 normalization, NFKC-folded and lower-cased (what the pipeline does)."""
    return _DROP.sub("", unicodedata.normalize("NFKC", text).lower())


def _normalize_title(title: str) -> str:
    out = _normalize(title)
    for word in _TITLE_NOISE:
        out = out.replace(word, "")
    return out


def _terms(text: str) -> Counter[str]:
    """Cosine terms: each Chinese character, and each run of Latin letters/digits."""
    return Counter(_TERMS.findall(unicodedata.normalize("NFKC", text).lower()))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    return dot / math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _seed_keys(title: str | None, text: str) -> list[str]:
    """The four seed-000 lookup keys of a document (title key only when it has a title)."""
    norm = _normalize(text)
    keys = [f"B{_md5(norm)}", f"C{_md5(norm[:100])}", f"D{_md5(norm[-100:])}"]
    ntitle = _normalize_title(title or "")
    if ntitle:
        keys.append(f"A{_md5(ntitle)}")
    return keys


class _Guard:
    """Rejects a doc that shares a seed key with another cluster's doc and looks alike."""

    def __init__(self) -> None:
        self._by_key: dict[str, list[tuple[str, Counter[str]]]] = {}

    def max_conflict(self, cluster: str, title: str | None, text: str) -> float:
        terms = _terms(text)
        worst = 0.0
        for key in _seed_keys(title, text):
            for other_cluster, other_terms in self._by_key.get(key, ()):
                if other_cluster != cluster:
                    worst = max(worst, _cosine(terms, other_terms))
        return worst

    def ok(self, cluster: str, title: str | None, text: str) -> bool:
        return self.max_conflict(cluster, title, text) < GUARD_COSINE

    def add(self, cluster: str, title: str | None, text: str) -> None:
        terms = _terms(text)
        for key in _seed_keys(title, text):
            self._by_key.setdefault(key, []).append((cluster, terms))


# --------------------------------------------------------------------------- documents


@dataclass
class _Doc:
    """One valid record while it is being built (logical title/text plus how it is served)."""

    id: str
    day_index: int
    day: dt.date
    url: str
    site: Site
    lang: str
    topic: str
    title: str | None
    paragraphs: list[str]
    fetched_at: dt.datetime
    cluster: str
    transform: str
    negative: str | None = None
    html: str | None = None  # set when served as a raw page
    container: str = ""  # file name inside the day folder
    weight: float = 1.0  # repost popularity of an original

    @property
    def text(self) -> str:
        return ("\n" if self.lang == "zh" else "\n\n").join(self.paragraphs)


@dataclass(frozen=True)
class DaySummary:
    """Counts for one generated day."""

    day: str
    records: int
    originals: int
    reposts: int
    negatives: int
    html: int
    bad: int
    files: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SampleSummary:
    """What ``generate_sample`` wrote."""

    out_dir: Path
    truth_path: Path
    quarantine_path: Path
    days: tuple[DaySummary, ...]
    transforms: dict[str, int]
    negatives: dict[str, int]
    quarantine_expected: dict[str, dict[str, int]]

    @property
    def records(self) -> int:
        """Valid records over all days (= lines of truth.jsonl)."""
        return sum(d.records for d in self.days)

    @property
    def bad(self) -> int:
        """Records that must be quarantined, over all days."""
        return sum(d.bad for d in self.days)


class _Builder:
    def __init__(self, rng: random.Random, start: dt.date, days: int, originals: int) -> None:
        self.rng = rng
        self.start = start
        self.days = days
        self.originals_per_day = originals
        self.guard = _Guard()
        self.docs: list[_Doc] = []
        self.originals: list[_Doc] = []  # repostable originals (not hard negatives)
        self.used_ids: set[str] = set()
        self.used_urls: set[str] = set()
        self.bad: dict[int, list[tuple[str, str]]] = {}  # day index -> (reason, line)
        self.warc_docs = 0

    # ---- ids, urls, times

    def new_id(self) -> str:
        while True:
            doc_id = f"{self.rng.getrandbits(64):016x}"
            if doc_id not in self.used_ids:
                self.used_ids.add(doc_id)
                return doc_id

    def assign_id(self, doc: _Doc) -> None:
        if doc.container.endswith(".warc.gz"):
            # The pipeline derives the id of an id-less WARC record from the url and the
            # record's WARC-Date: the same derivation, from the same header.
            doc.id = derived_id(doc.url, canonical_time(warc_date(doc.fetched_at)))
            if doc.id in self.used_ids:  # practically impossible, but the truth must not lie
                raise RuntimeError(f"derived id collision for {doc.url}")
            self.used_ids.add(doc.id)
        else:
            doc.id = self.new_id()
        if doc.transform == "original":
            doc.cluster = doc.id

    def _slug(self, title: str | None) -> str:
        words = re.findall(r"[a-z0-9]+", (title or "").lower())[:8]
        return "-".join(words) or f"post-{self.rng.randint(1000, 99999)}"

    def make_url(self, site: Site, day: dt.date, topic: str, title: str | None) -> str:
        rng = self.rng
        for attempt in range(50):
            if site.lang == "en" and site.kind in ("news", "blog"):
                slug = self._slug(title) + (f"-{attempt + 1}" if attempt else "")
                if site.kind == "news":
                    url = f"https://{site.host}/{topic}/{day:%Y/%m/%d}/{slug}"
                else:
                    url = f"https://{site.host}/{day:%Y/%m}/{slug}/"
            elif site.kind == "news":
                url = (
                    f"https://{site.host}/{topic}/{day:%Y%m%d}/{rng.randint(1000000, 9999999)}.html"
                )
            elif site.kind == "portal":
                url = f"https://{site.host}/a/{day:%Y-%m-%d}/doc-i{rng.getrandbits(48):012x}.shtml"
            elif site.kind == "blog":
                user = rng.choice(("qingfeng", "xiaoyu_2019", "lao-zhang", "tianya", "reader42"))
                url = f"https://{site.host}/{user}/article/details/{rng.randint(10**8, 10**9 - 1)}"
            elif site.kind == "forum":
                if site.lang == "zh":
                    url = f"https://{site.host}/thread-{rng.randint(100000, 999999)}-1-1.html"
                else:
                    url = f"https://{site.host}/t/{self._slug(title)}/{rng.randint(10000, 99999)}"
            elif rng.random() < 0.5:
                url = f"https://{site.host}/article/{rng.randint(10**7, 10**8 - 1)}.html"
            else:
                url = f"https://{site.host}/p/{rng.getrandbits(40):010x}"
            if url not in self.used_urls:
                self.used_urls.add(url)
                return url
        raise RuntimeError(f"could not make a unique url on {site.host}")

    def mirror_url(self, original: _Doc) -> tuple[Site, str]:
        """Same path on another host: the mobile host or a mirror site."""
        path = original.url.split("/", 3)[3]
        base = original.site.host.removeprefix("www.")
        mirror = next(s for s in _tables().mirror_sites if s.lang == original.lang)
        candidates = [
            (
                Site(original.site.name, f"m.{base}", original.lang, "mirror"),
                f"https://m.{base}/{path}",
            ),
            (mirror, f"https://{mirror.host}/{base}/{path}"),
        ]
        self.rng.shuffle(candidates)
        for site, url in candidates:
            if url not in self.used_urls:
                self.used_urls.add(url)
                return site, url
        site = mirror
        return site, self.make_url(site, original.day, original.topic, original.title)

    def time_in_day(self, day: dt.date, lo: dt.time, hi: dt.time) -> dt.datetime:
        """A whole-second time between ``lo`` and ``hi`` (China time) on ``day``."""
        a = dt.datetime.combine(day, lo, TZ)
        b = dt.datetime.combine(day, hi, TZ)
        return a + dt.timedelta(seconds=self.rng.randint(0, int((b - a).total_seconds())))

    # ---- serving

    def choose_container(self, day_index: int, is_html: bool) -> str:
        rng = self.rng
        if day_index == 3 and is_html and (not self.warc_docs or rng.random() < 0.6):
            self.warc_docs += 1  # the first page always goes in, so the file is never empty
            return "crawl-00000.warc.gz"
        if day_index == 2:
            return rng.choices(
                ("part-00000.jsonl", "part-00001.jsonl.gz", "part-00002.parquet"), (4, 3, 3)
            )[0]
        return rng.choices(("part-00000.jsonl", "part-00001.jsonl.gz"), (6, 4))[0]

    def render(self, doc: _Doc, site: Site) -> str:
        return _render_html(self.rng, site, doc, self.sidebar_titles(site.lang))

    def sidebar_titles(self, lang: str) -> list[str]:
        rng = self.rng
        return [
            corpus.compose_title(rng, lang, rng.choice(corpus.topics_for(lang)), self.start)
            for _ in range(rng.randint(5, 9))
        ]

    # ---- originals and negatives

    def pick_site(self, lang: str, topic: str) -> Site:
        sites = [
            s
            for s in _tables().origin_sites
            if s.lang == lang and (not s.topics or topic in s.topics)
        ]
        return self.rng.choice(sites)

    def add_original(self, day_index: int, day: dt.date) -> None:
        rng = self.rng
        lang = "zh" if rng.random() < ZH_SHARE else "en"
        for _ in range(40):
            # 2400: leaves room for the two-space paragraph indent some sites add.
            article = corpus.compose_article(rng, lang, day, max_chars=2400)
            if self.guard.ok("", article.title, article.text) and not self._title_taken(
                article.title
            ):
                break
        else:
            raise RuntimeError("could not compose a distinct article")
        site = self.pick_site(lang, article.topic)
        paragraphs = list(article.paragraphs)
        if site.indent:
            paragraphs = ["\u3000\u3000" + p for p in paragraphs]
        is_html = rng.random() < HTML_SHARE
        # A few plain records come without a title (micro-blog style posts): valid
        # input that simply has no title key.
        title: str | None = article.title if is_html or rng.random() >= 0.03 else None
        doc = _Doc(
            id="",
            day_index=day_index,
            day=day,
            url=self.make_url(site, day, article.topic, article.title),
            site=site,
            lang=lang,
            topic=article.topic,
            title=title,
            paragraphs=paragraphs,
            fetched_at=self.time_in_day(day, dt.time(8), dt.time(20)),
            cluster="",
            transform="original",
            weight=rng.paretovariate(1.4),
        )
        if is_html:
            doc.html = self.render(doc, site)
        doc.container = self.choose_container(day_index, is_html)
        self.assign_id(doc)
        self._commit(doc)
        self.originals.append(doc)

    def _title_taken(self, title: str | None) -> bool:
        # An accidental shared title would be an unlabelled generic_title case.
        return bool(title) and any(
            k.startswith("A") and k in self.guard._by_key for k in _seed_keys(title, "")
        )

    def _commit(self, doc: _Doc) -> None:
        self.guard.add(doc.cluster, doc.title, doc.text)
        self.docs.append(doc)

    def add_negative(self, kind: str, lang: str, day_index: int, day: dt.date, slot: int) -> None:
        """One hard negative; silently skipped if no distinct variant is found."""
        rng = self.rng
        site: Site
        for _ in range(40):
            is_html = False
            if kind == "generic_title":
                # Day 1 uses the first title, days 2 and 3 the second: same-title
                # notices within a day and across days.
                titles = _tables().generic_titles[lang]
                title: str | None = titles[(day_index // 2) % len(titles)]
                subject = rng.randrange(corpus.notice_subjects(lang))
                notice = corpus.compose_notice(rng, lang, day, subject)
                paragraphs = [p for p in notice.split("\n") if p.strip()]
                site = rng.choice([s for s in _tables().origin_sites if s.lang == lang])
                topic = "notice"
            elif kind == "shared_boilerplate":
                site = _tables().boilerplate_sites[lang]
                article = corpus.compose_article(rng, lang, day, target=rng.randint(700, 1600))
                head, tail = _tables().boilerplate[lang]
                title, topic = article.title, article.topic
                paragraphs = [head, *article.paragraphs, tail]
            elif kind == "short_text":
                title, text = corpus.compose_short_text(rng, lang)
                paragraphs = [p for p in text.split("\n") if p.strip()]
                blogs = [s for s in _tables().origin_sites if s.lang == lang and s.kind == "blog"]
                site = rng.choice(blogs)
                topic = "short"
            else:  # template_page
                site = _tables().forum_sites[lang]
                article = corpus.compose_article(rng, lang, day, min_chars=220, max_chars=500)
                prefixes = _tables().forum_chrome[lang].title_prefixes
                prefix = rng.choice(prefixes) if prefixes else ""
                title, topic = prefix + article.title, article.topic
                paragraphs = list(article.paragraphs)
                is_html = True
            text = ("\n" if lang == "zh" else "\n\n").join(paragraphs)
            if self.guard.ok("", title, text) and (
                kind in ("generic_title", "short_text") or not self._title_taken(title)
            ):
                break
        else:
            return
        doc = _Doc(
            id="",
            day_index=day_index,
            day=day,
            url=self.make_url(site, day, topic, title),
            site=site,
            lang=lang,
            topic=topic,
            title=title,
            paragraphs=paragraphs,
            fetched_at=self.time_in_day(day, dt.time(8), dt.time(23)),
            cluster="",
            transform="original",
            negative=kind,
        )
        if is_html:
            doc.html = _render_forum(rng, site, doc)
        doc.container = self.choose_container(day_index, is_html)
        self.assign_id(doc)
        self._commit(doc)

    # ---- reposts

    def pick_source(self, day_index: int) -> _Doc:
        rng = self.rng
        today = [d for d in self.originals if d.day_index == day_index]
        earlier = [d for d in self.originals if d.day_index < day_index]
        pool = today if (not earlier or rng.random() < 0.5) else earlier
        return rng.choices(pool, [d.weight for d in pool])[0]

    def add_repost(self, day_index: int, day: dt.date) -> None:
        rng = self.rng
        for _ in range(30):
            src = self.pick_source(day_index)
            transform = rng.choices(TRANSFORMS, list(TRANSFORM_WEIGHTS.values()))[0]
            made = self._transform(src, transform, day_index, day)
            if made is None:
                continue
            doc, title, paragraphs = made
            text = ("\n" if src.lang == "zh" else "\n\n").join(paragraphs)
            if self.guard.ok(src.cluster, title, text):
                doc.title, doc.paragraphs = title, paragraphs
                if transform == "exact_mirror" and src.html:
                    doc.html = src.html  # a mirror serves the very same page
                elif transform == "html_template":
                    doc.html = self.render(doc, doc.site)
                doc.container = self.choose_container(day_index, doc.html is not None)
                self.assign_id(doc)
                self._commit(doc)
                return
        raise RuntimeError("could not make a repost")

    def _transform(
        self, src: _Doc, transform: str, day_index: int, day: dt.date
    ) -> tuple[_Doc, str | None, list[str]] | None:
        rng = self.rng
        zh = src.lang == "zh"
        if day_index == src.day_index:
            lo = (src.fetched_at + dt.timedelta(minutes=5)).timetz().replace(tzinfo=None)
            fetched = self.time_in_day(day, lo, dt.time(23, 59, 59))
        else:
            fetched = self.time_in_day(day, dt.time(8), dt.time(23, 59, 59))
        title, paragraphs = src.title, list(src.paragraphs)
        if transform == "html_template" and not src.title:
            return None  # a page needs a title; untitled posts are not re-served as HTML
        if transform == "exact_mirror":
            site, url = self.mirror_url(src)
        else:
            site = rng.choice([s for s in _tables().repost_sites if s.lang == src.lang])
            url = ""
        fill = {
            "src": src.site.name,
            "url": src.url,
            "title": src.title or "",
            "author": _person(rng, src.lang),
            "name": _person(rng, src.lang),
            "name2": _person(rng, src.lang),
            "site": site.name,
            "year": str(day.year),
            "date": f"{src.day:%B} {src.day.day}, {src.day.year}",
        }
        if transform in ("source_line", "source_and_footer"):
            lines = _tables().source_lines[src.lang]
            line = rng.choice(lines)
            if "{title}" in line and not src.title:
                line = lines[1]  # the plain "source: …" line (only zh has a {title} line)
            paragraphs.insert(0, line.format(**fill))
        if transform in ("footer", "source_and_footer"):
            paragraphs.extend(rng.choice(_tables().footers[src.lang]).format(**fill).split("\n"))
        if transform == "retitle":
            if src.title is None or rng.random() < 0.3:
                topic = next((t for t in corpus.topics_for(src.lang) if t.name == src.topic), None)
                if topic is None:
                    return None
                title = corpus.compose_title(rng, src.lang, topic, day)
            else:
                pattern = rng.choice(_tables().retitle[src.lang])
                title = pattern.format(t=src.title, site=site.name)
            if title == src.title:
                return None
        elif transform == "whitespace_punct":
            title = _respace(rng, src.title, zh) if src.title else src.title
            paragraphs = _respace(rng, "\n".join(paragraphs), zh).split("\n")
        elif transform == "small_edit":
            edited = _small_edit(rng, paragraphs, zh)
            if edited is None:
                return None
            paragraphs = edited
        if not url:
            url = self.make_url(site, day, src.topic, title)
        doc = _Doc(
            id="",
            day_index=day_index,
            day=day,
            url=url,
            site=site,
            lang=src.lang,
            topic=src.topic,
            title=title,
            paragraphs=paragraphs,
            fetched_at=fetched,
            cluster=src.cluster,
            transform=transform,
        )
        return doc, title, paragraphs

    # ---- bad records (day 2)

    def add_bad_records(self, day_index: int, day: dt.date) -> None:
        rng = self.rng
        t = self.time_in_day(day, dt.time(8), dt.time(23))
        ts = t.isoformat()
        valid = [
            d for d in self.docs if d.day_index == day_index and d.container.endswith(".jsonl")
        ]
        victim = min(valid, key=lambda d: d.fetched_at)
        other = corpus.compose_article(rng, "zh", day)
        big = corpus.compose_article(rng, "en", day).text
        big = (big + "\n\n") * (MAX_CONTENT_BYTES // len(big) + 60)
        rows: list[tuple[str, str]] = [
            (
                "bad_json",
                '{"id": "' + self.new_id() + '", "url": "https://www.jrkx365.com/article/1.html", '
                '"title": "记录在写入时被截断", "content": "这一行没有写完',
            ),
            (
                "no_text",
                _dumps(
                    {"id": self.new_id(), "url": "https://www.ttkb.cc/p/empty", "fetched_at": ts}
                ),
            ),
            (
                "wrong_type",
                _dumps(
                    {
                        "id": self.new_id(),
                        "url": "https://www.bxzx.org/article/2.html",
                        "title": "内容字段类型错误",
                        "content": 20261102,
                        "fetched_at": ts,
                    }
                ),
            ),
            (
                "too_large",
                _dumps(
                    {
                        "id": self.new_id(),
                        "url": "https://www.newsdigest.net/p/huge",
                        "title": "An oversized page",
                        "content": big,
                        "fetched_at": ts,
                    }
                ),
            ),
            (
                "duplicate_id",
                _dumps(
                    {
                        # Same id as the earliest valid JSON record of the day; the
                        # pipeline must keep that one (read first) and quarantine this.
                        "id": victim.id,
                        "url": "https://www.zhiwen8.net/article/3.html",
                        "title": other.title,
                        "content": other.text,
                        "fetched_at": (victim.fetched_at + dt.timedelta(hours=1)).isoformat(),
                    }
                ),
            ),
        ]
        assert [r for r, _ in rows] == list(QUARANTINE_REASONS)
        rng.shuffle(rows)
        self.bad[day_index] = rows


def _person(rng: random.Random, lang: str) -> str:
    return corpus.Filler(rng, lang, corpus.topics_for(lang)[0], dt.date(2026, 1, 1)).person()


def _dumps(obj: dict[str, Any], ascii_only: bool = False) -> str:
    return json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":"))


# --------------------------------------------------------------------------- transforms

_FULLWIDTH = str.maketrans(
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz%",
    "".join(chr(0xFF10 + i) for i in range(10))
    + "".join(chr(0xFF21 + i) for i in range(26))
    + "".join(chr(0xFF41 + i) for i in range(26))
    + "％",
)


def _respace(rng: random.Random, text: str, zh: bool) -> str:
    """Whitespace / punctuation / character-width changes only: letters, digits and
    Chinese characters survive NFKC unchanged, so the normalized text is identical."""
    table = _tables().punctuation["zh" if zh else "en"]
    for src in rng.sample(sorted(table), k=min(len(table), rng.randint(2, 4))):
        text = text.replace(src, table[src])
    if zh or rng.random() < 0.3:
        text = text.translate(_FULLWIDTH)
    if zh:
        # Stray spaces between characters, as left by broken HTML-to-text copy/paste.
        chars = list(text)
        for i in sorted(rng.sample(range(1, len(chars)), k=max(1, len(chars) // 40)), reverse=True):
            chars.insert(i, " ")
        text = "".join(chars)
        text = text.replace("\u3000\u3000", "") if "\u3000" in text else text
    return text.replace("\n", "\n\n" if rng.random() < 0.5 else "\n")


# Sentence ends: after 。！？ (Chinese); after .!? followed by a space and a capital
# or quote (English, so "2.5%" and "$1.5 billion" are not split).
_ZH_SPLIT = re.compile(r"[。！？]")
_EN_SPLIT = re.compile(r"[.!?](?=\s+[A-Z\"])")


def _small_edit(rng: random.Random, paragraphs: list[str], zh: bool) -> list[str] | None:
    """Change a few words, fix a figure or drop one sentence, away from both ends.

    Only text beyond the first and before the last 150 characters is touched,
    so the copy keeps the original's head and tail (and its title).
    """
    text = "\n".join(paragraphs)
    lo, hi = 150, len(text) - 150
    if hi - lo < 40:
        return None
    if len(text) >= 700 and rng.random() < 0.5:
        # Sentence spans inside the editable window; drop one of them.
        ends = [m.end() for m in (_ZH_SPLIT if zh else _EN_SPLIT).finditer(text)]
        spans = [(a, b) for a, b in zip([0, *ends], ends, strict=False) if a >= lo and b <= hi]
        spans = [(a, b) for a, b in spans if "\n" not in text[a:b].strip()]
        if spans:
            a, b = rng.choice(spans)
            return (text[:a] + text[b:]).split("\n")
    edited = text
    changed = 0
    for old, new in rng.sample(_tables().synonyms["zh" if zh else "en"], 4):
        at = edited.find(old, lo, hi)
        if at >= 0:
            edited = edited[:at] + new + edited[at + len(old) :]
            hi += len(new) - len(old)
            changed += 1
            if changed == 3:
                break
    if not changed:
        # Correct a figure instead ("updated numbers"), as editors do.
        digits = [m.start() for m in re.finditer(r"\d", edited) if lo <= m.start() < hi]
        if not digits:
            return None
        at = rng.choice(digits)
        edited = edited[:at] + str((int(edited[at]) + rng.randint(1, 8)) % 10) + edited[at + 1 :]
    return edited.split("\n")


# --------------------------------------------------------------------------- html


def _esc(text: str) -> str:
    return htmllib.escape(text, quote=True)


def _links(titles: Sequence[str], rng: random.Random, host: str) -> str:
    return "\n".join(
        f'<li><a href="https://{host}/a/{rng.randint(10**6, 10**7 - 1)}.html">{_esc(t)}</a></li>'
        for t in titles
    )


def _render_html(rng: random.Random, site: Site, doc: _Doc, sidebar: list[str]) -> str:
    """A news/blog page in ``site``'s template with the article inside ``<article>``."""
    zh = doc.lang == "zh"
    title = doc.title or ""
    nav = _tables().nav[doc.lang]
    sep = "_" if zh else " | "
    when = doc.fetched_at.strftime("%Y-%m-%d %H:%M")
    body = "\n".join(f"<p>{_esc(p.strip())}</p>" for p in doc.paragraphs if p.strip())
    related = sidebar[: len(sidebar) // 2]
    hot = sidebar[len(sidebar) // 2 :]
    year = doc.day.year
    if zh:
        labels = ("相关阅读", "热点排行", "分享到：微信 微博 QQ空间", "登录", "注册", "下载客户端")
        footer = (
            '<p><a href="/about">关于我们</a> | <a href="/contact">联系我们</a> | '
            '<a href="/ads">广告服务</a> | <a href="/sitemap">网站地图</a> | '
            '<a href="/privacy">隐私政策</a></p>\n'
            f"<p>Copyright © 2003-{year} {_esc(site.name)} 版权所有　"
            f"浙ICP备{rng.randint(10**7, 10**8 - 1)}号</p>\n"
            f"<p>违法和不良信息举报电话：0571-{rng.randint(10**7, 10**8 - 1)}</p>"
        )
        meta = f"{when}　来源：{_esc(site.name)}"
    else:
        labels = (
            "Related stories",
            "Most read",
            "Share: Facebook X Email",
            "Sign in",
            "Subscribe",
            "Apps",
        )
        footer = (
            '<p><a href="/about">About us</a> | <a href="/contact">Contact</a> | '
            '<a href="/terms">Terms of use</a> | <a href="/privacy">Privacy policy</a></p>\n'
            f"<p>© {year} {_esc(site.name)}. All rights reserved.</p>"
        )
        meta = f"Published {when}"
    nav_html = "".join(f'<li><a href="/{i}/">{n}</a></li>' for i, n in enumerate(nav))
    return f"""<!DOCTYPE html>
<html lang="{"zh-CN" if zh else "en"}">
<head>
<meta charset="utf-8">
<title>{_esc(title)}{sep}{_esc(site.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:title" content="{_esc(title)}">
<meta property="og:site_name" content="{_esc(site.name)}">
<meta property="og:type" content="article">
<link rel="stylesheet" href="https://{site.host}/static/css/main.css">
<script>var _hmt = _hmt || [];</script>
</head>
<body>
<div class="topbar"><a href="/login">{labels[3]}</a> | <a href="/register">{labels[4]}</a> | \
<a href="/app">{labels[5]}</a></div>
<header class="site-header">
<div class="logo"><a href="https://{site.host}/">{_esc(site.name)}</a></div>
<nav class="main-nav"><ul>{nav_html}</ul></nav>
</header>
<div class="container">
<main class="main">
<div class="breadcrumb"><a href="/">{nav[0]}</a> &gt; <a href="/{doc.topic}/">{doc.topic}</a></div>
<article class="article">
<h1>{_esc(title)}</h1>
<div class="byline"><time datetime="{doc.fetched_at.isoformat()}">{meta}</time></div>
{body}
</article>
<div class="share">{labels[2]}</div>
<section class="related"><h3>{labels[0]}</h3><ul>
{_links(related, rng, site.host)}
</ul></section>
</main>
<aside class="sidebar"><section class="hot"><h3>{labels[1]}</h3><ol>
{_links(hot, rng, site.host)}
</ol></section></aside>
</div>
<footer class="site-footer">
{footer}
</footer>
<script src="https://{site.host}/static/js/stat.js"></script>
</body>
</html>
"""


def _render_forum(rng: random.Random, site: Site, doc: _Doc) -> str:
    zh = doc.lang == "zh"
    chrome = _tables().forum_chrome[doc.lang]
    rules, boards, footer = chrome.rules, chrome.boards, chrome.footer
    board_html = "".join(
        f'<li><a href="/forum-{i}-1.html">{b}</a></li>' for i, b in enumerate(boards)
    )
    body = "\n".join(f"<p>{_esc(p)}</p>" for p in doc.paragraphs)
    author = _person(rng, doc.lang)
    posted = doc.fetched_at.strftime("%Y-%m-%d %H:%M")
    posted_label = f"发表于 {posted}" if zh else f"Posted {posted}"
    return f"""<!DOCTYPE html>
<html lang="{"zh-CN" if zh else "en"}">
<head>
<meta charset="utf-8">
<title>{_esc(doc.title or "")} - {_esc(site.name)}</title>
<meta property="og:title" content="{_esc(doc.title or "")}">
</head>
<body>
<header id="hd"><div class="logo"><a href="/">{_esc(site.name)}</a></div>
<nav><ul>{board_html}</ul></nav></header>
<div id="wp">
<div class="notice">{_esc(rules)}</div>
<div class="postlist">
<div class="authorinfo">{_esc(author)}</div>
<article class="post">
<h1>{_esc(doc.title or "")}</h1>
<div class="postmeta">{posted_label}</div>
{body}
</article>
</div>
<aside class="boards"><h3>{"热门版块" if zh else "Boards"}</h3><ul>{board_html}</ul></aside>
</div>
<footer id="ft"><p>{_esc(footer.format(year=doc.day.year))}</p></footer>
</body>
</html>
"""


# --------------------------------------------------------------------------- writing


def _record(doc: _Doc, utc: bool) -> dict[str, Any]:
    when = doc.fetched_at
    stamp = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z") if utc else when.isoformat()
    rec: dict[str, Any] = {"id": doc.id, "url": doc.url}
    if doc.html is not None:
        rec["html"] = doc.html
    else:
        if doc.title is not None:
            rec["title"] = doc.title
        rec["content"] = doc.text
    rec["fetched_at"] = stamp
    return rec


def _write_jsonl(path: Path, lines: list[str]) -> None:
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    if path.name.endswith(".gz"):
        buf = io.BytesIO()
        # mtime=0 and no file name: identical bytes on every run.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(data)
        path.write_bytes(buf.getvalue())
    else:
        path.write_bytes(data)


def _write_parquet(path: Path, docs: list[_Doc]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [(name, pa.string()) for name in ("id", "url", "title", "content", "html", "fetched_at")]
    )
    rows = [_record(d, utc=False) for d in docs]
    table = pa.Table.from_pylist([{k: r.get(k) for k in schema.names} for r in rows], schema=schema)
    pq.write_table(table, path)


def _http_block(start_line: str, headers: list[tuple[str, str]], body: bytes = b"") -> bytes:
    """An HTTP message as a WARC request or response record carries it."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return f"{start_line}\r\n{head}\r\n".encode() + body


def _sha1(data: bytes) -> str:
    """A WARC digest value: ``sha1:`` and the base32 of the SHA-1."""
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def _write_warc(path: Path, docs: list[_Doc], rng: random.Random, day: dt.date) -> None:
    """warcinfo, then a request and a response record per page, one gzip member each.

    Written with FastWARC, the engine's own WARC library (the readers use its
    ArchiveIterator). The headers, their order and the digests are set here, so the
    file is the same record for record whatever the library's defaults.
    """
    from fastwarc.stream_io import GzipWriter
    from fastwarc.warc import WarcRecord

    def rec_id() -> str:
        return f"<urn:uuid:{uuid.UUID(int=rng.getrandbits(128), version=4)}>"

    buf = io.BytesIO()
    out = GzipWriter(buf)

    def write(headers: list[tuple[str, str]], block: bytes, content_type: str) -> None:
        record = WarcRecord()
        record.headers.status_line = "WARC/1.0"
        for key, value in [*headers, ("Content-Type", content_type), ("Content-Length", "0")]:
            record.headers.append(key, value)
        record.set_bytes_content(block)  # sets Content-Length in place
        record.write(out, checksum_data=False)
        out.finish()  # one gzip member per record, as WARC readers expect

    info = (
        b"software: crawldedup-sample\r\nformat: WARC File Format 1.0\r\nisPartOf: sample-crawl\r\n"
    )
    write(
        [
            ("WARC-Type", "warcinfo"),
            ("WARC-Record-ID", rec_id()),
            ("WARC-Filename", path.name),
            ("WARC-Date", f"{day:%Y-%m-%d}T00:00:00Z"),
            ("WARC-Block-Digest", _sha1(info)),
        ],
        info,
        "application/warc-fields",
    )
    for doc in docs:
        assert doc.html is not None
        body = doc.html.encode("utf-8")
        host = doc.url.split("/")[2]
        path_part = "/" + doc.url.split("/", 3)[3]
        when = warc_date(doc.fetched_at)
        resp_id = rec_id()  # drawn first: the ids stay those of earlier samples
        req_id = rec_id()
        request = _http_block(
            f"GET {path_part} HTTP/1.1",
            [("Host", host), ("User-Agent", "crawldedup-sample/1.0"), ("Accept", "text/html")],
        )
        write(
            [
                ("WARC-Record-ID", req_id),
                ("WARC-Date", when),
                ("WARC-Concurrent-To", resp_id),
                ("WARC-Type", "request"),
                ("WARC-Target-URI", doc.url),
                ("WARC-Payload-Digest", _sha1(b"")),
                ("WARC-Block-Digest", _sha1(request)),
            ],
            request,
            "application/http; msgtype=request",
        )
        response = _http_block(
            "HTTP/1.1 200 OK",
            [
                ("Server", "nginx"),
                ("Date", doc.fetched_at.astimezone(dt.UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")),
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
            body,
        )
        write(
            [
                ("WARC-Record-ID", resp_id),
                ("WARC-Date", when),
                ("WARC-Type", "response"),
                ("WARC-Target-URI", doc.url),
                ("WARC-Payload-Digest", _sha1(body)),
                ("WARC-Block-Digest", _sha1(response)),
            ],
            response,
            "application/http; msgtype=response",
        )
    out.flush()
    path.write_bytes(buf.getvalue())


def _seed_reachable(ordered: list[_Doc]) -> dict[str, bool]:
    """For each copy: can the seed cascade link it to an earlier doc of its cluster?"""
    seen: dict[str, list[tuple[set[str], Counter[str]]]] = {}
    out: dict[str, bool] = {}
    for doc in sorted(ordered, key=lambda d: (d.fetched_at, d.id)):
        keys = set(_seed_keys(doc.title, doc.text))
        terms = _terms(doc.text)
        earlier = seen.setdefault(doc.cluster, [])
        if doc.transform != "original":
            out[doc.id] = any(
                (shared := keys & other_keys)
                and (any(k.startswith("B") for k in shared) or _cosine(terms, other) > 0.9)
                for other_keys, other in earlier
            )
        earlier.append((keys, terms))
    return out


# --------------------------------------------------------------------------- entry point


def generate_sample(
    out_dir: Path,
    days: int = 3,
    seed: int = 7,
    start: dt.date = dt.date(2026, 11, 1),
    originals_per_day: int = 60,
) -> SampleSummary:
    """Write a ``days``-day sample crawl under ``out_dir`` and its truth; return counts.

    Creates ``out_dir/dt=YYYY-MM-DD/`` folders, ``out_dir/truth.jsonl`` and
    ``out_dir/quarantine_expected.json``. Files of the same names are overwritten;
    nothing else in ``out_dir`` is touched. Same arguments, same bytes.
    """
    if days < 1 or originals_per_day < 1:
        raise ValueError("days and originals_per_day must be >= 1")
    out_dir = Path(out_dir)
    rng = random.Random(seed)
    builder = _Builder(rng, start, days, originals_per_day)
    for k in range(1, days + 1):
        day = start + dt.timedelta(days=k - 1)
        for _ in range(originals_per_day):
            builder.add_original(k, day)
        for kind, per_lang in _NEGATIVES_PER_DAY.items():
            for lang, n in per_lang.items():
                for slot in range(n):
                    builder.add_negative(kind, lang, k, day, slot)
        for _ in range(round(REPOST_RATE * originals_per_day)):
            builder.add_repost(k, day)
        if k == 2:
            builder.add_bad_records(k, day)

    day_summaries: list[DaySummary] = []
    by_day: dict[str, dict[str, int]] = {}
    for k in range(1, days + 1):
        day = start + dt.timedelta(days=k - 1)
        folder = out_dir / f"dt={day:%Y-%m-%d}"
        folder.mkdir(parents=True, exist_ok=True)
        docs = sorted(
            (d for d in builder.docs if d.day_index == k), key=lambda d: (d.fetched_at, d.id)
        )
        names = ["part-00000.jsonl", "part-00001.jsonl.gz"]
        if k == 2:
            names.append("part-00002.parquet")
        if k == 3:
            names.append("crawl-00000.warc.gz")
        files: dict[str, int] = {}
        for name in names:
            members = [d for d in docs if d.container == name]
            files[name] = len(members)
            if name.endswith(".parquet"):
                _write_parquet(folder / name, members)
            elif name.endswith(".warc.gz"):
                _write_warc(folder / name, members, rng, day)
            else:
                utc = name.endswith(".gz")  # the gz shards carry UTC "Z" timestamps
                _write_jsonl(
                    folder / name, [_dumps(_record(d, utc), ascii_only=utc) for d in members]
                )
        bad = builder.bad.get(k, [])
        if bad:
            _write_jsonl(folder / "part-bad.jsonl", [line for _, line in bad])
            files["part-bad.jsonl"] = len(bad)
        by_day[f"{day:%Y-%m-%d}"] = {
            reason: sum(1 for r, _ in bad if r == reason) for reason in QUARANTINE_REASONS
        }
        day_summaries.append(
            DaySummary(
                day=f"{day:%Y-%m-%d}",
                records=len(docs),
                originals=sum(1 for d in docs if d.transform == "original" and not d.negative),
                reposts=sum(1 for d in docs if d.transform != "original"),
                negatives=sum(1 for d in docs if d.negative),
                html=sum(1 for d in docs if d.html is not None),
                bad=len(bad),
                files=files,
            )
        )

    ordered = sorted(builder.docs, key=lambda d: (d.day_index, d.fetched_at, d.id))
    reachable = _seed_reachable(ordered)
    truth_path = out_dir / "truth.jsonl"
    write_truth(
        truth_path,
        (
            TruthRecord(
                id=d.id,
                day=f"{d.day:%Y-%m-%d}",
                url=d.url,
                cluster=d.cluster,
                transform=d.transform,
                negative=d.negative,
                lang=d.lang,
                fetched_at=d.fetched_at.isoformat(),
                file=d.container,
                seed_reachable=reachable.get(d.id),
            )
            for d in ordered
        ),
    )
    total = {r: sum(v[r] for v in by_day.values()) for r in QUARANTINE_REASONS}
    quarantine_path = out_dir / "quarantine_expected.json"
    quarantine_path.write_text(
        json.dumps({"by_day": by_day, "total": total}, indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    transforms = Counter(d.transform for d in builder.docs if d.transform != "original")
    negatives = Counter(d.negative for d in builder.docs if d.negative)
    return SampleSummary(
        out_dir=out_dir,
        truth_path=truth_path,
        quarantine_path=quarantine_path,
        days=tuple(day_summaries),
        transforms={t: transforms[t] for t in TRANSFORMS},
        negatives={n: negatives[n] for n in NEGATIVE_KINDS},
        quarantine_expected={**by_day, "total": total},
    )
