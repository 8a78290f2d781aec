"""One typed configuration, loaded from one TOML file and validated once.

Every knob of the pipeline lives here. Values that are derived (Bloom filter bit
count and hash count) are computed once, in :mod:`crawldedup.core.bloom`, from the
capacity and error rate given here.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

# Cascade order (docs/algorithm.md#decision-order), B (content) → C (head) → D (tail) → A
# (title), then the SimHash rule (docs/algorithm.md#simhash) for copies whose title, head
# and tail all changed; defined
# with the rules' letters and tables in crawldedup.rules, re-exported here.
from crawldedup.rules import DEFAULT_RULES
from crawldedup.rules import RULES as RULES

DEFAULT_NOISE_WORDS: tuple[str, ...] = (
    "【转】",
    "[转]",
    "(转)",
    "（转）",
    "转摘",
    "转载",
    "原创",
    "置顶",
    "推荐",
    "精华",
    "热门",
    "独家",
    "repost",
    "reposted",
    "original",
)


CONFIG_ENV = "CRAWLDEDUP_CONFIG"
"""The environment variable naming the config file when ``--config`` is not given."""


class ConfigError(ValueError):
    """A configuration value or file is invalid; the CLI exits 2 with its message."""


T = typing.TypeVar("T")


def knob(
    default: T,
    doc: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    items: tuple[str, ...] = (),
    experimental: tuple[str, ...] = (),
) -> T:
    """A config field with its one help text and its checks, as field metadata.

    ``doc`` is the knob's help: the generated reference (:mod:`crawldedup.config_doc`) and
    the DAG Params made from knobs (``crawldedup_airflow.params``) print it. ``ge``/``gt``/
    ``le``/``lt`` bound a number; ``items`` are the allowed items of a list; a ``Literal``
    type gives the choices of a string. ``experimental`` names the choices that are
    alternative code paths kept for studies, which no user needs by default.
    """
    bounds = {k: v for k, v in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)) if v is not None}
    meta = {"doc": doc, "bounds": bounds, "items": items, "experimental": experimental}
    made: T = field(default=default, metadata=meta)
    return made


@dataclass(frozen=True)
class FingerprintConfig:
    """Exact keys (docs/algorithm.md#keys)."""

    head_chars: int = knob(100, "C key: md5 of the first N normalized characters.", gt=0)
    tail_chars: int = knob(100, "D key: md5 of the last N normalized characters.", gt=0)
    tokenizer: Literal["char", "jieba"] = knob(
        "char",
        'Terms of the cosine (docs/algorithm.md#cosine): "char" (one per CJK character, one '
        'per Latin/digit run) or "jieba" words.',
    )
    title_noise_words: tuple[str, ...] = knob(
        DEFAULT_NOISE_WORDS, "Words removed from titles before the title key."
    )
    min_title_chars: int = knob(
        2, "Titles that normalize to fewer characters get no title key (too generic)."
    )
    paragraph_min_chars: int = knob(
        40,
        "Paragraph keys (rule paragraph, docs/algorithm.md#excerpts): a line of the page's "
        "own text (its host's boilerplate removed) of at least this size is a paragraph; its "
        "key is the hash of its text and its size. A size counts normalized characters, a "
        "CJK one as 3 (a Chinese sentence is about as big as its English translation).",
        ge=1,
    )
    paragraph_max_keys: int = knob(
        128,
        "At most this many paragraph keys a page (those of the smallest hashes: the same "
        "paragraph is kept or left out on every page).",
        ge=0,
    )


@dataclass(frozen=True)
class SimhashConfig:
    """The SimHash rule (docs/algorithm.md#simhash)."""

    max_distance: int = knob(
        3,
        "Hamming distance at most this many bits; the index splits the 64 bits into "
        "max_distance + 1 blocks (a near copy matches at least one block).",
        ge=0,
        le=15,
    )
    features: Literal["shingles", "terms", "jieba"] = knob(
        "shingles",
        'What is hashed: "shingles" (character n-grams), "terms" (the cosine\'s terms) or '
        '"jieba" words.',
        experimental=("terms", "jieba"),
    )
    shingle_size: int = knob(3, "Characters per shingle.", ge=1, le=16)
    min_chars: int = knob(
        300,
        "Shorter documents (normalized characters) get no SimHash keys: a notice or a poem "
        "has too few shingles for 64 bits to tell a filled-in template from a copy.",
        ge=0,
    )
    sketch_size: int = knob(
        128,
        "Bottom-k sketch of the term shingles (16·k hex characters a document): the Jaccard "
        "and containment of every verification.",
        ge=8,
        le=4096,
    )


@dataclass(frozen=True)
class BoilerplateConfig:
    """Repeated lines of a host (docs/algorithm.md#boilerplate)."""

    enabled: bool = knob(True, "Remove a host's repeated lines before keys, sketches and bands.")
    min_pages: int = knob(
        4,
        "A line held by this many pages of the host (this day and earlier days) is boilerplate.",
        ge=2,
    )
    drop_frequent: bool = knob(
        True,
        "Lines held by min_pages pages of the host that another host has as ordinary text "
        "(titles of other sites' articles in a related list, standard man-page headings) "
        "stay in the text and its keys, but a page that has text of its own besides them "
        "is measured (Jaccard, containment) on that own text (docs/algorithm.md#boilerplate).",
    )
    own_text_key: bool = knob(
        True,
        "Every page also gets its own text's md5 (its whole text's where it holds none of "
        "its host's frequent lines) as one more key of rule lsh, whose candidates rank "
        "first of the page's, so a copy whose whole text differs by its host's frequent "
        "lines is found (docs/algorithm.md#boilerplate).",
    )
    min_line_chars: int = knob(
        2,
        "Shorter lines (normalized) are neither counted nor removed; short template lines "
        '("首页", "Share") count. A page with nothing else keeps only its exact key '
        '(measure "boilerplate_only").',
        ge=1,
    )


@dataclass(frozen=True)
class LshConfig:
    """MinHash LSH over term shingles (docs/algorithm.md#lsh): a pair of Jaccard s shares a
    band with probability 1 - (1 - s**rows)**bands (24 × 4: 0.18 at s = 0.3, 0.79 at 0.5,
    0.998 at 0.7)."""

    bands: int = knob(24, "Bands: one index key each.", ge=1, le=256)
    rows: int = knob(4, "MinHash values per band.", ge=1, le=32)
    shingle_terms: int = knob(
        3,
        "Terms per shingle (a CJK character or a Latin word is one term), for LSH and the "
        "sketches that verify every candidate.",
        ge=1,
        le=16,
    )


@dataclass(frozen=True)
class CascadeConfig:
    """How candidates are verified and decided (docs/algorithm.md#cascade)."""

    profile: Literal["shingles", "seed"] = knob(
        "shingles",
        'Verification (docs/algorithm.md#verification): "shingles" (Jaccard or containment '
        'of the term shingles, from the bottom-k sketches) or "seed" (the character cosine '
        "strictly above seed.threshold, as the four-key paper has it).",
        experimental=("seed",),
    )
    rules: tuple[str, ...] = knob(
        DEFAULT_RULES,
        "The rules looked up and indexed, in cascade order; a rule left out is neither "
        "looked up nor indexed for that run. All but paragraph (the excerpt keys, "
        "docs/algorithm.md#excerpts) by default.",
        items=RULES,
    )
    min_jaccard: float = knob(
        0.7, 'Profile "shingles": a copy has a shingle Jaccard at least this ...', gt=0, le=1
    )
    min_containment: float = knob(
        0.9,
        "... or the smaller document's shingles lie in the larger one at least this much "
        "(an excerpt, or the article plus a source line, a footer, a site's blocks).",
        gt=0,
        le=1,
    )
    short_shingles: int = knob(
        150,
        "A smaller document with fewer shingles than this ... (the length matters for "
        "English, whose shingles are words)",
        ge=0,
    )
    short_chars: int = knob(
        300,
        "... and, when its length is known, fewer characters than this is a short text "
        "(verse, notices) ...",
        ge=0,
    )
    short_min_jaccard: float = knob(
        0.9,
        "... and needs this Jaccard (a notice template filled in with another date shares "
        "most of its text, a copy all of it) ...",
        gt=0,
        le=1,
    )
    short_min_containment: float = knob(0.95, "... or this containment.", gt=0, le=1)
    excerpt_min_share: float = knob(
        0.8,
        "A candidate found by paragraph keys (an excerpt) is a copy when the paragraphs the "
        "two share make at least this share of the shorter page's size, or of it without its "
        "edge lines (a quoting page's own intro and credit: docs/algorithm.md#excerpts) when "
        "those are no bigger than the shared paragraphs and these no bigger than the rest ...",
        gt=0,
        le=1,
    )
    excerpt_min_chars: int = knob(
        60, "... and have at least this size (fingerprint.paragraph_min_chars) ...", ge=1
    )
    excerpt_max_length_share: float = knob(
        0.5,
        "... and the page judged is the shorter, at most this share of the earlier page's "
        "length: a long page is no copy of an earlier excerpt of it, and two pages of about "
        "one length that share paragraphs are editions or rewrites of one text, which Jaccard "
        "and containment judge.",
        gt=0,
        le=1,
    )
    excerpt_max_docs: int = knob(
        8,
        "A paragraph that more documents than this hold, the day's and the index's of "
        "earlier days together, is frequent text (a standard sentence of a manual, a "
        "license line): it counts for no excerpt and finds no candidate (a copy that shares "
        "more is another rule's candidate).",
        ge=1,
    )
    partial_containment: float = knob(
        0.9,
        'A duplicate is typed "partial" when one document holds this share of the '
        "other's terms and is clearly longer.",
        gt=0,
        le=1,
    )
    cosine_weights: Literal["tf", "tag_tfidf"] = knob(
        "tf",
        'Vectors of the cascade\'s cosine: "tf" (raw term frequencies, '
        'docs/algorithm.md#cosine) or "tag_tfidf" (tf · idf · Twf, docs/relevance.md, from '
        "the relevance stage's vectors).",
        experimental=("tag_tfidf",),
    )
    score_cosine: bool = knob(
        False,
        'true: also compute the cosine under "shingles" (work/scores.similarity), for '
        'threshold studies; "seed" always computes it.',
    )

    @property
    def needs_cosine(self) -> bool:
        return self.profile == "seed" or self.score_cosine


@dataclass(frozen=True)
class SeedConfig:
    """The knobs of cascade.profile = "seed" (docs/algorithm.md#verification), which act
    only under that profile."""

    threshold: float = knob(0.9, "A copy's character cosine must be strictly greater.", gt=0, le=1)
    simhash_min_jaccard: float = knob(
        0.7,
        "A SimHash candidate also needs this shingle Jaccard, estimated from the bottom-k "
        "sketches (the character cosine alone cannot reject unrelated Chinese texts).",
        ge=0,
        le=1,
    )


@dataclass(frozen=True)
class EditionsConfig:
    """Editions: pages of one host whose URLs differ only in versions
    (docs/algorithm.md#editions)."""

    enabled: bool = knob(
        True,
        "Pages of one host whose paths differ only in version-like segments (1.11, v2, "
        "2024-05, latest, ...) are editions: grouped only at the stricter bar below.",
    )
    min_jaccard: float = knob(
        1.0,
        "Editions are copies when their term-shingle Jaccard is at least this (whatever "
        "their containment: a release that adds a section contains the one before). "
        "Releases of one page measured up to 0.992, so the default asks for the same text.",
        ge=0,
        le=1,
    )


@dataclass(frozen=True)
class RelevanceConfig:
    """Topic relevance (docs/relevance.md)."""

    library: str = knob("", 'The semantic library file (YAML); "" = no relevance stage.')
    mode: Literal["semantic", "tag_tfidf", "tfidf"] = knob(
        "semantic",
        'How pages are scored: "semantic" (tag-weighted TF-IDF plus the library\'s atoms), '
        '"tag_tfidf" or "tfidf" (keywords only).',
        experimental=("tag_tfidf", "tfidf"),
    )
    max_links: int = knob(1000, "Frontier links kept per topic and day.", ge=1)


@dataclass(frozen=True)
class BloomConfig:
    """The day's Bloom filters (docs/algorithm.md#bloom)."""

    error_rate: float = knob(0.001, "False-positive rate of each filter.", gt=0, lt=1)
    source: Literal["blocks", "scan"] = knob(
        "blocks",
        'Where the day\'s filters come from: "blocks" (filter blocks kept in the store, each '
        'day\'s keys OR-ed in by publish: the cost does not grow with the index) or "scan" '
        "(rebuilt from a key-only scan of every index table each day).",
        experimental=("scan",),
    )
    capacity_docs: int = knob(
        100_000,
        '"blocks": filters sized for this many documents\' keys, split over the key ranges; '
        "size it to your index (past it only the false-positive rate rises, the report "
        "shows the fill; after a change the next run rebuilds the blocks once).",
        ge=1,
    )
    min_capacity: int = knob(
        100_000, '"scan": filters sized max(min_capacity, 1.25 × keys found).', ge=1
    )
    scan_splits: int = knob(
        4, "Key ranges per rule: one filter (and scan task) each.", ge=1, le=256
    )
    max_broadcast_bytes: int = knob(
        64 * 1024 * 1024,
        "Above this a rule's filters are not broadcast: the day's keys are partitioned by "
        "key range and each partition loads only its range's filter.",
        ge=0,
    )
    line_filter: Literal["auto", "on", "off"] = knob(
        "auto",
        "A filter of the store's line counts (rows host|line of host_lines, blocks sized "
        "for capacity_docs pages), asked before the boilerplate tally gets a line's "
        'earlier counts: "on", "off", or "auto" (on for HBase, where a get of an absent '
        "row costs more than the filter; off for the embedded store, where it costs less).",
    )


@dataclass(frozen=True)
class LimitsConfig:
    """Bounds on work and input."""

    max_postings_per_key: int = knob(
        32,
        "Postings kept per index key, and candidates taken per key: the earliest ones, by "
        "(fetched_at, id); a key shared by thousands of documents is boilerplate "
        "(docs/algorithm.md#hot-keys).",
        ge=1,
    )
    max_record_bytes: int = knob(
        64 * 1024 * 1024,
        "A garbage guard on the raw record (JSON line, Parquet row, WARC body): over it, "
        "too_large (docs/input.md). Ordinary pages of 1-10 MB of HTML pass.",
        ge=1,
    )
    max_text_chars: int = knob(
        2_000_000,
        "The plain or extracted text; over it, too_large (two long novels; a news page is "
        "a few thousand).",
        ge=1,
    )
    store_batch_size: int = knob(
        500, "Rows per multi-get / put batch (executors and HBase alike).", ge=1
    )
    max_driver_edges: int = knob(
        1_000_000,
        "A day's duplicate edges up to this are grouped by union-find on the driver; above "
        "it by connected components in Spark (nothing collected).",
        ge=0,
    )
    min_rerun_share: float = knob(
        0.5,
        "A rerun of a published day with fewer documents than this share of those it was "
        "published with is refused unless --replace (an empty or partial folder must not "
        "delete a day's history); 0 turns the check off.",
        ge=0,
        le=1,
    )


@dataclass(frozen=True)
class OutputConfig:
    """Files for downstream systems."""

    delete_list: Literal["", "jsonl", "parquet"] = knob(
        "",
        '"" (off), "jsonl" or "parquet": the day\'s duplicates (id, url, duplicate_of, '
        "group, rule, type) under HOME/deletions/dt=D/.",
    )


@dataclass(frozen=True)
class GateConfig:
    """When a finished day fails the data-quality gate: ``crawldedup run`` exits 3 over the
    quarantine limit, the DAG's report task fails on any of the three."""

    max_quarantined_share: float = knob(
        0.10, "Quarantined records / records read above this fails the day.", ge=0, le=1
    )
    duplicate_rate_tolerance: float = knob(
        0.25,
        "|duplicate rate - trailing average| above this (absolute, 0..1) fails the day.",
        ge=0,
        le=1,
    )
    trailing_days: int = knob(
        7, "How many earlier days' reports make the trailing average.", ge=1, le=366
    )


@dataclass(frozen=True)
class ExtractConfig:
    """How the main text and title of an ``html`` record are extracted (docs/input.md#html)."""

    engine: Literal["resiliparse", "trafilatura"] = knob(
        "resiliparse",
        '"resiliparse" (C++, made for web archives) or "trafilatura" (the optional extra '
        "crawldedup[trafilatura]; several times slower a page).",
    )


@dataclass(frozen=True)
class IndexConfig:
    """How long the index remembers a day (docs/operations.md#retention)."""

    keep_days: int = knob(
        0,
        "Earlier days a day is compared with (its postings, line counts and sketches); "
        "committing a day forgets the index rows of older days (published verdicts stay). "
        "0 = keep every day.",
        ge=0,
    )


@dataclass(frozen=True)
class SparkConfig:
    """The Spark session; other JVM options belong to Spark's own spark-defaults.conf
    (SPARK_CONF_DIR) or --conf, as for any Spark application."""

    master: str = knob("local[*]", "Ignored under spark-submit, which sets its own.")
    shuffle_partitions: int = knob(8, "spark.sql.shuffle.partitions.", ge=1)
    driver_memory: str = knob("2g", "The driver's memory (spark-submit --driver-memory).")
    class_archive: bool = knob(
        True,
        "A local driver under the Spark configuration crawldedup ships starts from a "
        "class-data-sharing archive of its classes, written by the first driver that "
        "finishes (~/.cache/crawldedup/jvm; docs/operations.md#the-drivers-class-archive).",
    )


@dataclass(frozen=True)
class Config:
    store_url: str = knob(
        "",
        '"" = sqlite:///HOME/store.db; or "sqlite:///PATH", "hbase://host:9090/prefix?options" '
        "(docs/operations.md#hbase).",
    )
    fingerprint: FingerprintConfig = field(default_factory=FingerprintConfig)
    cascade: CascadeConfig = field(default_factory=CascadeConfig)
    seed: SeedConfig = field(default_factory=SeedConfig)
    editions: EditionsConfig = field(default_factory=EditionsConfig)
    simhash: SimhashConfig = field(default_factory=SimhashConfig)
    bloom: BloomConfig = field(default_factory=BloomConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    relevance: RelevanceConfig = field(default_factory=RelevanceConfig)
    lsh: LshConfig = field(default_factory=LshConfig)
    boilerplate: BoilerplateConfig = field(default_factory=BoilerplateConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    extract: ExtractConfig = field(default_factory=ExtractConfig)
    index: IndexConfig = field(default_factory=IndexConfig)

    def validate(self) -> Config:
        _check(
            isinstance(self.store_url, str)
            and (not self.store_url or self.store_url.startswith(("sqlite:///", "hbase://"))),
            f"store_url must be sqlite:///PATH or hbase://HOST:PORT[/PREFIX]: {self.store_url!r}",
        )
        for section, cls in SECTIONS.items():
            values = getattr(self, section)
            for f in dataclasses.fields(cls):
                _check_field(f"{section}.{f.name}", f, getattr(values, f.name))
            for name, choices in _choices(cls).items():
                value = getattr(values, name)
                _check(
                    value in choices,
                    f"{section}.{name} must be one of {list(choices)}: {value!r}",
                )
        return self

    def replace(self, **changes: Any) -> Config:
        """A copy with top-level fields or dotted section fields replaced.

        ``cfg.replace(**{"seed.threshold": 0.8})`` is how reruns override one knob.
        """
        cfg = self
        for key, value in changes.items():
            _refuse_moved(key)
            section, _, name = key.partition(".")
            if name:
                sub = getattr(cfg, section)
                cfg = dataclasses.replace(
                    cfg, **{section: dataclasses.replace(sub, **{name: value})}
                )
            else:
                cfg = dataclasses.replace(cfg, **{section: value})
        return cfg.validate()


def _choices(cls: type[Any]) -> dict[str, tuple[Any, ...]]:
    """The section's fields typed ``Literal[...]``, with their allowed values."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: typing.get_args(hints[f.name])
        for f in dataclasses.fields(cls)
        if typing.get_origin(hints[f.name]) is Literal
    }


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


_OPS: dict[str, tuple[str, Any]] = {
    "ge": (">=", lambda v, b: v >= b),
    "gt": (">", lambda v, b: v > b),
    "le": ("<=", lambda v, b: v <= b),
    "lt": ("<", lambda v, b: v < b),
}


def bounds_text(f: dataclasses.Field[Any]) -> str:
    """A knob's bounds as its error message and the reference say them: ``in 1..16``
    (integers), ``in (0, 1]``, ``>= 1``; "" when unbounded."""
    bounds: dict[str, float] = f.metadata.get("bounds", {})
    low = [(k, v) for k, v in bounds.items() if k in ("ge", "gt")]
    high = [(k, v) for k, v in bounds.items() if k in ("le", "lt")]
    if low and high:
        (lk, lv), (hk, hv) = low[0], high[0]
        if f.type in ("int", int) and (lk, hk) == ("ge", "le"):
            return f"in {lv}..{hv}"
        return f"in {'[' if lk == 'ge' else '('}{lv}, {hv}{']' if hk == 'le' else ')'}"
    if low or high:
        key, value = (low or high)[0]
        return f"{_OPS[key][0]} {value}"
    return ""


def _check_field(name: str, f: dataclasses.Field[Any], value: Any) -> None:
    """The checks a knob declares (:func:`knob`): its bounds, its list's allowed items."""
    bounds: dict[str, float] = f.metadata.get("bounds", {})
    ok = all(_OPS[k][1](value, b) for k, b in bounds.items())
    _check(ok, f"{name} must be {bounds_text(f)}")
    items: tuple[str, ...] = f.metadata.get("items", ())
    if items:
        unknown = [v for v in value if v not in items]
        noun = f.name.removesuffix("s")
        _check(not unknown, f"{name}: unknown {noun}(s) {unknown}; known: {list(items)}")


# Section name -> its dataclass, read from Config's own fields (a new section is one field).
SECTIONS: dict[str, type[Any]] = {
    name: hint
    for name, hint in typing.get_type_hints(Config).items()
    if isinstance(hint, type) and dataclasses.is_dataclass(hint)
}


_SEED_ONLY = 'it acts only under cascade.profile = "seed"'
MOVED: dict[str, tuple[str, str]] = {
    "cascade.threshold": ("seed.threshold", _SEED_ONLY),
    "simhash.min_jaccard": ("seed.simhash_min_jaccard", _SEED_ONLY),
}
"""Knobs that moved to the section where they act: old key -> (new key, why). A file or
``--set`` with an old key is refused with one line naming the new one."""


def _refuse_moved(key: str, prefix: str = "") -> None:
    if key in MOVED:
        new, why = MOVED[key]
        raise ConfigError(f"{prefix}{key} moved to {new} ({why})")


def _build_section(name: str, cls: type[Any], raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"[{name}] must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        _refuse_moved(f"{name}.{key}")
        if key not in fields:
            raise ConfigError(f"[{name}] unknown key {key!r}; known: {sorted(fields)}")
        default = getattr(cls(), key)
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{name}.{key} must be a list of strings")
            value = tuple(value)
        elif isinstance(default, bool) or isinstance(value, bool):
            if not (isinstance(default, bool) and isinstance(value, bool)):
                raise ConfigError(
                    f"{name}.{key} must be {type(default).__name__}, got {type(value).__name__}"
                )
        elif not isinstance(value, type(default)):
            # ints are accepted where floats are expected; nothing else is coerced.
            if not (isinstance(default, float) and isinstance(value, int)):
                raise ConfigError(
                    f"{name}.{key} must be {type(default).__name__}, got {type(value).__name__}"
                )
            value = float(value)
        values[key] = value
    return cls(**values)


def config_from_dict(raw: dict[str, Any]) -> Config:
    """Build and validate a :class:`Config` from parsed TOML."""
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "store_url":
            if not isinstance(value, str):
                raise ConfigError("store_url must be a string")
            kwargs[key] = value
        elif key in SECTIONS:
            kwargs[key] = _build_section(key, SECTIONS[key], value)
        else:
            raise ConfigError(f"unknown config key {key!r}; known: store_url, {sorted(SECTIONS)}")
    return Config(**kwargs).validate()


def parse_override(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (the CLI's ``--set``) → (key, value); VALUE is TOML, bare words are
    strings, arrays become tuples."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set wants KEY=VALUE, got {text!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    if isinstance(value, list):
        value = tuple(value)
    return key.strip(), value


def build_config(
    path: str | Path | None,
    store_url: str | None = None,
    overrides: Sequence[tuple[str, Any]] = (),
) -> Config:
    """The one way a run's configuration is made: the TOML file (``--config``, else
    ``$CRAWLDEDUP_CONFIG``, else the defaults), then the store URL, then each ``--set``.

    The CLI, every Airflow task (the report task too) and the submit helper call this.
    """
    if path is None:
        path = os.environ.get(CONFIG_ENV) or None
    cfg = load_config(path)
    if store_url:
        cfg = cfg.replace(store_url=store_url)
    for key, value in overrides:
        cfg = cfg.replace(**dict([_checked_override(key, value)]))
    return cfg


def _checked_override(key: str, value: Any) -> tuple[str, Any]:
    """A ``--set`` item through the file loader's checks: a known section and key, the
    key's type (ints where floats go, lists of strings); the value as the file would give."""
    _refuse_moved(key, "--set ")
    section, _, name = key.partition(".")
    if not name:
        if section == "store_url" and isinstance(value, str):
            return key, value
        raise ConfigError(
            f"--set {key}: not a key; known: store_url or SECTION.KEY with SECTION in "
            f"{sorted(SECTIONS)}"
        )
    cls = SECTIONS.get(section)
    if cls is None:
        raise ConfigError(f"--set {key}: unknown section [{section}]; known: {sorted(SECTIONS)}")
    raw = list(value) if isinstance(value, tuple) else value
    try:
        built = _build_section(section, cls, {name: raw})
    except ConfigError as exc:
        raise ConfigError(f"--set {key}: {exc}") from None
    return key, getattr(built, name)


def load_config(path: str | Path | None) -> Config:
    """Load the TOML config file, or the defaults when ``path`` is None."""
    if path is None:
        return Config().validate()
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {p}: {exc}") from None
    try:
        return config_from_dict(raw)
    except ConfigError as exc:
        raise ConfigError(f"config file {p}: {exc}") from None
