"""The commands that only read a published day: verdicts, report, explain, groups,
mirrors, relevance. Each opens the store read-only and prints to stdout; "nothing to
show" is one line on stderr and exit 1."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from crawldedup.cli.parser import UsageError, _context
from crawldedup.config import Config


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
