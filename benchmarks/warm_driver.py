"""What a long-lived driver would save on small days: the same days, cold and warm.

`crawldedup run` starts a driver JVM per day; on a 1,600-page day most of its time is the
JVM's start and its first queries (class loading, the JIT, code generation), not the
pages. This runs the real-text 3-day crawl three ways, side by side in one run:

* ``cli``: three `crawldedup run` commands (the user's path today);
* ``one driver, cold``: the three days in this process, one Spark session
  (``build_session``, as the CLI builds it) started for them;
* ``one driver, warm``: the same three days again on a fresh home, in the same session;

and datasketch MinHashLSH@0.8 on the same files (`benchmarks/realtext_quality.py`'s
peer). The verdicts of the three ways are compared line by line.

    .venv/bin/python benchmarks/warm_driver.py --data /tmp/rt/set3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from realtext_quality import run_minhash  # noqa: E402
from small_days import DAYS, day_verdicts, run_days  # noqa: E402


def in_process(
    spark: object, cfg: Any, data: Path, days: list[str], home: Path
) -> tuple[list[float], list[str]]:
    from crawldedup.pipeline.context import DayContext
    from crawldedup.pipeline.stages import day_stages, run_day

    shutil.rmtree(home, ignore_errors=True)
    walls = []
    for d in days:
        ctx = DayContext(day=d, home=home, cfg=cfg, input_dir=data / f"dt={d}")
        t0 = time.perf_counter()
        run_day(spark, ctx, stages=day_stages(cfg))  # type: ignore[arg-type]
        walls.append(time.perf_counter() - t0)
    return walls, day_verdicts(days, home, dict(os.environ), ROOT)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a benchmarks.realtext set")
    ap.add_argument("--days", nargs="+", default=DAYS)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "warm-driver")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)

    from crawldedup.config import load_config
    from crawldedup.pipeline.jit import day_input_bytes
    from crawldedup.pipeline.spark import build_session

    cli = run_days("cli", None, args.data, args.days, args.work / "home-cli")
    print(f"cli: {cli['wall']:.1f} s ({' + '.join(f'{w:.1f}' for w in cli['walls'])})")

    t0 = time.perf_counter()
    day_bytes = day_input_bytes([args.data / f"dt={d}" for d in args.days])
    cfg = load_config(None)
    spark = build_session(cfg, "crawldedup-warm", day_bytes=day_bytes)
    start = time.perf_counter() - t0
    cold, cold_v = in_process(spark, cfg, args.data, args.days, args.work / "home-cold")
    warm, warm_v = in_process(spark, cfg, args.data, args.days, args.work / "home-warm")
    spark.stop()
    peer = run_minhash(args.data, 0.8).seconds

    rows = [
        ("cli", cli["wall"], cli["walls"]),
        ("one driver, cold (with its start)", start + sum(cold), [start, *cold]),
        ("one driver, warm", sum(warm), warm),
        ("datasketch MinHashLSH@0.8", peer, []),
    ]
    print("| way | wall s | parts | x datasketch |")
    print("| --- | ---: | --- | ---: |")
    for name, total, parts in rows:
        split = " + ".join(f"{p:.1f}" for p in parts)
        print(f"| {name} | {total:.1f} | {split} | {total / peer:.1f} |")
    same_cold = sum(a == b for a, b in zip(cli["verdicts"], cold_v, strict=False))
    same_warm = sum(a == b for a, b in zip(cli["verdicts"], warm_v, strict=False))
    n = len(cli["verdicts"])
    print(f"verdicts identical to the cli's: cold {same_cold} of {n}, warm {same_warm} of {n}")
    (args.work / "warm_driver.json").write_text(
        json.dumps({"rows": [(r[0], r[1], r[2]) for r in rows]}, indent=2)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
