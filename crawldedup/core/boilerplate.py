"""Site boilerplate: lines that many pages of one host repeat (navigation, related-link
lists, copyright and disclaimer lines), removed before keys and shingles are computed.

See docs/algorithm.md#boilerplate. Pure: the counting over the day and the index is the
fingerprint stage's; this module says what a line is, which lines a page has, and what
is left of a page once its host's boilerplate lines are gone.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Set
from dataclasses import dataclass
from functools import lru_cache

from crawldedup.core.normalize import normalize_text
from crawldedup.urls import normalize_url


def host_of(url: str | None) -> str:
    """The host whose pages share a template (``www.`` and default ports dropped)."""
    return normalize_url(url)[0] if url else ""


def line_key(line: str, min_chars: int) -> str | None:
    """A line's key (md5 of its normalized text, 16 hex digits), or None when it has fewer
    than ``min_chars`` normalized characters (too short to say anything)."""
    return _line_facts(line, min_chars)[1]


# A template line a host fills in on every page: a short label and its fill ("Previous:
# …", "上一篇：…", "Posted by: …"), or a line whose only change is its numbers ("Posted
# 2026-08-24 · 1115 views"). Its shape repeats where its text does not.
_LABEL = re.compile(r"^([^:：]{1,40})[:：](.+)$")
_DIGITS = re.compile(r"\d+")
MAX_LABEL_CHARS = 12
# A field's fill is a title, a name, a date: a longer line is text that starts with a
# label ("本站公告：" and a whole paragraph), not a field.
MAX_SHAPE_CHARS = 60
SHAPE_PREFIX = "~"
"""Shape keys start with this (a line key is hex): both are counted per host alike."""
# A field's fill is a title, a name, a date; a fill of sentences (a sentence end with
# more text after it) is text joined onto the label's line: a poem after "作者：X ".
_SENTENCES = re.compile(r"[。！？；]\s*\w|[.!?;]\s+\w")
FILL_PREFIX = "="
"""Keys of a label line's fill (the text after "作者：") start with this: counted per host
like lines, so a fill other pages of the host share (a neighbour's title after
"上一篇：") is told from one no other page has (a poem joined after "作者：X ")."""


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _label_and_fill(line: str) -> tuple[str, str] | None:
    """(normalized label, fill as written) of a line that is a short label and its fill
    ("上一篇：城门失火"), else None."""
    m = _LABEL.match(line.strip())
    if m is None:
        return None
    label, fill = normalize_text(m.group(1)), m.group(2).strip()
    if 0 < len(label) <= MAX_LABEL_CHARS and normalize_text(fill):
        return label, fill
    return None


def _held(keys: Set[str], key: str | None, shape: str | None) -> bool:
    """Whether a line's key or its shape's is among ``keys``."""
    return (key is not None and key in keys) or (shape is not None and shape in keys)


def _shape_key(line: str, norm: str) -> str | None:
    """The key of the line's shape, or None when it has none (always for a line of more
    than ``MAX_SHAPE_CHARS`` normalized characters): ``label:`` for a label of at most
    ``MAX_LABEL_CHARS`` normalized characters followed by a fill, else the normalized text
    with its numbers as ``#`` for a line that has numbers."""
    if len(norm) > MAX_SHAPE_CHARS:
        return None
    labelled = _label_and_fill(line)
    if labelled is not None:
        return SHAPE_PREFIX + _md5(f"label:{labelled[0]}")[:15]
    if _DIGITS.search(norm):
        rest = _DIGITS.sub("#", norm)
        if len(rest.replace("#", "")) >= 2:
            return SHAPE_PREFIX + _md5(f"digits:{rest}")[:15]
    return None


# Cached: a host's template lines (navigation, related links, copyright) repeat on most
# of its pages, and each page's lines are keyed twice (counted, then stripped).
@lru_cache(maxsize=1 << 16)
def _line_facts(line: str, min_chars: int) -> tuple[int, str | None, str | None]:
    """(normalized length, :func:`line_key`, shape key) of a line."""
    norm = normalize_text(line)
    if len(norm) < min_chars:
        return len(norm), None, None
    return len(norm), _md5(norm)[:16], _shape_key(line, norm)


@lru_cache(maxsize=1 << 16)
def _fill(line: str, min_chars: int) -> tuple[str, int, str] | None:
    """(text, normalized length, key) of the fill of a line whose shape is a label and
    its fill, when the fill holds sentences; None for other lines and fills under
    ``min_chars``."""
    shape = _line_facts(line, min_chars)[2]
    labelled = _label_and_fill(line) if shape is not None else None
    if labelled is None:
        return None
    fill = labelled[1]
    norm = normalize_text(fill)
    if len(norm) < min_chars or not _SENTENCES.search(fill):
        return None
    return fill, len(norm), FILL_PREFIX + _md5(norm)[:15]


def line_keys(line: str, min_chars: int) -> Iterator[str]:
    """The line's key and, when it has them, its shape's key and its fill's."""
    _, key, shape = _line_facts(line, min_chars)
    if key is not None:
        yield key
    if shape is not None:
        yield shape
        fill = _fill(line, min_chars)
        if fill is not None:
            yield fill[2]


def is_boilerplate_line(line: str, boilerplate: Set[str], min_chars: int) -> bool:
    """Whether the line, or its shape, is among a host's boilerplate keys."""
    _, key, shape = _line_facts(line, min_chars)
    return _held(boilerplate, key, shape)


def page_line_keys(text: str, min_chars: int) -> list[str]:
    """The distinct line and shape keys of a page, sorted (a page counts once per key)."""
    return sorted({k for x in text.splitlines() for k in line_keys(x, min_chars)})


def strip_boilerplate(
    text: str, boilerplate: Set[str], min_chars: int, shared: Set[str] = frozenset()
) -> str | None:
    """The page without its host's boilerplate lines, or None when it has none.

    Whatever their share of the page: a short text inside a big site template loses the
    template, so neither its keys nor its shingles are the site's. A line removed by its
    shape alone loses what matches the shape, its label: its fill stays as a line of
    text unless other pages of the host have it too (its key among ``boilerplate`` or
    ``shared``, the fills on two or more of the host's pages). An empty string means
    nothing of the page's own is left (fewer than ``min_chars`` normalized characters
    outside the boilerplate): see :func:`is_boilerplate_only`.
    """
    kept: list[str] = []
    removed = own = 0
    for line in text.splitlines():
        norm, key, shape = _line_facts(line, min_chars)
        if _held(boilerplate, key, None):
            removed += 1
        elif _held(boilerplate, None, shape):
            removed += 1
            fill = _fill(line, min_chars)
            if fill is not None and fill[2] not in boilerplate and fill[2] not in shared:
                kept.append(fill[0])
                own += fill[1]
        else:
            kept.append(line)
            own += norm
    if not removed:
        return None
    return "\n".join(kept) if own >= min_chars else ""


def is_boilerplate_only(stripped: str | None) -> bool:
    """A page that is nothing but its host's boilerplate (``strip_boilerplate`` gave "")."""
    return stripped == ""


@dataclass(frozen=True)
class HostLines:
    """The line (and shape) keys a page of one host is fingerprinted without."""

    template: frozenset[str] = frozenset()
    """Boilerplate: held by ``min_pages`` pages of the host and ordinary text of no other
    host. Removed from every page of the host."""
    shared_fills: frozenset[str] = frozenset()
    """Fill keys (``FILL_PREFIX``) on two or more of the host's pages: a line whose
    shape is template loses its fill too when the fill is one of these."""
    frequent: frozenset[str] = frozenset()
    """Held by ``min_pages`` pages of the host too, but ordinary text of another host (a
    list of other sites' titles, standard man-page headings, a quotation many pages
    carry). They stay in the text and its keys (a mirror of such a page elsewhere has
    them too), but a page with text of its own besides them is measured on that own
    text (:func:`own_text`): they decide no match."""


OWN_KEY_SUFFIX = ".own"
"""An own text's key (:func:`own_text_key`) ends with this, where a band key ends with its
band number: both are keys of rule lsh."""


OWN_KEY_MIN_CHARS = 10
"""An own text of fewer normalized characters (a word, a name, a date) gets no key: it
would name many unrelated pages."""


def title_heading(first_line: str, title: str) -> int:
    """The normalized length of a page's first line when it repeats its title or a part
    of it (the heading one template shows above the text and another does not), else 0."""
    heading = normalize_text(first_line)
    return len(heading) if heading and heading in normalize_text(title) else 0


def _drops_heading(heading: int, rest: int) -> bool:
    """Whether a title heading of ``heading`` normalized characters is left out of a text
    whose other lines hold ``rest``: only when as much text stays (a heading with a line
    under it is a page's name and a subtitle, not a heading above a text)."""
    return heading > 0 and rest >= max(OWN_KEY_MIN_CHARS, heading)


def without_title_heading(runs: list[str], title: str) -> list[str]:
    """A page's own text (:func:`own_text`) without its first line when that repeats the
    ``title`` (:func:`title_heading`) and as much text stays: what the page is measured
    on. A repost that drops the heading, or adds a source line, then still contains the
    original's text."""
    first, _, rest = runs[0].partition("\n") if runs else ("", "", "")
    heading = title_heading(first, title) if title else 0
    if not heading:
        return runs
    left = [rest, *runs[1:]] if rest else runs[1:]
    return left if _drops_heading(heading, len(normalize_text("".join(left)))) else runs


def own_text_key(runs: list[str]) -> str | None:
    """The key of a page's own text (:func:`own_text`, :func:`without_title_heading`): the
    md5 of its normalized text, 16 hex digits, then ``.own``; None when that text has fewer
    than ``OWN_KEY_MIN_CHARS`` characters. Two pages whose own texts are the same text
    share it whatever their hosts' frequent lines (a saying in two sites' related-list
    templates), where their whole texts share no key."""
    norm = normalize_text("\n".join(runs))
    return own_key_of(_md5(norm), len(norm))


def own_key_of(md5_hex: str | None, chars: int) -> str | None:
    """:func:`own_text_key` from the md5 hex and the length of the normalized own text."""
    if md5_hex is None or chars < OWN_KEY_MIN_CHARS:
        return None
    return md5_hex[:16] + OWN_KEY_SUFFIX


def whole_text_key(content_key: str | None, chars: int, text: str, title: str) -> str | None:
    """:func:`own_text_key` of a page whose own text is its whole ``text`` (it holds none
    of its host's frequent lines), without a title heading as :func:`without_title_heading`
    drops it: a copy of it in another site's template, whose own text is the same text,
    shares it. From the md5 of its normalized text (``content_key``, ``chars`` long)
    rather than hashing it again, unless it has such a heading."""
    if content_key is None or chars < OWN_KEY_MIN_CHARS:
        return None
    first, _, rest = text.partition("\n")
    heading = title_heading(first, title)
    if _drops_heading(heading, chars - heading):
        return own_text_key([rest])
    return content_key[:16] + OWN_KEY_SUFFIX


def own_line_runs(text: str, frequent: Set[str], min_chars: int) -> OwnLines | None:
    """The lines of ``text`` (``str.splitlines``, already without its host's template)
    and, per line, the number of the run of consecutive lines not among its host's
    ``frequent`` lines that holds it, or -1 for a frequent line; when the page holds a
    frequent line and text of its own is left (at least ``min_chars`` normalized
    characters), else None: the page is measured on ``text``. :func:`own_text` is these
    runs as texts."""
    if not frequent:
        return None
    lines = text.splitlines()
    runs: list[int] = []
    run = own = removed = 0
    for line in lines:
        norm, key, shape = _line_facts(line, min_chars)
        if _held(frequent, key, shape):
            removed += 1
            if runs and runs[-1] == run:
                run += 1
            runs.append(-1)
        else:
            runs.append(run)
            own += norm
    if not removed or own < min_chars:
        return None
    return OwnLines(lines, runs)


@dataclass(frozen=True)
class OwnLines:
    """A page's lines and the own-text run of each (-1: not own text): see
    :func:`own_line_runs`."""

    lines: list[str]
    runs: list[int]

    def texts(self) -> list[str]:
        """Each run's lines joined by newlines, in order."""
        texts: dict[int, list[str]] = {}
        for line, run in zip(self.lines, self.runs, strict=True):
            if run >= 0:
                texts.setdefault(run, []).append(line)
        return ["\n".join(r) for r in texts.values()]

    def without_title_heading(self, title: str) -> OwnLines:
        """These runs without the first own line when :func:`without_title_heading` drops
        it from :meth:`texts`."""
        texts = self.texts()
        if without_title_heading(texts, title) is texts:
            return self
        first = next(i for i, run in enumerate(self.runs) if run >= 0)
        return OwnLines(self.lines, [*self.runs[:first], -1, *self.runs[first + 1 :]])


def own_text(text: str, frequent: Set[str], min_chars: int) -> list[str] | None:
    """A page's own text: the runs of consecutive lines of ``text`` (already without its
    host's template) that are not among its host's ``frequent`` lines, when it holds a
    frequent line and text of its own is left; None otherwise (the page is measured on
    ``text``). Runs, not one text: a shingle across a removed line is in no copy."""
    found = own_line_runs(text, frequent, min_chars)
    return None if found is None else found.texts()
