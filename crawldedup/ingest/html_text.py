"""What resiliparse's main-content extraction needs around it: template names, the
title, and the heading the article starts at.

resiliparse (``extract_plain_text(tree, main_content=True)``) drops navigation, link
lists and semantic layout elements, but keeps a site's header line, breadcrumbs, the
headings of link lists it removed ("热门文章", "Related"), date and source lines and
some footers, mostly in layouts named by ``id``/``class`` instead of HTML5 elements. On
the real-text set (``benchmarks/extraction.py``) that is 22 % of the extracted 5-grams
(46 % on texts under 300 characters). Two cheap steps take it under 1 %:

1. :data:`TEMPLATE_SKIP`: one CSS selector (resiliparse's ``skip_elements``, matched in
   C++) for elements whose id or class names a template part (nav, menu, footer,
   sidebar, breadcrumb, share, related, hot, comments, ads, copyright, meta…), as a
   whole class word or a hyphenated part of one (``bbs-crumb``, ``nav-main``), unless
   they hold the article (``article``, ``main``, ``h1``, ``itemprop=articleBody``);
2. :func:`after_heading`: the text starts after the line that is the page's title (its
   ``<h1>``) when that line is among the first few.

The lxml fallbacks this module held before (template cleaning, densest block, a
container's own text in place of the engine's) cost time on top of resiliparse and left
more template, a lower recall and some pages empty: deleted.
``python -m benchmarks.extraction --legacy-fallbacks FILE`` measures them
(docs/benchmarks.md).
"""

from __future__ import annotations

import re
from typing import Any

_TITLE_SEPARATORS = re.compile(r"\s*(?:[|_｜–—·»]|\s-\s|::)\s*")

# id / class words that name template parts (pinyin ones are common on Chinese sites).
TEMPLATE_WORDS = """nav navbar navi menu menubar submenu header masthead footer foot sidebar
    side aside breadcrumb breadcrumbs crumb crumbs share sharing social related relate
    recommend hot hotlist rank ranking comment comments ad ads advert banner sponsor promo
    copyright login toolbar topbar byline meta author date time source tags tag widget popup
    cookie subscribe newsletter info links friendlink bottom top daohang remen xiangguan
    tuijian banquan""".split()  # noqa: SIM905 (a word list, not a list literal of 62 lines)
# Words that also name template parts at the start of a compound class or id
# ("navheader", "navfooter" of DocBook pages, "footerlinks", "sidebarleft").
TEMPLATE_PREFIXES = ["nav", "header", "footer", "sidebar", "breadcrumb", "copyright"]
# Holders of the article are never skipped, whatever their name.
_ARTICLE = ":not(:has(article, main, h1, [itemprop=articleBody i]))"


def _named(word: str) -> list[str]:
    """Selectors of an element named ``word``: a class word, the id, or a hyphenated part."""
    return [
        f"[class~={word} i]",
        f"[id={word} i]",
        f'[class^="{word}-" i]',
        f'[class*="-{word}" i]',
        f'[id^="{word}-" i]',
        f'[id*="-{word}" i]',
    ]


TEMPLATE_SKIP = [
    ":is(nav, aside, footer, "
    + ", ".join(s for w in TEMPLATE_WORDS for s in _named(w))
    + ", "
    + ", ".join(f'[class^="{p}" i], [id^="{p}" i]' for p in TEMPLATE_PREFIXES)
    + ")"
    + _ARTICLE
]
# How far into the text the title's heading may stand: lines, and characters before it.
_HEADING_LINES = 6
_HEADING_OFFSET = 300


def after_heading(text: str, title: str) -> str:
    """The text after its first line that is the title (the page's ``<h1>``).

    Only the first :data:`_HEADING_LINES` lines holding at most :data:`_HEADING_OFFSET`
    characters before it are looked at: what stands before the article's heading is the
    site's name, breadcrumbs, a date; a plain-text copy of the article has none of it.
    The first such line only: an article may start with its title again (a poem, a
    saying whose title is its first line).
    """
    # Compared with spaces collapsed: a <title> often spells them as no-break spaces
    # ("附录\xa0A.\xa0附录") where the extracted heading has plain ones.
    heading = " ".join(title.split())
    if not heading:
        return text
    lines = text.split("\n", _HEADING_LINES)
    before = 0
    for i, line in enumerate(lines[:_HEADING_LINES]):
        if before > _HEADING_OFFSET:
            break
        if " ".join(line.split()) == heading:
            return "\n".join(lines[i + 1 :])
        before += len(line)
    return text


def page_title(tree: Any) -> str:
    """og:title, else the part of <title> that is the <h1>, else <title>, else <h1>.

    ``tree`` is a ``resiliparse.parse.html.HTMLTree``.
    """
    doc = tree.document
    for meta in doc.get_elements_by_tag_name("meta"):
        key = meta.getattr("property") or meta.getattr("name") or ""
        if key.lower() == "og:title":
            value = " ".join((meta.getattr("content") or "").split())
            if value:
                return value
    h1 = ""
    for el in doc.get_elements_by_tag_name("h1"):
        h1 = " ".join(el.text.split())
        if h1:
            break
    title = " ".join((tree.title or "").split())
    if title:
        return h1 if h1 and h1 != title and h1 in title_parts(title) else title
    return h1


def title_parts(title: str) -> list[str]:
    """The parts of a title between site-name separators ("静夜思_诗词天地网")."""
    return [part.strip() for part in _TITLE_SEPARATORS.split(title) if part.strip()]
