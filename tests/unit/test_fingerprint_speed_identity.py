"""The fast fingerprinting gives exactly what the plain per-document definitions gave.

``Ref`` below is a faithful copy of the step-by-step code that ``crawldedup.core``
replaced with faster code (fold, the cosine's terms and their ids, the shingle hashes,
the SimHash count, the bottom-k sketch, MinHash and its band keys, the block keys), kept
small and readable. Every field of :class:`Fingerprints` and of ``fingerprint_fields``'
dict must be equal, in the same order where order shows (the tf dict's keys, the JSON).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import random
import re
import unicodedata
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawldedup.config import Config, FingerprintConfig, LshConfig, SimhashConfig
from crawldedup.core.fingerprint import Fingerprints, fingerprint
from crawldedup.core.normalize import fold
from crawldedup.ingest.records import fingerprint_fields
from crawldedup.rules import RULES
from crawldedup_demo import corpus

# ---------------------------------------------------------------- the reference


class Ref:
    """The definitions as they were before the speed-up (commit a1b90b6)."""

    DROP = re.compile("[^a-z0-9\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
    LATIN_RUN = re.compile(r"[a-z0-9]+")
    M1, M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)

    @staticmethod
    def codepoints(text: str) -> np.ndarray:
        return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")

    @staticmethod
    def from_codepoints(cp: np.ndarray) -> str:
        return cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")

    @staticmethod
    def is_cjk(cp: np.ndarray) -> np.ndarray:
        return (
            ((cp >= 0x3400) & (cp <= 0x4DBF))
            | ((cp >= 0x4E00) & (cp <= 0x9FFF))
            | ((cp >= 0xF900) & (cp <= 0xFAFF))
        )

    @staticmethod
    def is_latin(cp: np.ndarray) -> np.ndarray:
        return ((cp >= 0x61) & (cp <= 0x7A)) | ((cp >= 0x30) & (cp <= 0x39))

    @classmethod
    def premap_fullwidth(cls, text: str) -> str:
        if text.isascii():
            return text
        cp = cls.codepoints(text)
        wide = (cp >= 0xFF01) & (cp <= 0xFF5E)
        space = cp == 0x3000
        if not (wide.any() or space.any()):
            return text
        cp = cp.copy()
        cp[wide] -= 0xFEE0
        cp[space] = 0x20
        return cls.from_codepoints(cp)

    @classmethod
    def fold(cls, text: str) -> str:
        return unicodedata.normalize("NFKC", cls.premap_fullwidth(text)).lower() if text else ""

    @classmethod
    def normalize_title(cls, title: str, noise_words: tuple[str, ...]) -> str:
        if not title:
            return ""
        folded_words = sorted((cls.fold(w) for w in noise_words if w), key=len, reverse=True)
        normalized_words = [n for n in (cls.DROP.sub("", w) for w in folded_words) if n]
        folded = cls.fold(title)
        for w in folded_words:
            folded = folded.replace(w, " ")
        out = cls.DROP.sub("", folded)
        for nw in normalized_words:
            out = out.replace(nw, "")
        return out

    @classmethod
    def char_term_frequencies(cls, folded: str, cp: np.ndarray) -> dict[str, int]:
        cjk = cp[cls.is_cjk(cp)]
        out: dict[str, int] = {}
        if cjk.size:
            values, counts = np.unique(cjk, return_counts=True)
            out = dict(
                zip(
                    values.astype("<u4").tobytes().decode("utf-32-le"), counts.tolist(), strict=True
                )
            )
        if cjk.size < cp.size and cls.is_latin(cp).any():
            for run, n in Counter(cls.LATIN_RUN.findall(folded)).items():
                out[run] = n
        return out

    @staticmethod
    def hash64(feature: str) -> int:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    @classmethod
    def mix64(cls, x: np.ndarray) -> np.ndarray:
        x = x.astype(np.uint64, copy=True)
        x ^= x >> np.uint64(30)
        x *= cls.M1
        x ^= x >> np.uint64(27)
        x *= cls.M2
        x ^= x >> np.uint64(31)
        return x

    @staticmethod
    def simhash_of_hashes(hashes: np.ndarray, weights: np.ndarray | None = None) -> int:
        if hashes.size == 0:
            return 0
        bits = np.unpackbits(
            np.ascontiguousarray(hashes, dtype="<u8").view(np.uint8), bitorder="little"
        ).reshape(-1, 64)
        if weights is None:
            ones = np.ones(len(bits), dtype=np.float32)
            votes = 2 * (ones @ bits.astype(np.float32)).astype(np.int64) - len(hashes)
        else:
            votes = (2 * bits.astype(np.int64) - 1).T @ weights.astype(np.int64)
        return int(np.packbits(votes > 0, bitorder="little").view("<u8")[0])

    @classmethod
    def simhash64(cls, features: dict[str, int]) -> int:
        pairs = list(features.items())
        hashes = np.array([cls.hash64(f) for f, _ in pairs], dtype=np.uint64)
        return cls.simhash_of_hashes(hashes, np.array([w for _, w in pairs], dtype=np.int64))

    @classmethod
    def shingle_hashes(cls, cp32: np.ndarray, size: int) -> np.ndarray:
        if not cp32.size:
            return np.zeros(0, dtype=np.uint64)
        cp = cp32.astype(np.uint64)
        if len(cp) < size:
            cp = np.concatenate([cp, np.zeros(size - len(cp), dtype=np.uint64)])
        h = np.zeros(len(cp) - size + 1, dtype=np.uint64)
        for i in range(size):
            h = cls.mix64(h ^ cp[i : len(cp) - size + 1 + i])
        return h

    @classmethod
    def term_ids(cls, folded: str, folded_cp: np.ndarray) -> np.ndarray:
        cp = folded_cp.astype(np.int64)
        if not cp.size:
            return np.zeros(0, dtype=np.uint64)
        latin = cls.is_latin(cp)
        starts = np.flatnonzero(latin & ~np.concatenate(([False], latin[:-1])))
        ends = np.flatnonzero(latin & ~np.concatenate((latin[1:], [False]))) + 1
        ids = cp.astype(np.uint64)
        if starts.size:
            ids[starts] = np.array(
                [
                    cls.hash64(folded[a:b])
                    for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
                ],
                dtype=np.uint64,
            )
        keep = cls.is_cjk(cp)
        keep[starts] = True
        return ids[keep]

    @staticmethod
    def sketch(hashes: np.ndarray, k: int) -> str:
        if not hashes.size:
            return ""
        h = np.sort(hashes)
        distinct = h[np.concatenate(([True], h[1:] != h[:-1]))][:k]
        return distinct.astype(">u8").tobytes().hex()

    @classmethod
    def minhash(cls, hashes: np.ndarray, n: int) -> np.ndarray:
        distinct = np.unique(hashes)
        if not distinct.size:
            return np.zeros(0, dtype=np.uint64)
        seeds = cls.mix64(np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        sig = np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
        for start in range(0, distinct.size, 8192):
            chunk = distinct[start : start + 8192]
            np.minimum(sig, cls.mix64(chunk[:, None] ^ seeds[None, :]).min(axis=0), out=sig)
        return sig

    @classmethod
    def lsh_band_keys(cls, hashes: np.ndarray, bands: int, rows: int) -> list[str]:
        sig = cls.minhash(hashes, bands * rows)
        if not sig.size:
            return []
        h = np.zeros(bands, dtype=np.uint64)
        for col in sig.reshape(bands, rows).T:
            h = cls.mix64(h ^ col)
        return [f"{v:016x}.{i}" for i, v in enumerate(h.tolist())]

    @staticmethod
    def block_keys(h: int, max_distance: int) -> list[str]:
        n = max_distance + 1
        bounds = [round(i * 64 / n) for i in range(n + 1)]
        keys = []
        for i in range(n):
            width = bounds[i + 1] - bounds[i]
            block = (h >> bounds[i]) & ((1 << width) - 1)
            keys.append(f"{block:0{(width + 3) // 4}x}.{i}")
        return keys

    @staticmethod
    def md5_hex(text: str) -> str:
        return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()

    @classmethod
    def size(cls, norm: str) -> int:
        return len(norm) + 2 * int(cls.is_cjk(cls.codepoints(norm)).sum()) if norm else 0

    @classmethod
    def title_named(cls, line: str, title: str) -> int:
        """The size of the longest run the line and the title share (the first such run
        of the line), when it is at least 4 and 3/4 of the title, and the line is longer."""
        best, at = 0, 0
        if len(line) > len(title) + 100:  # TITLE_MAX_OTHER_CHARS
            return 0
        for i in range(len(line)):
            for j in range(len(title)):
                n = 0
                while i + n < len(line) and j + n < len(title) and line[i + n] == title[j + n]:
                    n += 1
                if n > best:
                    best, at = n, i
        if 4 * best < 3 * len(title) or best < 4 or best >= len(line):
            return 0
        return cls.size(line[at : at + best])

    @classmethod
    def paragraphs(
        cls, folded: str, cfg: FingerprintConfig, title: str = ""
    ) -> tuple[list[str], int, int]:
        """(keys, size, edges): each line's normalized text, if big enough (a CJK
        character counts 3), gives the md5 of its UTF-32 code units and its size; the
        text's size; the sizes of its first and last non-empty lines (of 3 or more), of
        the smaller (of 2), or 0 (of 1). What of the title an edge line names counts
        neither in it nor in the text."""
        if cfg.paragraph_max_keys <= 0:
            return [], 0, 0
        keys, norms = set(), []
        for line in folded.split("\n"):
            norm = cls.DROP.sub("", line)
            size = cls.size(norm)
            if size:
                norms.append(norm)
            if size and size >= cfg.paragraph_min_chars:
                digest = hashlib.md5(norm.encode("utf-32-le", "surrogatepass")).hexdigest()
                keys.add(f"{digest[:16]}.{size}")
        sizes = [cls.size(n) for n in norms]
        named = [0] * len(norms)
        if len(norms) >= 2:
            for k in (0, len(norms) - 1):
                named[k] = cls.title_named(norms[k], title)
        edge = [s - d for s, d in zip(sizes, named, strict=True)]
        edges = 0 if len(edge) < 2 else min(edge) if len(edge) == 2 else edge[0] + edge[-1]
        return sorted(keys)[: cfg.paragraph_max_keys], sum(sizes) - sum(named), edges

    @classmethod
    def fingerprint(
        cls, title: str, content: str, cfg: FingerprintConfig, sh: SimhashConfig, lsh: LshConfig
    ) -> Fingerprints:
        folded = cls.fold(content)
        folded_cp = cls.codepoints(folded)
        keep = cls.is_cjk(folded_cp) | cls.is_latin(folded_cp)
        text_cp = folded_cp[keep]
        text = cls.from_codepoints(text_cp)
        assert text == cls.DROP.sub("", folded)
        ntitle = cls.normalize_title(title, cfg.title_noise_words)
        if cfg.tokenizer == "char":
            tf = cls.char_term_frequencies(folded, folded_cp)
        else:
            from crawldedup.core.tokenize import term_frequencies

            tf = term_frequencies(folded, cfg.tokenizer)  # jieba: not rewritten
        shingled = cls.shingle_hashes(cls.term_ids(folded, folded_cp), lsh.shingle_terms)
        if not text:
            simhash = 0
        elif sh.features == "shingles":
            simhash = cls.simhash_of_hashes(cls.shingle_hashes(text_cp, sh.shingle_size))
        elif sh.features == "terms":
            simhash = cls.simhash64(tf)
        else:
            raise AssertionError("jieba SimHash features are not rewritten")
        return Fingerprints(
            title_key=cls.md5_hex(ntitle) if len(ntitle) >= cfg.min_title_chars else None,
            content_key=cls.md5_hex(text) if text else None,
            head_key=cls.md5_hex(text[: cfg.head_chars]) if text else None,
            tail_key=cls.md5_hex(text[-cfg.tail_chars :]) if text else None,
            simhash=simhash,
            simhash_keys=cls.block_keys(simhash, sh.max_distance)
            if len(text) >= sh.min_chars
            else [],
            lsh_keys=cls.lsh_band_keys(shingled, lsh.bands, lsh.rows),
            sketch=cls.sketch(shingled, sh.sketch_size),
            tf=tf,
            normalized_length=len(text),
            **dict(
                zip(
                    ("paragraph_keys", "paragraph_size", "paragraph_edges"),
                    cls.paragraphs(folded, cfg, ntitle),
                    strict=True,
                )
            ),
        )

    @classmethod
    def fingerprint_fields(cls, title: str, content: str, cfg: Config) -> dict[str, Any]:
        fp = cls.fingerprint(title, content, cfg.fingerprint, cfg.simhash, cfg.lsh)
        if "paragraph" not in cfg.cascade.rules:  # nothing reads them
            fp = dataclasses.replace(fp, paragraph_keys=[], paragraph_size=0, paragraph_edges=0)
        lsh_keys = fp.lsh_keys
        # Added later (boilerplate.own_text_key): the page's whole text is its own text
        # here; its key is the md5 of the normalized text, 16 hex digits, then ".own",
        # without a first line that repeats (a part of) the title when as much text stays
        # (10 characters at least).
        if cfg.boilerplate.own_text_key and fp.normalized_length >= 10:

            def norm(s: str) -> str:
                return cls.DROP.sub("", unicodedata.normalize("NFKC", s).lower())

            normalized, heading = norm(content), norm(content.split("\n")[0])
            rest = len(normalized) - len(heading)
            if heading and heading in norm(title) and rest >= max(10, len(heading)):
                normalized = normalized[len(heading) :]
            lsh_keys = [*lsh_keys, hashlib.md5(normalized.encode()).hexdigest()[:16] + ".own"]
        return {
            "title_key": fp.title_key,
            "content_key": fp.content_key,
            "head_key": fp.head_key,
            "tail_key": fp.tail_key,
            "simhash": f"{fp.simhash:016x}",
            "simhash_keys": fp.simhash_keys,
            "lsh_keys": lsh_keys,
            "paragraph_keys": fp.paragraph_keys,
            "paragraph_size": fp.paragraph_size,
            "paragraph_edges": fp.paragraph_edges,
            "sketch": fp.sketch,
            "tf": json.dumps(fp.tf, ensure_ascii=False, separators=(",", ":")),
            "length": fp.normalized_length,
            # A page's own text is fingerprinted with it when it has one
            # (tests/unit/test_own_text_fingerprint.py); these pages have none.
            "own_sketch": None,
        }


# ---------------------------------------------------------------- the comparison

CONFIG = Config()
# Other settings: sizes that differ between the two shingle kinds, tiny and huge blocks,
# a short sketch, the cosine terms as SimHash features, another band layout.
OTHER = (
    (
        FingerprintConfig(
            head_chars=7,
            tail_chars=1,
            min_title_chars=0,
            paragraph_min_chars=3,
            paragraph_max_keys=2,
        ),
        SimhashConfig(shingle_size=2, max_distance=0, min_chars=0, sketch_size=5),
        LshConfig(bands=3, rows=5, shingle_terms=4),
    ),
    (
        FingerprintConfig(),
        SimhashConfig(shingle_size=1, max_distance=9, min_chars=10, sketch_size=1),
        LshConfig(bands=1, rows=1, shingle_terms=1),
    ),
    (
        FingerprintConfig(head_chars=0, tail_chars=500, paragraph_min_chars=1),
        SimhashConfig(features="terms", sketch_size=300),
        LshConfig(bands=50, rows=2, shingle_terms=2),
    ),
)


def _same_fields(a: Fingerprints, b: Fingerprints) -> None:
    da, db = asdict(a), asdict(b)
    assert da == db
    assert list(a.tf) == list(b.tf)  # the tf dict's order reaches the JSON column


def check(title: str, content: str) -> None:
    cfg = CONFIG
    _same_fields(
        fingerprint(title, content, cfg.fingerprint, cfg.simhash, cfg.lsh),
        Ref.fingerprint(title, content, cfg.fingerprint, cfg.simhash, cfg.lsh),
    )
    # Defaults for the SimHash and LSH settings (as benchmarks/fingerprint_speed.py calls).
    _same_fields(
        fingerprint(title, content, cfg.fingerprint),
        Ref.fingerprint(title, content, cfg.fingerprint, SimhashConfig(), LshConfig()),
    )
    assert fingerprint_fields(title, content, cfg) == Ref.fingerprint_fields(title, content, cfg)
    assert json.dumps(fingerprint_fields(title, content, cfg), ensure_ascii=False) == json.dumps(
        Ref.fingerprint_fields(title, content, cfg), ensure_ascii=False
    )
    on = cfg.replace(**{"cascade.rules": RULES})  # rule paragraph on: its keys are columns
    assert fingerprint_fields(title, content, on) == Ref.fingerprint_fields(title, content, on)
    for fc, sh, lsh in OTHER:
        _same_fields(
            fingerprint(title, content, fc, sh, lsh), Ref.fingerprint(title, content, fc, sh, lsh)
        )
    assert fold(content) == Ref.fold(content) == unicodedata.normalize("NFKC", content).lower()


def test_generated_articles_in_both_languages() -> None:
    rng = random.Random(7)
    for i in range(120):
        lang = "zh" if i % 3 else "en"
        a = corpus.compose_article(
            rng,
            lang,
            dt.date(2026, 11, 1),
            target=700 if lang == "zh" else 2000,
            max_chars=2600,
        )
        check(a.title, a.text)
        check("", a.text)
    # A long page: several MinHash chunks are not needed at this size, but the counts
    # pass 255 in every byte lane of the SimHash count.
    check(
        "长文",
        "".join(corpus.compose_article(rng, "zh", dt.date(2026, 11, 2)).text for _ in range(40)),
    )


# Characters where the definitions have edges: the CJK ranges' first and last code points
# and their neighbours, full-width forms (premapped) and their neighbours, the ideographic
# space, forms NFKC changes (ligatures, fractions, compatibility ideographs, half-width
# katakana, combining marks; the characters replaced by their decomposition before NFKC,
# and marks after them that compose with it), case pairs that lower() lengthens, code
# points above the BMP (emoji, CJK extension B), U+FFFF, lone surrogates, controls and
# whitespace.
_EDGE = [
    *(
        "\u33ff\u3400\u4dbf\u4dc0\u4dff\u4e00\u9fff\ua000\uf8ff\uf900\ufa6e\ufaff\ufb00"
        "\uff00\uff01\uff10\uff21\uff41\uff5e\uff5f\uff60\uff61\uff9e\u3000\u3001\u3002"
        "\ufb01\u00bd\u2460\u2167\u00c5\u0041\u030a\u0065\u0301\u0130\u00df\u03a3\u1e9e"
        "\u01c4\u2126\uffff\ufffd\u200b\u00a0\u2028\x00\x1f\x7f\t\n\r "
        "az AZ 09 ,.-_'\"\\:!?()【转】原创转载"
        "\u2103\u2109\u2026\u00b2\u00b3\u00b0\u0327\u0307\u0338"  # ℃ … ² ³, marks
    ),
    "\U0001f600",
    "\U0001f1e8\U0001f1f3",
    "\U00020000",
    "\U0002a6df",
    "\U000e0001",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\ud83d\ude00",
]

# Any code point, lone surrogates included (hypothesis leaves category Cs out by default).
_ANY = st.one_of(st.characters(exclude_categories=()), st.characters(categories=["Cs"]))
_PIECES = st.one_of(
    st.sampled_from(_EDGE),
    st.text(alphabet=_ANY, max_size=8),
    st.sampled_from(["the", "city", "council", "2026", "hello", "world", "abc123", "x"]),
    st.sampled_from(["网页", "爬虫", "判重", "今天天气很好", "，", "。", "！", "１２３", "ＡＢＣ"]),
    st.sampled_from([" ", "  ", "\n", "\u3000", "\t"]),
)
_TEXT = st.lists(_PIECES, max_size=60).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXT, _TEXT)
def test_arbitrary_unicode_text(title: str, content: str) -> None:
    check(title, content)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=_ANY, max_size=300))
def test_any_code_points(content: str) -> None:
    check(content[:20], content)


@pytest.mark.parametrize(
    "content",
    [
        "",
        " ",
        " \t\n\u3000 ",
        "!!!",
        "a",
        "ab",
        "中",
        "中文",
        "a中",
        "1",
        "😀",
        "😀😀😀",
        "\ud800",
        "\ud800\udc00",
        "a\udfffb",
        "ＡＢ",
        "\u3000中\u3000",
        "x" * 63 + "，",
        "x" * 64 + "，",
        "中" * 64 + "\U00020000",
        "ab cd ef gh",
        "a" * 3000,
        "中文 English 混合 text 123 数字 4.5 ！",
        "气温 25℃\u0327，…\u0307 面积 3m² 体积 1m³\u00a0",
        "中" * 70 + "℃\u0327…\u0338\u00a0²\u0301",
    ],
)
def test_short_and_special_texts(content: str) -> None:
    check("", content)
    check(content, content)


_REAL = Path("/tmp/rt/set3")


def _real_contents() -> list[tuple[str, str]]:
    out = []
    for path in sorted(_REAL.glob("dt=*/*")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                if isinstance(rec.get("content"), str):
                    out.append((str(rec.get("title") or ""), rec["content"]))
    return out


@pytest.mark.skipif(not _REAL.is_dir(), reason="no real text at /tmp/rt/set3")
def test_real_text() -> None:
    records = _real_contents()
    assert records
    for title, content in records[::4]:
        check(title, content)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2000),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1, 2, 16, 1 << 64]),
    st.integers(1, 130),
)
def test_helpers_on_hash_arrays(n: int, seed: int, spread: int, k: int) -> None:
    """The rewritten helpers, on their own: sizes around the 128-hash lanes of the SimHash
    count and the MinHash chunks, few distinct values (spread) and many."""
    from crawldedup.core import fingerprint as fpm

    rng = np.random.default_rng(seed)
    hashes = rng.integers(0, spread, size=n, dtype=np.uint64, endpoint=False)
    hashes = Ref.mix64(hashes) if spread < 1 << 64 else hashes
    assert fpm._simhash_of_hashes(hashes) == Ref.simhash_of_hashes(hashes)
    assert fpm.sketch_of_hashes(hashes, k) == Ref.sketch(hashes, k)
    assert fpm.minhash_signature(hashes, k).tolist() == Ref.minhash(hashes, k).tolist()
    assert fpm.lsh_band_keys(hashes, k % 7 + 1, k % 5 + 1) == Ref.lsh_band_keys(
        hashes, k % 7 + 1, k % 5 + 1
    )
    cp = rng.integers(0, 0x11000, size=n % 50, dtype=np.uint32)
    for size in (1, 2, 3, 4):
        got = fpm.codepoint_shingle_hashes(cp, size)
        assert got.dtype == np.uint64 and got.tolist() == Ref.shingle_hashes(cp, size).tolist()
    folded = Ref.from_codepoints(cp)
    assert fpm.term_ids(folded).tolist() == Ref.term_ids(folded, Ref.codepoints(folded)).tolist()
    assert fpm.term_ids(folded, cp).tolist() == Ref.term_ids(folded, cp).tolist()


# Lines that name a run of the title, or nearly: the title cut anywhere, with text around.
_NAMES = st.tuples(
    st.text(alphabet="abcd中文", min_size=0, max_size=12),
    st.integers(0, 12),
    st.integers(0, 12),
    st.text(alphabet="abcd中文", max_size=12),
    st.text(alphabet="abcd中文", max_size=12),
)


@settings(max_examples=500, deadline=None)
@given(_NAMES)
def test_the_title_named_in_an_edge_line_is_the_brute_force_search(
    parts: tuple[str, int, int, str, str],
) -> None:
    """``fingerprint.title_named``'s quick test of the title's middle rejects only lines
    that the full search rejects too (a small alphabet, so runs of the title recur)."""
    from crawldedup.core.fingerprint import title_named

    title, cut_a, cut_b, before, after = parts
    line = before + title[cut_a : len(title) - cut_b] + after
    assert title_named(line, title) == Ref.title_named(line, title)
