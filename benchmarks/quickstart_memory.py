"""The quickstart's idle memory: ``scripts/airflow.sh up`` in a scratch home, wait, then
each of its processes' RSS and PSS (proportional set size: shared pages split between
the processes that map them, so the PSS column adds up to what the machine gives),
then ``down``.

    .venv/bin/python benchmarks/quickstart_memory.py [--idle 60] [--keep-triggerer]

Run it on a quiet machine: nothing is triggered, the DAG stays as ``up`` leaves it.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "airflow.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def component(cmdline: list[str]) -> str:
    """A short name for one quickstart process."""
    text = " ".join(cmdline)
    for pattern, name in (
        (r"serve-logs (\w+)", r"log server (\1)"),
        (r"airflow api-server|airflow api_server|uvicorn|api_fastapi", "api-server"),
        (r"LocalExecutor", "LocalExecutor worker"),
        (r"airflow scheduler", "scheduler"),
        (r"dag-processor|DagFileProcessor", "dag-processor"),
        (r"airflow triggerer", "triggerer"),
        (r"airflow.sh", "airflow.sh (bash)"),
        (r"^sed ", "log prefix (sed)"),
    ):
        found = re.search(pattern, text)
        if found:
            return found.expand(name)
    return text[:60]


def measure(home: Path) -> list[tuple[str, int, int]]:
    """(component, RSS, PSS) of every process of the quickstart at ``home``."""
    sid = int((home / "standalone.pid").read_text())
    rows = []
    for proc in psutil.process_iter():
        try:
            ours = os.getsid(proc.pid) == sid
            if not ours:
                ours = proc.environ().get("CRAWLDEDUP_AIRFLOW_INSTANCE") == str(home)
            if not ours:
                continue
            full = proc.memory_full_info()
            rows.append((component(proc.cmdline()), full.rss, full.pss))
        except (psutil.Error, ProcessLookupError):
            continue
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--idle", type=float, default=60.0, help="seconds to wait after `up`")
    p.add_argument(
        "--keep-triggerer", action="store_true", help="CRAWLDEDUP_AIRFLOW_TRIGGERER=true"
    )
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="qs-memory-") as tmp:
        home = Path(tmp) / "airflow"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "CRAWLDEDUP_"))}
        env.update(
            CRAWLDEDUP_AIRFLOW_HOME=str(home),
            CRAWLDEDUP_AIRFLOW_STORE="embedded",
            AIRFLOW_PORT=str(free_port()),
            AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT=str(free_port()),
            AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT=str(free_port()),
        )
        if args.keep_triggerer:
            env["CRAWLDEDUP_AIRFLOW_TRIGGERER"] = "true"
        up = subprocess.run([str(SCRIPT), "up"], env=env, cwd=ROOT, capture_output=True, text=True)
        try:
            if up.returncode != 0:
                print(up.stderr[-3000:], file=sys.stderr)
                return 1
            time.sleep(args.idle)
            rows = measure(home)
        finally:
            subprocess.run([str(SCRIPT), "down"], env=env, cwd=ROOT, capture_output=True)
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for name, rss, pss in rows:
        by[name][0] += 1
        by[name][1] += rss
        by[name][2] += pss
    mb = 1024 * 1024
    print(f"{'component':<28} {'procs':>5} {'RSS MB':>8} {'PSS MB':>8}")
    for name, (n, rss, pss) in sorted(by.items(), key=lambda kv: -kv[1][2]):
        print(f"{name:<28} {n:>5} {rss / mb:>8.0f} {pss / mb:>8.0f}")
    total_rss = sum(r[1] for r in rows) / mb
    total_pss = sum(r[2] for r in rows) / mb
    print(f"{'total':<28} {len(rows):>5} {total_rss:>8.0f} {total_pss:>8.0f}")
    print(
        f"idle {args.idle:.0f} s after up: {len(rows)} processes, "
        f"RSS {total_rss:.0f} MB, PSS {total_pss:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
