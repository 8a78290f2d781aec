"""A host's boilerplate: its template lines learned over the days, and its pages
fingerprinted again without them.

See docs/algorithm.md#boilerplate. The day's line counts go to ``work/dt=D/host_lines``
and the hosts where each line is ordinary text to ``work/dt=D/line_hosts``, for the
publish stage, which adds them to the store.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark import SparkContext

from crawldedup.config import Config
from crawldedup.core.boilerplate import (
    FILL_PREFIX,
    SHAPE_PREFIX,
    HostLines,
    OwnLines,
    is_boilerplate_only,
    own_line_runs,
    strip_boilerplate,
)
from crawldedup.ingest.readers import describe, is_environment_error
from crawldedup.ingest.records import fingerprint_fields
from crawldedup.pipeline import line_filter
from crawldedup.pipeline.bucket_files import read_bucket, text_bucket, write_buckets
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.line_filter import LineFilter, line_row
from crawldedup.pipeline.part_files import PartWriter, part_file
from crawldedup.pipeline.store_batches import store_batches, tuple_batches
from crawldedup.retention import window_start
from crawldedup.stage_registry import HOST_LINES, LINE_HOSTS
from crawldedup.store import Store, open_store
from crawldedup.store.schema import line_hosts_row, served_elsewhere

# work/dt=D/host_lines: a host's line, its pages today, its pages with the earlier days',
# and whether an earlier day saw it as ordinary text of another host (looked up for the
# lines on boilerplate.min_pages pages, else false).
_HOST_LINES = pa.schema(
    [
        ("host", pa.string()),
        ("line", pa.string()),
        ("pages", pa.int64()),
        ("n", pa.int64()),
        ("elsewhere", pa.bool_()),
    ]
)
# work/dt=D/line_hosts: for each line, the first hosts where it is ordinary text.
_LINE_HOSTS = pa.schema([("line", pa.string()), ("hosts", pa.list_(pa.string()))])
# Hosts where a line was ordinary text (on fewer than min_pages of their pages), written
# a day (rows ``*|line`` of ``host_lines``): two tell "another host" from "this host".
HOSTS_KEPT = 2


def _earlier_line_counts(
    lines: Iterable[tuple[str | None, str]], store_url: str, day: str, batch_size: int, since: str
) -> Iterator[tuple[tuple[str | None, str], int]]:
    """((host, line), pages of earlier days) for the given lines that earlier days from
    ``since`` on (``index.keep_days``) counted, looked up in store batches."""

    def lookup(
        store: Store, batch: list[tuple[str | None, str]]
    ) -> Iterator[tuple[tuple[str | None, str], int]]:
        found = store.get("host_lines", [line_row(host, line) for host, line in batch])
        for host, line in batch:
            cells = found.get(line_row(host, line), {})
            n = sum(int(v) for c, v in cells.items() if since <= c[2:] < day)
            if n:
                yield (host, line), n

    return store_batches(lines, store_url, batch_size, lookup)


def _served_elsewhere(
    lines: Iterable[tuple[str | None, str]], store_url: str, day: str, batch_size: int, since: str
) -> Iterator[tuple[str | None, str]]:
    """The given (host, line) pairs whose line an earlier day from ``since`` on saw as
    ordinary text of another host (rows ``*|line``), looked up in store batches."""

    def lookup(
        store: Store, batch: list[tuple[str | None, str]]
    ) -> Iterator[tuple[str | None, str]]:
        found = store.get("host_lines", sorted({line_hosts_row(line) for _, line in batch}))
        for host, line in batch:
            if served_elsewhere(found.get(line_hosts_row(line), {}), host, day, since):
                yield host, line

    return store_batches(lines, store_url, batch_size, lookup)


def _tally_hosts(
    batches: Iterable[pa.RecordBatch],
    store_url: str,
    day: str,
    batch_size: int,
    since: str,
    min_pages: int,
    counted: LineFilter | None = None,
    looked_up: Any = None,
) -> Iterator[pa.RecordBatch]:
    """``_HOST_LINES`` rows of the hosts in one partition (every page of a host in one
    partition). Pages of a host with the same lines (an article and its exact or
    re-laid-out copies) count once: a line is a template line when it sits beside
    different content. Whether another host had the line as ordinary text on an earlier
    day (``elsewhere``) is looked up only for the lines held by ``min_pages`` pages of
    their host with the earlier days' (the only ones it decides): most of a day's lines
    are an article's own. With ``counted`` (the store's line filter), the earlier
    counts are got only for the lines it may hold, and their number added to
    ``looked_up`` (an accumulator)."""
    pages: dict[str | None, set[tuple[str, ...]]] = {}
    for b in batches:
        hosts, keys = b.column("host").to_pylist(), b.column("line_keys").to_pylist()
        for host, lines in zip(hosts, keys, strict=True):
            if lines:
                pages.setdefault(host, set()).add(tuple(lines))
    today: Counter[tuple[str | None, str]] = Counter()
    for host, line_sets in pages.items():
        for lines in line_sets:
            today.update((host, line) for line in lines)
    asked: Iterable[tuple[str | None, str]] = today
    if counted is not None:
        pairs = list(today)
        maybe = counted.may_hold([line_row(h, line) for h, line in pairs])
        asked = [hl for hl, m in zip(pairs, maybe.tolist(), strict=True) if m]
        looked_up.add(len(asked))
    earlier = dict(_earlier_line_counts(asked, store_url, day, batch_size, since))
    frequent = [hl for hl, k in today.items() if k + earlier.get(hl, 0) >= min_pages]
    elsewhere = set(_served_elsewhere(frequent, store_url, day, batch_size, since))

    def rows() -> Iterator[tuple[str | None, str, int, int, bool]]:
        for (host, line), k in today.items():
            before = earlier.get((host, line), 0)
            yield host, line, k, k + before, (host, line) in elsewhere

    yield from tuple_batches(rows(), _HOST_LINES)


# The near-duplicate keys of a page that is nothing but its host's boilerplate: none.
BOILERPLATE_ONLY_KEYS: dict[str, Any] = {
    "title_key": None,
    "head_key": None,
    "tail_key": None,
    "simhash_keys": [],
    "lsh_keys": [],
    "paragraph_keys": [],
    "boilerplate_only": True,
}


def page_text(text: str, mine: HostLines | None, cfg: Config) -> str:
    """The text a page is fingerprinted on: without its host's template lines when it
    holds any ("" when nothing of its own is left), else the whole text."""
    if mine is None or not mine.template:
        return text
    min_chars = cfg.boilerplate.min_line_chars
    cleaned = strip_boilerplate(text, mine.template, min_chars, mine.shared_fills)
    return text if cleaned is None else cleaned


def own_lines(text: str, title: str, mine: HostLines | None, cfg: Config) -> OwnLines | None:
    """The runs of the page's own text (``own_line_runs``: without its host's frequent
    lines, and without a title heading), what the page is measured on; None when it has
    no such lines or nothing else. Fingerprinted with the page (``fingerprint_fields``):
    its shingles are among the page's (none spans a removed line), so a copy of the whole
    page contains it."""
    if mine is None or not mine.frequent or not text:
        return None
    own = own_line_runs(text, mine.frequent, cfg.boilerplate.min_line_chars)
    return None if own is None else own.without_title_heading(title)


def fingerprint_pages(
    batches: Iterator[pa.RecordBatch],
    boiler: dict[str, HostLines],
    cfg: Config,
    failed: list[dict[str, Any]],
) -> Iterator[pa.RecordBatch]:
    """Every document fingerprinted once, those holding a boilerplate line of their host
    without their host's boilerplate lines (the parse only extracts the text and its
    line keys).

    A page that is nothing but boilerplate is fingerprinted on its whole text but keeps
    only its exact key (the md5 of its whole text) and its sketch: its head, tail, title,
    SimHash and LSH keys would be the site's, and would match every other page of the
    site. A page whose fingerprinting raises is left out and appended to ``failed`` as a
    ``bad_record`` quarantine row (without its raw record, which the caller reads again).
    """
    for batch in batches:
        rows: list[dict[str, Any]] = []
        for row in batch.to_pylist():
            try:
                mine = boiler.get(row["host"] or "")
                text = page_text(row["text"], mine, cfg)
                if is_boilerplate_only(text):
                    row.update(fingerprint_fields(row["title"], row["text"], cfg))
                    row.update(BOILERPLATE_ONLY_KEYS)
                else:
                    own = own_lines(text, row["title"], mine, cfg)
                    row.update(fingerprint_fields(row["title"], text, cfg, own))
            except Exception as exc:
                if is_environment_error(exc):
                    raise
                failed.append(
                    {
                        "source": row["source"],
                        "position": row["position"],
                        "reason": "bad_record",
                        "detail": describe(exc),
                        "raw": None,
                    }
                )
                continue
            rows.append(row)
        yield pa.RecordBatch.from_pylist(rows, schema=batch.schema)


def ordinary_hosts(total: pa.Table, min_pages: int) -> dict[str, list[str]]:
    """Each line that is ordinary text on some host (on fewer than ``min_pages`` of its
    pages, ``total``: the day's ``_HOST_LINES`` rows): the first ``HOSTS_KEPT`` such
    hosts, in order."""
    few = total.filter(pc.less(total.column("n"), min_pages))
    hosts: dict[str, list[str]] = {}
    for line, host in zip(
        few.column("line").to_pylist(), few.column("host").to_pylist(), strict=True
    ):
        found = hosts.setdefault(line, [])
        if host is not None:
            found.append(host)
    return {line: sorted(found)[:HOSTS_KEPT] for line, found in hosts.items()}


def write_line_hosts(ordinary: dict[str, list[str]], folder: Path) -> None:
    """``work/dt=D/line_hosts`` (``line``, ``hosts``), which publish adds to the store."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    table = pa.table({"line": list(ordinary), "hosts": list(ordinary.values())}, _LINE_HOSTS)
    pq.write_table(table, folder / "part-00000.parquet")


LINE_COLUMNS = ["host", "line_keys", "source", "position"]


def write_line_buckets(docs: pa.Table, path: Path, buckets: int) -> None:
    """A parse task's documents' hosts and line keys (``LINE_COLUMNS``) into its bucket
    file, by host: every page of a host in one bucket."""
    hosts = docs.column("host").to_pylist()
    of = np.fromiter(
        (text_bucket(h or "", buckets) for h in hosts),
        np.int64,
        len(hosts),
    )
    write_buckets(docs.select(LINE_COLUMNS), path, of, buckets)


def _without_repeats(
    batches: Iterable[pa.RecordBatch], repeated: set[tuple[str, int]]
) -> Iterator[pa.RecordBatch]:
    """The batches without the rows of repeated ids' records (``(source, position)``)."""
    for b in batches:
        if repeated:
            places = zip(
                b.column("source").to_pylist(), b.column("position").to_pylist(), strict=True
            )
            b = b.filter(pa.array([p not in repeated for p in places], pa.bool_()))
        yield b


def learn_boilerplate(
    sc: SparkContext,
    ctx: DayContext,
    lines_dir: str,
    buckets: int,
    repeated: set[tuple[str, int]],
) -> tuple[dict[str, HostLines], dict[str, Any]]:
    """Each host's boilerplate lines (for :func:`fingerprint_pages`), and their counts.

    ``lines_dir``: the parse tasks' bucket files of the day's documents' ``host`` and
    ``line_keys`` (:func:`write_line_buckets`, ``buckets`` buckets); ``repeated``: the
    places of the records whose id came earlier in the day (not counted).

    A line is boilerplate for a host when at least ``boilerplate.min_pages`` pages of the
    host (pages with the same set of lines count once) hold it, counted over this day
    and the earlier days in the store (table ``host_lines``; a rerun does not count its
    own day twice), and no other host has it as ordinary text (on fewer than
    ``min_pages`` of its pages, today or on an earlier day: rows ``*|line``). A site's
    template lines are template wherever they are ("返回顶部" on many sites); an article
    that one host serves again and again with other decorations is ordinary text on the
    host it came from, so its lines stay. They are the host's frequent lines
    (``HostLines.frequent``, ``boilerplate.drop_frequent``): a page with text of its own
    besides them is measured without them (a list of other sites' titles on every page
    of a download site says nothing about whether two of its pages are copies). The
    day's counts go to
    ``work/dt=D/host_lines`` and the hosts where each line is ordinary text to
    ``work/dt=D/line_hosts``, for the publish stage.
    """
    cfg, bp = ctx.cfg, ctx.cfg.boilerplate
    # A Python task per bucket holds every page of its hosts, counted there with the
    # earlier days' counts from the store (_tally_hosts): no Spark shuffle.
    store_url, day, batch = ctx.store, ctx.day, cfg.limits.store_batch_size
    since = window_start(day, cfg.index.keep_days)  # earlier days the index keeps
    min_pages = bp.min_pages
    out_dir = ctx.folder(HOST_LINES)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)

    filter_stats: dict[str, int] = {}
    blocks = None
    if line_filter.is_on(cfg, store_url):
        with open_store(store_url) as store:
            loaded, filter_stats["rebuilt_from_rows"] = line_filter.load(
                store, cfg, write=not ctx.dry_run
            )
        blocks = sc.broadcast(loaded)
    looked_up = sc.accumulator(0)

    def tally(parts: Iterable[int]) -> Iterator[int]:
        counted = None if blocks is None else line_filter.LineFilter(blocks.value)
        for b in parts:
            pages = _without_repeats(read_bucket(lines_dir, b), repeated)
            out = PartWriter(part_file(out_dir, b), _HOST_LINES)
            for rows in _tally_hosts(
                pages, store_url, day, batch, since, min_pages, counted, looked_up
            ):
                out.write(rows)
            out.close()
            yield b

    sc.parallelize(range(buckets), buckets).mapPartitions(tally).collect()
    if blocks is not None:
        blocks.unpersist()
    # The day's counts are a few hundred thousand rows: read here with pyarrow, not
    # grouped and joined by the JVM (two shuffles and a collect cost it more).
    total = pq.read_table(ctx.path(HOST_LINES), schema=_HOST_LINES)
    ordinary = ordinary_hosts(total, bp.min_pages)
    write_line_hosts(ordinary, ctx.folder(LINE_HOSTS))
    # Lines held by min_pages pages of a host: its template, unless they are ordinary
    # text elsewhere (another host had them on fewer pages, or an earlier day saw them
    # there); then they are the host's frequent lines (HostLines.frequent). In the same
    # pass, the fills on two or more of a host's pages (kept for the hosts whose
    # template has a shape: a line removed by its shape keeps any other fill).
    n, line = total.column("n"), total.column("line")
    kept = total.filter(
        pc.or_(
            pc.greater_equal(n, bp.min_pages),
            pc.and_(pc.starts_with(line, FILL_PREFIX), pc.greater_equal(n, 2)),
        )
    )
    template: dict[str, set[str]] = {}
    frequent: dict[str, set[str]] = {}
    fills: dict[str, set[str]] = {}
    for host, line, n, elsewhere in zip(
        *(kept.column(c).to_pylist() for c in ("host", "line", "n", "elsewhere")), strict=True
    ):
        if line.startswith(FILL_PREFIX):
            fills.setdefault(host, set()).add(line)
        if n < bp.min_pages:
            continue
        if not elsewhere and line not in ordinary:
            template.setdefault(host, set()).add(line)
        elif bp.drop_frequent:
            frequent.setdefault(host, set()).add(line)
    shaped = {h for h, keys in template.items() if any(k.startswith(SHAPE_PREFIX) for k in keys)}
    fills = {h: f for h, f in fills.items() if h in shaped}
    boiler = {
        h: HostLines(
            frozenset(template.get(h, ())),
            frozenset(fills.get(h, ())),
            frozenset(frequent.get(h, ())),
        )
        for h in template.keys() | frequent.keys()
    }
    keys = [k for v in boiler.values() for k in v.template]
    shapes = sum(k.startswith(SHAPE_PREFIX) for k in keys)
    stats: dict[str, Any] = {
        "hosts": len(template),
        "lines": len(keys) - shapes,
        "shapes": shapes,
        "frequent_lines": sum(len(v.frequent) for v in boiler.values()),
    }
    if blocks is not None:  # the day's (host, line) rows, and those got from the store
        stats["line_filter"] = {
            "rows": total.num_rows,
            "looked_up": looked_up.value,
            **filter_stats,
        }
    return boiler, stats


def forget_line_counts(ctx: DayContext) -> None:
    """No pages, no line counts: a previous run's of the day must not reach publish."""
    shutil.rmtree(ctx.folder(HOST_LINES), ignore_errors=True)
    shutil.rmtree(ctx.folder(LINE_HOSTS), ignore_errors=True)
