"""Normalization (docs/algorithm.md#normalization): keep a-z, A-Z, 0-9 and Chinese characters only.

Text is first folded with NFKC (full-width letters and digits become half-width)
and lower-cased, so reposts that only changed width, case, whitespace or
punctuation normalize to the same string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

# CJK Unified Ideographs, extension A, and the compatibility ideographs that NFKC
# does not fold away.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_DROP = re.compile(f"[^a-z0-9{_CJK}]+")


def _bmp_table(*ranges: tuple[int, int]) -> np.ndarray:
    """A lookup table over the Basic Multilingual Plane: True for code points in the ranges."""
    table = np.zeros(0x10000, dtype=bool)
    for lo, hi in ranges:
        table[lo : hi + 1] = True
    return table


_LATIN_RANGES = ((ord("a"), ord("z")), (ord("0"), ord("9")))
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
LATIN_TABLE = _bmp_table(*_LATIN_RANGES)
CJK_TABLE = _bmp_table(*_CJK_RANGES)
KEPT_TABLE = LATIN_TABLE | CJK_TABLE


def codepoints(text: str) -> np.ndarray:
    """The code points of ``text`` as a uint32 array (no copy of the encoded buffer)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def in_table(cp: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Membership of code points in a BMP table; code points above the BMP are never kept."""
    found: np.ndarray = table[np.minimum(cp, 0xFFFF)] & (cp <= 0xFFFF)
    return found


def normalize_codepoints(folded_cp: np.ndarray) -> np.ndarray:
    """:func:`normalize_folded` on code points: the kept ones (a-z, 0-9, CJK), in order."""
    out: np.ndarray = folded_cp[in_table(folded_cp, KEPT_TABLE)]
    return out


def from_codepoints(cp: np.ndarray) -> str:
    return cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def fold(text: str) -> str:
    """NFKC (full-width → half-width) and lower case, keeping word boundaries.

    Terms are cut from folded text, not from normalized text: normalization glues
    English words together ("hello world" → "helloworld").
    """
    return unicodedata.normalize("NFKC", _premap_fullwidth(text)).lower() if text else ""


def _premap_table() -> np.ndarray:
    table = np.arange(0x10000, dtype="<u4")
    table[0xFF01 : 0xFF5E + 1] -= 0xFEE0
    table[0x3000] = 0x20
    table.setflags(write=False)
    return table


_PREMAP_TABLE = _premap_table()  # the full-width mapping of each BMP code point
_PREMAP_MIN_CHARS = 64  # shorter texts: the masks below cost less than the table's pass
# Characters common in Chinese pages that also fail NFKC's quick check (℃ in weather
# news, the ellipsis, the no-break space, squares and cubes), each with its full
# compatibility decomposition.
_DECOMPOSE = tuple((c, unicodedata.normalize("NFKD", c)) for c in "\u2103\u2026\u00a0\u00b2\u00b3")


def _premap_fullwidth(text: str) -> str:
    """Replace full-width ASCII forms and the ideographic space by NFKC's own mapping.

    Chinese text is full of full-width punctuation (，：！？（）), which fails NFKC's
    quick check and sends the whole string down its slow path.
    These characters decompose to single ASCII starters that compose with nothing
    before them, so mapping them first leaves NFKC's result unchanged (a property
    test checks this) while the quick check then usually passes.

    A few other frequent characters (``_DECOMPOSE``) are replaced by their full
    compatibility decomposition: NFKC composes the canonically reordered concatenation
    of every character's full decomposition, which such a replacement does not change.
    """
    if text.isascii():
        return text
    for c, decomposed in _DECOMPOSE:
        if c in text:
            text = text.replace(c, decomposed)
    cp = codepoints(text)
    if len(text) >= _PREMAP_MIN_CHARS and cp.max() <= 0xFFFF:
        # One lookup per code point. Where nothing changes this rebuilds an equal string
        # (code points and back, lone surrogates included): the same string to NFKC.
        return from_codepoints(_PREMAP_TABLE.take(cp))
    wide = (cp >= 0xFF01) & (cp <= 0xFF5E)
    space = cp == 0x3000
    if not (wide.any() or space.any()):
        return text
    cp = cp.copy()
    cp[wide] -= 0xFEE0
    cp[space] = 0x20
    return from_codepoints(cp)


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
