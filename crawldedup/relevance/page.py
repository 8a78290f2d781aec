"""A page split into the HTML positions of docs/relevance.md (formula 5), plus its outgoing links.

Positions: ``title`` (<title>), ``meta`` (<meta name=description|keywords> content),
``heading`` (<h1>-<h6>), ``anchor`` (<a> text) and ``body`` (all other visible text).
Every piece of text belongs to exactly one position, the heaviest tag around it
(title 10 > meta 8 > heading = anchor 6 > body 3), so no occurrence is counted twice.
A plain-text record (``content`` without ``html``) has only ``title`` and ``body``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

POSITIONS: tuple[str, ...] = ("title", "meta", "heading", "anchor", "body")

_SKIP = {"script", "style", "noscript", "template", "svg"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_META_NAMES = {"description", "keywords"}
# Block elements end a run of text: keeps "a</p><p>b" from gluing into one word.
_BLOCKS = {"p", "div", "li", "br", "tr", "td", "section", "article", "ul", "ol", "table"}


@dataclass(frozen=True)
class Link:
    href: str  # absolute, fragment dropped
    anchor: str


@dataclass
class Page:
    """The text of each position (pieces in document order) and the outgoing links."""

    texts: dict[str, list[str]] = field(default_factory=lambda: {p: [] for p in POSITIONS})
    links: list[Link] = field(default_factory=list)

    def text(self, position: str) -> str:
        return "\n".join(self.texts[position])

    @property
    def present(self) -> tuple[str, ...]:
        """Positions the page has (non-blank text), in :data:`POSITIONS` order."""
        return tuple(p for p in POSITIONS if any(t.strip() for t in self.texts[p]))


class _Splitter(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base_url
        self.page = Page()
        self.stack: list[str] = []
        self.skip = 0
        self.anchor_href: str | None = None
        self.anchor_text: list[str] = []
        self.buf: dict[str, list[str]] = {p: [] for p in POSITIONS}

    def _position(self) -> str:
        tags = set(self.stack)
        if "title" in tags:
            return "title"
        if tags & _HEADINGS:
            return "heading"
        if "a" in tags:
            return "anchor"
        return "body"

    def _flush(self, position: str | None = None) -> None:
        for p in (position,) if position else POSITIONS:
            piece = "".join(self.buf[p]).strip()
            if piece:
                self.page.texts[p].append(piece)
            self.buf[p] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta":
            if (a.get("name") or "").lower() in _META_NAMES and a.get("content"):
                self.page.texts["meta"].append(str(a["content"]).strip())
            return
        if tag in ("br", "img", "hr", "input", "link"):  # void elements
            self.buf["body"].append(" ")
            return
        if tag in _SKIP:
            self.skip += 1
        if tag in _BLOCKS or tag in _HEADINGS or tag in ("title", "a"):
            self._flush()
        self.stack.append(tag)
        if tag == "a":
            self.anchor_href = a.get("href")
            self.anchor_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.stack:
            return
        if tag in _BLOCKS or tag in _HEADINGS or tag in ("title", "a"):
            self._flush()
        # Pop up to and including the matching open tag (tolerates unclosed children).
        while self.stack:
            top = self.stack.pop()
            if top in _SKIP:
                self.skip -= 1
            if top == "a":
                self._close_anchor()
            if top == tag:
                break

    def _close_anchor(self) -> None:
        href, text = self.anchor_href, " ".join("".join(self.anchor_text).split())
        self.anchor_href, self.anchor_text = None, []
        if not href:
            return
        absolute = urljoin(self.base, href.strip()) if self.base else href.strip()
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https"):
            return  # mailto:, javascript:, in-page fragments
        self.page.links.append(Link(parts._replace(fragment="").geturl(), text))

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        self.buf[self._position()].append(data)
        if "a" in self.stack:
            self.anchor_text.append(data)

    def close(self) -> None:
        super().close()
        while "a" in self.stack:
            self.handle_endtag("a")
        self._flush()


def split_html(html: str, base_url: str = "", title: str = "") -> Page:
    """Positions and links of an HTML page; ``title`` fills in when it has no <title>."""
    parser = _Splitter(base_url)
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient; a pathological page keeps what was read
        parser._flush()
    page = parser.page
    if title.strip() and "title" not in page.present:
        page.texts["title"].append(title.strip())
    return page


def split_plain(title: str, content: str) -> Page:
    """A plain-text record: its title and its content (as body)."""
    page = Page()
    if title.strip():
        page.texts["title"].append(title.strip())
    if content.strip():
        page.texts["body"].append(content.strip())
    return page
