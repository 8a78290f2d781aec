"""The main text of an HTML page when trafilatura takes the template instead.

trafilatura finds long articles well, but a short main text (a few lines of verse, a
short notice) inside a big site template loses against the template: its balanced
mode retries with recall settings and returns the navigation, the "hot articles" list
and the related links around the text, or nothing at all. This module reads the page
itself, with the tree trafilatura's own loader builds (``trafilatura.load_html``, so
the same lxml parse and repairs):

1. **Clean**: scripts, styles, forms' controls, hidden elements are removed; then the
   template: ``nav``, ``header``, ``footer``, ``aside``, ``menu`` and elements whose id,
   class or role names navigation, sidebars, footers, bylines, share bars, related or hot
   lists, comments or ads; then, bottom-up, every block whose text is mostly link text
   (menus and link lists that carry no such name) and every small block with a
   copyright or ICP licence line. A template element that holds the page's content
   container (a page wrapper named ``content sidebar-right``) stays. Removed elements
   are marked and skipped, not detached (see :func:`_remove`); every pass is linear.
2. **Main text**: the largest content container left (``article``, ``main``,
   ``itemprop=articleBody``, ``role=main``, or an element named content / article /
   post / entry / story / text / 正文, e.g. ``content-body``, ``entry-content``), or a
   container inside it holding 90 % of its text; with none, the block with the densest
   text (readability's scoring: each block's own non-link text counts for its parent
   and half for its grandparent). ``<br>``-separated lines stay lines.
3. **Was trafilatura's text the template?** :func:`template_share` is the share of its
   characters on lines that occur only in what step 1 removed.

:func:`own_text` decides: trafilatura's text stays unless it is empty, mostly template
(:data:`TEMPLATE_SHARE`), or short (:data:`SHORT_TEXT`) and a content container's text
plus more; so ordinary articles come out exactly as before
(:func:`crawldedup.ingest.records.extract_html`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from crawldedup.core.normalize import normalize_text


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Elements whose content is never text of the page.
_DROP_TAGS = _words(
    "script style noscript template iframe frame frameset svg math button select option "
    "textarea input object embed canvas audio video map head title meta link base"
)
# Layout elements that are template unless they hold the content container.
_LAYOUT_TAGS = frozenset({"nav", "header", "footer", "aside", "menu"})
# Elements that start a new line of text.
_BLOCK_TAGS = _words(
    "address article aside blockquote body caption center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend "
    "li main menu nav ol p pre section summary table tbody td tfoot th thead tr ul"
)
# Blocks dropped when most of their text is link text, and the share for each.
_LINK_DENSE = 0.5
_LINK_DENSE_PARAGRAPH = 0.75  # a paragraph may be mostly a link ("Details: <a>…</a>")
_PARAGRAPHS = frozenset({"p", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"})
_LINK_CHECKED = _BLOCK_TAGS - {"html", "body", "article", "main"}

# id / class tokens that name template parts (pinyin ones are common on Chinese sites).
_TEMPLATE_TOKENS = _words(
    """nav navbar navi navigation menu menubar submenu header masthead footer foot sidebar side
    aside breadcrumb breadcrumbs crumb crumbs share sharing social related recommend
    recommended hot hotlist hotnews rank ranking toplist comment comments reply ad ads advert
    advertisement banner sponsor promo copyright login signin register toolbar topbar byline
    meta author date time pubtime pubdate source tags tag keywords pagination pager paging
    widget popup modal cookie cookies subscribe newsletter info links friendlink bottom
    daohang remen xiangguan tuijian banquan"""
)
# Token prefixes and suffixes with the same meaning ("mainnav", "navlist", "postmeta").
_TEMPLATE_PREFIXES = (
    "nav",
    "menu",
    "header",
    "footer",
    "sidebar",
    "breadcrumb",
    "copyright",
    "share",
    "related",
    "advert",
)
_TEMPLATE_SUFFIXES = (
    *_TEMPLATE_PREFIXES,
    "meta",
    "info",
    "byline",
    "author",
    "date",
    "time",
    "tags",
    "comments",
    "links",
)
_CONTENT_TOKEN = re.compile(
    r"^(?:main|article|post|entry|story|news|detail|page|body)?"
    r"(?:content|body|text|article|post|entry|story|detail)s?$"
)
_TOKEN_SPLIT = re.compile(r"[^0-9a-z\u4e00-\u9fff]+")
_CONTAINER_TAGS = frozenset({"div", "section", "td", "center"})
_CONTENT_ROLES = frozenset({"main", "article"})
_TEMPLATE_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "menu", "menubar", "search"}
)
# A small block saying this is a footer, wherever it stands (no tag or name needed).
_COPYRIGHT = re.compile(
    r"©|\(c\)\s*\d{4}|copyright|all rights reserved|版权所有|icp备|icp证|举报电话|不良信息举报",
    re.IGNORECASE,
)
_COPYRIGHT_MAX_CHARS = 200
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_TITLE_SEPARATORS = re.compile(r"\s*(?:[|_｜–—·»]|\s-\s|::)\s*")

# A container inside the largest one replaces it when it holds this share of its text.
_INNER_SHARE = 0.9
# trafilatura's text is replaced when this share of it is on template lines, or when it
# is at most this many normalized characters and holds a container's lines plus more.
TEMPLATE_SHARE = 0.3
SHORT_TEXT = 1000
_MIN_CONTAINED = 0.15


# Element kinds (bits), computed once per element.
_STRONG = 1  # <article>, <main>, role=main/article, itemprop=articleBody
_CONTENT = 2  # strong, or named as content (and not also as template)
_TEMPLATE = 4  # layout tag, template role, or a template name
_MAIN = 8  # <main>, role=main, itemprop=articleBody: the page's one content area


@dataclass
class CleanPage:
    """A page with its template removed, and the template's text for comparisons."""

    root: Any  # the page's <body> (an lxml element); removed elements stay in the tree
    removed: set[Any] = field(default_factory=set)  # skipped, with everything inside
    order: list[Any] = field(default_factory=list)  # elements left, document order
    chars: dict[Any, int] = field(default_factory=dict)  # non-space characters per element
    links: dict[Any, int] = field(default_factory=dict)  # of which inside <a>
    content: list[Any] = field(default_factory=list)  # content containers, document order
    removed_lines: set[str] = field(default_factory=set)  # normalized, of removed elements
    _kept: set[str] | None = None

    def text_chars(self, el: Any) -> int:
        """Non-space characters of an element outside links."""
        return self.chars.get(el, 0) - self.links.get(el, 0)

    def lines(self, el: Any) -> list[str]:
        """The lines of an element's text that is left."""
        return text_lines(el, self.removed)

    def is_template_line(self, norm: str) -> bool:
        """A normalized line that occurs in what was removed and nowhere in what is left."""
        if not norm or norm not in self.removed_lines:
            return False
        if self._kept is None:
            self._kept = {normalize_text(line) for line in self.lines(self.root)}
        return norm not in self._kept


def _tag(el: Any) -> str:
    tag = el.tag
    return tag if isinstance(tag, str) else ""  # comments and processing instructions: ""


def _nonspace(text: str | None) -> int:
    return sum(map(len, text.split())) if text else 0


def _is_template_token(token: str) -> bool:
    return (
        token in _TEMPLATE_TOKENS
        or token.startswith(_TEMPLATE_PREFIXES)
        or token.endswith(_TEMPLATE_SUFFIXES)
    )


@lru_cache(maxsize=4096)
def _name_kind(names: str) -> int:
    """_TEMPLATE and/or _CONTENT for an element's "id class" text."""
    tokens = [t for t in _TOKEN_SPLIT.split(names.lower()) if t]
    if any(_is_template_token(t) for t in tokens):
        return _TEMPLATE
    if any("正文" in t or _CONTENT_TOKEN.match(t) for t in tokens):
        return _CONTENT
    return 0


def _kind(el: Any, tag: str) -> int:
    role = (el.get("role") or "").lower()
    itemprop = (el.get("itemprop") or "").lower()
    main = tag == "main" or role == "main" or itemprop == "articlebody"
    if main or tag == "article" or role in _CONTENT_ROLES:
        return _STRONG | _CONTENT | (_MAIN if main else 0)
    if tag in ("html", "body"):
        return 0
    if tag in _LAYOUT_TAGS or role in _TEMPLATE_ROLES:
        return _TEMPLATE
    names = f"{el.get('id') or ''} {el.get('class') or ''}"
    kind = _name_kind(names) if names != " " else 0
    # A name says "content" only on a container: <p class="text"> is one paragraph.
    return kind if tag in _CONTAINER_TAGS or not kind & _CONTENT else 0


def _is_hidden(el: Any) -> bool:
    return el.get("hidden") is not None or bool(_HIDDEN_STYLE.search(el.get("style") or ""))


def text_lines(root: Any, skip: set[Any] | frozenset[Any] = frozenset()) -> list[str]:
    """The text of an element, one line per block and per ``<br>``, spaces collapsed.

    Elements in ``skip`` are left out with their content (their tail text stays).
    """
    pieces: list[str] = []
    in_pre = 0
    opening, closing, closing_skipped = 0, 1, 2
    stack: list[tuple[Any, int]] = [(root, opening)]
    while stack:
        el, step = stack.pop()
        tag = _tag(el)
        if step != opening:
            if tag == "pre" and step == closing:
                in_pre -= 1
            if tag in _BLOCK_TAGS:
                pieces.append("\n")
            if el is not root and el.tail:
                pieces.append(el.tail if in_pre else el.tail.replace("\n", " "))
            continue
        if tag == "br" or tag in _BLOCK_TAGS:
            pieces.append("\n")
        if el in skip:
            stack.append((el, closing_skipped))
            continue
        if tag == "pre":
            in_pre += 1
        if el.text and tag:
            pieces.append(el.text if in_pre else el.text.replace("\n", " "))
        stack.append((el, closing))
        stack.extend((child, opening) for child in reversed(el))
    lines = (" ".join(line.split()) for line in "".join(pieces).split("\n"))
    return [line for line in lines if line]


def _remove(el: Any, page: CleanPage, remember: bool = True) -> None:
    """Marks an element removed, its normalized lines and link texts remembered.

    Removed elements stay in the tree, skipped: detaching 100,000 of them costs lxml
    quadratic time (every freed proxy of a detached subtree scans that subtree).
    """
    if remember:
        into = page.removed_lines
        into.update(normalize_text(line) for line in page.lines(el))
        stack = [el]
        while stack:  # the outermost links only: broken markup nests <a> in <a> in <a>...
            node = stack.pop()
            if _tag(node) == "a":
                into.add(normalize_text(" ".join(page.lines(node))))
            elif node is el or node not in page.removed:
                stack.extend(node)
    page.removed.add(el)


def clean_page(tree: Any) -> CleanPage | None:
    """The page's body without template (see the module docstring), or None if empty."""
    body = tree.find(".//body")
    root = body if body is not None else tree
    if root is None:
        return None
    page = CleanPage(root)
    kinds = {el: _kind(el, tag) for el in root.iter() if (tag := _tag(el))}
    protected = _protected(root, kinds)
    # Pre-order, not descending into what is removed: non-text elements, hidden ones,
    # then template elements, outermost first.
    order = [root]
    stack = list(reversed(root))
    while stack:
        el = stack.pop()
        tag = _tag(el)
        if not tag:
            continue  # a comment: its tail is text, it has none
        if tag in _DROP_TAGS or _is_hidden(el):
            _remove(el, page, remember=False)
        elif kinds[el] & _TEMPLATE and el not in protected:
            _remove(el, page)
        else:
            order.append(el)
            stack.extend(reversed(el))
    # Bottom-up: children before parents, so a wrapper is judged on what is left in it.
    holds_content: set[Any] = set()
    notices: set[Any] = set()  # elements with a copyright or licence line in their text
    chars_of, links_of = page.chars, page.links
    for el in reversed(order):
        tag = _tag(el)
        kind = kinds[el]
        chars, links = _nonspace(el.text), 0
        notice = bool(el.text) and _COPYRIGHT.search(el.text) is not None
        # Around a content container that is kept nothing is judged by its links: the
        # container's own text decides (a short poem among many inline links).
        exempt = bool(kind & _STRONG)
        for child in el:
            tail = child.tail
            if tail:
                chars += _nonspace(tail)
                notice = notice or _COPYRIGHT.search(tail) is not None
            if child in chars_of:
                chars += chars_of[child]
                links += links_of[child]
                notice = notice or child in notices
                exempt = exempt or child in holds_content
        if tag == "a":
            links = chars
        if el is not root and not exempt and _is_boilerplate(tag, chars, links, notice):
            _remove(el, page)
            continue
        chars_of[el], links_of[el] = chars, links
        if notice:
            notices.add(el)
        if exempt or kind & _CONTENT:
            holds_content.add(el)
    # What is left, in document order (elements inside a removed block are not).
    stack = [root]
    while stack:
        el = stack.pop()
        page.order.append(el)
        stack.extend(c for c in reversed(el) if c in chars_of and c not in page.removed)
    page.content = [el for el in page.order if kinds[el] & _CONTENT and chars_of[el] > links_of[el]]
    page.removed_lines.discard("")
    return page


def _is_boilerplate(tag: str, chars: int, links: int, notice: bool) -> bool:
    """A block of mostly link text, or a small one with a copyright or licence line."""
    if tag not in _LINK_CHECKED:
        return False
    if links and links > (_LINK_DENSE_PARAGRAPH if tag in _PARAGRAPHS else _LINK_DENSE) * chars:
        return True
    return notice and 0 < chars <= _COPYRIGHT_MAX_CHARS


def _protected(root: Any, kinds: dict[Any, int]) -> set[Any]:
    """Template elements that are kept: those around the page's content.

    One holding ``<main>`` (or ``role=main``, ``itemprop=articleBody``) is a page
    wrapper. One holding another content container is kept only when it is a named
    ``div``-like element (not ``nav``, ``aside``, ``footer``…) holding at least half of
    the page's text: a wrapper named ``content sidebar-right``, not a sidebar whose
    teasers are ``<article class="post-item">``.
    """
    wrappers: set[Any] = set()
    holders: set[Any] = set()
    for el, kind in kinds.items():
        if not kind & _CONTENT:
            continue
        into = wrappers if kind & _MAIN else holders
        for anc in el.iterancestors():
            if anc in into:
                break
            into.add(anc)
    protected = {el for el in wrappers if kinds.get(el, 0) & _TEMPLATE}
    candidates = [el for el in holders - wrappers if kinds.get(el, 0) & _TEMPLATE]
    if candidates:
        sizes = _text_sizes(root)
        half = sizes[root] / 2
        for el in candidates:
            if _tag(el) not in _LAYOUT_TAGS and sizes[el] >= half:
                protected.add(el)
    return protected


def _text_sizes(root: Any) -> dict[Any, int]:
    """Non-space characters of every element's text, in one bottom-up pass."""
    sizes: dict[Any, int] = {}
    for el in reversed(list(root.iter())):
        size = _nonspace(el.text) if _tag(el) else 0
        for child in el:
            size += sizes[child] + _nonspace(child.tail)
        sizes[el] = size
    return sizes


def _densest_block(page: CleanPage) -> Any:
    """readability's choice: the block whose paragraphs hold the most non-link text."""
    kept = page.chars
    scores: dict[Any, float] = {}
    for el in page.order:
        own = page.text_chars(el)
        for child in el:
            if child in kept and _tag(child) in _BLOCK_TAGS:
                own -= page.text_chars(child)
        if own <= 0:
            continue
        scores[el] = scores.get(el, 0.0) + own
        parent = el.getparent()
        if parent is not None:
            scores[parent] = scores.get(parent, 0.0) + own
            grand = parent.getparent()
            if grand is not None:
                scores[grand] = scores.get(grand, 0.0) + own / 2
    best, best_score = page.root, 0.0
    for el in page.order:  # document order: on a tie the outer block wins
        chars = kept[el]
        if el not in scores or not chars:
            continue
        score = scores[el] * (1 - page.links[el] / chars)
        if score > best_score:
            best, best_score = el, score
    return best


def main_text(page: CleanPage) -> tuple[str, bool]:
    """The page's main text (lines joined) and whether a content container held it.

    The container with the most non-link text, or the innermost container inside it
    holding 90 % of that; with no container, the densest block.
    """
    if page.content:
        best = max(page.content, key=page.text_chars)  # the first of the largest
        wanted = _INNER_SHARE * page.text_chars(best)
        candidates = set(page.content)
        for el in best.iter():
            if el in candidates and page.text_chars(el) >= wanted:
                best = el  # the last one in document order is the innermost
        # A CMS that wraps each paragraph in its own <div class="text">: all of them.
        parent, cls = best.getparent(), best.get("class")
        if parent is not None and not _kind(best, _tag(best)) & _STRONG:
            group = [
                el
                for el in parent
                if el in candidates and el.tag == best.tag and el.get("class") == cls
            ]
            if len(group) > 1:
                return "\n".join(line for el in group for line in page.lines(el)), True
        return "\n".join(page.lines(best)), True
    return "\n".join(page.lines(_densest_block(page))), False


def own_text(text: str, page: CleanPage) -> str | None:
    """The page's main text when it is better than trafilatura's ``text``, else None.

    Better when ``text`` is empty, or at least :data:`TEMPLATE_SHARE` of it is on
    template lines, or ``text`` is short (at most :data:`SHORT_TEXT` normalized
    characters) and holds every line of a content container, which is at least 15 % of
    it, plus more (the title repeated at its end, a byline, a share bar, a forum's
    rules): a short text is compared whole with its copies, so each extra line would
    hide them.
    """
    if not text.strip() or template_share(text, page) >= TEMPLATE_SHARE:
        own, _ = main_text(page)
        return own if own.strip() else None
    flat = normalize_text(text)
    if len(flat) > SHORT_TEXT or not page.content:
        return None
    own, _ = main_text(page)
    lines = [normalize_text(line) for line in own.splitlines()]
    # Every line of the container is in ``text``, which has more: the container holds
    # at least 15 % of it (a forum's board rules above a four-line poem are 80 %).
    size = sum(map(len, lines))
    if not _MIN_CONTAINED * len(flat) <= size < len(flat):
        return None
    return own if all(line in flat for line in lines) else None


def template_share(text: str, page: CleanPage) -> float:
    """Share of ``text``'s normalized characters on lines found only in the template."""
    total = template = 0
    for line in text.splitlines():
        norm = normalize_text(line)
        total += len(norm)
        if page.is_template_line(norm):
            template += len(norm)
    return template / total if total else 0.0


def page_title(tree: Any) -> str:
    """og:title, else the part of <title> that is the <h1>, else <title>, else <h1>."""
    for meta in tree.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").lower() == "og:title":
            value = " ".join((meta.get("content") or "").split())
            if value:
                return value
    h1 = _first_text(tree.iter("h1"))
    title = _first_text(tree.iter("title"))
    if title:
        return h1 if h1 and h1 != title and h1 in title_parts(title) else title
    return h1


def title_parts(title: str) -> list[str]:
    """The parts of a title between site-name separators ("静夜思_诗词天地网")."""
    return [part.strip() for part in _TITLE_SEPARATORS.split(title) if part.strip()]


def _first_text(elements: Iterable[Any]) -> str:
    for el in elements:
        text = " ".join(str(el.text_content()).split())
        if text:
            return text
    return ""
