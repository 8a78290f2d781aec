"""The four keys (title A, content B, head C, tail D) and a 64-bit SimHash.

See docs/algorithm.md#the-four-keys and #simhash.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

from crawldedup.config import FingerprintConfig, LshConfig, SimhashConfig
from crawldedup.core.hashmix import band_hashes, bit_majority, minhash_values, window_hashes
from crawldedup.core.normalize import (
    CJK_TABLE,
    LATIN_TABLE,
    codepoints,
    fold,
    from_codepoints,
    normalize_title,
)
from crawldedup.core.pair_measures import with_cross
from crawldedup.core.tokenize import cjk_term_frequencies, term_frequencies


def md5_hex(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _blake64(feature: str) -> int:
    # blake2b is stable across processes and days, unlike the salted hash().
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")


# Cached: words and runs of digits repeat across a day's documents.
_hash64 = lru_cache(maxsize=1 << 18)(_blake64)


def _simhash_of_hashes(hashes: np.ndarray, weights: np.ndarray | None = None) -> int:
    """Charikar's rule on 64-bit feature hashes: bit i is set iff the weighted vote is > 0."""
    if hashes.size == 0:
        return 0
    if weights is None and hashes.size < _EXACT_FLOAT32_COUNTS:
        # Every feature votes once: count the ones per bit exactly.
        return int(bit_majority(np.ascontiguousarray(hashes, dtype="<u8")))
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


# Below 2**24 votes the float32 count of the general path is exact, so it equals the
# integer count of bit_majority; above, the general path (and its rounding) is kept.
_EXACT_FLOAT32_COUNTS = 1 << 24


def simhash64(features: Mapping[str, int] | Iterable[str]) -> int:
    """Charikar's 64-bit SimHash of weighted features (an unweighted iterable weighs 1)."""
    pairs = list(features.items()) if isinstance(features, Mapping) else [(f, 1) for f in features]
    hashes = np.array([_hash64(f) for f, _ in pairs], dtype=np.uint64)
    return _simhash_of_hashes(hashes, np.array([w for _, w in pairs], dtype=np.int64))


def _const(value: int, dtype: type = np.uint64) -> np.ndarray:
    """A read-only 0-d array: as an operand it costs numpy about half the call overhead
    of a scalar (np.uint64 or int), and gives the same result as one."""
    out: np.ndarray = np.array(value, dtype=dtype)
    out.setflags(write=False)
    return out


_S30 = _const(30)


def text_simhash(normalized: str, size: int = 3) -> int:
    """SimHash over the character ``size``-shingles of normalized text, vectorized.

    Every occurrence of a shingle votes once, so repeated shingles weigh by their
    count. Shingle hashes come from the code points through splitmix64, which is
    stable across processes (unlike ``hash()``) and far cheaper than hashing each
    shingle string.
    """
    return _simhash_of_hashes(shingle_hashes(normalized, size)) if normalized else 0


def shingle_hashes(normalized: str, size: int = 3) -> np.ndarray:
    """Stable 64-bit hashes of every character ``size``-shingle, in text order."""
    return codepoint_shingle_hashes(codepoints(normalized), size)


def codepoint_shingle_hashes(cp32: np.ndarray, size: int = 3) -> np.ndarray:
    """:func:`shingle_hashes` of text given as its code points."""
    return _shingle_hashes_of_runs((cp32,), size)[0]


def _shingle_hashes_of_runs(runs: tuple[np.ndarray, ...], size: int) -> list[np.ndarray]:
    """:func:`codepoint_shingle_hashes` of each array of ``runs``, in one call of the
    vectorized chain (:func:`crawldedup.core.hashmix.window_hashes`).

    Window ``j`` hashes as ``mix(...mix(mix(0 ^ c[j]) ^ c[j+1])... ^ c[j+size-1])``; a
    nonempty run shorter than ``size`` is padded with zeros to one window, an empty one
    has none. The runs are laid end to end and hashed together (the windows that straddle
    two runs are computed and dropped): one call costs less than one per run.
    """
    if size < 1:  # no character per shingle: the plain definition's all-zero hashes
        return [_zero_size_shingle_hashes(run, size) for run in runs]
    parts: list[np.ndarray] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for run in runs:
        n = len(run)
        if not n:
            spans.append((at, at))
            continue
        parts.append(run)
        if n < size:
            parts.append(np.zeros(size - n, dtype=np.uint64))
            n = size
        spans.append((at, at + n - size + 1))
        at += n
    if not at:
        return [np.zeros(0, dtype=np.uint64) for _ in runs]
    if len(parts) == 1:
        cp = parts[0].astype(np.uint64, copy=False)
    else:
        cp = np.concatenate(parts, dtype=np.uint64)
    h = window_hashes(cp, size)
    return [h[a:b] for a, b in spans]


def _zero_size_shingle_hashes(cp: np.ndarray, size: int) -> np.ndarray:
    if not cp.size:
        return np.zeros(0, dtype=np.uint64)
    return np.zeros(max(len(cp), size) - size + 1, dtype=np.uint64)


def bottom_k_sketch(normalized: str, k: int = 128, size: int = 3) -> str:
    """The ``k`` smallest distinct shingle hashes, as hex: a bottom-k (KMV) sketch.

    Two sketches estimate the Jaccard similarity of the shingle sets (docs/algorithm.md#simhash)
    with a standard error of about 1/sqrt(k), in 16·k bytes per document.
    """
    return sketch_of_hashes(shingle_hashes(normalized, size), k)


def sketch_of_hashes(hashes: np.ndarray, k: int = 128) -> str:
    """The bottom-k sketch of shingle hashes: the ``k`` smallest distinct, as 16-digit hex."""
    return _sketch_of_distinct(_sorted_distinct(hashes), k)


def _sorted_distinct(hashes: np.ndarray) -> np.ndarray:
    """``np.unique(hashes)`` (sorted, distinct), without its fixed overhead."""
    h = np.sort(hashes)
    if h.size < 2:
        return h
    keep = np.empty(h.size, dtype=bool)
    keep[0] = True
    np.not_equal(h[1:], h[:-1], out=keep[1:])
    out: np.ndarray = h[keep]
    return out


def _sketch_of_distinct(distinct: np.ndarray, k: int) -> str:
    # Big-endian bytes in hex are exactly f"{x:016x}" per value, in one call.
    return distinct[:k].astype(">u8").tobytes().hex()


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


def own_sketch_measures(
    a: str, own_a: str, b: str, own_b: str, k: int = 128
) -> tuple[float, float]:
    """(Jaccard, containment) of two pages when a page with an own text (``own_a``,
    ``own_b``: its sketch, "" when none) is measured on it (docs/algorithm.md#boilerplate):
    the Jaccard of the own texts (or whole pages), the best containment of an own text in
    the other's own text or whole page, as far as ``core.pair_measures.with_cross`` lets
    it count. Without own texts: the whole pages' measures."""
    sa, sb = own_a or a, own_b or b
    own = sketch_containment(sa, sb, k)
    cross = max(sketch_containment(sa, b, k), sketch_containment(a, sb, k))
    contained = float(with_cross(own, cross, sketch_containment(a, b, k)))
    return sketch_jaccard(sa, sb, k), contained


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
    cp = codepoints(folded) if folded_cp is None else folded_cp
    cls = char_classes(cp)
    latin = cls == _IS_LATIN
    return _term_ids(cp, cls == _IS_CJK, latin, latin_runs(cp, latin))


# Character classes of folded text, by code point: what normalization keeps, and how.
_DROPPED, _LATIN, _CJK = 0, 1, 2
_CLASS_TABLE = np.where(CJK_TABLE, _CJK, np.where(LATIN_TABLE, _LATIN, _DROPPED)).astype(np.uint8)
_CLASS_TABLE.setflags(write=False)
assert not _CLASS_TABLE[0xFFFF]  # so that every code point above the BMP maps to _DROPPED
_IS_LATIN, _IS_CJK = _const(_LATIN, np.uint8), _const(_CJK, np.uint8)


def char_classes(cp: np.ndarray) -> np.ndarray:
    """Per code point: 1 for a-z and 0-9, 2 for a CJK ideograph, 0 for the rest (dropped)."""
    # mode="clip" reads every code point above the BMP as U+FFFF, which is dropped.
    out: np.ndarray = _CLASS_TABLE.take(cp, mode="clip")
    return out


_SPACE = _const(0x20, np.uint32)


def latin_runs(cp: np.ndarray, latin: np.ndarray) -> list[str]:
    """The Latin/digit runs (``re.findall("[a-z0-9]+", text)``) of the text of code
    points ``cp``, given its Latin mask (``cp`` in a-z or 0-9), in order.

    Every other code point becomes a space and ``str.split`` cuts the runs: an ASCII
    string throughout, and several times faster than the regular expression.
    """
    if not latin.any():
        return []
    ascii_bytes = np.where(latin, cp, _SPACE).astype(np.uint8).tobytes()
    return ascii_bytes.decode("ascii").split()


def _term_ids(cp: np.ndarray, cjk: np.ndarray, latin: np.ndarray, words: list[str]) -> np.ndarray:
    """:func:`term_ids` from the code points, their CJK and Latin masks and the Latin/digit
    runs (:func:`latin_runs`)."""
    if not words:
        out: np.ndarray = cp[cjk].astype(np.uint64)
        return out
    # A term starts at every CJK character and at the first character of every run.
    starts = _run_starts(latin)
    keep = starts | cjk
    ids: np.ndarray = cp[keep].astype(np.uint64)
    ids[starts[keep]] = _run_ids(words)
    return ids


_RUN_IDS: dict[str, int] = {}
_RUN_IDS_MAX = 1 << 18


def _run_ids(words: list[str]) -> np.ndarray:
    """``_hash64`` of each word, from a cache (words repeat across a day's documents)."""
    cache = _RUN_IDS
    try:
        return np.fromiter(map(cache.__getitem__, words), dtype=np.uint64, count=len(words))
    except KeyError:  # a new word: hash the missing ones
        if len(cache) > _RUN_IDS_MAX:
            cache.clear()
        ids = []
        for w in words:
            h = cache.get(w)
            if h is None:
                h = cache[w] = _blake64(w)
            ids.append(h)
        return np.array(ids, dtype=np.uint64)


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
@lru_cache(maxsize=8)
def _minhash_seeds(n: int) -> np.ndarray:
    golden = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    seeds: np.ndarray = window_hashes(golden, 1)  # a window of one value: mix64 of it
    seeds.setflags(write=False)  # shared by every call
    return seeds


def minhash_signature(hashes: np.ndarray, n: int) -> np.ndarray:
    """``n`` MinHash values of a shingle-hash set (empty when the set is empty).

    Function i is ``mix64(h ^ seed_i)``; its minimum over the set is value i. Two sets
    agree on value i with probability equal to their Jaccard similarity.
    """
    return _minhash_of_distinct(_sorted_distinct(hashes), n)


@lru_cache(maxsize=8)
def _premixed_seeds(n: int) -> np.ndarray:
    """``s ^ (s >> 30)`` of each seed: the seed's half of mix64's first step."""
    s = _minhash_seeds(n)
    out: np.ndarray = s ^ (s >> _S30)
    out.setflags(write=False)
    return out


def _minhash_of_distinct(distinct: np.ndarray, n: int) -> np.ndarray:
    """:func:`minhash_signature` of distinct hashes (in any order), by the vectorized loop
    of :mod:`crawldedup.core.hashmix`."""
    if not distinct.size or n == 0:
        return np.zeros(0, dtype=np.uint64)
    out: np.ndarray = minhash_values(distinct.astype(np.uint64, copy=False), _premixed_seeds(n))
    return out


def lsh_band_keys(hashes: np.ndarray, bands: int, rows: int) -> list[str]:
    """LSH band keys of a shingle-hash set: the MinHash signature cut into ``bands`` bands
    of ``rows`` values, each band hashed into one key (hex, then the band number, so
    keys spread evenly over the key space). Two sets of Jaccard ``s`` share at least one
    key with probability ``1 - (1 - s**rows) ** bands`` (docs/algorithm.md#lsh)."""
    return _band_keys_of_signature(minhash_signature(hashes, bands * rows), bands, rows)


@lru_cache(maxsize=8)
def _band_suffixes(bands: int) -> tuple[str, ...]:
    return tuple(f".{i}" for i in range(bands))


def _band_keys_of_signature(sig: np.ndarray, bands: int, rows: int) -> list[str]:
    if not sig.size:
        return []
    # f"{v:016x}" of each band's hash, end to end.
    hx = band_hashes(sig, bands, rows).astype(">u8").tobytes().hex()
    return [hx[16 * i : 16 * i + 16] + sfx for i, sfx in enumerate(_band_suffixes(bands))]


def hamming64(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def block_keys(h: int, max_distance: int) -> list[str]:
    """Index keys of a SimHash for Hamming distance <= ``max_distance``.

    The 64 bits are cut into ``max_distance + 1`` contiguous blocks; two hashes within
    the distance agree on at least one whole block (pigeonhole). A key is the block's
    bits in hex, then the block number, so keys spread evenly over the key space.
    """
    return [f"{(h >> at) & mask:0{digits}x}.{i}" for at, mask, digits, i in _blocks(max_distance)]


@lru_cache(maxsize=16)
def _blocks(max_distance: int) -> tuple[tuple[int, int, int, int], ...]:
    """The blocks of :func:`block_keys`: first bit, mask, hex digits, block number."""
    n = max_distance + 1
    bounds = [round(i * 64 / n) for i in range(n + 1)]
    out = []
    for i in range(n):
        width = bounds[i + 1] - bounds[i]
        out.append((bounds[i], (1 << width) - 1, (width + 3) // 4, i))
    return tuple(out)


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
    paragraph_keys: list[str] = field(default_factory=list)
    # Rule paragraph's sizes of the text and of its edge lines (:class:`Paragraphs`).
    paragraph_size: int = 0
    paragraph_edges: int = 0
    # The own text's (``own_lines``): its sketch, and the md5 hex and length of its
    # normalized text; None, None and 0 without ``own_lines``.
    own_sketch: str | None = None
    own_md5: str | None = None
    own_length: int = 0


_NEWLINE = _const(0x0A, np.uint32)


def paragraph_chars(key: str) -> int:
    """The size a paragraph key carries (``<hash>.<size>``, :func:`paragraphs`)."""
    return int(key.rpartition(".")[2])


# The size of a normalized character in rule paragraph's measures: a CJK ideograph
# carries about what three Latin letters or digits do (and takes three bytes in UTF-8
# where they take one), so a Chinese sentence and its English translation come out
# about the same size.
CJK_SIZE = 3
_SIZE_OF_CLASS = np.array([0, 1, CJK_SIZE], dtype=np.int64)  # by char_classes' value


@dataclass(frozen=True)
class Paragraphs:
    """What rule paragraph knows of a text (docs/algorithm.md#excerpts), in sizes
    (normalized characters, a CJK one counting ``CJK_SIZE``)."""

    keys: list[str]  # ``<md5 of the line's normalized text, 16 hex digits>.<size>``
    size: int  # of the whole text
    edges: int  # of its edge lines: the first and last of 3+, the smaller of 2, none of 1


NO_PARAGRAPHS = Paragraphs([], 0, 0)


# An edge line names the page's title when it holds, inside other text, a run of the
# normalized title at least this long and at least three quarters of the title (most of
# it: not the section a help page's title begins with, "Query Wizard - Aliases").
TITLE_MIN_CHARS = 4
# An edge line of more than this many normalized characters besides the title's is text
# of its own, not an intro or a credit: not searched for the title (the search costs
# about a microsecond a character).
TITLE_MAX_OTHER_CHARS = 100


def size_of(norm: str) -> int:
    """The size of normalized text: its characters, a CJK one counting ``CJK_SIZE``."""
    if not norm:
        return 0
    return int(_SIZE_OF_CLASS[char_classes(codepoints(norm))].sum())


def title_named(line: str, title: str) -> int:
    """The size of the page's title (normalized) named inside an edge line (normalized):
    the longest run the two share, when it is at least ``TITLE_MIN_CHARS`` and three
    quarters of the title, and the line holds more than it; else 0. A quoting page's
    intro and credit often name the quoted article ("Here is how “<title>” puts it:",
    "摘自《<title>》"): those characters repeat the title, which the title rule already
    measures, and are none of the page's own text."""
    if not title or not line or len(line) > len(title) + TITLE_MAX_OTHER_CHARS:
        return 0
    least = max(TITLE_MIN_CHARS, -(-3 * len(title) // 4))
    # Every run of the title at least ``least`` long (more than half of it) holds the
    # title's middle, title[len - least : least]: a line without it names no title. An
    # exact test that spares most edge lines the quadratic search.
    if least > len(title) or title[len(title) - least : least] not in line:
        return 0
    found = SequenceMatcher(None, line, title, autojunk=False).find_longest_match(
        0, len(line), 0, len(title)
    )
    if found.size < least or found.size >= len(line):
        return 0
    return size_of(line[found.a : found.a + found.size])


def paragraphs(
    folded_cp: np.ndarray, cls: np.ndarray, min_size: int, cap: int, title: str = ""
) -> Paragraphs:
    """The paragraphs of a text, of the folded code points ``folded_cp`` (``cls`` their
    :func:`char_classes`): each line of at least ``min_size`` gives a key; distinct,
    the ``cap`` smallest, sorted. A page that quotes paragraphs of another shares their
    keys; the size in the key tells how much text the two share without reading either.
    The edge lines are where a quoting page puts its own intro and credit; what of the
    page's normalized ``title`` they name (:func:`title_named`) counts neither in them
    nor in the page's size."""
    if cap <= 0 or not len(folded_cp):
        return NO_PARAGRAPHS
    kept = cls.astype(bool)
    line_of = np.cumsum(folded_cp == _NEWLINE)[kept]  # line number of each kept char
    if not len(line_of):
        return NO_PARAGRAPHS
    counts = np.bincount(line_of)
    sizes = np.bincount(line_of, weights=_SIZE_OF_CLASS[cls[kept]]).astype(np.int64)
    text = folded_cp[kept]
    firsts = np.searchsorted(line_of, np.arange(len(counts)), side="left")
    nonempty = np.flatnonzero(counts > 0)
    edge_lines = [] if len(nonempty) < 2 else [int(nonempty[0]), int(nonempty[-1])]
    named = [
        title_named(from_codepoints(text[firsts[n] : firsts[n] + counts[n]]), title)
        for n in edge_lines
    ]
    lines = [int(sizes[n]) - d for n, d in zip(edge_lines, named, strict=True)]
    edges = 0 if not lines else sum(lines) if len(nonempty) > 2 else min(lines)
    long_lines = np.flatnonzero(sizes >= min_size)
    starts = firsts[long_lines]
    ends = starts + counts[long_lines]
    keys = {
        f"{hashlib.md5(text[a:b].tobytes()).hexdigest()[:16]}.{size}"
        for a, b, size in zip(
            starts.tolist(), ends.tolist(), sizes[long_lines].tolist(), strict=True
        )
    }
    return Paragraphs(sorted(keys)[:cap], int(sizes.sum()) - sum(named), edges)


def document_simhash(text: str, tf: Mapping[str, int], cfg: SimhashConfig) -> int:
    """The SimHash of a document with the configured features."""
    if cfg.features == "shingles":
        return text_simhash(text, cfg.shingle_size)
    if cfg.features == "jieba":
        from crawldedup.core.tokenize import jieba_terms

        return simhash64(jieba_terms(text))
    return simhash64(tf)


_DEFAULT_SIMHASH = SimhashConfig()
_DEFAULT_LSH = LshConfig()


def runs_sketch(runs: Iterable[str], sh: SimhashConfig, lsh: LshConfig) -> str:
    """The bottom-k sketch of the term shingles inside each text of ``runs`` (none across
    two): of one text, :func:`fingerprint`'s ``sketch`` of it.

    The runs are folded one by one, then their terms are found in one pass over the
    folded runs laid end to end, a newline between two (a dropped character: no term
    spans it), and cut back into runs by where each term starts; their shingles are
    hashed in one call (``_shingle_hashes_of_runs``). A page's own text is often many
    short runs, and numpy's fixed cost per call was most of the time per run.
    """
    folded = [fold(run) for run in runs]
    cp = codepoints("\n".join(folded))
    cls = char_classes(cp)
    latin, cjk = cls == _IS_LATIN, cls == _IS_CJK
    ids = _term_ids(cp, cjk, latin, latin_runs(cp, latin))
    ends = np.cumsum([len(f) + 1 for f in folded])[:-1]  # where each next run starts
    term_at = np.flatnonzero(_run_starts(latin) | cjk)  # where each of ``ids`` starts
    per_run = np.split(ids, np.searchsorted(term_at, ends))
    shingled = _shingle_hashes_of_runs(tuple(per_run), lsh.shingle_terms) if folded else []
    hashes = np.concatenate(shingled) if shingled else np.zeros(0, dtype=np.uint64)
    return _sketch_of_distinct(_sorted_distinct(hashes), sh.sketch_size)


def _run_starts(latin: np.ndarray) -> np.ndarray:
    """Per code point, given the Latin mask: whether a Latin/digit run starts there."""
    starts = np.zeros(len(latin), dtype=bool)
    if len(latin):
        starts[0] = latin[0]
        np.greater(latin[1:], latin[:-1], out=starts[1:])
    return starts


# The code points ``str.splitlines`` ends a line at (``\r\n`` is one end).
_LINE_ENDS = np.zeros(0x10000, dtype=bool)
_LINE_ENDS[[0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029]] = True
_LINE_ENDS.setflags(write=False)
_CR = _const(0x0D, np.uint32)


def _line_numbers(cp: np.ndarray) -> np.ndarray:
    """Per code point, the number of the line (as ``str.splitlines`` cuts the text)
    that holds it; a line's end belongs to the line."""
    ends = _LINE_ENDS.take(cp, mode="clip") & (cp <= 0xFFFF)
    if len(cp) > 1:
        ends[1:] &= ~((cp[1:] == _NEWLINE) & (cp[:-1] == _CR))
    line: np.ndarray = np.cumsum(ends) - ends
    return line


def _own_text_parts(
    own_lines: Sequence[int],
    folded_cp: np.ndarray,
    kept: np.ndarray,
    term_at: np.ndarray,
    ids: np.ndarray,
    shingled: np.ndarray,
    size: int,
    k: int,
) -> tuple[str, str, int]:
    """(sketch, md5 hex of the normalized text, its length) of the page's own text: the
    runs of its lines ``own_lines`` numbers (-1: not own text), :func:`runs_sketch` of
    them, taken from the whole text's term shingles (``shingled``, of the terms ``ids``
    starting at the code points ``term_at``): a window whose first and last terms lie in
    one run lies in it whole. A run of fewer than ``size`` terms is hashed on its own, as
    :func:`runs_sketch` pads it. Folding the whole text folds each line as on its own:
    NFKC composes nothing across a line's end."""
    runs = np.asarray(own_lines, dtype=np.int64)
    line_run = runs[np.minimum(_line_numbers(folded_cp), len(runs) - 1)]
    term_run = line_run[term_at]
    n = len(ids)
    parts = []
    if n >= size:
        first, last = term_run[: n - size + 1], term_run[size - 1 :]
        parts.append(shingled[(first >= 0) & (first == last)])
    mine = term_run >= 0
    counts = np.bincount(term_run[mine], minlength=1)
    short = np.flatnonzero((counts > 0) & (counts < size))
    if len(short):
        by_run = ids[mine][np.isin(term_run[mine], short)]
        cuts = np.cumsum(counts[short])[:-1]
        parts += _shingle_hashes_of_runs(tuple(np.split(by_run, cuts)), size)
    hashes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    own_cp = folded_cp[kept & (line_run >= 0)]
    return (
        _sketch_of_distinct(_sorted_distinct(hashes), k),
        md5_hex(from_codepoints(own_cp)),
        len(own_cp),
    )


def fingerprint(
    title: str,
    content: str,
    cfg: FingerprintConfig,
    sh: SimhashConfig | None = None,
    lsh: LshConfig | None = None,
    own_lines: Sequence[int] | None = None,
) -> Fingerprints:
    """All fingerprints of one article; with ``own_lines`` (per line of ``content``, the
    number of its own-text run or -1: ``core.boilerplate.own_line_runs``), those of its
    own text too.

    One pass over the code points of the folded text: their classes give the normalized
    text, the cosine's terms and their ids; both kinds of shingle hashes are computed in
    one set of numpy calls, and the sorted distinct term-shingle hashes serve both the
    sketch and the MinHash signature. ``tests/unit/test_fingerprint_speed_identity.py``
    pins every field to the plain step-by-step definitions.
    """
    sh = sh or _DEFAULT_SIMHASH
    lsh = lsh or _DEFAULT_LSH
    folded = fold(content)
    folded_cp = codepoints(folded)
    cls = char_classes(folded_cp)
    kept = cls.astype(bool)
    text_cp = folded_cp[kept]
    text = from_codepoints(text_cp)
    ntitle = normalize_title(title, cfg.title_noise_words)
    latin = cls == _IS_LATIN
    cjk = cls == _IS_CJK
    words = latin_runs(folded_cp, latin)
    if cfg.tokenizer == "char":
        tf = cjk_term_frequencies(folded_cp[cjk])
        if words:
            tf.update(Counter(words))
    else:
        tf = term_frequencies(folded, cfg.tokenizer)
    ids = _term_ids(folded_cp, cjk, latin, words)
    # Character shingles (the SimHash) and term shingles (the sketch: Jaccard, containment;
    # and the LSH band keys).
    simhash_shingles = bool(text) and sh.features == "shingles"
    if simhash_shingles and sh.shingle_size == lsh.shingle_terms:
        hashes, shingled = _shingle_hashes_of_runs((text_cp, ids), lsh.shingle_terms)
    else:
        (shingled,) = _shingle_hashes_of_runs((ids,), lsh.shingle_terms)
        if simhash_shingles:
            (hashes,) = _shingle_hashes_of_runs((text_cp,), sh.shingle_size)
    if not text:
        simhash = 0
    elif simhash_shingles:
        simhash = _simhash_of_hashes(hashes)
    else:
        simhash = document_simhash(text, tf, sh)
    distinct = _sorted_distinct(shingled)
    own: tuple[str | None, str | None, int] = (None, None, 0)
    if own_lines:
        term_at = np.flatnonzero(_run_starts(latin) | cjk)
        own = _own_text_parts(
            own_lines, folded_cp, kept, term_at, ids, shingled, lsh.shingle_terms, sh.sketch_size
        )
    content_key: str | None = None
    head_key: str | None = None
    tail_key: str | None = None
    if text:
        content_key = md5_hex(text)
        head_key = md5_hex(text[: cfg.head_chars])
        tail_key = md5_hex(text[-cfg.tail_chars :])
    paras = paragraphs(folded_cp, cls, cfg.paragraph_min_chars, cfg.paragraph_max_keys, ntitle)
    return Fingerprints(
        paragraph_keys=paras.keys,
        paragraph_size=paras.size,
        paragraph_edges=paras.edges,
        title_key=md5_hex(ntitle) if len(ntitle) >= cfg.min_title_chars else None,
        content_key=content_key,
        head_key=head_key,
        tail_key=tail_key,
        simhash=simhash,
        simhash_keys=block_keys(simhash, sh.max_distance) if len(text) >= sh.min_chars else [],
        lsh_keys=_band_keys_of_signature(
            _minhash_of_distinct(distinct, lsh.bands * lsh.rows), lsh.bands, lsh.rows
        ),
        sketch=_sketch_of_distinct(distinct, sh.sketch_size),
        tf=tf,
        normalized_length=len(text),
        own_sketch=own[0],
        own_md5=own[1],
        own_length=own[2],
    )
