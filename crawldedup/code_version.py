"""Which code wrote a stage's outputs: a digest of the package's sources.

Every stage stamps its stats with it (``work/dt=D/stats/<stage>.json``, key ``code``).
A stage run on its own (the DAG's tasks) first checks the stamps of the day's earlier
stages: a deploy between two tasks of one day reruns the day's stages from the first,
instead of mixing two versions' work files.
"""

from __future__ import annotations

import hashlib
import zipfile
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def code_version() -> str:
    """12 hex digits of the sha256 over the package's Python sources (path and bytes),
    read from the folder, or from the zip when the package runs from one (spark-submit's
    ``--py-files``: the executors' lean zip holds a subset, so it has its own stamp)."""
    digest = hashlib.sha256()
    for name, data in _sources():
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(data)
    return digest.hexdigest()[:12]


def _sources() -> list[tuple[str, bytes]]:
    if PACKAGE.is_dir():
        return [
            (p.relative_to(PACKAGE).as_posix(), p.read_bytes())
            for p in sorted(PACKAGE.rglob("*.py"))
            if "__pycache__" not in p.parts
        ]
    archive = next((p for p in PACKAGE.parents if p.is_file()), None)
    if archive is None:
        return []
    prefix = PACKAGE.relative_to(archive).as_posix() + "/"
    with zipfile.ZipFile(archive) as z:
        names = sorted(n for n in z.namelist() if n.startswith(prefix) and n.endswith(".py"))
        return [(n[len(prefix) :], z.read(n)) for n in names]
