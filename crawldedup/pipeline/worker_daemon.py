"""The Python worker daemon of crawldedup's Spark jobs (``spark.python.daemon.module``).

pyspark's daemon forks the Python workers, and after every task a worker runs a full
garbage collection (``gc.collect()`` in ``pyspark/daemon.py``). A worker that has
imported pyarrow, numpy, pyspark and crawldedup's stages tracks about 90,000 objects,
and each of those collections walks them all, a few hundred times a day (a day of the
49.5k crawl: 8 of its 42 Python CPU seconds, sampled with py-spy over the whole process
tree).

This daemon imports what the tasks import before it forks, then freezes those objects
out of the collector (``gc.freeze()``, as the gc module's documentation advises for a
server that forks workers). A worker starts with the modules loaded instead of
importing them itself, and its collections walk only what its tasks made.

Where pyspark is installed by pip, Spark still puts archives first on a worker's path:
its copies of pyspark and py4j as zips (``pyspark/python/lib``) and its core jar (5,854
entries, no Python in it). Imported from a zip, every module is compiled again at each
start (a zip keeps no bytecode cache), and a worker rereads the directory of each archive
at its first task (pyspark calls ``importlib.invalidate_caches()`` when it adds the
application's files folder to the path: 84 ms a call). The daemon takes those
archives off its path when they lie inside the installed pyspark, whose own files are the
same code.
"""

from __future__ import annotations

import gc
import sys
import traceback
from pathlib import Path


def _installed_copies_off_path() -> None:
    """sys.path (and its finders) without the archives of the installed pyspark's
    ``python/lib`` and ``jars``."""
    installed = next(
        (
            Path(p) / "pyspark"
            for p in sys.path
            if p and not p.endswith(".zip") and (Path(p) / "pyspark" / "__init__.py").is_file()
        ),
        None,
    )
    if installed is None:  # a Spark distribution: its zips are the only pyspark
        return
    folders = {(installed / "python" / "lib").resolve(), (installed / "jars").resolve()}

    def copy(p: str) -> bool:
        return p.endswith((".zip", ".jar")) and Path(p).resolve().parent in folders

    sys.path[:] = [p for p in sys.path if not copy(p)]
    # Finders already made for them (the import of this module looked there first).
    for p in [p for p in sys.path_importer_cache if copy(p)]:
        del sys.path_importer_cache[p]


def _preload() -> None:
    """The modules every stage's tasks import: every stage's module."""
    import pyarrow.compute
    import pyarrow.parquet  # noqa: F401
    import pyspark.worker  # noqa: F401

    from crawldedup.pipeline.stages import all_units

    all_units()


def prepare() -> None:
    """The daemon's state before it forks: its path, the modules loaded, frozen."""
    _installed_copies_off_path()
    gc.disable()  # no collection leaves holes in the pages the workers share
    try:
        _preload()
    except Exception:
        # Not fatal: a task that imports the same module raises the error itself, in its
        # traceback, where Spark reports it; a daemon that died here would only leave
        # "Python worker exited unexpectedly". Standard error: stdout is the protocol.
        traceback.print_exc()
    finally:
        gc.freeze()
        gc.enable()


def main() -> None:
    prepare()
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
