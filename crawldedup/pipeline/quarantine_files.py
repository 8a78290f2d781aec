"""The day's quarantine on disk (JSON Lines under ``quarantine/dt=D``), owner-only.

Quarantine files hold raw pages: their folders are 0700 and their files 0600, and the
parent folder is made private before anything is written, so there is no window where
others can read them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pyspark.sql import DataFrame


def _private_dir(folder: Path) -> None:
    """``folder`` owner-only (0700); missing parents get the default mode."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)


def _private_tree(folder: Path) -> None:
    """Quarantine files hold raw pages: folders 0700, files 0600, links left alone."""
    folder.chmod(0o700)
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames:
            if not os.path.islink(os.path.join(dirpath, name)):
                os.chmod(os.path.join(dirpath, name), 0o700)
        for name in filenames:
            if not os.path.islink(os.path.join(dirpath, name)):
                os.chmod(os.path.join(dirpath, name), 0o600)


def write_quarantine(quarantined: DataFrame, folder: Path) -> None:
    """``quarantined`` (QUARANTINE rows) as one JSON Lines file in ``folder``, owner-only."""
    _private_dir(folder.parent)  # no window where others can read raw pages
    quarantined.coalesce(1).write.mode("overwrite").json(str(folder))
    _private_tree(folder)


def write_empty_quarantine(folder: Path) -> None:
    """An empty quarantine for a day without files: the folder alone, owner-only."""
    _private_dir(folder.parent)
    if folder.exists():
        shutil.rmtree(folder)
    _private_dir(folder)
