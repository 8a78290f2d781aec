"""Topic relevance of the day's pages (docs/relevance.md), after the day's report (after the
fingerprint stage when the cascade's cosine reads its vectors, see stage_registry.plan).

Runs when ``relevance.library`` names a semantic library (or when the cascade's cosine
uses tag-weighted vectors, ``cascade.cosine_weights = "tag_tfidf"``); otherwise it only
records that it was skipped.

1. The day's files are read again for the raw HTML (``work/docs`` keeps no raw page) and
   joined to the fingerprinted documents by (file, position): quarantined records and
   repeated ids stay out. Each page is split into positions and tokenized once (jieba),
   every atom of the library is run once over it → ``work/relevance/pages``.
2. Document frequencies: the day's count per word and atom goes into the store's
   ``rel_df`` rows as the day's cell; the IDF of day D sums the cells of days <= D, so a
   rerun of a day replaces its own counts and never sees later days.
3. Each page is scored against each topic (cosine of formula 7's vectors); pages at or
   above the topic's threshold are relevant, and their outgoing links are ranked for the
   crawl frontier → ``work/relevance/{scores,links}`` and the ``rel_scores`` /
   ``rel_links`` rows of the day (replaced on rerun).
4. With ``cascade.cosine_weights = "tag_tfidf"``: each document's cascade terms weighted
   tf · Twf · idf → ``work/relevance/tagvec`` and ``rel_docs`` for the similarity stage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from crawldedup.core.tokenize import terms
from crawldedup.ingest.readers import list_input_files, read_file
from crawldedup.pipeline.context import DayContext, timed
from crawldedup.pipeline.retraction import retract_relevance
from crawldedup.pipeline.store_batches import in_batches
from crawldedup.pipeline.work_files import read_work
from crawldedup.relevance.library import load_library
from crawldedup.relevance.links import LinkCandidate, rank_links
from crawldedup.relevance.page import Page, split_html, split_plain
from crawldedup.relevance.scoring import Scorer, default_tokenizer
from crawldedup.relevance.weighting import (
    cascade_term_key,
    cascade_vector,
    mask_positions,
    page_stats,
    positions_mask,
    stats_from_json,
    stats_to_json,
)
from crawldedup.retention import window_start
from crawldedup.stage_registry import (
    DOCS,
    RELEVANCE_LINKS,
    RELEVANCE_PAGES,
    RELEVANCE_SCORES,
    TAGVEC,
    relevance_enabled,
)
from crawldedup.store import open_store
from crawldedup.store.day_ledger import put_recorded

DOCS_COUNT_ROW = "#docs"

# Schemas of the stage's datasets under work/dt=D/relevance/ (Spark DDL).
RAW = "source string, position bigint, html string, content string"
PAGES = (
    "id string, url string, title string, stats string, df_keys array<string>, "
    "links array<struct<href: string, anchor: string>>, cascade_positions string, tf string"
)
"""``stats``: the page's TermStats as JSON; ``cascade_positions``: term → position mask."""
SCORES = (
    "id string, topic string, score double, relevant boolean, atoms string, url string, "
    "title string"
)
"""``atoms``: JSON list of [pattern, kind, matches] of the atoms that matched."""
LINK_CANDIDATES = (
    "topic string, href string, anchor string, page_id string, page_score double, "
    "anchor_score double"
)
LINKS = (
    "topic string, rank int, href string, priority double, anchor string, from_page string, "
    "linking_pages int"
)
TAGVEC_SCHEMA = "id string, tagvec string"


@lru_cache(maxsize=4)
def _scorer(library_path: str) -> Scorer | None:
    """One scorer per executor process (the library compiles once, jieba loads once)."""
    if not library_path:
        return None
    return Scorer(load_library(library_path), default_tokenizer())


def _raw_pages(path: str, max_bytes: int) -> Iterator[tuple[str, int, str | None, str | None]]:
    for rec in read_file(path, max_bytes):
        if rec.data is None:
            continue
        html, content = rec.data.get("html"), rec.data.get("content")
        yield (
            rec.source,
            rec.position,
            html if isinstance(html, str) else None,
            content if isinstance(content, str) else None,
        )


def to_page(row: Row) -> Page:
    """The positions of one record: its HTML when it has no plain content, else plain."""
    if row["html"] and not (row["content"] and row["content"].strip()):
        return split_html(row["html"], row["url"] or "", row["title"] or "")
    return split_plain(row["title"] or "", row["content"] or "")


def analyse(rows: Iterable[Row], library_path: str, cascade_tokenizer: str | None) -> Iterator[Any]:
    """Step 1 per page: positions, term and atom statistics, links, cascade positions."""
    scorer = _scorer(library_path)
    tok = cascade_tokenizer or "char"

    def cascade_terms(text: str) -> list[str]:
        return terms(text, tok)

    for r in rows:
        page = to_page(r)
        df_keys: set[str] = set()
        stats_json = "{}"
        if scorer is not None:
            st = scorer.stats(page)
            stats_json = json.dumps(stats_to_json(st), ensure_ascii=False)
            df_keys = scorer.df_keys(st)
        cascade = None
        if cascade_tokenizer is not None:
            cst = page_stats(page, cascade_terms)
            cascade = json.dumps(
                {
                    "p": list(cst.present),
                    "t": {t: positions_mask(ps) for t, ps in cst.positions.items()},
                },
                ensure_ascii=False,
            )
            df_keys.update(cascade_term_key(t) for t in json.loads(r["tf"]))
        links = [(link.href, link.anchor) for link in page.links]
        yield (r["id"], r["url"] or "", r["title"] or "", stats_json, sorted(df_keys), links,
               cascade, r["tf"])  # fmt: skip


def _day_cell(day: str) -> str:
    return f"d:{day}"


def _total_until(row: dict[str, bytes], day: str, since: str = "") -> int:
    """Sum of the day cells of days <= ``day`` (ISO dates sort as strings), from
    ``since`` on (the days ``index.keep_days`` keeps)."""
    return sum(int(v) for col, v in row.items() if since <= col[2:] <= day)


def frequencies(
    rows: Iterable[Row], store_url: str, day: str, dry_run: bool, batch_size: int, since: str = ""
) -> Iterator[tuple[str, int]]:
    """Step 2 per partition of (key, count today): write today's cell, read the total."""
    cell = _day_cell(day)
    with open_store(store_url) as store:
        for batch in in_batches(rows, batch_size):
            today = {r["key"]: {cell: str(r["count"]).encode()} for r in batch}
            if not dry_run:
                put_recorded(store, day, "rel_df", today)
            found = store.get("rel_df", list(today))
            for key, cells in today.items():
                # A dry run writes nothing, so today's cell is added as if it had been.
                yield key, _total_until({**found.get(key, {}), **cells}, day, since)


def score_pages(
    rows: Iterable[Row], library_path: str, mode: str, n_docs: int, df: dict[str, int]
) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Step 3 per page: ("s", score row) per topic, ("l", link candidate) per link kept."""
    scorer = _scorer(library_path)
    assert scorer is not None
    lookup = df.get
    for r in rows:
        st = stats_from_json(json.loads(r["stats"]))
        for ts in scorer.score(st, n_docs, lambda k: lookup(k, 0), mode):
            topic = scorer.library.topics[ts.topic]
            relevant = ts.score >= topic.threshold
            atoms = json.dumps([list(a) for a in ts.atoms], ensure_ascii=False)
            yield "s", (r["id"], ts.topic, ts.score, relevant, atoms, r["url"], r["title"])
            if not relevant:
                continue
            for link in r["links"]:
                anchor_score = (
                    scorer.anchor_score(link["anchor"], ts.topic, n_docs, lambda k: lookup(k, 0))
                    if link["anchor"]
                    else 0.0
                )
                yield "l", (ts.topic, link["href"], link["anchor"], r["id"], ts.score, anchor_score)


def rank_topic(topic: str, rows: Iterable[Row], limit: int) -> Iterator[tuple[Any, ...]]:
    cands = (
        LinkCandidate(r["href"], r["anchor"], r["page_id"], r["page_score"], r["anchor_score"])
        for r in rows
    )
    for link in rank_links(cands)[:limit]:
        yield (topic, link.rank, link.href, link.priority, link.anchor, link.from_page,
               link.linking_pages)  # fmt: skip


def tag_vectors(rows: Iterable[Row], n_docs: int, df: dict[str, int]) -> Iterator[tuple[str, str]]:
    """Step 4 per document: the cascade's terms as tf · Twf · idf (JSON)."""
    lookup = df.get
    for r in rows:
        pos = json.loads(r["cascade_positions"])
        where = {t: mask_positions(m) for t, m in pos["t"].items()}
        vec = cascade_vector(json.loads(r["tf"]), where, pos["p"], n_docs, lambda k: lookup(k, 0))
        yield r["id"], json.dumps({t: round(v, 6) for t, v in vec.items()}, ensure_ascii=False)


def _put_rows(
    rows: Iterable[Row],
    store_url: str,
    table: str,
    key_cols: list[str],
    family: str,
    batch: int,
    recorded_day: str | None = None,
) -> None:
    """Rows keyed by ``key_cols``; with ``recorded_day``, recorded in that day's ledger
    (rows other days share)."""
    with open_store(store_url) as store:
        for chunk in in_batches(rows, batch):
            out: dict[str, dict[str, bytes]] = {}
            for r in chunk:
                d = r.asDict()
                key = "|".join(str(d.pop(c)) for c in key_cols)
                out[key] = {f"{family}:{k}": str(v).encode() for k, v in d.items() if v is not None}
            if recorded_day is None:
                store.put(table, out)
            else:
                put_recorded(store, recorded_day, table, out)


def _write_store(
    ctx: DayContext, scores: DataFrame, links: DataFrame, tagvec: DataFrame | None
) -> None:
    store_url, day, batch = ctx.store, ctx.day, ctx.cfg.limits.store_batch_size
    s = scores.select(
        F.lit(day).alias("day"), "topic", "id", "score", "relevant", "atoms", "url", "title"
    )
    s.foreachPartition(
        lambda it: _put_rows(it, store_url, "rel_scores", ["day", "topic", "id"], "s", batch)
    )
    lk = links.select(
        F.lit(day).alias("day"), "topic", F.format_string("%08d", "rank").alias("rank"),
        "href", "priority", "anchor", "from_page", "linking_pages",
    )  # fmt: skip
    lk.foreachPartition(
        lambda it: _put_rows(it, store_url, "rel_links", ["day", "topic", "rank"], "l", batch)
    )
    if tagvec is not None:
        tagvec.foreachPartition(
            lambda it: _put_rows(it, store_url, "rel_docs", ["id"], "v", batch, day)
        )


def _docs_so_far(ctx: DayContext, n_today: int) -> int:
    """N of formula 1: documents of every day <= D (today's count written first)."""
    with open_store(ctx.store) as store:
        if not ctx.dry_run:
            count = {DOCS_COUNT_ROW: {_day_cell(ctx.day): str(n_today).encode()}}
            put_recorded(store, ctx.day, "rel_df", count)
        row = dict(store.get("rel_df", [DOCS_COUNT_ROW]).get(DOCS_COUNT_ROW, {}))
    row[_day_cell(ctx.day)] = str(n_today).encode()
    return _total_until(row, ctx.day, window_start(ctx.day, ctx.cfg.index.keep_days))


def run(spark: SparkSession, ctx: DayContext) -> dict[str, Any]:
    """Scores the day's pages against the library's topics; see the module docstring."""
    cfg = ctx.cfg
    stats: dict[str, Any] = {}
    if not relevance_enabled(cfg):
        stats["skipped"] = "no relevance.library configured"
        ctx.write_stats("relevance", stats)
        return stats
    if ctx.input_dir is None:
        raise ValueError("the relevance stage needs the day's input folder (--input)")
    library_path = str(Path(cfg.relevance.library).resolve()) if cfg.relevance.library else ""
    library = load_library(library_path) if library_path else None  # fails fast on the driver
    cascade_tok = cfg.fingerprint.tokenizer if cfg.cascade.cosine_weights == "tag_tfidf" else None
    sc = spark.sparkContext
    with timed(stats):
        files = [str(p) for p in list_input_files(Path(ctx.input_dir))]
        max_bytes = cfg.limits.max_record_bytes
        raw = spark.createDataFrame(
            sc.parallelize(files, max(1, len(files))).flatMap(lambda f: _raw_pages(f, max_bytes)),
            RAW,
        )
        docs = read_work(spark, ctx.path(DOCS)).select(
            "id", "source", "position", "url", "title", "tf"
        )
        joined = docs.join(raw, ["source", "position"], "left")
        pages_rdd = joined.rdd.mapPartitions(lambda it: analyse(it, library_path, cascade_tok))
        spark.createDataFrame(pages_rdd, PAGES).write.mode("overwrite").parquet(
            ctx.path(RELEVANCE_PAGES)
        )
        pages = read_work(spark, ctx.path(RELEVANCE_PAGES))
        n_today = pages.count()
        if not ctx.dry_run:  # an earlier run of the day's scores, links and counts
            with open_store(ctx.store) as store:
                retract_relevance(store, ctx.day)
        n_docs = _docs_so_far(ctx, n_today)
        keys = pages.select(F.explode("df_keys").alias("key")).groupBy("key").count()
        store_url, day, dry, batch = ctx.store, ctx.day, ctx.dry_run, cfg.limits.store_batch_size
        since = window_start(day, cfg.index.keep_days)
        df = dict(
            keys.rdd.mapPartitions(
                lambda it: frequencies(it, store_url, day, dry, batch, since)
            ).collect()
        )
        stats.update(pages=n_today, docs_so_far=n_docs, df_keys=len(df))
        scores = spark.createDataFrame([], SCORES)
        links = spark.createDataFrame([], LINKS)
        if library is not None:
            mode = cfg.relevance.mode
            out = pages.rdd.mapPartitions(
                lambda it: score_pages(it, library_path, mode, n_docs, df)
            )
            out = out.persist()
            spark.createDataFrame(
                out.filter(lambda t: t[0] == "s").map(lambda t: t[1]), SCORES
            ).write.mode("overwrite").parquet(ctx.path(RELEVANCE_SCORES))
            cands = spark.createDataFrame(
                out.filter(lambda t: t[0] == "l").map(lambda t: t[1]), LINK_CANDIDATES
            )
            limit = cfg.relevance.max_links
            ranked = cands.rdd.groupBy(lambda r: r["topic"]).flatMap(
                lambda kv: rank_topic(kv[0], kv[1], limit)
            )
            spark.createDataFrame(ranked, LINKS).write.mode("overwrite").parquet(
                ctx.path(RELEVANCE_LINKS)
            )
            out.unpersist()
            scores = read_work(spark, ctx.path(RELEVANCE_SCORES))
            links = read_work(spark, ctx.path(RELEVANCE_LINKS))
            per_topic = {
                r["topic"]: {"relevant": r["relevant"], "pages": r["pages"]}
                for r in scores.groupBy("topic")
                .agg(
                    F.sum(F.col("relevant").cast("int")).alias("relevant"),
                    F.count("*").alias("pages"),
                )
                .collect()
            }
            for r in links.groupBy("topic").count().collect():
                per_topic.setdefault(r["topic"], {})["links"] = r["count"]
            stats["topics"] = per_topic
        tagvec = None
        if cascade_tok is not None:
            tv = pages.rdd.mapPartitions(lambda it: tag_vectors(it, n_docs, df))
            spark.createDataFrame(tv, TAGVEC_SCHEMA).write.mode("overwrite").parquet(
                ctx.path(TAGVEC)
            )
            tagvec = read_work(spark, ctx.path(TAGVEC))
            stats["tag_vectors"] = tagvec.count()
        if not ctx.dry_run:
            _write_store(ctx, scores, links, tagvec)
    ctx.write_stats("relevance", stats)
    return stats


# Its result on a day with nothing to judge (no document, nothing of the day in the
# store): the runner writes it without running the stage, so no Spark job starts.
EMPTY_DAY: dict[str, Any] | None = {"skipped": "no documents"}


def summary(stats: dict[str, Any]) -> str:
    """The stage's progress line."""
    if "skipped" in stats:
        return f"skipped: {stats['skipped']}"
    kept = sum(t.get("relevant", 0) for t in stats.get("topics", {}).values())
    links = sum(t.get("links", 0) for t in stats.get("topics", {}).values())
    return f"{stats.get('pages', 0)} pages, {kept} relevant (page, topic), {links} links"
