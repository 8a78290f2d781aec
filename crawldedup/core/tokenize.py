"""Terms for the cosine of seed 000, and jieba words as an alternative.

Seed 000 counts each Chinese character as one term and each run of Latin letters
or digits as one term. Input is folded text (:func:`crawldedup.core.normalize.fold`):
case and width folded, word boundaries kept.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

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


def term_frequencies(folded: str, tokenizer: str = "char") -> dict[str, int]:
    """Term-frequency vector of folded text."""
    return dict(Counter(terms(folded, tokenizer)))
