"""The four keys (title A, content B, head C, tail D) and a 64-bit SimHash.

See docs/algorithm.md#the-four-keys and #simhash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from crawldedup.config import FingerprintConfig, LshConfig, SimhashConfig
from crawldedup.core.normalize import (
    codepoints,
    fold,
    from_codepoints,
    normalize_codepoints,
    normalize_title,
)
from crawldedup.core.tokenize import char_term_frequencies, term_frequencies


def md5_hex(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


@lru_cache(maxsize=1 << 18)
def _hash64(feature: str) -> int:
    # blake2b is stable across processes and days, unlike the salted hash(). Cached:
    # words and runs of digits repeat across a day's documents.
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")


def _simhash_of_hashes(hashes: np.ndarray, weights: np.ndarray | None = None) -> int:
    """Charikar's rule on 64-bit feature hashes: bit i is set iff the weighted vote is > 0."""
    if hashes.size == 0:
        return 0
    bits = np.unpackbits(
        np.ascontiguousarray(hashes, dtype="<u8").view(np.uint8), bitorder="little"
    ).reshape(-1, 64)
    if weights is None:  # every feature votes once: count the ones per bit
        # A float32 dot product counts exactly (counts stay far below 2**24) and is
        # several times faster than an integer reduction along axis 0.
        ones = np.ones(len(bits), dtype=np.float32)
        votes = 2 * (ones @ bits.astype(np.float32)).astype(np.int64) - len(hashes)
    else:
        votes = (2 * bits.astype(np.int64) - 1).T @ weights.astype(np.int64)
    packed = np.packbits(votes > 0, bitorder="little")
    return int(packed.view("<u8")[0])


def simhash64(features: Mapping[str, int] | Iterable[str]) -> int:
    """Charikar's 64-bit SimHash of weighted features (an unweighted iterable weighs 1)."""
    pairs = list(features.items()) if isinstance(features, Mapping) else [(f, 1) for f in features]
    hashes = np.array([_hash64(f) for f, _ in pairs], dtype=np.uint64)
    return _simhash_of_hashes(hashes, np.array([w for _, w in pairs], dtype=np.int64))


_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a stable, well-spread 64-bit mix (wraps mod 2**64)."""
    return _mix64_inplace(x.astype(np.uint64, copy=True))


_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _mix64_inplace(x: np.ndarray) -> np.ndarray:
    """:func:`_mix64` overwriting ``x`` (a uint64 array): two arrays in memory, not seven."""
    tmp = np.right_shift(x, _S30)
    np.bitwise_xor(x, tmp, out=x)
    np.multiply(x, _M1, out=x)
    np.right_shift(x, _S27, out=tmp)
    np.bitwise_xor(x, tmp, out=x)
    np.multiply(x, _M2, out=x)
    np.right_shift(x, _S31, out=tmp)
    np.bitwise_xor(x, tmp, out=x)
    return x


def text_simhash(normalized: str, size: int = 3) -> int:
    """SimHash over the character ``size``-shingles of normalized text, vectorized.

    Every occurrence of a shingle votes once, so repeated shingles weigh by their
    count. Shingle hashes come from the code points through splitmix64, which is
    stable across processes (unlike ``hash()``) and about 100× faster than hashing
    each shingle string.
    """
    return _simhash_of_hashes(shingle_hashes(normalized, size)) if normalized else 0


def shingle_hashes(normalized: str, size: int = 3) -> np.ndarray:
    """Stable 64-bit hashes of every character ``size``-shingle, in text order."""
    return codepoint_shingle_hashes(codepoints(normalized), size)


def codepoint_shingle_hashes(cp32: np.ndarray, size: int = 3) -> np.ndarray:
    """:func:`shingle_hashes` of text given as its code points."""
    if not cp32.size:
        return np.zeros(0, dtype=np.uint64)
    cp = cp32.astype(np.uint64)
    if len(cp) < size:
        cp = np.concatenate([cp, np.zeros(size - len(cp), dtype=np.uint64)])
    h = np.zeros(len(cp) - size + 1, dtype=np.uint64)
    for i in range(size):
        h = _mix64_inplace(h ^ cp[i : len(cp) - size + 1 + i])
    return h


def bottom_k_sketch(normalized: str, k: int = 128, size: int = 3) -> str:
    """The ``k`` smallest distinct shingle hashes, as hex: a bottom-k (KMV) sketch.

    Two sketches estimate the Jaccard similarity of the shingle sets (docs/algorithm.md#simhash)
    with a standard error of about 1/sqrt(k), in 16·k bytes per document.
    """
    return sketch_of_hashes(shingle_hashes(normalized, size), k)


def sketch_of_hashes(hashes: np.ndarray, k: int = 128) -> str:
    """The bottom-k sketch of shingle hashes: the ``k`` smallest distinct, as 16-digit hex."""
    if not hashes.size:
        return ""
    h = np.sort(hashes)
    distinct = h[np.concatenate(([True], h[1:] != h[:-1]))][:k]
    # Big-endian bytes in hex are exactly f"{x:016x}" per value, in one call.
    return distinct.astype(">u8").tobytes().hex()


def sketch_jaccard(a: str, b: str, k: int = 128) -> float:
    """Jaccard estimate from two bottom-k sketches; 0.0 when either is empty."""
    if not a or not b:
        return 0.0
    sa = {a[i : i + 16] for i in range(0, len(a), 16)}
    sb = {b[i : i + 16] for i in range(0, len(b), 16)}
    # Fixed-width lower-case hex sorts like the numbers it encodes.
    union_k = sorted(sa | sb)[:k]
    if not union_k:
        return 0.0
    return sum(1 for x in union_k if x in sa and x in sb) / len(union_k)


def sketch_containment(a: str, b: str, k: int = 128) -> float:
    """How much of the smaller shingle set lies in the larger, from two bottom-k sketches.

    The larger set's sketch holds every one of its hashes below its own k-th smallest
    value ``t`` (all of them when it has fewer than k), so for the smaller set's sketch
    values below ``t`` membership in the larger set is known exactly: the share that is
    in it estimates the containment. Which set is smaller comes from the sketches
    (a full sketch has k values; its k-th smallest value estimates the set's size).
    0.0 when either is empty.
    """
    if not a or not b:
        return 0.0
    va, vb = _sketch_values(a), _sketch_values(b)
    small, large = (va, vb) if _set_size(va, k) <= _set_size(vb, k) else (vb, va)
    bound = large[-1] if len(large) >= k else np.uint64(2**64 - 1)
    below = small[small <= bound]
    if not below.size:
        return 0.0
    return float(np.isin(below, large, assume_unique=True).mean())


def _sketch_values(sketch: str) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(sketch), dtype=">u8").astype(np.uint64)


def sketch_set_size(sketch: str, k: int = 128) -> float:
    """The distinct-shingle count of a document, from its bottom-k sketch."""
    return _set_size(_sketch_values(sketch), k) if sketch else 0.0


def _set_size(values: np.ndarray, k: int) -> float:
    """The distinct-shingle count a bottom-k sketch stands for (exact when not full)."""
    if len(values) < k:
        return float(len(values))
    return (k - 1) / ((float(values[-1]) + 1.0) / 2.0**64)


def term_ids(folded: str, folded_cp: np.ndarray | None = None) -> np.ndarray:
    """The cosine's terms of folded text (``char_terms``) as stable 64-bit ids, in text
    order: a CJK character is its code point, a Latin/digit run its blake2b hash.

    Found on the code points, without one Python object per character: only the runs
    are hashed (cached). ``tests/unit/test_fingerprint_similarity.py`` pins it to the
    term-by-term definition.
    """
    cp = (codepoints(folded) if folded_cp is None else folded_cp).astype(np.int64)
    if not cp.size:
        return np.zeros(0, dtype=np.uint64)
    cjk = (
        ((cp >= 0x3400) & (cp <= 0x4DBF))
        | ((cp >= 0x4E00) & (cp <= 0x9FFF))
        | ((cp >= 0xF900) & (cp <= 0xFAFF))
    )
    latin = ((cp >= 0x61) & (cp <= 0x7A)) | ((cp >= 0x30) & (cp <= 0x39))
    starts = np.flatnonzero(latin & ~np.concatenate(([False], latin[:-1])))
    ends = np.flatnonzero(latin & ~np.concatenate((latin[1:], [False]))) + 1
    ids = cp.astype(np.uint64)
    if starts.size:
        ids[starts] = np.array(
            [_hash64(folded[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)],
            dtype=np.uint64,
        )
    keep = cjk.copy()
    keep[starts] = True
    out: np.ndarray = ids[keep]
    return out


def term_shingle_hashes(
    folded: str, size: int = 3, folded_cp: np.ndarray | None = None
) -> np.ndarray:
    """Stable 64-bit hashes of every run of ``size`` consecutive terms (w-shingles).

    Chinese terms are characters, so these are character ``size``-grams there; English
    terms are words, so an English shingle is ``size`` words, not ``size`` letters
    (letter trigrams of unrelated English texts overlap a lot).
    """
    return codepoint_shingle_hashes(term_ids(folded, folded_cp), size)


# Fixed seeds of the MinHash functions: the same signature in every process and day.
_MINHASH_CHUNK = 8192


@lru_cache(maxsize=8)
def _minhash_seeds(n: int) -> np.ndarray:
    seeds = _mix64(np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    seeds.setflags(write=False)  # shared by every call
    return seeds


def minhash_signature(hashes: np.ndarray, n: int) -> np.ndarray:
    """``n`` MinHash values of a shingle-hash set (empty when the set is empty).

    Function i is ``mix64(h ^ seed_i)``; its minimum over the set is value i. Two sets
    agree on value i with probability equal to their Jaccard similarity.
    """
    distinct = np.unique(hashes)
    if not distinct.size:
        return np.zeros(0, dtype=np.uint64)
    seeds = _minhash_seeds(n)
    sig = np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
    for start in range(0, distinct.size, _MINHASH_CHUNK):  # bounded memory on huge pages
        chunk = distinct[start : start + _MINHASH_CHUNK]
        mixed = _mix64_inplace(chunk[:, None] ^ seeds[None, :])
        np.minimum(sig, mixed.min(axis=0), out=sig)
    return sig


def lsh_band_keys(hashes: np.ndarray, bands: int, rows: int) -> list[str]:
    """LSH band keys of a shingle-hash set: the MinHash signature cut into ``bands`` bands
    of ``rows`` values, each band hashed into one key (hex, then the band number, so
    keys spread evenly over the key space). Two sets of Jaccard ``s`` share at least one
    key with probability ``1 - (1 - s**rows) ** bands`` (docs/algorithm.md#lsh)."""
    sig = minhash_signature(hashes, bands * rows)
    if not sig.size:
        return []
    h = np.zeros(bands, dtype=np.uint64)
    for col in sig.reshape(bands, rows).T:
        h = _mix64_inplace(h ^ col)
    return [f"{v:016x}.{i}" for i, v in enumerate(h.tolist())]


def hamming64(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def block_keys(h: int, max_distance: int) -> list[str]:
    """Index keys of a SimHash for Hamming distance <= ``max_distance``.

    The 64 bits are cut into ``max_distance + 1`` contiguous blocks; two hashes within
    the distance agree on at least one whole block (pigeonhole). A key is the block's
    bits in hex, then the block number, so keys spread evenly over the key space.
    """
    n = max_distance + 1
    bounds = [round(i * 64 / n) for i in range(n + 1)]
    keys = []
    for i in range(n):
        width = bounds[i + 1] - bounds[i]
        block = (h >> bounds[i]) & ((1 << width) - 1)
        keys.append(f"{block:0{(width + 3) // 4}x}.{i}")
    return keys


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
    simhash_keys: list[str]
    lsh_keys: list[str]
    sketch: str
    tf: dict[str, int]
    normalized_length: int


def document_simhash(text: str, tf: Mapping[str, int], cfg: SimhashConfig) -> int:
    """The SimHash of a document with the configured features."""
    if cfg.features == "shingles":
        return text_simhash(text, cfg.shingle_size)
    if cfg.features == "jieba":
        from crawldedup.core.tokenize import jieba_terms

        return simhash64(jieba_terms(text))
    return simhash64(tf)


def fingerprint(
    title: str,
    content: str,
    cfg: FingerprintConfig,
    sh: SimhashConfig | None = None,
    lsh: LshConfig | None = None,
) -> Fingerprints:
    """All fingerprints of one article."""
    sh = sh or SimhashConfig()
    lsh = lsh or LshConfig()
    folded = fold(content)
    folded_cp = codepoints(folded)
    text_cp = normalize_codepoints(folded_cp)
    text = from_codepoints(text_cp)
    ntitle = normalize_title(title, cfg.title_noise_words)
    if cfg.tokenizer == "char":
        tf = char_term_frequencies(folded, folded_cp)
    else:
        tf = term_frequencies(folded, cfg.tokenizer)
    hashes = codepoint_shingle_hashes(text_cp, sh.shingle_size)
    # Term shingles: the sketch (Jaccard, containment) and the LSH band keys.
    shingled = term_shingle_hashes(folded, lsh.shingle_terms, folded_cp)
    if not text:
        simhash = 0
    elif sh.features == "shingles":
        simhash = _simhash_of_hashes(hashes)
    else:
        simhash = document_simhash(text, tf, sh)
    return Fingerprints(
        title_key=md5_hex(ntitle) if len(ntitle) >= cfg.min_title_chars else None,
        content_key=md5_hex(text) if text else None,
        head_key=md5_hex(text[: cfg.head_chars]) if text else None,
        tail_key=md5_hex(text[-cfg.tail_chars :]) if text else None,
        simhash=simhash,
        simhash_keys=block_keys(simhash, sh.max_distance) if len(text) >= sh.min_chars else [],
        lsh_keys=lsh_band_keys(shingled, lsh.bands, lsh.rows),
        sketch=sketch_of_hashes(shingled, sh.sketch_size),
        tf=tf,
        normalized_length=len(text),
    )
