"""Local vs standalone cluster: the same crawl day, stage by stage, on ``local[2]`` and on
the two-worker standalone cluster (``scripts/spark_cluster.sh``: 2 workers × 1 core), both
submitted the production way (``spark-submit jobs/<stage>.py --py-files <zip>``, one
application per stage, built by the Spark provider's hook: ``crawldedup_airflow.submit_day``,
the airflow extra) against HBase (a table prefix per mode, dropped afterwards). Prints per
stage the wall time of the submission (JVM start included), the stage's own time inside the
application, and the shuffle bytes read and written, read from each application's Spark
event log (``spark.eventLog.enabled``; the stages without Spark have none).

    source scripts/env.sh && scripts/hbase.sh up
    .venv/bin/python benchmarks/cluster_vs_local.py --docs 100000 [--work DIR] [--json OUT]

The day is ``crawldedup_demo.generate_sample`` (one day, about 1.6 documents per
original: ~60 % originals, ~37 % copies of eight kinds, 13 % HTML pages) scaled to
``--docs``. The cluster is started if it is not up, and stopped again if this run started it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from crawldedup.config import Config
from crawldedup.pipeline.submit import build_dist
from crawldedup.stage_registry import plan, stage
from crawldedup_airflow.submit_day import spark_conn_env, submit_day

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "scripts" / "spark_cluster.sh"
DAY = "2026-11-01"
DOCS_PER_ORIGINAL = 1.625  # generate_sample: 600 originals -> 975 records
STAGES = plan(Config())
_STAGE_LINE = re.compile(r"\] 1/1 (\w+)\s+([\d.]+)s")


def event_metrics(folder: Path) -> dict[str, float]:
    """Sums over the task-end events of the one event log in ``folder``."""
    # One application per folder; a rolling log is a folder of parts (events_1_..., ...).
    logs = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not logs:
        raise RuntimeError(f"no event log in {folder}")
    out = dict.fromkeys(
        (
            "tasks",
            "shuffle_read",
            "shuffle_write",
            "run_ms",
            "cpu_ms",
            "input_bytes",
            "output_bytes",
        ),
        0.0,
    )
    for log in logs:
        with log.open(encoding="utf-8") as fh:
            for line in fh:
                if '"SparkListenerTaskEnd"' in line:
                    add_task(out, json.loads(line).get("Task Metrics") or {})
    return out


def add_task(out: dict[str, float], m: dict[str, Any]) -> None:
    """Add one task's metrics (a SparkListenerTaskEnd's "Task Metrics") to the sums."""
    read = m.get("Shuffle Read Metrics", {})
    out["tasks"] += 1
    out["shuffle_read"] += read.get("Remote Bytes Read", 0) + read.get("Local Bytes Read", 0)
    out["shuffle_write"] += m.get("Shuffle Write Metrics", {}).get("Shuffle Bytes Written", 0)
    out["run_ms"] += m.get("Executor Run Time", 0)
    out["cpu_ms"] += m.get("Executor CPU Time", 0) / 1e6
    out["input_bytes"] += m.get("Input Metrics", {}).get("Bytes Read", 0)
    out["output_bytes"] += m.get("Output Metrics", {}).get("Bytes Written", 0)


def run_mode(
    mode: str,
    master: str,
    sample: Path,
    work: Path,
    store: str,
    py_files: Path,
    driver_memory: str,
) -> dict[str, dict[str, Any]]:
    """Submit the day's stages on ``master`` (a spark connection of its own); metrics
    per stage."""
    results: dict[str, dict[str, Any]] = {}
    conn_id = f"crawldedup_cvl_{slug(mode)}"
    os.environ.update(spark_conn_env(master, conn_id))
    home = work / f"home-{slug(mode)}"
    for name in STAGES:
        conf: dict[str, str] = {}
        events = work / "events" / slug(mode) / name
        spark = stage(name).spark  # commit and report run without Spark: no event log
        if spark:
            events.mkdir(parents=True, exist_ok=True)
            conf = {
                "spark.eventLog.enabled": "true",
                "spark.eventLog.dir": f"file://{events}",
                "spark.eventLog.compress": "false",
                "spark.eventLog.rolling.enabled": "false",
            }
        [run] = submit_day(
            DAY,
            sample / f"dt={DAY}",
            home,
            store,
            py_files,
            conn_id=conn_id,
            conf=conf,
            driver_memory=driver_memory,
            stages=(name,),
        )
        found = _STAGE_LINE.findall(run.output)  # the driver's lines, in spark-submit's
        row: dict[str, Any] = {
            "wall_s": run.seconds,
            "stage_s": float(found[-1][1]) if found else 0,
        }
        if spark:
            row |= event_metrics(events)
        results[name] = row
        print(f"  {mode:<8} {name:<11} {run.seconds:7.1f}s wall", file=sys.stderr, flush=True)
    report = json.loads((home / "work" / f"dt={DAY}" / "report.json").read_text())
    results["_report"] = report
    return results


def slug(mode: str) -> str:
    """A folder or table name for a mode: local[2] -> local2 (no glob characters)."""
    return re.sub(r"[^a-z0-9]", "", mode)


def mib(n: float) -> str:
    return f"{n / 2**20:.2f}"


def table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    modes = list(results)
    head = ["stage"]
    for m in modes:
        head += [f"{m} wall s", f"{m} stage s", f"{m} shuffle read MiB", f"{m} shuffle write MiB"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    totals = {
        m: dict.fromkeys(("wall_s", "stage_s", "shuffle_read", "shuffle_write"), 0.0) for m in modes
    }
    for name in STAGES:
        cells = [name]
        for m in modes:
            r = results[m][name]
            for k in totals[m]:
                totals[m][k] += r.get(k, 0)
            if not stage(name).spark:
                cells += [f"{r['wall_s']:.1f}", f"{r['stage_s']:.1f}", "–", "–"]
            else:
                cells += [
                    f"{r['wall_s']:.1f}",
                    f"{r['stage_s']:.1f}",
                    mib(r["shuffle_read"]),
                    mib(r["shuffle_write"]),
                ]
        lines.append("| " + " | ".join(cells) + " |")
    cells = ["**total**"]
    for m in modes:
        t = totals[m]
        cells += [
            f"**{t['wall_s']:.1f}**",
            f"**{t['stage_s']:.1f}**",
            f"**{mib(t['shuffle_read'])}**",
            f"**{mib(t['shuffle_write'])}**",
        ]
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--docs", type=int, default=100_000, help="documents in the day (100000)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--work", type=Path, default=None, help="scratch folder (kept if given)")
    p.add_argument("--hbase", default="127.0.0.1:9090", help="HBase Thrift host:port")
    p.add_argument("--master", default="spark://127.0.0.1:7077")
    p.add_argument("--modes", default="local[2],cluster", help="local[2],cluster")
    p.add_argument("--driver-memory", default="2g")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = p.parse_args()

    from crawldedup.store.hbase_store import HBaseStore

    sys.path.insert(0, str(ROOT / "demo"))
    from crawldedup_demo import generate_sample

    work = args.work or Path(tempfile.mkdtemp(prefix="crawldedup-cvl-"))
    work.mkdir(parents=True, exist_ok=True)
    sample = work / "sample"
    t0 = time.perf_counter()
    if not (sample / f"dt={DAY}").is_dir():
        generate_sample(
            sample, days=1, seed=args.seed, originals_per_day=round(args.docs / DOCS_PER_ORIGINAL)
        )
    print(f"sample in {sample} ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
    py_files = build_dist(work / "dist")

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    started = False
    if (
        "cluster" in modes
        and subprocess.run([str(CLUSTER), "status"], capture_output=True).returncode
    ):
        subprocess.run([str(CLUSTER), "up"], check=True)
        started = True
    host, port = args.hbase.rsplit(":", 1)
    tag = uuid.uuid4().hex[:6]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    try:
        for mode in modes:
            master = args.master if mode == "cluster" else mode
            prefix = f"bench_cvl_{slug(mode)}_{tag}"
            shutil.rmtree(work / f"home-{slug(mode)}", ignore_errors=True)
            shutil.rmtree(work / "events" / slug(mode), ignore_errors=True)
            try:
                results[mode] = run_mode(
                    mode,
                    master,
                    sample,
                    work,
                    f"hbase://{args.hbase}/{prefix}",
                    py_files,
                    args.driver_memory,
                )
            finally:
                HBaseStore(host, int(port), prefix=prefix).drop_all()
    finally:
        if started:
            subprocess.run([str(CLUSTER), "down"], check=False)

    first = next(iter(results.values()))["_report"]
    print(f"\nday {DAY}: {json.dumps({k: first.get(k) for k in ('documents', 'unique')})}")
    for mode, r in results.items():
        rep = r["_report"]
        print(
            f"{mode}: documents {rep.get('documents')}, unique {rep.get('unique')}, "
            f"duplicates {rep.get('duplicates')}"
        )
    print()
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
