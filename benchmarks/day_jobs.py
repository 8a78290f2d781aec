"""What a day's run asks of Spark: jobs, stages, shuffles and task CPU, from Spark's own
event log, beside the process tree's CPU.

    .venv/bin/python benchmarks/day_jobs.py ~/.cache/crawldedup-bench/rt50k/dt=2026-11-01 \
        ~/.cache/crawldedup-bench/rt50k/dt=2026-11-02 [--top 8]

Each day folder (``dt=YYYY-MM-DD``) runs in order as one ``crawldedup run``, into one
fresh home, so a later day meets the index the earlier ones wrote. The event log is
turned on through ``PYSPARK_SUBMIT_ARGS`` (``--conf spark.eventLog.*``), which keeps the
Spark configuration crawldedup ships and its class archive; the log folder is fixed
(``--events``), so the archive's name is the same from one invocation to the next
(the first run of a new folder writes one, the 5-15 s it costs once are in that run).

Per day it prints: wall and CPU seconds of the whole process tree (as
``benchmarks/crawl_vs_peers.py`` measures them), its driver JVM's and its Python
processes' CPU (sampled: a lower bound; the JVM's by thread role: planning, JIT, tasks,
GC; the Python command line's apart from Spark's Python workers), crawldedup's stages'
wall seconds (its stderr lines), the jobs, stages and tasks Spark ran, the executors'
task CPU (``Executor CPU Time``: the JVM's side of the tasks, not the Python workers'),
their GC time, the bytes shuffled, and the stages that ran longest (the
call site Spark names for each). Issue 44 asks for the jobs and shuffles of a day before
and after a change: run this at both commits.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).parent))
from crawl_vs_peers import become_subreaper, run_tree


@dataclass
class StageCost:
    name: str
    tasks: int = 0
    cpu_s: float = 0.0
    run_s: float = 0.0
    gc_s: float = 0.0
    shuffle_write_mb: float = 0.0


@dataclass
class DayLog:
    jobs: int = 0
    stages: dict[int, StageCost] = field(default_factory=dict)

    @property
    def tasks(self) -> int:
        return sum(s.tasks for s in self.stages.values())

    def total(self, attr: str) -> float:
        return sum(float(getattr(s, attr)) for s in self.stages.values())


def read_event_log(path: Path) -> DayLog:
    """The jobs and per-stage task metrics of one application's (uncompressed) event log:
    a file, or Spark's rolling folder of ``events_*`` files."""
    files = sorted(path.glob("events_*")) if path.is_dir() else [path]
    log = DayLog()
    names: dict[int, str] = {}
    costs: dict[int, StageCost] = defaultdict(lambda: StageCost(""))
    for f in files:
        with f.open(encoding="utf-8") as fh:
            for line in fh:
                event = json.loads(line)
                kind = event.get("Event")
                if kind == "SparkListenerJobStart":
                    log.jobs += 1
                elif kind == "SparkListenerStageSubmitted":
                    info = event["Stage Info"]
                    names[info["Stage ID"]] = info["Stage Name"]
                elif kind == "SparkListenerTaskEnd":
                    m = event.get("Task Metrics") or {}
                    c = costs[event["Stage ID"]]
                    c.tasks += 1
                    c.cpu_s += m.get("Executor CPU Time", 0) / 1e9
                    c.run_s += m.get("Executor Run Time", 0) / 1e3
                    c.gc_s += m.get("JVM GC Time", 0) / 1e3
                    written = (m.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0)
                    c.shuffle_write_mb += written / 1e6
    for sid, c in costs.items():
        c.name = names.get(sid, "?")
        log.stages[sid] = c
    return log


# The driver JVM's threads by what they do, from their names (/proc/PID/task/TID/comm,
# cut at 15 characters): py4j's command threads ("Thread-N") run what Python asks of the
# JVM (a query's analysis, optimization, planning and code generation); the executor's
# task threads run the tasks (Arrow to and from Python, Parquet, shuffles).
THREAD_ROLES = (
    ("tasks", re.compile(r"^Executor task")),
    ("planning (py4j)", re.compile(r"^Thread-\d+$")),
    ("JIT", re.compile(r"^C[12] CompilerThre")),
    ("GC", re.compile(r"^(GC Thread|G1 |VM Thread)")),
    ("main", re.compile(r"^java$")),
)


def thread_role(name: str) -> str:
    return next((role for role, pattern in THREAD_ROLES if pattern.match(name)), "other")


class ProcessSplit(threading.Thread):
    """Samples, while a run lives, the CPU seconds of every process under the one whose
    command line holds ``marker``: the driver JVM (and its threads by role:
    :data:`THREAD_ROLES`) apart from the Python processes (the command line; its workers).
    A lower bound: a process's or thread's last quarter second before it exits is not
    seen."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self.marker = marker
        self.cpu: dict[int, tuple[str, float]] = {}
        self.threads: dict[tuple[int, int], tuple[str, float]] = {}
        self.done = threading.Event()

    def _root(self) -> psutil.Process | None:
        for p in psutil.process_iter(["cmdline"]):
            if self.marker in " ".join(p.info["cmdline"] or []):
                return p
        return None

    def _sample_threads(self, p: psutil.Process) -> None:
        for t in p.threads():
            try:
                name = Path(f"/proc/{p.pid}/task/{t.id}/comm").read_text().strip()
            except OSError:
                continue
            self.threads[(p.pid, t.id)] = (thread_role(name), t.user_time + t.system_time)

    def run(self) -> None:
        root = None
        while not self.done.is_set():
            root = root or self._root()
            if root is not None:
                try:
                    procs = [root, *root.children(recursive=True)]
                except psutil.NoSuchProcess:
                    procs = []
                for p in procs:
                    try:
                        t = p.cpu_times()
                        name = p.name()
                        kind = "jvm" if name == "java" else "other"
                        if p.pid == root.pid or "python" in name:  # root: `crawldedup`
                            line = " ".join(p.cmdline())
                            worker = any(m in line for m in ("worker_daemon", "pyspark."))
                            kind = "python worker" if worker else "python"
                        self.cpu[p.pid] = (kind, t.user + t.system)
                        if kind == "jvm":
                            self._sample_threads(p)
                    except psutil.Error:
                        continue
            time.sleep(0.25)

    def of(self, *kinds: str) -> float:
        return sum(c for k, c in self.cpu.values() if k in kinds)

    def jvm_roles(self) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for role, cpu in self.threads.values():
            out[role] += cpu
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def newest_app(events: Path, before: set[Path]) -> Path:
    """The event log the last run wrote into ``events``."""
    new = [p for p in events.iterdir() if p not in before and not p.name.endswith(".inprogress")]
    if not new:
        raise SystemExit(f"no event log appeared in {events}")
    return max(new, key=lambda p: p.stat().st_mtime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("days", nargs="+", type=Path, help="day folders dt=YYYY-MM-DD, in order")
    ap.add_argument("--home", type=Path, help="crawldedup's home (default: a new temp folder)")
    ap.add_argument(
        "--events",
        type=Path,
        default=Path.home() / ".cache" / "crawldedup-bench" / "eventlog",
        help="Spark's event log folder (kept: one application folder per run)",
    )
    ap.add_argument("--top", type=int, default=8, help="stages listed per day, longest first")
    args = ap.parse_args(argv)
    if not become_subreaper():
        print("warning: not a child subreaper: CPU misses the orphaned JVMs", file=sys.stderr)
    args.events.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="crawldedup-dayjobs-"))  # the runs' logs
    home = args.home or work / "home"
    env = dict(os.environ)
    env["PYSPARK_SUBMIT_ARGS"] = (
        "--conf spark.eventLog.enabled=true --conf spark.eventLog.compress=false "
        f"--conf spark.eventLog.dir=file://{args.events.resolve()} pyspark-shell"
    )
    crawldedup = str(Path(sys.executable).parent / "crawldedup")
    print(f"home {home}; run logs in {work}; event logs under {args.events}")
    header = (
        "| day | wall s | CPU s | JVM CPU s | Python CPU s | jobs | stages | tasks | "
        "task CPU s | GC s | shuffle MB |"
    )
    rows: list[str] = []
    for folder in args.days:
        day = folder.name.removeprefix("dt=")
        before = set(args.events.iterdir())
        cmd = [crawldedup, "run", "--date", day, "--input", str(folder), "--home", str(home)]
        split = ProcessSplit(f"--input {folder}")
        split.start()
        tree = run_tree(cmd, work / f"run-{day}.log", env=env)
        split.done.set()
        split.join()
        if tree.rc != 0:
            raise SystemExit(f"crawldedup run --date {day} exited {tree.rc}: {work}/run-{day}.log")
        log = read_event_log(newest_app(args.events, before))
        rows.append(
            f"| {day} | {tree.wall:.1f} | {tree.cpu:.1f} | {split.of('jvm'):.1f} | "
            f"{split.of('python', 'python worker'):.1f} | {log.jobs} | {len(log.stages)} | "
            f"{log.tasks} | {log.total('cpu_s'):.2f} | {log.total('gc_s'):.2f} | "
            f"{log.total('shuffle_write_mb'):.1f} |"
        )
        stage_s = ", ".join(f"{stage} {secs:.1f}" for _, stage, secs, _ in tree.stages)
        print(f"\n{day}: crawldedup's stages, wall s: {stage_s}")
        roles = ", ".join(f"{r} {c:.1f}" for r, c in split.jvm_roles().items())
        print(f"{day}: the driver JVM's threads, CPU s: {roles}")
        print(
            f"{day}: Python CPU s: the command line {split.of('python'):.1f}, "
            f"Spark's Python workers {split.of('python worker'):.1f}"
        )
        print(f"{day}: the {args.top} longest Spark stages (task run time, all tasks)")
        longest = sorted(log.stages.items(), key=lambda kv: -kv[1].run_s)[: args.top]
        for sid, c in longest:
            print(
                f"  stage {sid:3d} run {c.run_s:6.2f} s, task CPU {c.cpu_s:5.2f} s, "
                f"{c.tasks:3d} tasks, shuffle {c.shuffle_write_mb:5.1f} MB  {c.name[:70]}"
            )
    print("\n" + header + "\n|---|" + "---:|" * 10)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
