"""The four keys of seed 000 (title A, content B, head C, tail D) and a 64-bit SimHash."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from crawldedup.config import FingerprintConfig
from crawldedup.core.normalize import fold, normalize_text, normalize_title
from crawldedup.core.tokenize import term_frequencies


def md5_hex(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _hash64(feature: str) -> int:
    # blake2b is stable across processes and days, unlike the salted hash().
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")


def simhash64(features: Mapping[str, int] | Iterable[str]) -> int:
    """Charikar's 64-bit SimHash of weighted features (an unweighted iterable weighs 1)."""
    weighted = features.items() if isinstance(features, Mapping) else ((f, 1) for f in features)
    acc = [0] * 64
    for feature, weight in weighted:
        h = _hash64(feature)
        for bit in range(64):
            acc[bit] += weight if (h >> bit) & 1 else -weight
    out = 0
    for bit in range(64):
        if acc[bit] > 0:
            out |= 1 << bit
    return out


def hamming64(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def shingles(normalized: str, size: int = 3) -> dict[str, int]:
    """Character shingles of normalized text with counts (SimHash features)."""
    if len(normalized) <= size:
        return {normalized: 1} if normalized else {}
    out: dict[str, int] = {}
    for i in range(len(normalized) - size + 1):
        s = normalized[i : i + size]
        out[s] = out.get(s, 0) + 1
    return out


@dataclass(frozen=True)
class Fingerprints:
    """Keys are md5 hex strings, or None when the part is empty or too generic."""

    title_key: str | None
    content_key: str | None
    head_key: str | None
    tail_key: str | None
    simhash: int
    tf: dict[str, int]
    normalized_length: int

    def key_for(self, rule: str) -> str | None:
        return {
            "content_md5": self.content_key,
            "head": self.head_key,
            "tail": self.tail_key,
            "title": self.title_key,
        }[rule]


def fingerprint(title: str, content: str, cfg: FingerprintConfig) -> Fingerprints:
    """All fingerprints of one article."""
    text = normalize_text(content)
    ntitle = normalize_title(title, cfg.title_noise_words)
    return Fingerprints(
        title_key=md5_hex(ntitle) if len(ntitle) >= cfg.min_title_chars else None,
        content_key=md5_hex(text) if text else None,
        head_key=md5_hex(text[: cfg.head_chars]) if text else None,
        tail_key=md5_hex(text[-cfg.tail_chars :]) if text else None,
        simhash=simhash64(shingles(text)),
        tf=term_frequencies(fold(content), cfg.tokenizer),
        normalized_length=len(text),
    )
