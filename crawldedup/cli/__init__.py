"""The ``crawldedup`` command line (the contract is in the README, "Using it").

Exit codes: 0 success, 1 failure while running, 2 bad usage or configuration, 3 the day
ran and was published but failed the data-quality gate (quarantined share above
``gate.max_quarantined_share``); always one readable line on stderr.

By concern: ``parser`` (the arguments and their checks), ``run_commands`` (run and stage:
locks, Spark session, the day's stages), ``read_commands`` (the commands that print a
published day); here, the dispatch and the mapping of outcomes to exit codes.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence

from crawldedup.cli.forget_command import cmd_forget
from crawldedup.cli.parser import (
    UsageError,
    _config,
    _day,
    _override,
    _Parser,
    build_parser,
    default_home,
)
from crawldedup.cli.read_commands import (
    cmd_explain,
    cmd_groups,
    cmd_mirrors,
    cmd_relevance,
    cmd_report,
    cmd_verdicts,
)
from crawldedup.cli.run_commands import GateFailed, _progress, cmd_run, cmd_stage
from crawldedup.config import Config, ConfigError
from crawldedup.day_state import RerunRefused

# What the jobs, the tests, the demo and the benchmarks import from here.
__all__ = [
    "EXIT_GATE",
    "GateFailed",
    "UsageError",
    "_Parser",
    "_config",
    "_day",
    "_one_line",
    "_override",
    "_progress",
    "build_parser",
    "default_home",
    "job_main",
    "main",
]

EXIT_GATE = 3
"""``crawldedup run`` / ``stage ... report``: the day was published and reported but fails
the data-quality gate (crawldedup.gate: no documents, the quarantined share, the duplicate
rate against the trailing days)."""

COMMANDS: dict[str, Callable[[argparse.Namespace, Config], int]] = {
    "run": cmd_run,
    "stage": cmd_stage,
    "verdicts": cmd_verdicts,
    "explain": cmd_explain,
    "report": cmd_report,
    "groups": cmd_groups,
    "mirrors": cmd_mirrors,
    "relevance": cmd_relevance,
    "forget": cmd_forget,
}


def main(argv: Sequence[str] | None = None) -> int:
    t0 = time.perf_counter()
    try:
        args = build_parser().parse_args(argv)
        cfg = _config(args)
        handler = COMMANDS[args.command]
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


def job_main(argv: Sequence[str]) -> int:
    """Entry point of ``jobs/day.py`` (spark-submit): ``crawldedup stage ARGS``."""
    return main(["stage", *argv])


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
