"""work/decisions from the day's files: the cascade's decision, the duplicate types and
the editions kept apart, in one Python job; no row through the JVM.

On the default road (no cosine; the candidates ranked per docs file) the candidates
stage leaves every candidate of the documents of docs file ``i`` in candidates file
``i``, and ``id_pair_scores`` their measures in scores file ``i``. A task reads the three
files of an ``i`` and

1. decides each document with ``core.cascade.decide``, the definition itself
   (``decisions.decide_all`` is its Spark SQL form, for the roads whose files are not
   aligned: the cosine's joined pairs, candidates ranked by id partitions);
2. types each duplicate (``core.duplicate_types``) from its target's raw md5, content
   key and term vector: the day's targets from work/docs (only the files that hold
   one), the earlier days' from the store in multi-gets;
3. writes decisions file ``i`` and returns the file's duplicates as
   ``edition_groups.DuplicateLink``s when editions are on.

The driver follows the editions' chains on those links (``edition_groups``) and rewrites
the few files that hold a duplicate it parts. The Spark road this replaces ran some
fifteen small jobs a day (a join of the decisions with the documents, the editions'
collect, the types' joins and store reads), about 5 s of a 16,500-document day:
docs/benchmarks.md.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from crawldedup.core.cascade import UNIQUE, Candidate, Decision, Policy, decide
from crawldedup.core.duplicate_types import duplicate_type
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.edition_groups import DuplicateLink, chains_to_part
from crawldedup.pipeline.part_files import PartWriter, part_file
from crawldedup.pipeline.store_batches import store_batches
from crawldedup.rules import Rule
from crawldedup.stage_registry import CANDIDATES, DECISIONS, DOCS, SCORES
from crawldedup.store import Store
from crawldedup.store.schema import get_docs

DECISIONS_ARROW = pa.schema(
    [
        ("id", pa.string()),
        ("verdict", pa.string()),
        ("rule", pa.string()),
        ("duplicate_of", pa.string()),
        ("similarity", pa.float64()),
        ("measure", pa.string()),
        ("type", pa.string()),
    ]
)

_DOC_COLUMNS = [
    "id",
    "url",
    "fetched_at",
    "boilerplate_only",
    "paragraph_size",
    "paragraph_edges",
    "raw_md5",
    "content_key",
    "tf",
]
_MEASURES = [
    "similarity",
    "hamming",
    "jaccard",
    "containment",
    "smaller_shingles",
    "shorter_chars",
    "editions",
    "cand_chars",
]


@dataclass(frozen=True)
class Sameness:
    """What a duplicate's type compares of a document: raw md5, content key, term
    vector (JSON)."""

    raw_md5: str
    content_key: str | None
    tf: str


def candidates_by_document(
    cands: pa.Table,
    scores: pa.Table,
    sizes: dict[str, tuple[int | None, int | None]],
    rules: Sequence[str],
) -> dict[str, list[tuple[Candidate, str]]]:
    """Each document's candidates with their measures (``scores``: a pair not scored has
    none), as ``core.cascade.Candidate``s, each with the candidate's day. ``sizes``: a
    document's paragraph size and edges (rule paragraph's excerpts). A document with an
    exact candidate gets those alone when rule content_md5 is on: ``decide`` looks no
    further (and the pairs of such documents were not scored)."""
    exact = Rule.CONTENT_MD5.value
    if exact in rules:
        is_exact = pc.equal(cands.column("rule"), exact)
        exact_ids = pc.unique(cands.filter(is_exact).column("id"))
        cands = cands.filter(pc.or_(is_exact, pc.invert(pc.is_in(cands.column("id"), exact_ids))))
    joined = cands.join(scores.select(["id", "cand_id", *_MEASURES]), ["id", "cand_id"])
    c = joined.to_pydict()
    out: dict[str, list[tuple[Candidate, str]]] = defaultdict(list)
    no_size = (None, None)
    for row in zip(
        c["id"],
        c["rule"],
        c["cand_id"],
        c["cand_fetched_at"],
        c["cand_day"],
        c["shared_chars"],
        *(c[m] for m in _MEASURES),
        strict=True,
    ):
        doc, rule, cand, fetched, day, shared, sim, ham, jac, cont, smaller, shorter = row[:12]
        editions, cand_chars = row[12:]
        size, edges = sizes.get(doc, no_size)
        candidate = Candidate(
            cand,
            fetched,
            rule,
            sim or 0.0,
            ham,
            jac,
            cont,
            smaller,
            shorter,
            bool(editions),
            shared,
            cand_chars,
            size,
            edges,
        )
        out[doc].append((candidate, day))
    return out


class DayDocs:
    """(Sameness, URL) of the day's documents by id, read from work/docs once per task:
    the ids of every file first, then the other columns of the files that hold a
    document asked for."""

    MAX_ROWS = 200_000
    """Rows kept from the files read; past it they are dropped before the next read (a
    day of millions of documents is not held by one task)."""

    def __init__(self, docs_dir: str) -> None:
        self._paths = sorted(Path(docs_dir).glob("*.parquet"))
        self._file_of: dict[str, int] | None = None
        self._read: set[int] = set()
        self._found: dict[str, tuple[Sameness, str | None]] = {}

    def of(self, ids: Iterable[str]) -> dict[str, tuple[Sameness, str | None]]:
        if self._file_of is None:
            self._file_of = {
                d: n
                for n, path in enumerate(self._paths)
                for d in pq.ParquetFile(path).read(columns=["id"]).column("id").to_pylist()
            }
        wanted = set(ids)
        if len(self._found) > self.MAX_ROWS:
            self._found.clear()
            self._read.clear()
        for n in sorted({self._file_of[d] for d in wanted} - self._read):
            t = pq.ParquetFile(self._paths[n]).read(
                columns=["id", "raw_md5", "content_key", "tf", "url"]
            )
            for i, raw, content, tf, url in zip(*t.to_pydict().values(), strict=True):
                self._found[i] = (Sameness(raw, content, tf), url)
            self._read.add(n)
        return {d: self._found[d] for d in wanted}


def _of_earlier_days(
    ids: Sequence[str], store_url: str, batch_size: int, counters: dict[str, Any]
) -> dict[str, Sameness]:
    """Sameness of earlier days' documents, from the store's document rows (a row gone
    since: empty, so the pair types ``near``)."""
    cols = ["v:tf", "m:raw_md5", "m:keys"]

    def flush(store: Store, batch: list[str]) -> Iterator[tuple[str, Sameness]]:
        found = get_docs(store, batch, cols)
        for i in batch:
            row = found.get(i, {})
            yield (
                i,
                Sameness(
                    (row.get("m:raw_md5") or b"").decode(),
                    json.loads(row.get("m:keys") or b"{}").get(Rule.CONTENT_MD5),
                    (row.get("v:tf") or b"{}").decode(),
                ),
            )

    return dict(store_batches(ids, store_url, batch_size, flush, counters))


def type_of(doc: Sameness, target: Sameness, partial_containment: float) -> str:
    """``core.duplicate_types.duplicate_type`` of a duplicate and its target."""
    return duplicate_type(
        raw_equal=bool(target.raw_md5) and target.raw_md5 == doc.raw_md5,
        content_equal=target.content_key is not None and target.content_key == doc.content_key,
        tf_a=json.loads(doc.tf),
        tf_b=json.loads(target.tf),
        partial_containment=partial_containment,
    )


@dataclass(frozen=True)
class FileJob:
    """What a task needs to decide the documents of one docs file."""

    day: str
    docs_dir: str
    cands_dir: str
    scores_dir: str
    out_dir: str
    store_url: str
    batch_size: int
    policy: Policy
    rules: tuple[str, ...]
    partial_containment: float
    editions: bool


def _targets(decided: dict[str, tuple[Decision, str]]) -> list[tuple[str, str]]:
    """(target id, target's day) of each duplicate, in the dict's order."""
    return [(d.duplicate_of or "", day) for d, day in decided.values()]


def decide_file(
    job: FileJob, i: int, counters: dict[str, Any], day_docs: DayDocs | None = None
) -> list[DuplicateLink]:
    """Writes decisions file ``i``; returns its duplicates' links when editions are on.
    ``day_docs``: the task's reader of the day's targets (one per call when None)."""
    docs = pq.ParquetFile(part_file(job.docs_dir, i)).read(columns=_DOC_COLUMNS).to_pydict()
    sizes = {
        d: (s, e)
        for d, s, e in zip(docs["id"], docs["paragraph_size"], docs["paragraph_edges"], strict=True)
    }
    by_doc = candidates_by_document(
        pq.ParquetFile(part_file(job.cands_dir, i)).read(),
        pq.ParquetFile(part_file(job.scores_dir, i)).read(),
        sizes,
        job.rules,
    )
    decisions = {
        doc: decide([c for c, _ in found], job.policy, job.rules) for doc, found in by_doc.items()
    }
    # Each duplicate with its target's day.
    decided = {
        doc: (d, next(day for c, day in by_doc[doc] if c.doc_id == d.duplicate_of))
        for doc, d in decisions.items()
        if d.verdict == "duplicate" and d.duplicate_of is not None
    }
    today: dict[str, tuple[Sameness, str | None]] = {}
    types: dict[str, str] = {}
    if decided:
        mine = {
            d: Sameness(raw, content, tf)
            for d, raw, content, tf in zip(
                docs["id"], docs["raw_md5"], docs["content_key"], docs["tf"], strict=True
            )
            if d in decided
        }
        targets = _targets(decided)
        day_docs = day_docs or DayDocs(job.docs_dir)
        today = day_docs.of(t for t, day in targets if day == job.day)
        earlier_ids = sorted({t for t, day in targets if day != job.day})
        earlier = _of_earlier_days(earlier_ids, job.store_url, job.batch_size, counters)
        for doc, (t, day) in zip(decided, targets, strict=True):
            target = today[t][0] if day == job.day else earlier[t]
            types[doc] = type_of(mine[doc], target, job.partial_containment)
    rows: dict[str, list[Any]] = {name: [] for name in DECISIONS_ARROW.names}
    links: list[DuplicateLink] = []
    for doc, url, fetched, boiler in zip(
        docs["id"], docs["url"], docs["fetched_at"], docs["boilerplate_only"], strict=True
    ):
        d = decisions.get(doc, UNIQUE)
        rows["id"].append(doc)
        rows["verdict"].append(d.verdict)
        rows["rule"].append(d.rule)
        rows["duplicate_of"].append(d.duplicate_of)
        rows["similarity"].append(d.similarity)
        # A page of nothing but boilerplate was judged by its exact key alone: say so.
        rows["measure"].append("boilerplate_only" if boiler else d.measure)
        rows["type"].append(types.get(doc))
        if job.editions and doc in decided:
            t, day = _targets({doc: decided[doc]})[0]
            target_url = today[t][1] if day == job.day else None
            links.append(DuplicateLink(doc, t, d.measure or "", url, fetched, target_url))
    out = PartWriter(part_file(job.out_dir, i), DECISIONS_ARROW)
    out.write(pa.RecordBatch.from_pydict(rows, schema=DECISIONS_ARROW))
    out.close()
    return links


def _part(out_dir: str, parted: set[str]) -> None:
    """The decisions files' duplicates in ``parted`` made unique, measure ``edition``."""
    for path in sorted(Path(out_dir).glob("*.parquet")):
        t = pq.ParquetFile(path).read().to_pydict()
        hit = [n for n, i in enumerate(t["id"]) if i in parted]
        if not hit:
            continue
        for n in hit:
            t["verdict"][n], t["measure"][n] = "unique", "edition"
            for name in ("rule", "duplicate_of", "similarity", "type"):
                t[name][n] = None
        out = PartWriter(path, DECISIONS_ARROW)
        out.write(pa.RecordBatch.from_pydict(t, schema=DECISIONS_ARROW))
        out.close()


def decide_files(spark: SparkSession, ctx: DayContext, counters: dict[str, Any]) -> None:
    """Writes work/decisions (see the module's docstring)."""
    cfg = ctx.cfg
    out_dir = ctx.folder(DECISIONS)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    files = len(list(ctx.folder(DOCS).glob("*.parquet")))
    if not files:  # no document: the schema alone
        pq.write_table(DECISIONS_ARROW.empty_table(), out_dir / "part-00000.parquet")
        return
    job = FileJob(
        day=ctx.day,
        docs_dir=str(ctx.folder(DOCS)),
        cands_dir=str(ctx.folder(CANDIDATES)),
        scores_dir=str(ctx.folder(SCORES)),
        out_dir=str(out_dir),
        store_url=ctx.store,
        batch_size=cfg.limits.store_batch_size,
        policy=Policy.from_config(cfg),
        rules=tuple(cfg.cascade.rules),
        partial_containment=cfg.cascade.partial_containment,
        editions=cfg.editions.enabled,
    )

    def task(parts: Iterable[int]) -> Iterator[list[DuplicateLink]]:
        day_docs = DayDocs(job.docs_dir)
        for i in parts:
            yield decide_file(job, i, counters, day_docs)

    sc = spark.sparkContext
    # Two tasks per core, each a share of the files (as the candidates' ranking).
    tasks = max(1, min(files, 2 * sc.defaultParallelism))
    links = [
        x
        for found in sc.parallelize(range(files), tasks).mapPartitions(task).collect()
        for x in found
    ]
    if links:
        parted = chains_to_part(links, ctx.store)
        if parted:
            _part(str(out_dir), parted)
