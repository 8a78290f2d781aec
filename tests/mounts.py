"""Real read-only and full file systems for the fault tests: a read-only bind mount and a
small tmpfs. Mounting needs root (CI and this machine run tests as root); elsewhere the
tests that need them are skipped, saying why. Nothing is simulated."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    proc = subprocess.run(["mount", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount here ({proc.stderr.strip() or proc.returncode}): needs root")


@contextmanager
def read_only_view(folder: Path) -> Iterator[Path]:
    """``folder`` seen through a read-only bind mount (writes fail with EROFS)."""
    view = folder.parent / f"ro-{uuid.uuid4().hex[:8]}"
    view.mkdir()
    _mount("--bind", str(folder), str(view))
    try:
        proc = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(view)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            pytest.skip(f"cannot remount read-only: {proc.stderr.strip()}")
        yield view
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


@contextmanager
def small_file_system(parent: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. "2m") under ``parent``: writes past it fail with ENOSPC."""
    mount = parent / f"small-{uuid.uuid4().hex[:8]}"
    mount.mkdir()
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount))
    try:
        yield mount
    finally:
        # Lazily: a store a failed test left open must not keep the mount.
        subprocess.run(["umount", "-l", str(mount)], check=False)
