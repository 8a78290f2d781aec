"""``crawldedup forget``: take days, or one host's pages, out of the index
(crawldedup/retention.py; docs/operations.md#retention)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from crawldedup.cli.parser import UsageError, _context
from crawldedup.cli.read_commands import _existing_store
from crawldedup.config import Config

if TYPE_CHECKING:
    from crawldedup.retention import Forgotten
    from crawldedup.store import Store


def cmd_forget(args: argparse.Namespace, cfg: Config) -> int:
    from crawldedup.retention import Forgotten as Counts
    from crawldedup.retention import days_in, forget_day, forget_host, forgotten_log
    from crawldedup.store import open_store
    from crawldedup.store_lock import store_lock

    if args.last is not None and args.first is None:
        raise UsageError("crawldedup forget: --to needs --from")
    first = args.first
    last = args.last or first
    if first is not None and last < first:
        raise UsageError(f"crawldedup forget: --to {last} is before --from {first}")
    ctx = _context(args, cfg, first or "1970-01-01", None)
    url = _existing_store(ctx)
    dry = not args.yes
    what = f"host {args.host}" if args.host else f"days {first} .. {last}"
    opts = {"splits": cfg.bloom.scan_splits, "batch_size": cfg.limits.store_batch_size}

    def forget(store: Store) -> Forgotten:
        why = "crawldedup forget" + ("" if dry else " --yes")
        if args.host:
            return forget_host(store, args.host, dry_run=dry, why=why, **opts)
        out = Counts()
        days = days_in(store, first, last)
        if not days:
            print(f"crawldedup: the store has no published day in {what}", file=sys.stderr)
        for day in days:
            done = forget_day(store, day, dry_run=dry, why=why, **opts)
            out.add(done)
            if not dry:
                print(f"crawldedup: forgot {day}: {done.line()}", file=sys.stderr)
        return out

    if dry:
        with open_store(url) as store:
            out = forget(store)
    else:
        with store_lock(url, f"forget {what}"), open_store(url) as store:
            out = forget(store)
    verb = "forgot" if not dry else "would forget"
    print(json.dumps({"what": what, "dry_run": dry, **out.__dict__}, sort_keys=True))
    print(f"crawldedup: {verb} {what}: {out.line()}", file=sys.stderr)
    if args.log:
        with open_store(url) as store:
            for entry in forgotten_log(store):
                print(json.dumps(entry, sort_keys=True))
    if dry and not args.dry_run:
        print(
            f"crawldedup: nothing forgotten: add --yes to forget {what} (--dry-run to only look)",
            file=sys.stderr,
        )
        return 2
    return 0
