"""Normalization per seed 000: keep a-z, A-Z, 0-9 and Chinese characters only.

Text is first folded with NFKC (full-width letters and digits become half-width)
and lower-cased, so reposts that only changed width, case, whitespace or
punctuation normalize to the same string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

# CJK Unified Ideographs, extension A, and the compatibility ideographs that NFKC
# does not fold away.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_DROP = re.compile(f"[^a-z0-9{_CJK}]+")


def fold(text: str) -> str:
    """NFKC (full-width → half-width) and lower case, keeping word boundaries.

    Terms are cut from folded text, not from normalized text: normalization glues
    English words together ("hello world" → "helloworld").
    """
    return unicodedata.normalize("NFKC", text).lower() if text else ""


def normalize_text(text: str) -> str:
    """Fold width and case, then drop everything but a-z, 0-9 and CJK ideographs."""
    if not text:
        return ""
    return _DROP.sub("", unicodedata.normalize("NFKC", text).lower())


def normalize_folded(folded: str) -> str:
    """:func:`normalize_text` of text that :func:`fold` already folded (saves an NFKC pass)."""
    return _DROP.sub("", folded)


@lru_cache(maxsize=64)
def _noise_forms(noise_words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # Longest first, so "reposted" is removed before "repost".
    folded = sorted((fold(w) for w in noise_words if w), key=len, reverse=True)
    normalized = tuple(n for n in (normalize_folded(w) for w in folded) if n)
    return tuple(folded), normalized


def normalize_title(title: str, noise_words: Iterable[str]) -> str:
    """Normalize a title and remove repost noise words (转载, 原创, 【转】, …).

    Noise words are removed both before normalization (so bracketed markers such
    as 【转】 vanish whole) and after it (so 转载 glued to other text vanishes too).
    """
    if not title:
        return ""
    words, normalized_words = _noise_forms(tuple(noise_words))
    folded = fold(title)
    for w in words:
        folded = folded.replace(w, " ")
    out = _DROP.sub("", folded)
    for nw in normalized_words:
        out = out.replace(nw, "")
    return out
