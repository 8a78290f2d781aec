"""The stages of a day and the data each one reads and writes: the one declaration that
the CLI's order, the one runner (``crawldedup.pipeline.stages.run_stages``), the submit
helper, the Airflow DAG's tasks and the ``jobs/day.py`` entry point are derived from.

A stage is placed after every stage that writes something it reads (``plan``). The
stages that need Spark run in one Spark application per day (``spark_stages``: the DAG's
``dedup`` task, one ``spark-submit``); commit and report need none. An optional stage that
none of the day's other stages reads under a configuration (relevance, unless the
cascade's cosine reads its vectors) has its failure deferred (``deferred_stages``): the
runner records it, goes on, and raises it after the day is committed and reported, so it
never holds back the day's verdicts.
Adding a stage means declaring it here with its data and writing its module,
``crawldedup.pipeline.<name>_stage`` (its ``run(spark, ctx) -> stats``,
``summary(stats)`` and ``EMPTY_DAY``; :func:`crawldedup.pipeline.stages.unit` loads it);
its place in the CLI and the DAG follows.

Pure (no pyspark): the DAG imports it while parsing. What each stage computes is in
``docs/algorithm.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from crawldedup.config import Config


@dataclass(frozen=True)
class Data:
    """Something a stage writes and a later one reads."""

    name: str
    where: Literal["input", "work", "home", "store"]
    """``input``: the day's crawl folder; ``work``: a folder under ``HOME/work/dt=D/``;
    ``home``: a file for people under ``HOME``; ``store``: rows of the store (SQLite or
    HBase)."""

    def __str__(self) -> str:
        return self.name


# What comes from outside the day: the crawl folder and the days published before it.
INPUT = Data("dt=D input folder", "input")
EARLIER_DAYS = Data("earlier days' index tables", "store")
# The day's work files (Parquet under HOME/work/dt=D/; the quarantine under HOME/quarantine/).
DOCS = Data("docs", "work")
QUARANTINE = Data("quarantine", "work")
HOST_LINES = Data("host_lines", "work")
LINE_HOSTS = Data("line_hosts", "work")
RELEVANCE_SCORES = Data("relevance/scores", "work")
RELEVANCE_LINKS = Data("relevance/links", "work")
TAGVEC = Data("relevance/tagvec", "work")
BLOOM = Data("bloom", "work")
LOOKUPS = Data("lookups", "work")
DAY_KEYS = Data("day_keys", "work")
CANDIDATES = Data("candidates", "work")
DECISIONS = Data("decisions", "work")
REPORT = Data("report.json", "work")
REPORT_PAGE = Data("reports/dt=D/index.html", "home")
# Scratch: work folders only one stage writes and reads back (its intermediate results).
PARSED = Data("parsed", "work")
REPEATS = Data("repeats", "work")
PARSE_BUCKETS = Data("parse_buckets", "work")
PARSE_QUARANTINE = Data("parse_quarantine", "work")
KEY_BUCKETS = Data("key_buckets", "work")
SAME_DAY = Data("same_day", "work")
RELEVANCE_PAGES = Data("relevance/pages", "work")
EARLIER_IDS = Data("earlier_ids", "work")
EARLIER_SIDES = Data("earlier_sides", "work")
SCORES = Data("scores", "work")
DECISIONS_UNTYPED = Data("decisions.untyped", "work")
GROUPS = Data("groups", "work")
GROUPS_EARLIER = Data("groups_earlier", "work")
COMPONENTS = Data("components", "work")
CANON_CELLS = Data("canon_cells", "work")
POSTINGS = Data("postings", "work")
PREVIOUS_RUN = Data("previous_run", "work")
# The day in the store: published (marked incomplete while it is written), then committed.
RELEVANCE_ROWS = Data("rel_scores, rel_links", "store")
PUBLISHED = Data("day's verdicts, groups, documents and postings", "store")
COMMITTED = Data("days row: complete, published with", "store")


def stats_of(stage: str) -> Data:
    """The stats file a stage writes (its counts, code stamp and run id)."""
    return Data(f"stats/{stage}.json", "work")


def _always(cfg: Config) -> bool:
    return True


def relevance_enabled(cfg: Config) -> bool:
    """The relevance stage has work: a topic library, or tag-weighted cascade vectors."""
    return bool(cfg.relevance.library) or cfg.cascade.cosine_weights == "tag_tfidf"


def _similarity_reads(cfg: Config | None) -> tuple[Data, ...]:
    # The cosine of tag-weighted vectors reads the relevance stage's vectors.
    tag = cfg is None or cfg.cascade.cosine_weights == "tag_tfidf"
    return (DOCS, CANDIDATES, *((TAGVEC,) if tag else ()))


@dataclass(frozen=True)
class Stage:
    name: str
    spark: bool
    """Needs a SparkSession: a ``spark-submit jobs/<name>.py`` task in Airflow."""
    reads: Callable[[Config | None], tuple[Data, ...]]
    """What the stage reads under a configuration; under None, everything it may read."""
    writes: tuple[Data, ...]
    enabled: Callable[[Config], bool]
    doc: str
    """One paragraph for the DAG's task docs."""
    scratch: tuple[Data, ...] = ()
    """Work folders only this stage writes and reads back (its intermediate results)."""

    @property
    def reads_input(self) -> bool:
        """Reads the day's crawl folder (``--input``)."""
        return INPUT in self.reads(None)

    @property
    def optional(self) -> bool:
        """Runs only when the configuration enables it."""
        return self.enabled is not _always


def _fixed(*data: Data) -> Callable[[Config | None], tuple[Data, ...]]:
    return lambda cfg: data


STAGES: tuple[Stage, ...] = (
    Stage(
        "fingerprint",
        spark=True,
        reads=_fixed(INPUT, EARLIER_DAYS),
        writes=(DOCS, QUARANTINE, HOST_LINES, LINE_HOSTS, stats_of("fingerprint")),
        enabled=_always,
        scratch=(PARSED, REPEATS, PARSE_BUCKETS, PARSE_QUARANTINE),
        doc="Reads `dt=D/` (JSON Lines, Parquet, WARC), quarantines bad records, learns the "
        "hosts' boilerplate lines, normalizes and computes the keys, SimHash and MinHash "
        "→ `work/dt=D/docs`.",
    ),
    Stage(
        "relevance",
        spark=True,
        reads=_fixed(INPUT, DOCS),
        writes=(RELEVANCE_SCORES, RELEVANCE_LINKS, TAGVEC, RELEVANCE_ROWS, stats_of("relevance")),
        scratch=(RELEVANCE_PAGES,),
        enabled=relevance_enabled,
        doc="Scores every page of the day against the topics of the semantic library "
        "(tag-weighted TF-IDF and the library's patterns), updates the document "
        "frequencies, writes scores and the ranked crawl frontier (store and Parquet).",
    ),
    Stage(
        "bloom",
        spark=True,
        reads=_fixed(EARLIER_DAYS),
        writes=(BLOOM, stats_of("bloom")),
        enabled=_always,
        doc="Brings the Bloom filters of the index keys up to date from the store "
        "(stored filter blocks, or key-only scans of the index tables).",
    ),
    Stage(
        "candidates",
        spark=True,
        reads=_fixed(DOCS, BLOOM, EARLIER_DAYS),
        writes=(LOOKUPS, DAY_KEYS, CANDIDATES, stats_of("candidates")),
        enabled=_always,
        scratch=(KEY_BUCKETS, SAME_DAY),
        doc="Probes the filters, multi-gets the index rows of earlier days and joins "
        "same-day keys → candidate pairs per rule.",
    ),
    Stage(
        "similarity",
        spark=True,
        reads=_similarity_reads,
        writes=(DECISIONS, stats_of("similarity")),
        enabled=_always,
        scratch=(SCORES, EARLIER_IDS, EARLIER_SIDES, DECISIONS_UNTYPED),
        doc="Scores every candidate pair on the executors; the cascade picks each "
        "document's verdict (the candidate it is most similar to among those that pass "
        "their rule's test; editions only at the editions' bar).",
    ),
    Stage(
        "publish",
        spark=True,
        reads=_fixed(
            DOCS, DECISIONS, LOOKUPS, DAY_KEYS, HOST_LINES, LINE_HOSTS, stats_of("fingerprint")
        ),
        writes=(PUBLISHED, stats_of("publish")),
        enabled=_always,
        scratch=(GROUPS, GROUPS_EARLIER, COMPONENTS, CANON_CELLS, POSTINGS, PREVIOUS_RUN),
        doc="Marks the day incomplete, then writes verdicts, groups, document rows, capped "
        "postings and Bloom blocks; replaces the day's earlier results. Writes nothing in "
        "a dry run.",
    ),
    Stage(
        "commit",
        spark=False,
        reads=_fixed(PUBLISHED, stats_of("fingerprint"), stats_of("publish")),
        writes=(COMMITTED, stats_of("commit")),
        enabled=_always,
        doc="Commits the published day: stores what it was published with (documents, "
        "configuration digest, thresholds, rules, code version) and removes the "
        "incomplete marker, the day's last write. Later days and readers accept it from "
        "here on. No Spark needed.",
    ),
    Stage(
        "report",
        spark=False,
        reads=_fixed(
            COMMITTED,
            *(stats_of(s) for s in ("fingerprint", "bloom", "candidates", "similarity", "publish")),
        ),
        writes=(REPORT, REPORT_PAGE, stats_of("report")),
        enabled=_always,
        doc="Sums the stages' counts into the day's report (`work/dt=D/report.json` and "
        "the store's `days` row), with the parameters the day was committed with, and "
        "writes the day's HTML page (`reports/dt=D/index.html` under home; not in a dry "
        "run); no Spark needed.",
    ),
)

BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}


class UndeclaredData(RuntimeError):
    """A stage opened a work folder (or another stage's stats) it does not declare."""


def declared_folders(name: str, cfg: Config) -> frozenset[Data]:
    """The work folders (and ``stats/<stage>.json`` files) stage ``name`` may open under
    ``cfg``: what it reads under that configuration, what it writes, its scratch."""
    s = stage(name)
    return frozenset(d for d in (*s.reads(cfg), *s.writes, *s.scratch) if d.where == "work")


def check_declared(name: str, cfg: Config, folder: Data) -> None:
    """Raise :class:`UndeclaredData` unless stage ``name`` declares ``folder``."""
    allowed = declared_folders(name, cfg)
    if folder not in allowed:
        raise UndeclaredData(
            f"stage {name} opened the work folder {folder.name!r}, which it does not declare "
            f"(crawldedup/stage_registry.py: it reads and writes {sorted(map(str, allowed))})"
        )


NAMES: tuple[str, ...] = tuple(BY_NAME)


def stage(name: str) -> Stage:
    """The stage called ``name``; ValueError naming the known ones otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; known: {list(NAMES)}") from None


def _producers() -> dict[Data, str]:
    made: dict[Data, str] = {}
    for s in STAGES:
        for d in s.writes:
            if d in made:
                raise AssertionError(f"{d} is written by {made[d]} and {s.name}")
            made[d] = s.name
    return made


def _order(names: Sequence[str], cfg: Config | None) -> tuple[str, ...]:
    """``names`` so that every stage comes after the stages writing what it reads; ties
    keep the declaration order. A read that no stage among ``names`` writes comes from
    outside (the input, earlier days, an optional stage that is off)."""
    made = {d: p for d, p in _producers().items() if p in names}
    needs = {n: {made[d] for d in stage(n).reads(cfg) if d in made} - {n} for n in names}
    done: list[str] = []
    while len(done) < len(names):
        ready = [n for n in names if n not in done and needs[n] <= set(done)]
        if not ready:
            raise AssertionError(f"the stages' data form a cycle: {needs}")
        done.append(ready[0])
    return tuple(done)


def deferred_stages(names: Sequence[str], cfg: Config) -> frozenset[str]:
    """The optional stages among ``names`` whose outputs no other stage among them reads
    under ``cfg`` (directly, or only through other such stages): the day's verdicts do
    not need them, so their failure is raised only after the day is reported."""
    made = {d: p for d, p in _producers().items() if p in names}
    side: set[str] = set()
    while True:
        read = {
            made[d]
            for n in names
            if n not in side
            for d in stage(n).reads(cfg)
            if d in made and made[d] != n
        }
        more = {n for n in names if stage(n).optional and n not in side | read}
        if not more:
            return frozenset(side)
        side |= more


def plan(cfg: Config) -> tuple[str, ...]:
    """The stages of one day under ``cfg``, in the order ``crawldedup run`` and the DAG
    run them: each after what it reads."""
    return _order([s.name for s in STAGES if s.enabled(cfg)], cfg)


def spark_stages(cfg: Config) -> tuple[str, ...]:
    """The stages of ``plan(cfg)`` that need Spark: one application (the DAG's ``dedup``
    task), before the stages that need none (commit, report)."""
    names = plan(cfg)
    spark = tuple(n for n in names if stage(n).spark)
    if names[: len(spark)] != spark:
        raise AssertionError(f"a stage without Spark comes before a Spark stage: {names}")
    return spark


def upstream(name: str, cfg: Config) -> tuple[str, ...]:
    """The stages whose outputs ``name`` reads under ``cfg``, directly or through others,
    in plan order: the work a stage run on its own must find written by the same code."""
    order = plan(cfg)
    made = {d: p for d, p in _producers().items() if p in order}
    seen: set[str] = set()
    todo = [name]
    while todo:
        for d in stage(todo.pop()).reads(cfg):
            p = made.get(d)
            if p is not None and p != name and p not in seen:
                seen.add(p)
                todo.append(p)
    return tuple(n for n in order if n in seen)


DEDUP_STAGES: tuple[str, ...] = plan(Config())
"""The stages of a day under the default configuration, in order."""


def stage_argv(
    names: Sequence[str],
    *,
    day: str,
    home: str,
    store: str,
    input_dir: str | None = None,
    config: str | None = None,
    overrides: Sequence[str] = (),
    dry_run: bool = False,
    replace: bool = False,
    run_id: str | None = None,
) -> list[str]:
    """The arguments of ``crawldedup stage NAME...`` (and of ``jobs/day.py``) for one
    day: what the DAG's dedup task and the submit helper pass. ``replace`` reaches
    publish only (the stage that refuses to shrink a published day); ``run_id`` lets a
    retry resume after the stages this run already finished."""
    chosen = [stage(n) for n in names]
    args = [*names, "--date", day, "--home", home, "--store", store]
    if config:
        args += ["--config", config]
    for item in overrides:
        args += ["--set", item]
    if any(s.reads_input for s in chosen):
        if not input_dir:
            raise ValueError(f"the {names[0]} stage needs an input folder")
        args += ["--input", input_dir]
    if dry_run:
        args.append("--dry-run")
    if replace and "publish" in names:
        args.append("--replace")
    if run_id:
        args += ["--run-id", run_id]
    return args
