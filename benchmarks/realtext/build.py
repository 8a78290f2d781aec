"""Write a labelled multi-day crawl from real text: records, truth, hard-negative pairs.

    python -m benchmarks.realtext.build --out DIR --days 3 --per-day 1600 --seed 13 \
        [--families all|NAME,NAME...]

Writes ``DIR/dt=YYYY-MM-DD/part-0000N.jsonl`` (records ``id, url, title, content`` or
``html``, ``fetched_at`` ISO-8601 with ``Z``) for consecutive days from 2026-11-01,
``DIR/truth.jsonl`` (``id, day, cluster, kind, family, lang, source``: cluster = id of
the earliest document of the duplicate group, kind = the copy kind or ``original``,
family = hard-negative family or null), ``DIR/hard_negative_pairs.jsonl`` (``a, b,
family``: documents that must not be grouped) and ``DIR/manifest.json`` (package
versions and checksums, arguments, counts).

Originals are spread over the days (more on earlier days); copies are made on the
same day (fetched later than their original) or on a later day, about a third of all
records. Hard-negative documents are originals and are never copied, except the short
texts of big-template sites, versioned editions and the pages of standard-heading and
sidebar sites (below). Every choice comes from ``random.Random(seed)`` over the
corpus in its fixed order, so the output is the same for a seed and the same package
versions.

Big-template sites (``reposting.make_big_sites``, 3 Chinese and 3 English): each frames
every page with one fixed block of 32-38 lines (header, navigation, search and notice
lines, three "related" lists of real corpus titles, footer, copyright, ICP lines; 600-850
characters in Chinese, 1,200-1,450 in English), longer than the texts they publish:
short texts under 300 characters (verse, sayings, fortunes, filled notices, short manual
and man-page sections as software blurbs). A page is the block's lines above and below
the title and text (what a text extraction gives; some sites add a date line or
previous/next links), or for ``BIG_HTML_SHARE`` of them the site's HTML. Those originals
form family ``big_template_short`` (``BIG_PAIRS_PER_PAGE`` pairs per page of one site
with a different text, copies on the site included); their copies are kinds
``short_in_other_template`` (the text in another big site's frame) and ``short_plain``
(the text bare, sometimes with a credit line). ``BIG_PLAN`` scales with the record
count like ``FAMILY_PLAN``; the big copies count in the copies (a third), the big
originals in the originals. Excerpts (30-70 % of an article of at least
``EXCERPT_MIN`` characters) are kept at the share of any other kind of copy.

Standard-heading sites (``reposting.make_heading_sites``: a man-page site and a help
centre per language) put their standard section headings ("NAME", "DESCRIPTION", "SEE
ALSO", "KEYWORDS", a translator's credit lines, "相关条目", "参见", ...) and footer on
every page. Their short pages (a short text's few lines under those headings, which
outweigh them) and some longer pages (an article of 300-4,000 characters) form family
``standard_headings_short``: each page is paired with ``FAMILY_PAIRS_PER_PAGE`` others
of its site, a short page first with a longer one (it is not part of it). Reposts of
short pages on other sites keep the headings (kind ``standard_headings_repost``; paired
like their original). Rotating-sidebar sites (``make_sidebar_sites``, two per language)
put a "related articles" sidebar of real titles on every page, a subset of a pool of
16-20 in an order of its own, so pages share many lines that are not their content
(family ``rotating_sidebar``, pairs as above); their copies are the same article served
again by the site with another rotation (``sidebar_rotated``) or reposted elsewhere as
any copy (``add_copy``'s kinds). Those pages take an article (300+ characters) only
while the language has more left than its regular originals will draw
(``prose_reserve``): at scale Chinese articles are scarce, and then a Chinese sidebar
page carries a short text and a longer heading page a long poem. Two copy kinds are
made from the regular originals that suit them (``TARGETED_PLAN``; the copy's language
drawn at ``ZH_SHARE``, the other when none fits): ``reflowed_after_prefix``, a poem or
list with its lines joined on one line after "作者：李白 ", "By Name: " or a site's
"原文：", and ``short_excerpt``, one to three consecutive paragraphs (at most a quarter)
of an article of at least ``EXCERPT_MIN`` characters, at times with the quoting site's
intro and credit lines. ``HEADINGS_PLAN``, ``SIDEBAR_PLAN`` and ``TARGETED_PLAN`` scale
like ``BIG_PLAN``; their copies count in the copies. ``--families`` (a comma list of
``ALL_FAMILIES``: the hard-negative families and the two targeted kinds) makes only
those.

At ``--days 3 --per-day 1600 --seed 13``: 380 big-template originals on 6 sites of
69-108 pages, 120 short_in_other_template, 110 short_plain, 88 excerpts, 1,467
big_template_short pairs; 130 standard_headings_short pages (100 short) on 4 sites of
27-37 pages, 35 standard_headings_repost, 463 pairs; 110 rotating_sidebar originals on
4 sites, 25 sidebar_rotated and 20 reposts elsewhere, 373 pairs; 75
reflowed_after_prefix (55 Chinese), 75 short_excerpt (44 Chinese). At ``--per-day
16500 --seed 29``: 3,919 big-template originals on sites of 663-1,051 pages, 1,238
short_in_other_template, 1,134 short_plain, 915 excerpts, 15,420 big_template_short
pairs; 1,340 standard_headings_short pages (1,031 short) on sites of 260-414 pages, 361
reposts, 5,065 pairs; 1,134 rotating_sidebar originals, 258 sidebar_rotated, 4,143
pairs; 773 reflowed_after_prefix (461 Chinese), 773 short_excerpt, all English: no
regular Chinese original reaches ``EXCERPT_MIN`` at this scale (nor do the excerpts').

Scale: a build first draws from the core sources alone (``corpus.CORE_SOURCES``,
enough up to about --per-day 5000 over 3 days); if they run short of a language or of
texts, it is made again from the same seed over every source (the sources added for
scale, see ``corpus``). When one language has too few texts for its share, the
share falls to what the corpus has (the copies follow the originals' language mix)
and the other language fills in; nothing is synthesized. Reached (records):

* ``--days 3 --per-day 16500 --seed 29``: 49,500 records, 60.0 % Chinese, 20.0 %
  HTML, 33 % copies (12 % of them short_text, 14 % copies of big-template texts),
  every hard-negative family (versioned_editions only 12 records: the near-edition
  families, 377, go to near_editions first);
* ``--days 1 --per-day 100000 --seed 31`` (measured before the standard-heading,
  sidebar and targeted families were added; not measured since): 100,000 records,
  61.7 % Chinese (English texts run out first), 21.1 % HTML, 33 % copies. Chinese
  prose articles are few
  (about 2.4 k), so most Chinese originals are short (verse, sayings) and copies of
  short texts reach 38 % of the copies (13 % at small scale), 52 % with the copies of
  big-template texts; the forced HTML of those copies lifts the HTML share over 20 %.
  near_editions stay at the 377 families the corpus has (759 records).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from bisect import bisect
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import accumulate
from pathlib import Path

from . import reposting as rp
from .corpus import CORE_SOURCES, SCALE_SOURCES, SOURCES, BaseDoc, Corpus, load_corpus

START = date(2026, 11, 1)
ZH_SHARE = 0.60
HTML_SHARE = 0.20
PART_SIZE = 500
VERSE_SHARE = 0.2  # of the Chinese short originals
EXCERPT_MIN = 1000  # characters of an article an excerpt may be cut from
EXCERPT_OWN = 0.8  # share of an excerpt in paragraphs not shared by several base texts
COMMON_PARAGRAPH = 3  # a paragraph found in this many base texts is common
MAX_COPIES = 20  # copies of one original at most (the popular ones reach it)
ORIGINALS_BEFORE = 0.85  # originals are fetched in the first 85 % of their day

# Hard-negative groups at --per-day 1600 over 3 days (scaled with the record count).
FAMILY_PLAN = {
    "shared_boilerplate": (28, 3, 5),
    "same_template_fill": (28, 3, 5),
    "generic_title": (24, 3, 5),
    "near_editions": (36, 2, 4),
    "versioned_editions": (48, 2, 4),
    "same_copyright_tail": (24, 3, 5),
    "short_verse": (40, 2, 3),
}
# Short texts on big-template sites at --per-day 1600 over 3 days (scaled the same way):
# originals spread over the sites, copies of them in another big site's frame and bare,
# and hard-negative pairs per page (pairs of different texts framed by one site).
BIG_PLAN = {
    "originals": 380,
    "short_in_other_template": 120,
    "short_plain": 110,
}
BIG_PAIRS_PER_PAGE = 3
BIG_HTML_SHARE = 0.3  # of the pages of big-template sites, served in the site's HTML
BIG_SHORT_MAX = 300  # characters of a short text on a big-template site
# Standard-heading sites (short pages, a few longer ones, reposts of short pages on
# other sites), rotating-sidebar sites (originals; the same article served again with
# another rotation; reposts of it elsewhere) and the copy kinds made from the originals
# that suit them, at --per-day 1600 over 3 days (scaled the same way).
HEADINGS_PLAN = {"short": 100, "long": 30, "standard_headings_repost": 35}
SIDEBAR_PLAN = {"originals": 110, "sidebar_rotated": 25, "reposts": 20}
TARGETED_PLAN = {"reflowed_after_prefix": 75, "short_excerpt": 75}
FAMILY_HTML_SHARE = 0.25  # of the pages of standard-heading and sidebar sites
FAMILY_PAIRS_PER_PAGE = 3
FAMILY_MAX_COPIES = 3  # copies of one original made by the plans above, at most
HEADINGS_LONG = (300, 4000)  # characters of a longer heading page's text (1 k+ first)
SIDEBAR_TEXT = (300, 1500)  # characters of a sidebar page's text when not a short text
ARTICLE_SHARE = {"zh": 0.55, "en": 0.7}  # of the regular originals, articles (else short)
# Releases of a versioned documentation site, newest first (one scheme per family):
# the path segment that names the edition a page belongs to.
RELEASES = (
    ("5.2", "4.2", "2.2", "1.11"),
    ("v4", "v3", "v2", "v1"),
    ("3.12", "3.11", "3.10", "3.9"),
    ("2024-05", "2023-11", "2023-05", "2022-11"),
    ("latest", "3.0.x", "2.3.x", "1.0.x"),
    ("stable", "2.1", "1.9", "1.8"),
)
DOC_SECTIONS = ("ref", "guide", "topics", "howto", "manual", "faq", "library", "admin")
EDITION_COPY_SHARE = 0.8  # of the versioned editions, those a repost copies (once)
# What --families chooses from: hard-negative families and the targeted copy kinds.
ALL_FAMILIES = (
    *FAMILY_PLAN,
    rp.BIG_FAMILY,
    rp.HEADINGS_FAMILY,
    rp.SIDEBAR_FAMILY,
    *rp.TARGETED_KINDS,
)


class CorpusExhausted(Exception):
    """The corpus has too few unused base texts for the records asked for."""


@dataclass
class Doc:
    id: str
    day: str
    fetched_at: str
    url: str
    page: rp.Page
    kind: str
    family: str | None
    cluster: str
    source: str
    site: rp.Site | rp.BigSite | rp.HeadingSite | rp.SidebarSite
    base: rp.Page | None = None  # the text without a big (heading, sidebar) site's frame
    keep_form: bool = False  # never rendered as HTML afterwards (big-template pages, bare)

    @property
    def base_page(self) -> rp.Page:
        """The page without its HTML (and frame): what a copy starts from."""
        if self.base is not None:
            return self.base
        return rp.Page(self.page.title, self.page.text, self.page.lang)


class Builder:
    def __init__(
        self,
        corpus: Corpus,
        days: int,
        per_day: int,
        seed: int,
        families: Iterable[str] | None = None,
    ) -> None:
        self.corpus = corpus
        self.families = set(ALL_FAMILIES if families is None else families)
        self.days = [(START + timedelta(days=i)).isoformat() for i in range(days)]
        self.per_day = per_day
        self.rng = random.Random(seed)
        self.sites = rp.make_sites(random.Random(seed + 1))
        self.ids: set[str] = set()
        self.used: set[str] = set()
        self.docs: list[Doc] = []
        self.pairs: list[tuple[str, str, str]] = []
        self.short_of_lang = 0  # originals that had to come from the other language
        self.scale = days * per_day / 4800
        self.pools = self._pools()
        titles = {"zh": [], "en": []}
        for d in corpus.docs:
            if 4 <= len(d.title) <= 40:
                titles[d.lang].append(d.title)
        self.titles = {k: self.rng.sample(v, min(300, len(v))) for k, v in titles.items()}
        by_genre: dict[tuple[str, str], list[str]] = defaultdict(list)
        short: dict[tuple[str, str], list[BaseDoc]] = defaultdict(list)
        for d in corpus.docs:
            if 4 <= len(d.title) <= 40 and rp.link_title(d.title):
                by_genre[(d.lang, d.genre)].append(d.title)
            if 10 <= d.length < BIG_SHORT_MAX and "│" not in d.text:  # not a table's row
                short[(d.lang, d.genre)].append(d)
        side = random.Random(seed + 3)  # the big sites' blocks do not move the main draws
        self.big_sites = rp.make_big_sites(side, by_genre)
        for v in short.values():
            side.shuffle(v)
        self.short_pools = short
        self.heading_sites = rp.make_heading_sites(random.Random(seed + 4))
        self.sidebar_sites = rp.make_sidebar_sites(random.Random(seed + 5), by_genre)
        self.heading_short: set[str] = set()  # ids of the short pages of heading sites
        # Articles (300+ characters) the regular originals will draw, per language (set
        # by build), and those left unused when the heading and sidebar pages start.
        self.prose_reserve = {"zh": 0.0, "en": 0.0}
        self.prose_left: dict[str, int] | None = None
        self.sidebars: dict[str, set[rp.Sidebar]] = defaultdict(set)  # drawn, per site
        self.notice_texts: set[str] = set()
        self.url_n = 0
        self.editions: list[list[Doc]] = []  # families of versioned editions
        self.n_long_copies = 0  # copies of texts of SHORT_MAX characters or more
        self.n_excerpts = 0
        counts: Counter[str] = Counter(p for d in corpus.docs for p in set(d.paragraphs))
        self.common = {p for p, n in counts.items() if n >= COMMON_PARAGRAPH}
        self.shared = {p for p, n in counts.items() if n >= 2}  # not one text's own

    # ------------------------------------------------------------------ pools

    def _pools(self) -> dict[tuple[str, str], list[BaseDoc]]:
        pools: dict[tuple[str, str], list[BaseDoc]] = defaultdict(list)
        for d in self.corpus.docs:
            band = "article" if d.band in ("long", "medium") else "short"
            if d.genre == "verse":
                band = "verse"
            pools[(d.lang, band + ("_long" if d.band == "long" else ""))].append(d)
        for v in pools.values():
            self.rng.shuffle(v)
        return pools

    def take(self, lang: str, band: str) -> BaseDoc | None:
        """A base document not used yet: articles prefer 1–20 k characters, then medium."""
        short = [(lang, "short"), (lang, "verse")]
        if lang == "zh" and self.rng.random() < VERSE_SHARE:
            short.reverse()  # some of the Chinese short texts are poems
        order = {
            "article": [(lang, "article_long"), (lang, "article")],
            "short": short,
            "verse": [(lang, "verse")],
        }[band]
        for key in order:
            pool = self.pools.get(key, [])
            while pool:
                d = pool.pop()
                if d.key not in self.used:
                    self.used.add(d.key)
                    return d
        return None

    def take_text(
        self, lang: str, lo: int, hi: int, bands: tuple[str, ...] = ("article", "article_long")
    ) -> BaseDoc | None:
        """A base document not used yet of ``lo``-``hi`` characters from the pools of
        these bands in turn (the last fitting one of a pool: they are shuffled)."""
        for band in bands:
            pool = self.pools.get((lang, band), [])
            for i in range(len(pool) - 1, -1, -1):
                d = pool[i]
                if lo <= d.length <= hi and d.key not in self.used:
                    del pool[i]
                    self.used.add(d.key)
                    return d
        return None

    def spare_text(
        self, lang: str, lo: int, hi: int, bands: tuple[str, ...] = ("article", "article_long")
    ) -> BaseDoc | None:
        """``take_text`` for the pages of heading and sidebar sites, only while the
        language has more unused articles than its regular originals will draw
        (``prose_reserve``): at scale Chinese articles are scarce, and the copies of
        long texts need them as originals."""
        if self.prose_left is None:
            self.prose_left = {
                lang: sum(
                    1
                    for band in ("article", "article_long")
                    for d in self.pools.get((lang, band), [])
                    if d.key not in self.used
                )
                for lang in ("zh", "en")
            }
        if self.prose_left[lang] <= self.prose_reserve[lang]:
            return None
        d = self.take_text(lang, lo, hi, bands)
        if d is not None:
            self.prose_left[lang] -= 1
        return d

    def take_short(
        self, lang: str, genres: tuple[tuple[str, float], ...]
    ) -> tuple[rp.Page, str] | None:
        """A short text of one of the genres (by weight; "notice" is filled in), or of
        any short genre of the language when those run out, with its source; None when
        none is left."""
        live = [
            (g, w)
            for g, w in genres
            if g == "notice" or any(d.key not in self.used for d in self.short_pools[(lang, g)])
        ]
        pools = []
        if live:
            g = self.rng.choices([g for g, _ in live], weights=[w for _, w in live])[0]
            if g == "notice":
                for _ in range(50):
                    page = rp.notice(self.rng, lang)
                    if page.text not in self.notice_texts:
                        self.notice_texts.add(page.text)
                        return page, "template"
            else:
                pools.append(self.short_pools[(lang, g)])
        pools += [pool for (lg, _g), pool in sorted(self.short_pools.items()) if lg == lang]
        for pool in pools:
            while pool:
                d = pool.pop()
                if d.key not in self.used:
                    self.used.add(d.key)
                    return self.page_of(d), d.key
        return None

    def lang(self) -> str:
        return "zh" if self.rng.random() < ZH_SHARE else "en"

    # ------------------------------------------------------------------ records

    def new_id(self) -> str:
        while True:
            i = f"rt{self.rng.getrandbits(60):015x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def url(self, site: rp.Site | rp.BigSite | rp.HeadingSite | rp.SidebarSite, day: str) -> str:
        self.url_n += 1
        section = self.rng.choice(("news", "article", "tech", "a", "post", "content", "doc"))
        return f"https://{site.host}/{section}/{day.replace('-', '')}/{self.url_n:06d}.html"

    def fetched(self, day: str, after: str | None = None) -> str:
        lo = 0
        if after is not None and after[:10] == day:
            h, m, s = (int(x) for x in after[11:19].split(":"))
            lo = h * 3600 + m * 60 + s + 1
        hi = 86399 if after is not None else int(86400 * ORIGINALS_BEFORE)
        sec = self.rng.randint(lo, max(lo, hi))
        return f"{day}T{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}Z"

    def page_of(self, d: BaseDoc) -> rp.Page:
        return rp.Page(d.title, d.text, d.lang)

    def add_original(
        self,
        page: rp.Page,
        day: str,
        family: str | None,
        source: str,
        site: rp.Site | rp.BigSite | None = None,
    ) -> Doc:
        site = site or self.rng.choice(self.sites[page.lang])
        if page.html is None and self.rng.random() < self.p_html:
            page = rp.render_html(self.rng, page, site, site.name, self.titles[page.lang])
        return self._original(page, day, family, source, site)

    def _original(
        self,
        page: rp.Page,
        day: str,
        family: str | None,
        source: str,
        site: rp.Site | rp.BigSite | rp.HeadingSite | rp.SidebarSite,
        base: rp.Page | None = None,
        keep_form: bool = False,
    ) -> Doc:
        """A new original of ``day`` on ``site``, recorded (the rng draws id, time, URL)."""
        i = self.new_id()
        fetched = self.fetched(day)
        url = self.url(site, day)
        doc = Doc(i, day, fetched, url, page, "original", family, i, source, site, base, keep_form)
        self.docs.append(doc)
        return doc

    # ------------------------------------------------------------------ hard negatives

    def n_groups(self, family: str) -> int:
        if family not in self.families:
            return 0
        return max(1, round(FAMILY_PLAN[family][0] * self.scale))

    def n_plan(self, plan: dict[str, int], what: str, family: str) -> int:
        """The planned count scaled with the records (0 when the family is left out)."""
        if family not in self.families:
            return 0
        return max(1, round(plan[what] * self.scale))

    def size(self, family: str) -> int:
        _, lo, hi = FAMILY_PLAN[family]
        return self.rng.randint(lo, hi)

    def group(self, family: str, members: list[Doc]) -> None:
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                self.pairs.append((members[a].id, members[b].id, family))

    def hard_negatives(self, day_of) -> None:
        rng = self.rng
        for _ in range(self.n_groups("shared_boilerplate")):
            lang = self.lang()
            site = rng.choice(self.sites[lang])
            block = rp.boilerplate_block(rng, site, min_chars=rng.randint(300, 600))
            at_top = rng.random() < 0.5
            members = []
            for _k in range(self.size("shared_boilerplate")):
                d = self.take(lang, "article")
                if d is None:
                    break
                page = rp.with_boilerplate(self.page_of(d), block, at_top)
                members.append(self.add_original(page, day_of(), "shared_boilerplate", d.key, site))
            self.group("shared_boilerplate", members)
        for _ in range(self.n_groups("same_template_fill")):
            lang = self.lang()
            site = rng.choice(self.sites[lang])
            pages = rp.fill_templates(rng, lang, self.size("same_template_fill"))
            members = [
                self.add_original(p, day_of(), "same_template_fill", "template", site)
                for p in pages
            ]
            self.group("same_template_fill", members)
        for _ in range(self.n_groups("generic_title")):
            lang = self.lang()
            title = rp.generic_title(rng, lang)
            members = []
            for _k in range(self.size("generic_title")):
                d = self.take(lang, "article" if rng.random() < 0.7 else "short")
                if d is None:
                    break
                page = rp.Page(title, d.text, lang)
                members.append(self.add_original(page, day_of(), "generic_title", d.key))
            self.group("generic_title", members)
        fams = list(self.corpus.editions)
        rng.shuffle(fams)
        # Two thirds of the families are the fortunes' quotes of an older Debian
        # reference; keep every other source and fill up with those.
        fams.sort(key=lambda f: f[-1].source.startswith("fortunes-zh"))
        n_text = self.n_groups("near_editions")
        for fam in fams[:n_text]:
            members = []
            site = rng.choice(self.sites[fam[0].lang])
            for d in fam[: FAMILY_PLAN["near_editions"][2]]:
                self.used.add(d.key)
                members.append(
                    self.add_original(self.page_of(d), day_of(), "near_editions", d.key, site)
                )
            self.group("near_editions", members)
        for fam in fams[n_text : n_text + self.n_groups("versioned_editions")]:
            self.versioned_family(fam, day_of)
        for _ in range(self.n_groups("same_copyright_tail")):
            lang = self.lang()
            site = rng.choice(self.sites[lang])
            tail = rp.copyright_tail(rng, site)
            members = []
            for _k in range(self.size("same_copyright_tail")):
                d = self.take(lang, "article")
                if d is None:
                    break
                page = rp.with_copyright_tail(self.page_of(d), tail)
                members.append(
                    self.add_original(page, day_of(), "same_copyright_tail", d.key, site)
                )
            self.group("same_copyright_tail", members)
        by_form: dict[str, list[BaseDoc]] = defaultdict(list)
        for d in self.pools.get(("zh", "verse"), []):
            if d.form and d.length < 300:
                by_form[d.form].append(d)
        forms = sorted(
            (f for f, ds in by_form.items() if len(ds) >= 10), key=lambda f: (-len(by_form[f]), f)
        )
        for g in range(self.n_groups("short_verse")):
            if not forms:
                break
            form = forms[g % len(forms)]
            avail = [d for d in by_form[form] if d.key not in self.used]
            k = min(self.size("short_verse"), len(avail))
            if k < 2:
                continue
            members = []
            for d in rng.sample(avail, k):
                self.used.add(d.key)
                members.append(self.add_original(self.page_of(d), day_of(), "short_verse", d.key))
            self.group("short_verse", members)
        self.big_originals(day_of)
        self.heading_originals(day_of)
        self.sidebar_originals(day_of)

    def versioned_family(self, fam: list[BaseDoc], day_of) -> None:
        """One page of a documentation site under several releases: one URL shape, the
        release in one path segment (``RELEASES``), each edition its own document."""
        rng = self.rng
        site = rng.choice(self.sites[fam[0].lang])
        releases = rng.choice(RELEASES)
        section = rng.choice(DOC_SECTIONS)
        slug = f"{section}/s{hashlib.md5(fam[0].key.encode()).hexdigest()[:8]}"
        lang = "zh-cn" if fam[0].lang == "zh" else "en"
        shape = rng.choice(
            (
                "https://docs.{host}/" + lang + "/{v}/" + slug + "/",
                "https://{host}/docs/{v}/" + slug + ".html",
            )
        )
        members = []
        for d, version in zip(fam[: FAMILY_PLAN["versioned_editions"][2]], releases, strict=False):
            self.used.add(d.key)
            doc = self.add_original(self.page_of(d), day_of(), "versioned_editions", d.key, site)
            doc.url = shape.format(host=site.host, v=version)
            members.append(doc)
        self.group("versioned_editions", members)
        self.editions.append(members)

    def edition_copies(self) -> list[int]:
        """One repost of most versioned editions, on its day or later; the pairs of a
        copy of one edition with the family's other editions (and their copies) are
        hard negatives of the family. Copies made, per day."""
        rng = self.rng
        made = [0] * len(self.days)
        for members in self.editions:
            copies: dict[str, str] = {}
            for m in members:
                if rng.random() < EDITION_COPY_SHARE:
                    day = rng.choice([d for d in self.days if d >= m.day])
                    self.add_copy(m, day)
                    copies[m.id] = self.docs[-1].id
                    made[self.days.index(day)] += 1
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    x, y = members[a].id, members[b].id
                    for i, j in (
                        (copies.get(x), y),
                        (x, copies.get(y)),
                        (copies.get(x), copies.get(y)),
                    ):
                        if i is not None and j is not None:
                            self.pairs.append((min(i, j), max(i, j), "versioned_editions"))
        return made

    # ------------------------------------------------------------------ big templates

    def n_big(self, what: str) -> int:
        return self.n_plan(BIG_PLAN, what, rp.BIG_FAMILY)

    def big_originals(self, day_of) -> None:
        """Short texts published on big-template sites (family ``big_template_short``)."""
        rng = self.rng
        for _ in range(self.n_big("originals")):
            lang = self.lang()
            site = rng.choice(self.big_sites[lang])
            got = self.take_short(lang, site.genres)
            if got is None:
                continue
            base, source = got
            page = rp.in_big_template(rng, base, site, rng.random() < BIG_HTML_SHARE)
            i = self.new_id()
            day = day_of()
            self.docs.append(
                Doc(
                    i,
                    day,
                    self.fetched(day),
                    self.url(site, day),
                    page,
                    "original",
                    rp.BIG_FAMILY,
                    i,
                    source,
                    site,
                    base,
                    True,
                )
            )

    def big_copies(self, copies_per_day: list[int]) -> list[int]:
        """Copies of the big-template originals: the text in another big site's frame
        (``short_in_other_template``) or bare (``short_plain``). Returns the copies made
        per day (they count in the day's copies)."""
        rng = self.rng
        origs = [d for d in self.docs if d.family == rp.BIG_FAMILY]
        kinds = [k for k in rp.BIG_KINDS for _ in range(self.n_big(k))]
        rng.shuffle(kinds)
        total = sum(copies_per_day)
        per_day = [len(kinds) * c // total for c in copies_per_day]
        per_day[-1] += len(kinds) - sum(per_day)
        weight = {d.id: rng.paretovariate(1.3) for d in origs}
        n_of: Counter[str] = Counter()
        made = [0] * len(self.days)
        k_iter = iter(kinds)
        for di, day in enumerate(self.days):
            live = [d for d in origs if d.day <= day and d.fetched_at < f"{day}T23:59:00Z"]
            for _ in range(per_day[di]):
                live = [d for d in live if n_of[d.id] < MAX_COPIES]
                if not live:
                    break
                orig = rng.choices(live, weights=[weight[d.id] for d in live])[0]
                kind = next(k_iter)
                base = orig.base_page
                if kind == "short_in_other_template":
                    site: rp.Site | rp.BigSite = rng.choice(
                        [s for s in self.big_sites[base.lang] if s != orig.site]
                    )
                    page = rp.in_big_template(rng, base, site, rng.random() < BIG_HTML_SHARE)
                else:
                    site = rng.choice(self.sites[base.lang])
                    page = rp.short_plain(rng, base, site, orig.site.name)
                i = self.new_id()
                fetched = self.fetched(day, after=orig.fetched_at)
                self.docs.append(
                    Doc(
                        i,
                        day,
                        fetched,
                        self.url(site, day),
                        page,
                        kind,
                        None,
                        orig.id,
                        orig.source,
                        site,
                        base,
                        True,
                    )
                )
                n_of[orig.id] += 1
                made[di] += 1
        return made

    def big_pairs(self) -> None:
        """Pairs of pages of one big-template site with different texts: each page with
        ``BIG_PAIRS_PER_PAGE`` others drawn at random."""
        rng = self.rng
        by_site: dict[str, list[Doc]] = defaultdict(list)
        for d in self.docs:
            if isinstance(d.site, rp.BigSite):
                by_site[d.site.host].append(d)
        seen: set[tuple[str, str]] = set()
        for host in sorted(by_site):
            pages = by_site[host]
            for d in pages:
                for _ in range(BIG_PAIRS_PER_PAGE):
                    for _try in range(10):
                        o = rng.choice(pages)
                        if o.cluster != d.cluster:
                            break
                    else:
                        continue
                    key = (d.id, o.id) if d.id < o.id else (o.id, d.id)
                    if key not in seen:
                        seen.add(key)
                        self.pairs.append((key[0], key[1], rp.BIG_FAMILY))

    # ------------------------------------------------------------------ heading and sidebar sites

    def spread(self, n: int, copies_per_day: list[int]) -> list[int]:
        """``n`` copies over the days in proportion to the day's copies."""
        total = sum(copies_per_day)
        per_day = [n * c // total for c in copies_per_day]
        per_day[-1] += n - sum(per_day)
        return per_day

    def add_framed(
        self,
        page: rp.Page,
        base: rp.Page,
        day: str,
        family: str,
        source: str,
        site: rp.HeadingSite | rp.SidebarSite,
    ) -> Doc:
        """An original served in a heading or sidebar site's frame, as it was rendered."""
        return self._original(page, day, family, source, site, base, keep_form=True)

    def add_copy_doc(
        self,
        orig: Doc,
        day: str,
        page: rp.Page,
        kind: str,
        site: rp.Site | rp.SidebarSite,
        base: rp.Page | None = None,
        keep_form: bool = False,
    ) -> Doc:
        i = self.new_id()
        fetched = self.fetched(day, after=orig.fetched_at)
        url = self.url(site, day)
        doc = Doc(
            i, day, fetched, url, page, kind, None, orig.id, orig.source, site, base, keep_form
        )
        self.docs.append(doc)
        return doc

    def heading_originals(self, day_of) -> None:
        """Pages of standard-heading sites (family ``standard_headings_short``): short
        pages (a short text's few lines under the site's headings) and longer ones."""
        rng = self.rng
        fam = rp.HEADINGS_FAMILY
        kinds = ["short"] * self.n_plan(HEADINGS_PLAN, "short", fam)
        kinds += ["long"] * self.n_plan(HEADINGS_PLAN, "long", fam)
        rng.shuffle(kinds)
        for k in kinds:
            lang = self.lang()
            site = rng.choice(self.heading_sites[lang])
            got: tuple[rp.Page, str] | None = None
            if k == "short":
                got = self.take_short(lang, site.genres)
            else:  # an article, or a long poem when articles are scarce
                d = self.spare_text(lang, *HEADINGS_LONG, bands=("article_long", "article"))
                d = d or self.take_text(lang, *HEADINGS_LONG, bands=("verse",))
                got = (self.page_of(d), d.key) if d is not None else None
            if got is None:
                continue
            page, base = rp.in_heading_template(got[0], site, rng.random() < FAMILY_HTML_SHARE)
            doc = self.add_framed(page, base, day_of(), fam, got[1], site)
            if k == "short":
                self.heading_short.add(doc.id)

    def new_sidebar(self, site: rp.SidebarSite) -> rp.Sidebar:
        """A sidebar the site has not shown on another page yet (it rotates)."""
        seen = self.sidebars[site.host]
        for _ in range(50):
            sidebar = rp.draw_sidebar(self.rng, site)
            if sidebar not in seen:
                break
        seen.add(sidebar)
        return sidebar

    def sidebar_originals(self, day_of) -> None:
        """Pages of rotating-sidebar sites (family ``rotating_sidebar``): a medium text or
        a short one, each page with its own draw of the sidebar."""
        rng = self.rng
        for _ in range(self.n_plan(SIDEBAR_PLAN, "originals", rp.SIDEBAR_FAMILY)):
            lang = self.lang()
            site = rng.choice(self.sidebar_sites[lang])
            got: tuple[rp.Page, str] | None = None
            if rng.random() < 0.5:
                d = self.spare_text(lang, *SIDEBAR_TEXT)
                got = (self.page_of(d), d.key) if d is not None else None
            got = got or self.take_short(lang, site.genres)
            if got is None:
                continue
            base, source = got
            sidebar = self.new_sidebar(site)
            page = rp.in_sidebar_template(
                rng, base, site, sidebar, rng.random() < FAMILY_HTML_SHARE
            )
            self.add_framed(page, base, day_of(), rp.SIDEBAR_FAMILY, source, site)

    def _live(self, docs: list[Doc], day: str) -> list[Doc]:
        """The documents a copy fetched on ``day`` can copy."""
        return [d for d in docs if d.day <= day and d.fetched_at < f"{day}T23:59:00Z"]

    def heading_copies(self, copies_per_day: list[int]) -> list[int]:
        """Reposts of short pages of heading sites on other sites
        (``standard_headings_repost``); copies made per day."""
        rng = self.rng
        origs = [d for d in self.docs if d.id in self.heading_short]
        n = self.n_plan(HEADINGS_PLAN, "standard_headings_repost", rp.HEADINGS_FAMILY)
        made = [0] * len(self.days)
        n_of: Counter[str] = Counter()
        for di, (day, k) in enumerate(zip(self.days, self.spread(n, copies_per_day), strict=True)):
            live = self._live(origs, day)
            for _ in range(k):
                live = [d for d in live if n_of[d.id] < FAMILY_MAX_COPIES]
                if not live:
                    break
                orig = rng.choice(live)
                base = orig.base_page
                site = rng.choice(self.sites[base.lang])
                page = rp.headings_repost(rng, base, site, orig.site.name)
                if rng.random() < self.p_html:
                    page = rp.render_html(rng, page, site, orig.site.name, self.titles[base.lang])
                self.add_copy_doc(orig, day, page, "standard_headings_repost", site)
                n_of[orig.id] += 1
                made[di] += 1
        return made

    def sidebar_copies(self, copies_per_day: list[int]) -> list[int]:
        """Copies of sidebar pages: the article again on the site with another rotation
        (``sidebar_rotated``), or reposted elsewhere as any copy of its length is
        (``add_copy``); copies made per day."""
        rng = self.rng
        fam = rp.SIDEBAR_FAMILY
        origs = [d for d in self.docs if d.family == fam]
        kinds = ["sidebar_rotated"] * self.n_plan(SIDEBAR_PLAN, "sidebar_rotated", fam)
        kinds += ["repost"] * self.n_plan(SIDEBAR_PLAN, "reposts", fam)
        rng.shuffle(kinds)
        k_iter = iter(kinds)
        made = [0] * len(self.days)
        n_of: Counter[str] = Counter()
        per_day = self.spread(len(kinds), copies_per_day)
        for di, (day, k) in enumerate(zip(self.days, per_day, strict=True)):
            live = self._live(origs, day)
            for _ in range(k):
                kind = next(k_iter)
                live = [d for d in live if n_of[d.id] < FAMILY_MAX_COPIES]
                if not live:
                    break
                orig = rng.choice(live)
                if kind == "sidebar_rotated":
                    assert isinstance(orig.site, rp.SidebarSite)
                    page = rp.in_sidebar_template(
                        rng,
                        orig.base_page,
                        orig.site,
                        self.new_sidebar(orig.site),
                        orig.page.html is not None,
                    )
                    self.add_copy_doc(orig, day, page, kind, orig.site, orig.base_page, True)
                else:
                    self.add_copy(orig, day)
                n_of[orig.id] += 1
                made[di] += 1
        return made

    def family_pairs(self, family: str) -> None:
        """Pairs of documents that carry one site's furniture with different texts (the
        site's pages, and the reposts of heading pages, which keep the headings): each
        with ``FAMILY_PAIRS_PER_PAGE`` others, a short page of a heading site (or its
        repost) first with one of the site's longer pages."""
        rng = self.rng
        by_id = {d.id: d for d in self.docs}
        by_site: dict[str, list[Doc]] = defaultdict(list)
        for d in self.docs:
            orig = by_id[d.cluster]
            framed = isinstance(d.site, (rp.HeadingSite, rp.SidebarSite))
            if orig.family == family and (framed or d.kind in rp.HEADINGS_KINDS):
                by_site[orig.site.host].append(d)
        seen: set[tuple[str, str]] = set()
        for host in sorted(by_site):
            pages = by_site[host]
            longer = [d for d in pages if d.kind == "original" and d.id not in self.heading_short]
            for d in pages:
                picks = []
                if d.cluster in self.heading_short and longer:
                    picks.append(rng.choice(longer))
                while len(picks) < FAMILY_PAIRS_PER_PAGE:
                    for _try in range(10):
                        o = rng.choice(pages)
                        if o.cluster != d.cluster:
                            picks.append(o)
                            break
                    else:
                        break
                for o in picks:
                    key = (d.id, o.id) if d.id < o.id else (o.id, d.id)
                    if key not in seen:
                        seen.add(key)
                        self.pairs.append((key[0], key[1], family))

    def targeted_copies(
        self, regular: list[Doc], copies_per_day: list[int], n_copies_of: Counter[str]
    ) -> tuple[list[int], int]:
        """Copies of the regular originals that suit a targeted kind: a poem or list
        reflowed on one line after a prefix (``reflowed_after_prefix``), one to three
        paragraphs of a long article (``short_excerpt``). Copies made per day, and how
        many of them are Chinese."""
        rng = self.rng
        kinds = [k for k in rp.TARGETED_KINDS for _ in range(self.n_plan(TARGETED_PLAN, k, k))]
        rng.shuffle(kinds)
        fits = {
            "reflowed_after_prefix": [d for d in regular if rp.reflowable(d.base_page)],
            "short_excerpt": [
                d
                for d in regular
                if len(d.base_page.text) >= EXCERPT_MIN
                and rp.excerpt_spans(d.base_page, self.shared)
            ],
        }
        # Each copy's language is drawn as the set's (the other when none fits).
        by_lang = {
            (kind, lang): [d for d in docs if d.page.lang == lang]
            for kind, docs in fits.items()
            for lang in ("zh", "en")
        }
        k_iter = iter(kinds)
        made = [0] * len(self.days)
        zh = 0
        per_day = self.spread(len(kinds), copies_per_day)
        for di, (day, k) in enumerate(zip(self.days, per_day, strict=True)):
            live = {key: self._live(docs, day) for key, docs in by_lang.items()}
            for _ in range(k):
                kind = next(k_iter)
                lang = self.lang()
                orig = None
                for cands in (live[(kind, lang)], live[(kind, "en" if lang == "zh" else "zh")]):
                    while cands:
                        j = rng.randrange(len(cands))
                        if n_copies_of[cands[j].id] < FAMILY_MAX_COPIES:
                            orig = cands[j]
                            break
                        cands[j] = cands[-1]
                        cands.pop()
                    if orig is not None:
                        break
                if orig is None:
                    continue
                base = orig.base_page
                site = rng.choice([s for s in self.sites[base.lang] if s != orig.site])
                src = orig.site.name
                if kind == "short_excerpt":
                    page = rp.short_excerpt(rng, base, site, src, self.shared)
                else:
                    page = rp.reflowed_after_prefix(rng, base, site, src)
                if rng.random() < self.p_html:
                    page = rp.render_html(rng, page, site, src, self.titles[base.lang])
                self.add_copy_doc(orig, day, page, kind, site)
                n_copies_of[orig.id] += 1
                made[di] += 1
                zh += base.lang == "zh"
        return made, zh

    # ------------------------------------------------------------------ main

    def build(self) -> None:
        rng = self.rng
        nd = len(self.days)
        fracs = [1 / 3] if nd == 1 else [0.2 + (0.4667 - 0.2) * d / (nd - 1) for d in range(nd)]
        copies_per_day = [round(self.per_day * f) for f in fracs]
        originals_per_day = [self.per_day - c for c in copies_per_day]
        n_total = nd * self.per_day
        n_copies = sum(copies_per_day)
        # Copies that are always HTML (rerender_html, half of short_text) come on top of
        # the share rendered at random; this probability brings the total near 20 %.
        forced = n_copies * (0.85 / len(rp.LONG_KINDS) + 0.15 * 0.5)
        forced += (
            BIG_HTML_SHARE
            * self.scale
            * (BIG_PLAN["originals"] + BIG_PLAN["short_in_other_template"])
        )
        framed = HEADINGS_PLAN["short"] + HEADINGS_PLAN["long"]  # pages in their site's frame
        framed += SIDEBAR_PLAN["originals"] + SIDEBAR_PLAN["sidebar_rotated"]
        forced += FAMILY_HTML_SHARE * self.scale * framed
        self.p_html = max(0.0, (HTML_SHARE * n_total - forced) / (n_total - forced))

        day_slots: list[str] = []
        for d, n in zip(self.days, originals_per_day, strict=True):
            day_slots += [d] * n
        rng.shuffle(day_slots)
        slot = iter(day_slots)

        def day_of() -> str:
            return next(slot)

        # The articles the regular originals will draw: the originals less those the
        # plans make (hard-negative groups at their mean size), at ARTICLE_SHARE.
        planned = sum(self.n_groups(f) * (lo + hi) / 2 for f, (_n, lo, hi) in FAMILY_PLAN.items())
        planned += self.n_big("originals")
        planned += self.n_plan(HEADINGS_PLAN, "short", rp.HEADINGS_FAMILY)
        planned += self.n_plan(HEADINGS_PLAN, "long", rp.HEADINGS_FAMILY)
        planned += self.n_plan(SIDEBAR_PLAN, "originals", rp.SIDEBAR_FAMILY)
        n_regular_est = max(0.0, sum(originals_per_day) - planned)
        self.prose_reserve = {
            "zh": n_regular_est * ZH_SHARE * ARTICLE_SHARE["zh"],
            "en": n_regular_est * (1 - ZH_SHARE) * ARTICLE_SHARE["en"],
        }
        self.hard_negatives(day_of)
        n_hard = len(self.docs)
        zh_hard = sum(1 for d in self.docs if d.page.lang == "zh")
        big_made = self.big_copies(copies_per_day)
        # Reposts of versioned editions count with the big-template copies below.
        edition_made = self.edition_copies()
        # So do the copies of pages of standard-heading and sidebar sites.
        heading_made = self.heading_copies(copies_per_day)
        sidebar_made = self.sidebar_copies(copies_per_day)
        big_made = [
            sum(x) for x in zip(big_made, edition_made, heading_made, sidebar_made, strict=True)
        ]
        zh_big = sum(1 for d in self.docs[n_hard:] if d.page.lang == "zh")
        self.big_pairs()
        self.family_pairs(rp.HEADINGS_FAMILY)
        self.family_pairs(rp.SIDEBAR_FAMILY)
        zh_copies = round(ZH_SHARE * n_copies)
        n_regular = sum(originals_per_day) - n_hard
        zh_regular = min(n_regular, max(0, round(ZH_SHARE * n_total) - zh_hard - zh_copies))
        avail = Counter(
            lang for (lang, _), pool in self.pools.items() for d in pool if d.key not in self.used
        )
        if zh_regular > avail["zh"] or n_regular - zh_regular > avail["en"]:
            # Too few texts of one language: its share falls to what the corpus has,
            # and the copies keep the originals' language mix.
            zh_regular = min(avail["zh"], max(zh_regular, n_regular - avail["en"]))
            zh_copies = round(n_copies * (zh_hard + zh_regular) / (n_hard + n_regular))
            self.short_of_lang += 1
        # The copies of big-template texts are part of the copies (and of their languages).
        n_copies -= sum(big_made)
        zh_copies = min(n_copies, max(0, zh_copies - zh_big))
        langs = ["zh"] * zh_regular + ["en"] * (n_regular - zh_regular)
        rng.shuffle(langs)
        regular: list[Doc] = []
        for lang in langs:
            band = "article" if rng.random() < ARTICLE_SHARE[lang] else "short"
            other_band = "short" if band == "article" else "article"
            d = self.take(lang, band) or self.take(lang, other_band)
            if d is None:
                self.short_of_lang += 1
                other = "en" if lang == "zh" else "zh"
                d = self.take(other, band) or self.take(other, other_band)
            if d is None:
                raise CorpusExhausted("corpus exhausted: lower --per-day")
            regular.append(self.add_original(self.page_of(d), day_of(), None, d.key))

        # The targeted kinds first (they count in the copies and their languages).
        n_copies_of: Counter[str] = Counter()
        targeted_made, zh_targeted = self.targeted_copies(regular, copies_per_day, n_copies_of)
        n_copies -= sum(targeted_made)
        zh_copies = min(n_copies, max(0, zh_copies - zh_targeted))
        big_made = [b + t for b, t in zip(big_made, targeted_made, strict=True)]

        # Copies: popular originals get many (Pareto weights); short texts ~15 % of copies.
        weight = {d.id: rng.paretovariate(1.3) for d in regular}
        copy_langs = ["zh"] * zh_copies + ["en"] * (n_copies - zh_copies)
        rng.shuffle(copy_langs)
        cl = iter(copy_langs)
        for di, day in enumerate(self.days):
            # Originals a copy of this day can copy, by (language, short), in the order
            # of ``regular``; with cumulative weights, dropped when a weight becomes 0.
            groups: dict[object, list[Doc]] = defaultdict(list)
            for d in regular:
                if d.day <= day and d.fetched_at < f"{day}T23:59:00Z":
                    groups[(d.page.lang, len(d.page.text) < 300)].append(d)
                    groups["any"].append(d)
            cum: dict[object, tuple[list[Doc], list[float]]] = {}
            made = 0
            while made < copies_per_day[di] - big_made[di]:
                lang = next(cl)
                short = rng.random() < 0.15
                for key in ((lang, short), "any"):
                    if key not in cum:
                        live = [d for d in groups.get(key, ()) if weight[d.id] > 0]
                        cum[key] = (live, list(accumulate(weight[d.id] for d in live)))
                    if cum[key][0]:
                        break
                # as rng.choices(live, weights) draws (same random() call, same result)
                live, cw = cum[key]
                orig = live[bisect(cw, rng.random() * (cw[-1] + 0.0), 0, len(live) - 1)]
                self.add_copy(orig, day)
                n_copies_of[orig.id] += 1
                if n_copies_of[orig.id] >= MAX_COPIES:
                    weight[orig.id] = 0.0
                    cum.pop((orig.page.lang, len(orig.page.text) < 300), None)
                    cum.pop("any", None)
                made += 1
        self.top_up_html()

    def top_up_html(self) -> None:
        """Render random plain records as HTML until ``HTML_SHARE`` of them are HTML.

        Mirrors and the originals they mirror stay as they are (a mirror serves the
        same bytes)."""
        target = round(HTML_SHARE * len(self.docs))
        have = sum(1 for d in self.docs if d.page.html is not None)
        if have >= target:
            return
        mirrored = {d.cluster for d in self.docs if d.kind == "exact_mirror"}
        by_id = {d.id: d for d in self.docs}
        cands = [
            d
            for d in self.docs
            if d.page.html is None
            and d.kind != "exact_mirror"
            and d.id not in mirrored
            and not d.keep_form
        ]
        for d in self.rng.sample(cands, min(len(cands), target - have)):
            src = by_id[d.cluster].site.name
            d.page = rp.render_html(self.rng, d.page, d.site, src, self.titles[d.page.lang])

    def excerpt(self, base: rp.Page, site: rp.Site) -> rp.Page | None:
        """An excerpt that carries its own article's words, or None.

        An excerpt is only cut from an article of at least ``EXCERPT_MIN`` characters,
        and at least ``EXCERPT_OWN`` of it must be paragraphs that are not common to
        several base texts (a man page's translator credits and project footer are
        shared by hundreds of pages: an excerpt of those alone copies all of them
        equally, so its truth label would be arbitrary)."""
        if len(base.text) < EXCERPT_MIN:
            return None
        for _ in range(5):
            page = rp.excerpt(self.rng, base, site)
            paras = rp.paragraphs(page.text)
            own = sum(len(p) for p in paras if p not in self.common)
            if own >= EXCERPT_OWN * max(1, sum(len(p) for p in paras)):
                return page
        return None

    def add_copy(self, orig: Doc, day: str) -> None:
        rng = self.rng
        base = orig.base_page
        short = len(base.text) < 300
        if short:
            kind = "short_text"
        else:
            # Excerpts only from long articles, as often as the other kinds overall: a
            # copy of a long article is an excerpt while the excerpts are behind their
            # share (at scale most copied articles are under EXCERPT_MIN characters).
            self.n_long_copies += 1
            long_enough = len(base.text) >= EXCERPT_MIN
            if long_enough and self.n_excerpts < self.n_long_copies / len(rp.LONG_KINDS):
                kind = "excerpt"
            else:
                kind = rng.choice([k for k in rp.LONG_KINDS if k != "excerpt"])
        site = rng.choice([s for s in self.sites[base.lang] if s != orig.site])
        titles = self.titles[base.lang]
        page = None
        if kind == "excerpt":
            page = self.excerpt(base, site)
            if page is None:
                kind = rng.choice([k for k in rp.LONG_KINDS if k != "excerpt"])
            else:
                self.n_excerpts += 1
        if kind == "exact_mirror":
            page = orig.page
            url = f"https://mirror.{site.host}/" + orig.url.split("/", 3)[3]
        else:
            if page is None:
                page = rp.make_copy(kind, rng, base, site, orig.site.name, titles)
            if page.html is None and rng.random() < self.p_html:
                page = rp.render_html(rng, page, site, orig.site.name, titles)
            url = self.url(site, day)
        i = self.new_id()
        fetched = self.fetched(day, after=orig.fetched_at)
        self.docs.append(Doc(i, day, fetched, url, page, kind, None, orig.id, orig.source, site))


def write(builder: Builder, out: Path, corpus: Corpus, args: dict, seconds: float) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    by_day: dict[str, list[Doc]] = defaultdict(list)
    for d in builder.docs:
        by_day[d.day].append(d)
    rng = random.Random(args["seed"] + 2)
    for day in builder.days:
        folder = out / f"dt={day}"
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("part-*.jsonl"):
            old.unlink()
        recs = by_day[day]
        rng.shuffle(recs)  # a crawl's files are not in fetch order
        for p in range(0, len(recs), PART_SIZE):
            with (folder / f"part-{p // PART_SIZE:05d}.jsonl").open("w", encoding="utf-8") as fh:
                for d in recs[p : p + PART_SIZE]:
                    rec = {"id": d.id, "url": d.url, "title": d.page.title}
                    if d.page.html is not None:
                        rec["html"] = d.page.html
                    else:
                        rec["content"] = d.page.text
                    rec["fetched_at"] = d.fetched_at
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    ordered = sorted(builder.docs, key=lambda d: (d.fetched_at, d.id))
    with (out / "truth.jsonl").open("w", encoding="utf-8") as fh:
        for d in ordered:
            row = {
                "id": d.id,
                "day": d.day,
                "cluster": d.cluster,
                "kind": d.kind,
                "family": d.family,
                "lang": d.page.lang,
                "source": d.source,
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (out / "hard_negative_pairs.jsonl").open("w", encoding="utf-8") as fh:
        for a, b, fam in builder.pairs:
            fh.write(json.dumps({"a": a, "b": b, "family": fam}) + "\n")
    summary = summarize(builder)
    manifest = {
        "generator": "benchmarks.realtext.build",
        "args": args,
        "start": START.isoformat(),
        "days": builder.days,
        "packages": dict(corpus.sources),
        "corpus": corpus.summary(),
        "summary": summary,
        "build_seconds": round(seconds, 1),
    }
    (out / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    return summary


def summarize(builder: Builder) -> dict:
    docs = builder.docs
    n = len(docs)
    lens = [len(d.base_page.text) for d in docs if d.kind == "original"]
    big: dict[str, dict] = {}
    for d in docs:
        if isinstance(d.site, rp.BigSite):
            s = big.setdefault(
                d.site.host,
                {
                    "name": d.site.name,
                    "lang": d.site.lang,
                    "block_lines": d.site.block_lines,
                    "block_chars": d.site.block_chars,
                    "pages": 0,
                    "originals": 0,
                    "html": 0,
                    "block_longer_than_text": 0,
                },
            )
            s["pages"] += 1
            s["originals"] += d.kind == "original"
            s["html"] += d.page.html is not None
            s["block_longer_than_text"] += d.site.block_chars > len(d.base_page.text)
    fam_sites: dict[str, dict] = {}
    for d in docs:
        if isinstance(d.site, (rp.HeadingSite, rp.SidebarSite)):
            f = fam_sites.setdefault(
                d.site.host,
                {
                    "name": d.site.name,
                    "lang": d.site.lang,
                    "family": rp.HEADINGS_FAMILY
                    if isinstance(d.site, rp.HeadingSite)
                    else rp.SIDEBAR_FAMILY,
                    "pages": 0,
                    "originals": 0,
                    "short": 0,
                    "html": 0,
                },
            )
            f["pages"] += 1
            f["originals"] += d.kind == "original"
            f["short"] += d.id in builder.heading_short
            f["html"] += d.page.html is not None
    return {
        "records": n,
        "per_day": dict(sorted(Counter(d.day for d in docs).items())),
        "copies": sum(1 for d in docs if d.kind != "original"),
        "by_kind": dict(sorted(Counter(d.kind for d in docs).items())),
        "by_family": dict(sorted(Counter(d.family for d in docs if d.family).items())),
        "hard_negative_pairs": len(builder.pairs),
        "hard_negative_pairs_by_family": dict(
            sorted(Counter(f for _, _, f in builder.pairs).items())
        ),
        "lang": dict(sorted(Counter(d.page.lang for d in docs).items())),
        "html": sum(1 for d in docs if d.page.html is not None),
        "originals_by_length": {
            "short (<300)": sum(1 for x in lens if x < 300),
            "300-999": sum(1 for x in lens if 300 <= x < 1000),
            "1k-20k": sum(1 for x in lens if 1000 <= x <= 20000),
            ">20k": sum(1 for x in lens if x > 20000),
        },
        "big_template_sites": dict(sorted(big.items())),
        "heading_and_sidebar_sites": dict(sorted(fam_sites.items())),
        "clusters_with_copies": len({d.cluster for d in docs if d.kind != "original"}),
        "largest_cluster": max(Counter(d.cluster for d in docs).values()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--per-day", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument(
        "--families",
        default="all",
        help="comma list of the hard-negative families and targeted copy kinds to make "
        f"(default all: {', '.join(ALL_FAMILIES)})",
    )
    ap.add_argument(
        "--sources",
        default="",
        help="comma list of source package names to draw from, and only them (a set from "
        "source families an evaluation never tuned on); default: the core sources, then "
        f"every source when they are too few ({', '.join(s.name for s in SCALE_SOURCES)}); "
        "held out, only when named: "
        f"{', '.join(s.name for s in SOURCES if s not in SCALE_SOURCES)}",
    )
    args = ap.parse_args(argv)
    chosen = [n.strip() for n in args.sources.split(",") if n.strip()]
    unknown_sources = sorted(set(chosen) - {s.name for s in SOURCES})
    if unknown_sources:
        ap.error(f"unknown --sources {', '.join(unknown_sources)}")
    if args.days < 1 or args.per_day < 50:
        ap.error("--days must be >= 1 and --per-day >= 50")
    if args.families.strip() == "all":
        families = list(ALL_FAMILIES)
    else:
        families = [f.strip() for f in args.families.split(",") if f.strip()]
        unknown = sorted(set(families) - set(ALL_FAMILIES))
        if unknown:
            ap.error(f"unknown --families {', '.join(unknown)} (known: {', '.join(ALL_FAMILIES)})")

    def log(msg: str) -> None:
        print(f"# {msg}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    full = load_corpus(log=log)
    t_corpus = time.perf_counter() - t0
    # The core sources first: a build they can fill alone does not depend on the
    # sources added for scale. Otherwise the whole corpus, from the same seed.
    core = [s for s in SOURCES if s.name in chosen] if chosen else CORE_SOURCES
    corpus = full.subset(core)
    builder = Builder(corpus, args.days, args.per_day, args.seed, families)
    try:
        builder.build()
        enough = not builder.short_of_lang
    except CorpusExhausted:
        enough = False
    if not enough and chosen:
        log(f"the sources {', '.join(chosen)} are too few for this build")
        return 2
    if not enough:
        log("core sources too few for this build: using every source but the held-out ones")
        corpus = full.subset(SCALE_SOURCES)
        builder = Builder(corpus, args.days, args.per_day, args.seed, families)
        try:
            builder.build()
        except CorpusExhausted as exc:
            raise SystemExit(str(exc)) from None
    seconds = time.perf_counter() - t0
    summary = write(
        builder,
        args.out,
        corpus,
        {
            "days": args.days,
            "per_day": args.per_day,
            "seed": args.seed,
            "families": [f for f in ALL_FAMILIES if f in families],
            "sources": chosen or None,
        },
        seconds,
    )
    total = time.perf_counter() - t0
    print(f"wrote {summary['records']} records to {args.out} in {total:.1f}s "
          f"(corpus {t_corpus:.1f}s)")  # fmt: skip
    print(f"per day: {summary['per_day']}; copies {summary['copies']}; "
          f"html {summary['html']}; lang {summary['lang']}")  # fmt: skip
    print("records per kind:")
    for k, v in summary["by_kind"].items():
        print(f"  {k:24s} {v:6d}")
    print("hard-negative records per family / pairs:")
    for k, v in summary["by_family"].items():
        print(f"  {k:24s} {v:6d}  pairs {summary['hard_negative_pairs_by_family'].get(k, 0)}")
    print(f"hard-negative pairs: {summary['hard_negative_pairs']}")
    print(f"originals by length: {summary['originals_by_length']}")
    print("big-template sites (block lines / chars; pages, originals, html, block > text):")
    for host, b in summary["big_template_sites"].items():
        print(f"  {host:34s} {b['lang']} {b['block_lines']:3d} / {b['block_chars']:5d}; "
              f"{b['pages']:5d} {b['originals']:5d} {b['html']:5d} "
              f"{b['block_longer_than_text']:5d}")  # fmt: skip
    print("heading and sidebar sites (pages, originals, short, html):")
    for host, f in summary["heading_and_sidebar_sites"].items():
        print(f"  {host:34s} {f['lang']} {f['family']:24s} {f['pages']:5d} "
              f"{f['originals']:5d} {f['short']:5d} {f['html']:5d}")  # fmt: skip
    print(f"clusters with copies: {summary['clusters_with_copies']}, "
          f"largest cluster: {summary['largest_cluster']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
