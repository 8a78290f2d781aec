"""Small days, where the per-run fixed cost is the day: two codes alternating, whole runs.

A `crawldedup run` of a 1,600-page day spends most of its time on what does not depend on
the day's size (the JVM, about 70-100 Spark jobs, the Python workers' start). A change to
that cost is a few seconds in ~50, and this machine's noise between two runs is a third;
so this runs the real-text 3-day crawl (`benchmarks.realtext.build`) with a baseline
commit's code and the work tree's, alternating the order each round (A B, B A, ...), each
on a fresh home, and prints per code the median wall and CPU seconds of the three runs,
split into the driver JVM, the Python workers and the driver's Python, with the ratios;
datasketch MinHashLSH@0.8 (`benchmarks/realtext_quality.py`'s peer, reading the same
files) runs once per round beside them. Every round's verdicts of both codes are compared
line by line (`crawldedup verdicts`).

    .venv/bin/python benchmarks/small_days.py --baseline 62ce1ec --rounds 3
    .venv/bin/python benchmarks/small_days.py --baseline 62ce1ec --data /tmp/rt/set3 \\
        --days 2026-11-01
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from realtext_quality import run_minhash  # noqa: E402  # the same peer as the quality table
from throughput import ProcessTree, _export  # noqa: E402

DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]
PARTS = ("jvm", "workers", "driver")


class SplitTree(ProcessTree):
    """``ProcessTree`` that also keeps the CPU of the Python workers (pyspark's daemon
    and its forks) apart from the driver's Python."""

    def __init__(self, pid: int) -> None:
        self.workers: set[int] = set()
        super().__init__(pid)

    def _sample(self) -> None:
        super()._sample()
        try:
            kids = psutil.Process(self._proc.pid).children(recursive=True)
        except psutil.Error:
            return
        for p in kids:
            try:
                if "pyspark.daemon" in " ".join(p.cmdline()):
                    self.workers.add(p.pid)
            except psutil.Error:
                continue

    def split(self) -> dict[str, float]:
        with self._lock:
            jvm = sum(v for pid, v in self._cpu.items() if pid in self._jvm)
            workers = sum(v for pid, v in self._cpu.items() if pid in self.workers)
            total = sum(self._cpu.values())
        return {"jvm": jvm, "workers": workers, "driver": total - jvm - workers}


def run_days(
    code: str, tree: Path | None, data: Path, days: list[str], home: Path
) -> dict[str, Any]:
    """The days in order on a fresh ``home``; ``tree`` None: the work tree's code."""
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    prefix = [sys.executable, "-m", "crawldedup.cli"]
    walls: list[float] = []
    cpu = dict.fromkeys(PARTS, 0.0)
    for d in days:
        cmd = [*prefix, "run", "--date", d, "--input", str(data / f"dt={d}"), "--home", str(home)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            env=env,
            cwd=str(tree or ROOT),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        sampler = SplitTree(proc.pid)
        out, _ = proc.communicate()
        walls.append(time.perf_counter() - t0)
        sampler.stop()
        if proc.returncode not in (0, 3):
            raise SystemExit(f"{code}: run {d} exited {proc.returncode}:\n{out[-2000:]}")
        for k, v in sampler.split().items():
            cpu[k] += v
    verdicts = day_verdicts(days, home, env, tree or ROOT)
    return {"walls": walls, "wall": sum(walls), "cpu": cpu, "verdicts": verdicts}


def day_verdicts(days: list[str], home: Path, env: dict[str, str], cwd: Path) -> list[str]:
    """`crawldedup verdicts` of each day, its lines sorted, run by the code in ``cwd``."""
    verdicts: list[str] = []
    for d in days:
        listing = subprocess.run(
            [sys.executable, "-m", "crawldedup.cli", "verdicts", "--date", d, "--home", str(home)],
            env=env,
            cwd=str(cwd),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        verdicts += sorted(line for line in listing.splitlines() if line.strip())
    return verdicts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", type=Path, help="a realtext set (default: built under --work)")
    ap.add_argument("--days", nargs="+", default=DAYS)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "small-days")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    data = args.data or args.work / "set"
    if not (data / f"dt={args.days[0]}").is_dir():
        build = [sys.executable, "-m", "benchmarks.realtext.build", "--out", str(data)]
        subprocess.run(build, cwd=ROOT, check=True)
    base_tree = _export(args.baseline, args.work)
    codes: list[tuple[str, Path | None]] = [(args.baseline, base_tree), ("work tree", None)]
    results: dict[str, list[dict[str, Any]]] = {c: [] for c, _ in codes}
    peer: list[float] = []
    for r in range(args.rounds):
        for code, tree in codes if r % 2 == 0 else codes[::-1]:
            res = run_days(code, tree, data, args.days, args.work / "home")
            results[code].append(res)
            cpu = " ".join(f"{k} {v:.1f}" for k, v in res["cpu"].items())
            walls = " + ".join(f"{w:.1f}" for w in res["walls"])
            print(f"round {r + 1} {code}: {res['wall']:.1f} s ({walls}); CPU s {cpu}", flush=True)
        peer.append(run_minhash(data, 0.8).seconds)
        print(f"round {r + 1} datasketch MinHashLSH@0.8: {peer[-1]:.1f} s", flush=True)
        a, b = (results[c][-1]["verdicts"] for c, _ in codes)
        same = sum(x == y for x, y in zip(a, b, strict=False))
        print(f"round {r + 1} verdicts identical: {same} of {max(len(a), len(b))}", flush=True)

    def med(code: str, f: Any) -> float:
        return float(statistics.median(f(x) for x in results[code]))

    print(f"\nmedians of {args.rounds} rounds, {len(args.days)} days each:")
    print("| code | wall s | CPU s | JVM | Python workers | driver Python | x datasketch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    peer_s = statistics.median(peer)
    rows = {}
    for code, _ in codes:
        row = {"wall": med(code, lambda x: x["wall"])}
        row["cpu"] = med(code, lambda x: sum(x["cpu"].values()))
        for k in PARTS:
            row[k] = med(code, lambda x, k=k: x["cpu"][k])
        rows[code] = row
        print(
            f"| {code} | {row['wall']:.1f} | {row['cpu']:.1f} | {row['jvm']:.1f} | "
            f"{row['workers']:.1f} | {row['driver']:.1f} | {row['wall'] / peer_s:.1f} |"
        )
    print(f"| datasketch MinHashLSH@0.8 | {peer_s:.1f} | | | | | 1.0 |")
    old, new = rows[args.baseline], rows["work tree"]
    ratios = ", ".join(f"{k} {new[k] / old[k]:.2f}" for k in ("wall", "cpu", *PARTS) if old[k])
    print(f"work tree / {args.baseline}: {ratios}")
    out = args.work / "small_days.json"
    out.write_text(json.dumps({"rows": rows, "datasketch_s": peer}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
