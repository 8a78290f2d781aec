"""``python -m crawldedup_demo demo|sample``: the demo and the sample crawl, from the repo.

    python -m crawldedup_demo demo [--days N] [--seed S] [--home DIR] [--config F]
                                   [--store URL] [--set KEY=VALUE ...]
    python -m crawldedup_demo sample --out DIR [--days N] [--seed S] [--start YYYY-MM-DD]

``demo`` writes the sample crawl under HOME/demo, runs every day and prints the summary
(``make demo`` runs it through scripts/demo.sh); ``sample`` writes the sample crawl and
its truth to DIR and prints what it wrote as JSON. Neither ships with the engine: this
package lives in the repo's demo/ folder (scripts put it on PYTHONPATH).

Exit codes as ``crawldedup``'s: 0 success, 1 failure while running, 2 bad usage or
configuration, always with one readable line on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from crawldedup.cli import UsageError, _day, _one_line, _Parser, _progress, default_home
from crawldedup.cli.parser import add_common_options
from crawldedup.config import ConfigError, build_config

PROG = "crawldedup_demo"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="The sample crawl and the demo of crawldedup.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sm = sub.add_parser("sample", help="write a sample crawl that knows its truth")
    sm.add_argument("--out", required=True, type=Path)
    sm.add_argument("--days", type=int, default=3)
    sm.add_argument("--seed", type=int, default=7)
    sm.add_argument("--start", type=_day, default="2026-11-01")

    d = sub.add_parser("demo", help="generate the sample, run every day, print a summary")
    d.add_argument("--days", type=int, default=3)
    d.add_argument("--seed", type=int, default=7)
    add_common_options(d, home_note="; the demo uses HOME/demo")
    return p


def sample_command(args: argparse.Namespace) -> int:
    from crawldedup_demo import generate_sample

    summary = generate_sample(
        args.out, days=args.days, seed=args.seed, start=date.fromisoformat(args.start)
    )
    print(json.dumps(_jsonable(summary), indent=2, ensure_ascii=False))
    return 0


def _jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (date, datetime, Path)):
        return str(obj)
    return obj


def demo_command(args: argparse.Namespace) -> int:
    from crawldedup_demo.demo import run_demo

    cfg = build_config(args.config, args.store, args.overrides)
    home = (args.home or default_home()).resolve()
    return run_demo(home, cfg, days=args.days, seed=args.seed, progress=_progress)


def main(argv: Sequence[str] | None = None) -> int:
    t0 = time.perf_counter()
    try:
        args = build_parser().parse_args(argv)
        if args.command == "sample":
            return sample_command(args)
        code = demo_command(args)
        _progress(f"done in {time.perf_counter() - t0:.1f}s")
        return code
    except (UsageError, ConfigError) as exc:
        msg = str(exc)
        print(msg if msg.startswith("crawldedup") else f"{PROG}: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:
        if os.environ.get("CRAWLDEDUP_DEBUG"):
            traceback.print_exc()
        print(f"{PROG}: failed: {_one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
