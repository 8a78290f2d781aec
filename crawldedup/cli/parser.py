"""The command line's arguments: the argparse tree, the checks of dates, overrides and
input folders, and what the parsed arguments make (the config, a day's context)."""

from __future__ import annotations

import argparse
import os
import re
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from crawldedup.config import CONFIG_ENV, Config, ConfigError, build_config, parse_override
from crawldedup.stage_registry import NAMES as STAGE_NAMES

if TYPE_CHECKING:
    from crawldedup.pipeline.context import DayContext


class UsageError(Exception):
    """Bad flags, dates, folders or config: exit 2."""


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


def add_common_options(sp: argparse.ArgumentParser, home_note: str = "") -> None:
    """--home, --config, --store and --set, as every command that opens a store takes them."""
    sp.add_argument(
        "--home",
        type=Path,
        default=None,
        help="folder of the embedded store and work files "
        f"(default $CRAWLDEDUP_HOME, else ./.crawldedup){home_note}",
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
        help="override one config value, e.g. cascade.min_jaccard=0.8",
    )


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="crawldedup", description="Daily de-duplication of web crawls.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    common = add_common_options

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
    r.add_argument(
        "--through",
        type=_day,
        default=None,
        metavar="DATE",
        help="then run each following day through DATE, in order, in the same Spark "
        "session, from the dt=D folders beside --input (a backlog pays one Spark start)",
    )
    common(r)

    s = sub.add_parser(
        "stage", help="run some stages of a day, in order, in one Spark session (jobs/day.py)"
    )
    s.add_argument("names", nargs="+", choices=STAGE_NAMES, metavar="STAGE")
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
    s.add_argument(
        "--run-id",
        default=None,
        help="who runs the stages (the DAG run): a retry with the same id resumes after "
        "the stages that run already finished",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="print the last stage's outcome as one JSON object on stdout (the report's "
        "counts and gate failures, commit's parameters), also when the gate fails: what "
        "the DAG's tasks push to XCom",
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

    add_forget_parser(sub)
    return p


def add_forget_parser(sub: argparse._SubParsersAction[Any]) -> None:
    f = sub.add_parser(
        "forget",
        help="take days, or one host's pages, out of the index (published verdicts stay)",
    )
    what = f.add_mutually_exclusive_group(required=True)
    what.add_argument("--from", dest="first", type=_day, metavar="DATE", help="first day")
    what.add_argument("--host", default=None, help="every page of this host, every day")
    f.add_argument("--to", dest="last", type=_day, metavar="DATE", help="last day (default --from)")
    act = f.add_mutually_exclusive_group()
    act.add_argument(
        "--dry-run", action="store_true", help="print what would go (rows, cells, bytes)"
    )
    act.add_argument("--yes", action="store_true", help="forget; without it nothing is removed")
    f.add_argument("--log", action="store_true", help="print the store's log of forgets")
    add_common_options(f)


def _config(args: argparse.Namespace) -> Config:
    return build_config(args.config, args.store, args.overrides)


def _context(args: argparse.Namespace, cfg: Config, day: str, input_dir: Path | None) -> DayContext:
    from crawldedup.pipeline.context import DayContext

    home = (args.home or default_home()).resolve()
    return DayContext(
        day=day,
        home=home,
        cfg=cfg,
        input_dir=input_dir,
        dry_run=getattr(args, "dry_run", False),
        replace=getattr(args, "replace", False),
        run_id=getattr(args, "run_id", None),
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
