"""The ``crawldedup`` command line (the contract is in the README, "Using it").

Exit codes: 0 success, 1 failure while running, 2 bad usage or configuration, 3 the day
ran and was published but failed the data-quality gate (quarantined share above
``gate.max_quarantined_share``); always one readable line on stderr.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, NoReturn

from crawldedup.config import CONFIG_ENV, Config, ConfigError, build_config, parse_override
from crawldedup.day_state import RerunRefused
from crawldedup.run_lock import home_lock
from crawldedup.stage_registry import NAMES as STAGE_NAMES
from crawldedup.stage_registry import stage
from crawldedup.store_lock import store_lock

EXIT_GATE = 3
"""``crawldedup run``: the day was published but its quarantined share is over the gate."""


class UsageError(Exception):
    """Bad flags, dates, folders or config: exit 2."""


class GateFailed(Exception):
    """The day ran and was published, but failed the data-quality gate: exit 3."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block; one line is what a scheduler log needs.
        raise UsageError(f"{self.prog}: {message}")


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(value: str) -> str:
    # fromisoformat alone also takes 20261110 and 2026-W46-2: only the calendar form.
    try:
        if not _DAY.fullmatch(value):
            raise ValueError(value)
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from None


def _override(value: str) -> tuple[str, Any]:
    try:
        return parse_override(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def default_home() -> Path:
    return Path(os.environ.get("CRAWLDEDUP_HOME") or ".crawldedup")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="crawldedup", description="Daily de-duplication of web crawls.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--home",
            type=Path,
            default=None,
            help="folder of the embedded store and work files "
            "(default $CRAWLDEDUP_HOME, else ./.crawldedup)",
        )
        sp.add_argument(
            "--config", type=Path, default=None, help=f"TOML config file (default ${CONFIG_ENV})"
        )
        sp.add_argument(
            "--store", default=None, help="store URL: sqlite:///path or hbase://host:port[/prefix]"
        )
        sp.add_argument(
            "--set",
            dest="overrides",
            action="append",
            type=_override,
            default=[],
            metavar="KEY=VALUE",
            help="override one config value, e.g. cascade.threshold=0.8",
        )

    r = sub.add_parser("run", help="de-duplicate day D against every earlier day")
    r.add_argument("--date", required=True, type=_day)
    r.add_argument("--input", required=True, type=Path, help="the day's crawl folder")
    r.add_argument(
        "--dry-run", action="store_true", help="compute verdicts, write nothing to the store"
    )
    r.add_argument(
        "--replace",
        "--allow-empty",
        dest="replace",
        action="store_true",
        help="rerun a published day even from an empty folder or far fewer documents "
        "(under limits.min_rerun_share of them): the missing ones' verdicts are removed",
    )
    r.add_argument(
        "--cascade-later",
        action="store_true",
        help="then rerun every later published day, in order, from the dt=D folders beside "
        "--input (without it, later days keep their verdicts and groups)",
    )
    common(r)

    s = sub.add_parser("stage", help="run one stage of a day (the jobs/ entry points use this)")
    s.add_argument("name", choices=STAGE_NAMES)
    s.add_argument("--date", required=True, type=_day)
    s.add_argument("--input", type=Path, default=None)
    s.add_argument("--dry-run", action="store_true")
    s.add_argument(
        "--replace",
        action="store_true",
        help="publish: replace a published day even with far fewer documents",
    )
    s.add_argument(
        "--rebuild-blocks",
        action="store_true",
        help="bloom only: rebuild the store's Bloom filter blocks from the index tables "
        "(repair; runs by itself when bloom.* changed)",
    )
    common(s)

    v = sub.add_parser("verdicts", help="print day D's verdicts as JSON Lines")
    v.add_argument("--date", required=True, type=_day)
    common(v)

    rep = sub.add_parser("report", help="print day D's report (JSON)")
    rep.add_argument("--date", required=True, type=_day)
    rep.add_argument(
        "--html",
        action="store_true",
        help="write the day's HTML report to HOME/reports/dt=D/index.html and print its path",
    )
    common(rep)

    ex = sub.add_parser(
        "explain",
        help="why document ID of day D got its verdict: shared keys, measure, lines",
    )
    ex.add_argument("--date", required=True, type=_day)
    ex.add_argument("id", help="the document's id")
    ex.add_argument(
        "--with", dest="other", default=None, help="compare with this id (default: duplicate_of)"
    )
    common(ex)

    g = sub.add_parser("groups", help="day D's most copied articles (JSON Lines)")
    g.add_argument("--date", required=True, type=_day)
    g.add_argument("--top", type=int, default=20)
    common(g)

    mi = sub.add_parser("mirrors", help="host pairs serving the same content on day D")
    mi.add_argument("--date", required=True, type=_day)
    mi.add_argument("--min-pairs", type=int, default=2)
    common(mi)

    rv = sub.add_parser(
        "relevance", help="day D's most relevant pages and top frontier links for a topic"
    )
    rv.add_argument("--date", required=True, type=_day)
    rv.add_argument("--topic", required=True)
    rv.add_argument("--top", type=int, default=10)
    common(rv)

    return p


def _config(args: argparse.Namespace) -> Config:
    return build_config(args.config, args.store, args.overrides)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _context(args: argparse.Namespace, cfg: Config, day: str, input_dir: Path | None) -> Any:
    from crawldedup.pipeline.context import DayContext

    home = (args.home or default_home()).resolve()
    return DayContext(
        day=day,
        home=home,
        cfg=cfg,
        input_dir=input_dir,
        dry_run=getattr(args, "dry_run", False),
        replace=getattr(args, "replace", False),
    )


_DT_FOLDER = re.compile(r"dt=(\d{4}-\d{2}-\d{2})")


def _check_input(path: Path, day: str | None = None) -> Path:
    if not path.is_dir():
        raise UsageError(f"crawldedup: input folder not found: {path}")
    found = _DT_FOLDER.fullmatch(path.resolve().name)
    if day is not None and found and found.group(1) != day:
        raise UsageError(
            f"crawldedup: --date {day} but the input folder is {path.resolve().name}: "
            "the day's data would land under another day"
        )
    return path.resolve()


def _complete_day(store: Any, day: str) -> Any:
    """The store, after checking that ``day`` is not half-published (a reader refuses it)."""
    from crawldedup.day_state import require_complete

    require_complete(store, day)
    return store


def _existing_store(ctx: Any) -> str:
    """The store URL of a command that only reads: an embedded store must exist (a typo
    in --home must not create an empty one and answer with nothing)."""
    url: str = ctx.store
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).is_file():
        raise UsageError(
            f"crawldedup: no store at {url[len('sqlite:///') :]} (check --home or --store; "
            "`crawldedup run` creates it)"
        )
    return url


def cmd_run(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.gate import quarantine_failure
    from crawldedup.pipeline.later_days import rerun_with_later_days
    from crawldedup.pipeline.spark import build_session
    from crawldedup.pipeline.stages import day_stages, preflight

    ctx = _context(args, cfg, args.date, _check_input(args.input, args.date))
    if cfg.relevance.library:
        from crawldedup.relevance.library import load_library

        load_library(cfg.relevance.library)  # a bad library exits 2 before Spark starts
    stages = day_stages(cfg)
    with home_lock(ctx.home, f"run {ctx.day}"):
        preflight(ctx, stages)  # an unreachable store fails in a second, not after Spark
        if not args.replace:
            _refuse_emptying_a_published_day(ctx)
        later = _later_days(ctx) if args.cascade_later else []
        with store_lock(ctx.store, f"run {ctx.day}", progress=_progress):
            _progress(f"[{ctx.day}] starting Spark ({cfg.spark.master}), store {ctx.store}")
            spark = build_session(cfg, "crawldedup-run")
            try:
                reports = rerun_with_later_days(spark, ctx, later, _progress, stages)
            finally:
                spark.stop()
    failures = []
    for report in reports:
        _print_report_summary(report)
        failure = quarantine_failure(report, cfg.gate)
        if failure:
            failures.append(failure)
    if failures:
        raise GateFailed("; ".join(failures))
    return 0


def _later_days(ctx: Any) -> list[Any]:
    from crawldedup.pipeline.later_days import LaterDaysError, later_days

    try:
        return later_days(ctx)
    except LaterDaysError as exc:
        raise UsageError(f"crawldedup: {exc}") from None


def _refuse_emptying_a_published_day(ctx: Any) -> None:
    """A rerun replaces the day: from a folder without data files (a crawl not landed yet,
    a wrong path) it would delete every verdict, document and posting of the day."""
    from crawldedup.ingest.readers import select_input_files
    from crawldedup.store import open_store

    if select_input_files(ctx.input_dir).files:
        return
    with open_store(ctx.store) as store:
        published = bool(store.get("days", [ctx.day]).get(ctx.day))
    if published:
        raise UsageError(
            f"crawldedup: {ctx.input_dir} has no data files but {ctx.day} is published in "
            f"{ctx.store}; a rerun would remove its verdicts (--replace to do that)"
        )


def cmd_stage(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.pipeline.spark import build_session
    from crawldedup.pipeline.stages import preflight, run_day

    if stage(args.name).reads_input:
        if args.input is None:
            raise UsageError(f"crawldedup: the {args.name} stage needs --input")
        args.input = _check_input(args.input, args.date)
    if args.rebuild_blocks and args.name != "bloom":
        raise UsageError("crawldedup: --rebuild-blocks belongs to the bloom stage")
    ctx = _context(args, cfg, args.date, args.input)
    if args.rebuild_blocks:
        from crawldedup.pipeline import bloom_stage

        with home_lock(ctx.home, f"bloom rebuild {ctx.day}"):
            preflight(ctx, ("bloom",))
            with store_lock(ctx.store, f"bloom rebuild {ctx.day}", progress=_progress):
                spark = build_session(cfg, "crawldedup-bloom-rebuild")
                try:
                    stats = bloom_stage.run(spark, ctx, force_scan=True)
                finally:
                    spark.stop()
        keys = sum(f["keys"] for f in stats["filters"].values())
        _progress(f"[{ctx.day}] Bloom blocks rebuilt from the index tables: {keys} keys")
        return 0
    if not stage(args.name).spark:
        # Commit and report read counts and write a row: no JVM to start.
        with home_lock(ctx.home, f"stage {args.name} {ctx.day}"):
            run_day(None, ctx, _progress, stages=(args.name,))
        return 0
    with home_lock(ctx.home, f"stage {args.name} {ctx.day}"):
        preflight(ctx, (args.name,))
        with store_lock(ctx.store, f"stage {args.name} {ctx.day}", progress=_progress):
            spark = build_session(cfg, f"crawldedup-{args.name}")
            try:
                run_day(spark, ctx, _progress, stages=(args.name,))
            finally:
                spark.stop()
    return 0


def cmd_verdicts(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.store import open_store
    from crawldedup.store.schema import VerdictRecord

    ctx = _context(args, cfg, args.date, None)
    out = sys.stdout
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        for key, row in store.scan_prefix("verdicts", f"{ctx.day}|"):
            rec = VerdictRecord.from_row(key, row)
            out.write(json.dumps(rec.as_json(), ensure_ascii=False) + "\n")
    return 0


def cmd_report(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.store import open_store

    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        row = store.get("days", [ctx.day]).get(ctx.day)
    if not row:
        print(f"crawldedup: no report for {ctx.day} in {ctx.store}", file=sys.stderr)
        return 1
    if args.html:
        from crawldedup.reporting import write_report

        print(write_report(ctx.store, ctx.home, ctx.day, ctx.quarantine_dir))
        return 0
    print(row["r:report"].decode())
    return 0


def cmd_explain(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.explain import ExplainError, explain
    from crawldedup.store import open_store

    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        try:
            lines = explain(store, ctx.home, ctx.day, args.id, cfg, args.other)
        except ExplainError as exc:
            print(f"crawldedup: {exc}", file=sys.stderr)
            return 1
    print("\n".join(lines))
    return 0


def cmd_groups(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.store import open_store
    from crawldedup.views import top_groups

    if args.top < 1:
        raise UsageError("crawldedup: --top must be >= 1")
    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        for view in top_groups(store, ctx.day, args.top):
            print(json.dumps(view.as_json(), ensure_ascii=False))
    return 0


def cmd_mirrors(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.store import open_store
    from crawldedup.views import mirrors

    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        for view in mirrors(store, ctx.day, args.min_pairs):
            print(json.dumps(view.as_json(), ensure_ascii=False))
    return 0


def cmd_relevance(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.relevance.views import top_links, top_pages
    from crawldedup.store import open_store

    if args.top < 1:
        raise UsageError("crawldedup: --top must be >= 1")
    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as opened:
        store = _complete_day(opened, ctx.day)
        pages = top_pages(store, ctx.day, args.topic, args.top)
        links = top_links(store, ctx.day, args.topic, args.top)
    if not pages:
        print(f"crawldedup: no relevance scores for {args.topic!r} on {ctx.day}", file=sys.stderr)
        return 1
    for line in pages + links:
        print(json.dumps(line, ensure_ascii=False))
    return 0


def _print_report_summary(report: dict[str, Any]) -> None:
    dups = ", ".join(f"{k} {v}" for k, v in sorted(report["duplicates"].items())) or "none"
    q = report["quarantined_total"]
    print(
        f"{report['day']}: {report['documents']} docs, {report['unique']} unique, "
        f"{report['duplicates_total']} duplicates ({dups}), {q} quarantined"
    )


def main(argv: Sequence[str] | None = None) -> int:
    t0 = time.perf_counter()
    try:
        args = build_parser().parse_args(argv)
        cfg = _config(args)
        handler = {
            "run": cmd_run,
            "stage": cmd_stage,
            "verdicts": cmd_verdicts,
            "explain": cmd_explain,
            "report": cmd_report,
            "groups": cmd_groups,
            "mirrors": cmd_mirrors,
            "relevance": cmd_relevance,
        }[args.command]
        try:
            return handler(args, cfg)
        finally:
            if args.command == "run" and sys.exc_info()[0] in (None, GateFailed):
                _progress(f"done in {time.perf_counter() - t0:.1f}s")
    except GateFailed as exc:
        print(f"crawldedup: data-quality gate failed: {exc}", file=sys.stderr)
        return EXIT_GATE
    except (UsageError, ConfigError, RerunRefused) as exc:
        msg = str(exc)
        print(msg if msg.startswith("crawldedup") else f"crawldedup: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("crawldedup: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:
        if os.environ.get("CRAWLDEDUP_DEBUG"):
            traceback.print_exc()
        print(f"crawldedup: failed: {_one_line(exc)}", file=sys.stderr)
        return 1


def job_main(job_file: str, argv: Sequence[str]) -> int:
    """Entry point of ``jobs/<stage>.py`` (spark-submit): the file's name is the stage."""
    return main(["stage", Path(job_file).stem, *argv])


_DISK_FULL = ("No space left on device", "database or disk is full", "the disk is full")


def _one_line(exc: BaseException) -> str:
    """The failure in one line; a full disk is named as such wherever it surfaced (a
    Spark write's IOException deep in a Java trace, SQLite, Python's OSError)."""
    text = str(exc).strip().splitlines()
    line = text[0][:500] if text else type(exc).__name__
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 10:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    full = "\n".join(str(c) for c in chain)
    if any(getattr(c, "errno", None) == errno.ENOSPC for c in chain) or any(
        marker in full for marker in _DISK_FULL
    ):
        if "disk is full" in line:
            return line
        return (
            f"the disk is full (no space left on device): free space, then rerun the day ({line})"
        )
    return line
