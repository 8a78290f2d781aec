"""What the product adds to Spark's own start: an empty day against a bare SparkSession.

    .venv/bin/python benchmarks/empty_day.py --rounds 3

Each round runs, alternating, (a) a bare local SparkSession started, used for one tiny
job and stopped, in a fresh Python process, and (b) ``crawldedup run`` of a day folder
with no data files, on a fresh home (a new embedded store). Wall and CPU seconds of each
process tree (the Python process, its JVM and the Python workers), measured as
benchmarks/crawl_vs_peers.py measures them (``run_tree``: this process adopts the JVM
PySpark orphans, and samples the workers the kernel reaps itself). It prints the medians
and their ratio; the issue's bar is an empty day <= 1.5x the bare session.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from crawl_vs_peers import become_subreaper, run_tree

BARE = (
    "from pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.master('local[*]').config('spark.ui.enabled', 'false')"
    ".getOrCreate()\n"
    "s.range(1).count()\n"
    "s.stop()\n"
)


def timed(cmd: list[str], log: Path, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds of ``cmd``'s whole process tree (exit codes ``ok`` accepted)."""
    tree = run_tree(cmd, log)
    if tree.rc not in ok:
        raise SystemExit(f"{cmd[:3]} failed ({tree.rc}): see {log}")
    return tree.wall, tree.cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if not become_subreaper():
        print("warning: not a child subreaper: CPU misses the orphaned JVMs", file=sys.stderr)
    bin_dir = Path(sys.executable).parent
    work = Path(tempfile.mkdtemp(prefix="crawldedup-empty-"))
    day = work / "in" / "dt=2026-11-01"
    day.mkdir(parents=True)
    bare: list[tuple[float, float]] = []
    empty: list[tuple[float, float]] = []
    try:
        for i in range(args.rounds):
            bare.append(timed([sys.executable, "-c", BARE], work / f"bare-{i}.log"))
            home = work / f"home-{i}"
            cmd = [str(bin_dir / "crawldedup"), "run", "--date", "2026-11-01"]
            run = [*cmd, "--input", str(day), "--home", str(home)]
            # A day without documents fails the data-quality gate: exit 3, as in the DAG.
            empty.append(timed(run, work / f"empty-{i}.log", ok=(3,)))
            print(
                f"round {i + 1}: bare {bare[-1][0]:.1f} s wall {bare[-1][1]:.1f} s CPU, "
                f"empty day {empty[-1][0]:.1f} s wall {empty[-1][1]:.1f} s CPU",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    bw, bc = (statistics.median(x[k] for x in bare) for k in (0, 1))
    ew, ec = (statistics.median(x[k] for x in empty) for k in (0, 1))
    print()
    print("| run | wall s (median) | CPU s (median) |")
    print("| --- | ---: | ---: |")
    print(f"| bare local SparkSession, one job, stop | {bw:.1f} | {bc:.1f} |")
    print(f"| crawldedup run, empty day | {ew:.1f} | {ec:.1f} |")
    print(f"| ratio | {ew / bw:.2f}x | {ec / bc:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
