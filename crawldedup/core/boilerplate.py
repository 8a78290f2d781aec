"""Site boilerplate: lines that many pages of one host repeat (navigation, related-link
lists, copyright and disclaimer lines), removed before keys and shingles are computed.

See docs/algorithm.md#boilerplate. Pure: the counting over the day and the index is the
fingerprint stage's; this module says what a line is, which lines a page has, and what
is left of a page once its host's boilerplate lines are gone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Set
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


def strip_boilerplate(
    text: str, boilerplate: Set[str], min_chars: int, max_removed_share: float
) -> str | None:
    """The page without its boilerplate lines, or None when it keeps its text.

    Nothing to remove: None. Lines that would take away more than ``max_removed_share``
    of the page's normalized characters are not the page's template but its content
    (an article one host serves several times, a short text in a big template): None,
    and the page is judged as it is.
    """
    kept: list[str] = []
    removed = total = 0
    for line in text.splitlines():
        norm, key = _line_facts(line, min_chars)
        total += norm
        if key is not None and key in boilerplate:
            removed += norm
        else:
            kept.append(line)
    if not removed or removed > max_removed_share * total:
        return None
    return "\n".join(kept)


def host_line_rows(host: str, keys: Iterable[str]) -> list[str]:
    """Row keys of the ``host_lines`` table for a page's line keys: ``host|line key``."""
    return [f"{host}|{k}" for k in keys]
