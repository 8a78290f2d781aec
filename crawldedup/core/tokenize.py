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
    out: dict[str, int] = {}
    if cjk.size:
        values, counts = np.unique(cjk, return_counts=True)
        out = dict(
            zip(values.astype("<u4").tobytes().decode("utf-32-le"), counts.tolist(), strict=True)
        )
    if cjk.size < cp.size and in_table(cp, LATIN_TABLE).any():
        for run, n in Counter(_LATIN_RUN.findall(folded)).items():
            out[run] = n
    return out


def term_frequencies(folded: str, tokenizer: str = "char") -> dict[str, int]:
    """Term-frequency vector of folded text."""
    if tokenizer == "char":
        return char_term_frequencies(folded)
    return dict(Counter(terms(folded, tokenizer)))
