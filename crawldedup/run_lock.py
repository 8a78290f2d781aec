"""One run at a time per home: an exclusive lock on ``HOME/run.lock``.

Two runs on one home (two days at once, or the same day twice) share the work folders
and the embedded store; the second one now stops at once, naming the holder, instead of
publishing a day that misses the other day's documents or crashing half-way. The lock is
the operating system's (``flock``), so a killed run releases it with its process.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class RunLocked(RuntimeError):
    """Another run holds the home."""


@contextmanager
def home_lock(home: Path, what: str) -> Iterator[None]:
    """Hold the home's run lock for the block; ``what`` (e.g. "run 2026-11-02") is written
    into the lock file, so that the next one can say who holds it."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "run.lock"
    with open(path, "a+", encoding="utf-8") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "unknown"
            raise RunLocked(
                f"another run holds {home} ({holder}); wait for it to end, or use another --home"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(f"{what}, pid {os.getpid()}")
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()
            fcntl.flock(f, fcntl.LOCK_UN)
