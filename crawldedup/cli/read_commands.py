"""The commands that only read a published day: verdicts, report, explain, groups,
mirrors, relevance. Each opens the store read-only through ``_published_day`` and prints
to stdout; "nothing to show" is one line on stderr and exit 1."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawldedup.cli.parser import UsageError, _context
from crawldedup.config import Config

if TYPE_CHECKING:
    from crawldedup.pipeline.context import DayContext
    from crawldedup.store import Store


def _existing_store(ctx: DayContext) -> str:
    """The store URL of a command that only reads: an embedded store must exist (a typo
    in --home must not create an empty one and answer with nothing)."""
    url: str = ctx.store
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).is_file():
        raise UsageError(
            f"crawldedup: no store at {url[len('sqlite:///') :]} (check --home or --store; "
            "`crawldedup run` creates it)"
        )
    return url


@contextmanager
def _published_day(args: argparse.Namespace, cfg: Config) -> Iterator[tuple[DayContext, Store]]:
    """Day ``--date``'s context and its store, opened read-only, once the day is known not
    to be half-published (a reader refuses such a day)."""
    from crawldedup.day_state import require_complete
    from crawldedup.store import open_store

    ctx = _context(args, cfg, args.date, None)
    with open_store(_existing_store(ctx), read_only=True) as store:
        require_complete(store, ctx.day)
        yield ctx, store


def _check_top(args: argparse.Namespace) -> None:
    if args.top < 1:
        raise UsageError("crawldedup: --top must be >= 1")


def _print_json_lines(rows: Iterable[Any]) -> None:
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


def cmd_verdicts(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.store.schema import VerdictRecord

    with _published_day(args, cfg) as (ctx, store):
        rows = store.scan_prefix("verdicts", f"{ctx.day}|")
        _print_json_lines(VerdictRecord.from_row(key, row).as_json() for key, row in rows)
    return 0


def cmd_report(args: argparse.Namespace, cfg: Config) -> int:
    with _published_day(args, cfg) as (ctx, store):
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

    with _published_day(args, cfg) as (ctx, store):
        try:
            lines = explain(store, ctx.home, ctx.day, args.id, cfg, args.other)
        except ExplainError as exc:
            print(f"crawldedup: {exc}", file=sys.stderr)
            return 1
    print("\n".join(lines))
    return 0


def cmd_groups(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.views import top_groups

    _check_top(args)
    with _published_day(args, cfg) as (ctx, store):
        _print_json_lines(view.as_json() for view in top_groups(store, ctx.day, args.top))
    return 0


def cmd_mirrors(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.views import mirrors

    with _published_day(args, cfg) as (ctx, store):
        _print_json_lines(view.as_json() for view in mirrors(store, ctx.day, args.min_pairs))
    return 0


def cmd_relevance(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.relevance.views import top_links, top_pages

    _check_top(args)
    with _published_day(args, cfg) as (ctx, store):
        pages = top_pages(store, ctx.day, args.topic, args.top)
        links = top_links(store, ctx.day, args.topic, args.top)
    if not pages:
        print(f"crawldedup: no relevance scores for {args.topic!r} on {ctx.day}", file=sys.stderr)
        return 1
    _print_json_lines(pages + links)
    return 0
