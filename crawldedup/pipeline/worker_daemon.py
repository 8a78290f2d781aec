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
"""

from __future__ import annotations

import gc


def _preload() -> None:
    """The modules every stage's tasks import (the stage registry imports the stages)."""
    import pyarrow.compute
    import pyarrow.parquet  # noqa: F401
    import pyspark.worker  # noqa: F401

    import crawldedup.pipeline.stages  # noqa: F401


def main() -> None:
    gc.disable()  # no collection leaves holes in the pages the workers share
    try:
        _preload()
    finally:
        gc.freeze()
        gc.enable()
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
