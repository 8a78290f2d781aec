"""Site boilerplate: lines that many pages of one host repeat (navigation, related-link
lists, copyright and disclaimer lines), removed before keys and shingles are computed.

See docs/algorithm.md#boilerplate. Pure: the counting over the day and the index is the
fingerprint stage's; this module says what a line is, which lines a page has, and what
is left of a page once its host's boilerplate lines are gone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Set
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


# Cached: a host's template lines (navigation, related links, copyright) repeat on most
# of its pages, and each page's lines are keyed twice (counted, then stripped).
@lru_cache(maxsize=1 << 16)
def _line_facts(line: str, min_chars: int) -> tuple[int, str | None]:
    """(normalized length, :func:`line_key`) of a line."""
    norm = normalize_text(line)
    if len(norm) < min_chars:
        return len(norm), None
    return len(norm), hashlib.md5(norm.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


def page_line_keys(text: str, min_chars: int) -> list[str]:
    """The distinct line keys of a page, sorted (a page counts once per line)."""
    keys = {k for k in (line_key(x, min_chars) for x in text.splitlines()) if k}
    return sorted(keys)


def strip_boilerplate(text: str, boilerplate: Set[str], min_chars: int) -> str | None:
    """The page without its host's boilerplate lines, or None when it has none.

    Whatever their share of the page: a short text inside a big site template loses the
    template, so neither its keys nor its shingles are the site's. An empty string means
    nothing of the page's own is left (fewer than ``min_chars`` normalized characters
    outside the boilerplate): see :func:`is_boilerplate_only`.
    """
    kept: list[str] = []
    removed = own = 0
    for line in text.splitlines():
        norm, key = _line_facts(line, min_chars)
        if key is not None and key in boilerplate:
            removed += 1
        else:
            kept.append(line)
            own += norm
    if not removed:
        return None
    return "\n".join(kept) if own >= min_chars else ""


def is_boilerplate_only(stripped: str | None) -> bool:
    """A page that is nothing but its host's boilerplate (``strip_boilerplate`` gave "")."""
    return stripped == ""
