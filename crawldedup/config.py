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


@dataclass(frozen=True)
class FingerprintConfig:
    head_chars: int = 100
    tail_chars: int = 100
    tokenizer: Literal["char", "jieba"] = "char"  # docs/algorithm.md#cosine
    title_noise_words: tuple[str, ...] = DEFAULT_NOISE_WORDS
    # Titles that normalize to fewer characters than this are too generic to key on.
    min_title_chars: int = 2


@dataclass(frozen=True)
class SimhashConfig:
    # Hamming distance at most this many bits; the index splits the 64 bits into
    # max_distance + 1 blocks (pigeonhole: a near copy matches at least one block).
    max_distance: int = 3
    # "shingles" (character n-grams), "terms" (cosine terms), "jieba"
    features: Literal["shingles", "terms", "jieba"] = "shingles"
    shingle_size: int = 3
    # Shorter documents (normalized characters) get no SimHash index keys: a notice or a
    # poem has too few shingles for 64 bits to tell a filled-in template (another date,
    # another amount) from a copy. Short texts are left to the exact keys.
    min_chars: int = 300
    # Verification of a SimHash candidate: character-shingle Jaccard, estimated from
    # bottom-k sketches, at least this much (besides the cosine). Seed 000's character
    # cosine alone cannot reject unrelated Chinese texts (they often score above 0.9);
    # shingle Jaccard separates them (header/footer copies ≥ 0.85, unrelated texts far lower).
    min_jaccard: float = 0.7
    sketch_size: int = 128


@dataclass(frozen=True)
class BoilerplateConfig:
    # Lines that at least min_pages pages of one host hold (this day and earlier days,
    # docs/algorithm.md#boilerplate) are removed before keys, sketches and LSH bands.
    enabled: bool = True
    min_pages: int = 4
    # Lines with fewer normalized characters are not counted (nor removed). Short
    # template lines ("首页", "Share") count too: left in, they would make the text of a
    # short page inside a big template (issue 30).
    min_line_chars: int = 2


@dataclass(frozen=True)
class LshConfig:
    # MinHash LSH over term shingles (docs/algorithm.md#lsh): bands × rows MinHash values,
    # one index key per band; a pair of Jaccard s shares a key with probability
    # 1 - (1 - s**rows)**bands (24 × 4: 0.18 at s = 0.3, 0.79 at 0.5, 0.998 at 0.7).
    bands: int = 24
    rows: int = 4
    # Terms per shingle (a CJK character or a Latin word is one term); also the shingles
    # of the sketch that verifies every candidate.
    shingle_terms: int = 3


@dataclass(frozen=True)
class CascadeConfig:
    # How a candidate is verified (docs/algorithm.md#verification): "shingles" (Jaccard
    # or containment of the term shingles, from the bottom-k sketches) or "seed" (the
    # character cosine strictly above ``threshold``, as the four-key paper has it).
    profile: Literal["shingles", "seed"] = "shingles"
    threshold: float = 0.9
    rules: tuple[str, ...] = RULES
    # "shingles": a candidate is a copy when the shingle Jaccard is at least
    # min_jaccard, or when the smaller document's shingles lie in the larger one at
    # least min_containment (an excerpt, or the article plus a source line, a footer,
    # a site's blocks). Short texts (the smaller has fewer than short_shingles and,
    # when its length is known, fewer than short_chars characters: verse, notices) need
    # short_min_jaccard or short_min_containment: a notice template filled in with
    # another date and sender shares most of its text, a copy shares all of it. The
    # length matters for English, whose shingles are words: 150 word shingles are a
    # 900-character article, not a short text.
    min_jaccard: float = 0.7
    min_containment: float = 0.9
    short_shingles: int = 150
    short_chars: int = 300
    short_min_jaccard: float = 0.9
    short_min_containment: float = 0.95
    # A duplicate is typed "partial" when one document holds this share of the other's
    # terms and is clearly longer (see crawldedup.core.duplicate_types).
    partial_containment: float = 0.9
    # Vectors of the cascade's cosine: "tf" (raw term frequencies, docs/algorithm.md#cosine) or
    # "tag_tfidf" (tf · idf · Twf, docs/relevance.md, from the relevance stage's vectors).
    cosine_weights: Literal["tf", "tag_tfidf"] = "tf"
    # The shingles profile decides without the cosine, so by default it is not computed
    # (work/scores.similarity is null, and term vectors stay out of the pairs). true
    # computes it anyway, for threshold studies (benchmarks/quality.py's cosine curve).
    # The seed profile always computes it.
    score_cosine: bool = False

    @property
    def needs_cosine(self) -> bool:
        return self.profile == "seed" or self.score_cosine


@dataclass(frozen=True)
class RelevanceConfig:
    # Topic relevance (docs/relevance.md): the semantic library file (YAML); "" turns it off.
    library: str = ""
    # How pages are scored: "semantic" (tag-weighted TF-IDF plus the library's atoms),
    # "tag_tfidf" or "tfidf" (keywords only).
    mode: Literal["semantic", "tag_tfidf", "tfidf"] = "semantic"
    # Links kept per topic and day in the crawl frontier.
    max_links: int = 1000


@dataclass(frozen=True)
class BloomConfig:
    error_rate: float = 0.001
    # Where the day's filters come from: "blocks" (the filter blocks the store keeps,
    # each day's keys OR-ed in when it is published: the cost does not grow with the
    # index) or "scan" (every index row scanned, the filters sized for what was found).
    source: Literal["blocks", "scan"] = "blocks"
    # "blocks": a rule's filters are sized for the keys of this many documents (one key
    # each; lsh.bands and simhash.max_distance + 1 for the multi-key rules), split evenly
    # over its key ranges; the size stays fixed so that days can be OR-ed together. An
    # index past it only raises the false-positive rate (the report shows the fill);
    # after raising it the next run rebuilds the blocks from the index tables once.
    capacity_docs: int = 100_000
    # "scan": a rule's filters are sized for max(min_capacity, 1.25 × keys found in the
    # store), split evenly over its key ranges.
    min_capacity: int = 100_000
    # Key ranges per rule: one filter and one scan task each.
    scan_splits: int = 4
    # A rule whose filters together exceed this is not broadcast: the day's keys are
    # partitioned by key range and each partition loads only its range's filter.
    max_broadcast_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class LimitsConfig:
    # Postings kept per index key, and candidates taken per key: the earliest ones, by
    # (fetched_at, id), of earlier days and of the same day alike. A head, tail or
    # title shared by thousands of documents is boilerplate; keeping its earliest
    # postings keeps the canonical reachable while bounding every lookup, every
    # candidate set and the same-day join.
    max_postings_per_key: int = 32
    # A guard against garbage, not a page size: a record (JSON line, Parquet row, WARC
    # body) over this many bytes is quarantined as too_large before anything reads it.
    # Ordinary news pages of 1-10 MB of HTML pass (docs/benchmarks.md has extraction costs).
    max_record_bytes: int = 64 * 1024 * 1024
    # The usable size: a document whose text (plain content, or the text extracted from
    # its HTML) has more characters than this is quarantined as too_large. 2,000,000
    # characters is two long novels; a news page's text is a few thousand.
    max_text_chars: int = 2_000_000
    store_batch_size: int = 500
    # Duplicate edges of a day up to this count are grouped by union-find on the
    # driver; above it, by connected components in Spark (nothing collected).
    max_driver_edges: int = 1_000_000
    # A rerun of a published day with fewer than this share of the documents it was
    # published with is refused unless --replace is given (a deletion safety ratio: an
    # empty or partial folder must not silently delete a day's history). 0 turns it off.
    min_rerun_share: float = 0.5


@dataclass(frozen=True)
class OutputConfig:
    # Per day, the ids a downstream system should delete (the day's duplicates, with
    # their canonical): "" (off), "jsonl" or "parquet", under HOME/deletions/dt=D/.
    delete_list: Literal["", "jsonl", "parquet"] = ""


@dataclass(frozen=True)
class GateConfig:
    """When a finished day fails the data-quality gate: ``crawldedup run`` exits 3 over the
    quarantine limit, the DAG's report task fails on any of the three."""

    # Quarantined records / records read above this fails the day.
    max_quarantined_share: float = 0.10
    # |duplicate rate - trailing average| above this (absolute, 0..1) fails the day.
    duplicate_rate_tolerance: float = 0.25
    # How many earlier days' reports make the trailing average.
    trailing_days: int = 7


ExtractEngine = Literal["resiliparse", "trafilatura"]


@dataclass(frozen=True)
class ExtractConfig:
    """How the main text and title of an ``html`` record are extracted."""

    # "resiliparse" (C++, made for web archives; the default) or "trafilatura" (the
    # optional extra ``crawldedup[trafilatura]``; several times slower a page:
    # docs/benchmarks.md).
    engine: ExtractEngine = "resiliparse"


@dataclass(frozen=True)
class SparkConfig:
    master: str = "local[*]"
    shuffle_partitions: int = 8
    driver_memory: str = "2g"


@dataclass(frozen=True)
class Config:
    store_url: str = ""  # "" → sqlite under --home
    fingerprint: FingerprintConfig = field(default_factory=FingerprintConfig)
    cascade: CascadeConfig = field(default_factory=CascadeConfig)
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

    def validate(self) -> Config:
        _check(
            isinstance(self.store_url, str)
            and (not self.store_url or self.store_url.startswith(("sqlite:///", "hbase://"))),
            f"store_url must be sqlite:///PATH or hbase://HOST:PORT[/PREFIX]: {self.store_url!r}",
        )
        fp = self.fingerprint
        _check(fp.head_chars > 0, "fingerprint.head_chars must be > 0")
        _check(fp.tail_chars > 0, "fingerprint.tail_chars must be > 0")
        sh = self.simhash
        _check(0 <= sh.max_distance <= 15, "simhash.max_distance must be in 0..15")
        _check(1 <= sh.shingle_size <= 16, "simhash.shingle_size must be in 1..16")
        _check(sh.min_chars >= 0, "simhash.min_chars must be >= 0")
        _check(0.0 <= sh.min_jaccard <= 1.0, "simhash.min_jaccard must be in [0, 1]")
        _check(8 <= sh.sketch_size <= 4096, "simhash.sketch_size must be in 8..4096")
        _check(0.0 < self.cascade.threshold <= 1.0, "cascade.threshold must be in (0, 1]")
        c = self.cascade
        for name in (
            "min_jaccard",
            "min_containment",
            "short_min_jaccard",
            "short_min_containment",
        ):
            _check(0.0 < getattr(c, name) <= 1.0, f"cascade.{name} must be in (0, 1]")
        _check(c.short_shingles >= 0, "cascade.short_shingles must be >= 0")
        _check(c.short_chars >= 0, "cascade.short_chars must be >= 0")
        _check(1 <= self.lsh.bands <= 256, "lsh.bands must be in 1..256")
        _check(1 <= self.lsh.rows <= 32, "lsh.rows must be in 1..32")
        _check(1 <= self.lsh.shingle_terms <= 16, "lsh.shingle_terms must be in 1..16")
        bp = self.boilerplate
        _check(bp.min_pages >= 2, "boilerplate.min_pages must be >= 2")
        _check(bp.min_line_chars >= 1, "boilerplate.min_line_chars must be >= 1")
        _check(
            0.0 < self.cascade.partial_containment <= 1.0,
            "cascade.partial_containment must be in (0, 1]",
        )
        _check(self.relevance.max_links >= 1, "relevance.max_links must be >= 1")
        unknown = [r for r in self.cascade.rules if r not in RULES]
        _check(not unknown, f"cascade.rules: unknown rule(s) {unknown}; known: {list(RULES)}")
        _check(0.0 < self.bloom.error_rate < 1.0, "bloom.error_rate must be in (0, 1)")
        _check(self.bloom.min_capacity >= 1, "bloom.min_capacity must be >= 1")
        _check(self.bloom.capacity_docs >= 1, "bloom.capacity_docs must be >= 1")
        _check(1 <= self.bloom.scan_splits <= 256, "bloom.scan_splits must be in 1..256")
        _check(self.bloom.max_broadcast_bytes >= 0, "bloom.max_broadcast_bytes must be >= 0")
        lim = self.limits
        _check(lim.max_postings_per_key >= 1, "limits.max_postings_per_key must be >= 1")
        _check(lim.max_record_bytes >= 1, "limits.max_record_bytes must be >= 1")
        _check(lim.max_text_chars >= 1, "limits.max_text_chars must be >= 1")
        _check(lim.store_batch_size >= 1, "limits.store_batch_size must be >= 1")
        _check(lim.max_driver_edges >= 0, "limits.max_driver_edges must be >= 0")
        _check(0 <= lim.min_rerun_share <= 1, "limits.min_rerun_share must be between 0 and 1")
        _check(self.spark.shuffle_partitions >= 1, "spark.shuffle_partitions must be >= 1")
        g = self.gate
        _check(
            0.0 <= g.max_quarantined_share <= 1.0, "gate.max_quarantined_share must be in [0, 1]"
        )
        _check(
            0.0 <= g.duplicate_rate_tolerance <= 1.0,
            "gate.duplicate_rate_tolerance must be in [0, 1]",
        )
        _check(1 <= g.trailing_days <= 366, "gate.trailing_days must be in 1..366")
        for section, cls in _SECTIONS.items():
            for name, choices in _choices(cls).items():
                value = getattr(getattr(self, section), name)
                _check(
                    value in choices,
                    f"{section}.{name} must be one of {list(choices)}: {value!r}",
                )
        return self

    def replace(self, **changes: Any) -> Config:
        """A copy with top-level fields or dotted section fields replaced.

        ``cfg.replace(**{"cascade.threshold": 0.8})`` is how reruns override one knob.
        """
        cfg = self
        for key, value in changes.items():
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


_SECTIONS: dict[str, type[Any]] = {
    "fingerprint": FingerprintConfig,
    "cascade": CascadeConfig,
    "simhash": SimhashConfig,
    "bloom": BloomConfig,
    "limits": LimitsConfig,
    "spark": SparkConfig,
    "output": OutputConfig,
    "relevance": RelevanceConfig,
    "lsh": LshConfig,
    "boilerplate": BoilerplateConfig,
    "gate": GateConfig,
    "extract": ExtractConfig,
}


def _build_section(name: str, cls: type[Any], raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"[{name}] must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
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
        elif key in _SECTIONS:
            kwargs[key] = _build_section(key, _SECTIONS[key], value)
        else:
            raise ConfigError(f"unknown config key {key!r}; known: store_url, {sorted(_SECTIONS)}")
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
    section, _, name = key.partition(".")
    if not name:
        if section == "store_url" and isinstance(value, str):
            return key, value
        raise ConfigError(
            f"--set {key}: not a key; known: store_url or SECTION.KEY with SECTION in "
            f"{sorted(_SECTIONS)}"
        )
    cls = _SECTIONS.get(section)
    if cls is None:
        raise ConfigError(f"--set {key}: unknown section [{section}]; known: {sorted(_SECTIONS)}")
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
