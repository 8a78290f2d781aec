"""Terms for the cosine (docs/algorithm.md#cosine), and jieba words as an alternative.

Seed 000 counts each Chinese character as one term and each run of Latin letters
or digits as one term. Input is folded text (:func:`crawldedup.core.normalize.fold`):
case and width folded, word boundaries kept.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

import numpy as np

from crawldedup.core.normalize import CJK_TABLE, LATIN_TABLE, codepoints, in_table

_LATIN_RUN = re.compile(r"[a-z0-9]+")
_TERM = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def char_terms(folded: str) -> list[str]:
    """Seed 000 terms of folded text: CJK characters and Latin/digit runs."""
    return _TERM.findall(folded)


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba  # imported lazily: loading its dictionary takes about a second

    jieba.setLogLevel(60)
    return jieba


def jieba_terms(folded: str) -> list[str]:
    """jieba words of folded text, punctuation and whitespace dropped."""
    out = []
    for w in _jieba().lcut(folded, HMM=True):
        kept = "".join(_TERM.findall(w))
        if kept:
            out.append(kept)
    return out


def terms(folded: str, tokenizer: str = "char") -> list[str]:
    """Terms with the configured tokenizer (``char`` or ``jieba``)."""
    if tokenizer == "jieba":
        return jieba_terms(folded)
    return char_terms(folded)


def char_term_frequencies(folded: str, folded_cp: np.ndarray | None = None) -> dict[str, int]:
    """``Counter(char_terms(folded))``, counted without one Python object per character.

    CJK characters are counted with numpy over the code points; only the Latin/digit
    runs go through the regular expression. ``folded_cp`` saves re-encoding the text
    when the caller already has its code points.
    """
    cp = codepoints(folded) if folded_cp is None else folded_cp
    cjk = cp[in_table(cp, CJK_TABLE)]
    out = cjk_term_frequencies(cjk)
    if cjk.size < cp.size and in_table(cp, LATIN_TABLE).any():
        out.update(Counter(_LATIN_RUN.findall(folded)))
    return out


def cjk_term_frequencies(cjk: np.ndarray) -> dict[str, int]:
    """The counts of CJK code points as a dict of characters, in code point order.

    ``np.unique(cjk, return_counts=True)`` made into a dict, without np.unique's fixed
    overhead (which is most of its cost on a page's few hundred characters).
    """
    if not cjk.size:
        return {}
    s = np.sort(cjk.astype("<u4"))
    ends = np.empty(s.size, dtype=bool)
    ends[-1] = True
    np.not_equal(s[1:], s[:-1], out=ends[:-1])
    last = np.flatnonzero(ends)  # the last index of each distinct value
    counts = np.empty(last.size, dtype=np.int64)
    counts[0] = last[0] + 1
    np.subtract(last[1:], last[:-1], out=counts[1:])
    return dict(zip(s[last].tobytes().decode("utf-32-le"), counts.tolist(), strict=True))


def term_frequencies(folded: str, tokenizer: str = "char") -> dict[str, int]:
    """Term-frequency vector of folded text."""
    if tokenizer == "char":
        return char_term_frequencies(folded)
    return dict(Counter(terms(folded, tokenizer)))
