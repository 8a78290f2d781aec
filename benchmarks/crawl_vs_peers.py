"""crawldedup beside the scripts a user would write instead, in one run on one crawl folder.

    source scripts/env.sh
    .venv/bin/python -m benchmarks.realtext.build --out /tmp/crawl --days 3 \
        --per-day 16000 --seed 29
    .venv/bin/python benchmarks/crawl_vs_peers.py --crawl /tmp/crawl
        [--only crawldedup datasketch fast mllib] [--work DIR] [--json OUT] [--timeout 1800]
        [--index 1000000] [--store hbase://127.0.0.1:9090/bench]

The crawl is ``ROOT/dt=YYYY-MM-DD/*.jsonl[.gz]`` (``id, url, title, content`` or ``html``,
``fetched_at``), optionally with ``ROOT/truth.jsonl`` (``id, cluster``). Each tool is a
subprocess that reads the files itself, reading and HTML extraction included:

* ``crawldedup``: ``crawldedup run --date D --input ROOT/dt=D --home W/home`` per day in
  order on a fresh home, then ``crawldedup verdicts`` (groups) and ``crawldedup report``
  (documents, ``seconds`` per stage);
* ``datasketch``: benchmarks/peers/datasketch_script.py (lxml tag stripping, datasketch
  MinHash LSH, 128 permutations, char 5-grams, 0.5);
* ``fast``: benchmarks/peers/fast_script.py (resiliparse, rensa, the same shingles);
* ``mllib``: benchmarks/peers/mllib_script.py (Spark MLlib MinHashLSH self-join, local[2]),
  killed with its whole process group after ``--timeout`` seconds and reported "timeout".

``--index N`` starts crawldedup's store with N documents of the day before the crawl
(benchmarks/filler_index.py: unique keys in every index table, never candidates) and
their Bloom blocks, written untimed: the day is judged against a grown index, as a
production day is. The peers keep no index, which favours them.

Wall seconds run from the start of a process to its exit. The tables' CPU seconds are the
machine's busy CPU during the run (``/proc/stat``: every core's time but idle and iowait),
which counts every process of the run exactly once, the driver JVM, Spark's Python workers
and, against HBase, the HBase daemons included: valid on a quiet machine, which this
benchmark asks for anyway (the load average is printed with the table).

The accounting line keeps the process tree's own figure beside it, which a plain
``os.wait4`` on the child does not give, for two reasons found here:

* PySpark's driver never waits for the JVM it started: at exit the JVM is orphaned and
  its CPU (with everything it reaped) goes to init. On a 150-record day ``/usr/bin/time``
  (wait4) reported 2.3 CPU s for a 94 s run. So this script makes itself a child
  subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): orphans are re-parented to it and it
  reaps them with ``os.wait4`` too (``cpu_wait4``).
* pyspark.daemon sets SIGCHLD to SIG_IGN, so the kernel reaps its forked workers itself
  and their CPU reaches no rusage at all. psutil samples the live tree every 0.25 s and
  keeps the last-seen CPU of every process whose parent ignores SIGCHLD (read from
  /proc/PID/status); that is added (``cpu_unreaped``, short by at most one sample
  interval per such process).

That figure (``cpu_tree``: ``cpu_wait4 + cpu_unreaped``; against HBase plus the HBase
daemons' CPU) can count CPU twice: of two runs of the same crawl (2026-12-05, the code of
8bc3d70 and of 9ae7eff, identical work) the orphans' rusage differed by 29 s while the
machine's busy CPU (215.2 and 213.4 s) and the largest live sample (212.0 and 210.6 s)
agreed; it was the tables' CPU until then. The largest psutil sample of the live tree
(a lower bound) is the third cross-check.
crawldedup's CPU per stage is not in its stats: each stage's CPU is the sampled tree CPU
between its start and end (its end is when its progress line appears on stderr, its
start that minus the stage's seconds from the stats); what lies outside the stages (JVM
start, session, shutdown) is its own row.

Conditions: one run, sequential tools, nothing else should be running; the machine has
2 cores, and every concurrent Spark job slows the others 2-5x, so the load average
before and after is printed with the table. Ratios are to the datasketch script's.
Scores are pairwise over truth.jsonl's documents, by benchmarks/realtext_quality.py.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import ctypes
import datetime as dt
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from filler_index import load_fillers  # noqa: E402
from realtext_quality import crawldedup_bin, load_jsonl, score  # noqa: E402

from crawldedup.config import Config  # noqa: E402
from crawldedup.store import open_store  # noqa: E402

CPU_FIELDS = (
    "wall",
    "cpu",
    "cpu_wait4",
    "cpu_unreaped",
    "cpu_child_only",
    "cpu_sampled",
    "cpu_tree",
)
TOOLS = (
    "crawldedup",
    "crawldedup-jvm",
    "crawldedup-through",
    "crawldedup-paragraph",
    "datasketch",
    "fast",
    "mllib",
)
# crawldedup: as installed, so under the Spark configuration it ships (C1 only);
# crawldedup-jvm: under an empty SPARK_CONF_DIR (the JVM's own defaults, C2 and G1);
# crawldedup-through: one `crawldedup run --through LAST` for all the days (one session);
# crawldedup-paragraph: with rule paragraph (the excerpt keys, off by default) on.
PARAGRAPH_ON = [
    "--set",
    'cascade.rules=["content_md5","head","tail","title","simhash","lsh","paragraph"]',
]
PEER_SCRIPT = {
    "datasketch": "datasketch_script.py",
    "fast": "fast_script.py",
    "mllib": "mllib_script.py",
}
STAGE_LINE = re.compile(r"^\[([^\]]+)\] \d+/\d+ (\w+)\s+([\d.]+)s")
PR_SET_CHILD_SUBREAPER = 36
SAMPLE_S = 0.25
SIGCHLD_BIT = 1 << (signal.SIGCHLD - 1)


# --------------------------------------------------------------------------- process trees


def become_subreaper() -> bool:
    """Orphaned descendants come back to this process, to be reaped (and counted) here."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def ignores_sigchld(pid: int) -> bool:
    """Whether ``pid`` ignores SIGCHLD: then the kernel reaps its children itself."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & SIGCHLD_BIT)
    except (OSError, ValueError):
        pass
    return False


def tree_cpu(pid: int, unreaped: dict[tuple[int, float], float]) -> float:
    """CPU seconds of a live tree: each live process plus the children it has reaped.

    ``unreaped`` gets the last-seen CPU of each process whose parent ignores SIGCHLD:
    no rusage will ever carry it (pyspark.daemon ignores SIGCHLD for its workers).
    """
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for p in procs:
        try:
            with p.oneshot():
                t, ppid, key = p.cpu_times(), p.ppid(), (p.pid, p.create_time())
        except psutil.Error:
            continue
        cpu = t.user + t.system + t.children_user + t.children_system
        total += cpu
        if p.pid != pid and ignores_sigchld(ppid):
            unreaped[key] = cpu
    return total


def machine_busy_cpu() -> float:
    """CPU seconds every core of the machine has spent busy since boot (``/proc/stat``:
    all but idle and iowait): a run's difference counts each process exactly once, what
    the accounting of process trees can miss or count twice; valid on a quiet machine."""
    with open("/proc/stat", encoding="ascii") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def reap_orphans(pgid: int, grace_s: float = 60.0) -> float:
    """Wait for every re-parented descendant; their CPU (with what they reaped) in seconds."""
    cpu = 0.0
    deadline = time.monotonic() + grace_s
    while True:
        try:
            pid, _, ru = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return cpu
        if pid:
            cpu += ru.ru_utime + ru.ru_stime
            continue
        if time.monotonic() > deadline:  # a lingering orphan of this run: end it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            deadline = time.monotonic() + grace_s
        time.sleep(0.05)


@dataclass
class Tree:
    wall: float
    cpu: float  # the machine's busy CPU during the run (machine_busy_cpu): the table's
    cpu_tree: float  # the whole tree's accounting: cpu_wait4 plus cpu_unreaped
    cpu_wait4: float  # the child's wait4 rusage plus every re-parented orphan's
    cpu_unreaped: float  # auto-reaped processes (parent ignores SIGCHLD), last seen by psutil
    cpu_child_only: float  # what os.wait4 on the child alone reports
    cpu_sampled: float  # the largest psutil sample of the live tree (a lower bound)
    rc: int | None  # None: killed at the timeout
    timeline: list[tuple[float, float]] = field(default_factory=list, repr=False)
    # day, stage, its seconds, when its line appeared
    stages: list[tuple[str, str, float, float]] = field(default_factory=list)


def run_tree(
    cmd: list[str], log: Path, timeout: float | None = None, env: dict[str, str] | None = None
) -> Tree:
    """Run ``cmd`` in its own session; wall, CPU of the whole tree, stage lines on stderr."""
    t0 = time.perf_counter()
    busy0 = machine_busy_cpu()
    with log.with_suffix(".out").open("w") as out, log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
            env=env,
        )
        stages: list[tuple[str, str, float, float]] = []

        def read_stderr() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                m = STAGE_LINE.match(line)
                if m:
                    day, stage, secs = m.group(1), m.group(2), float(m.group(3))
                    stages.append((day, stage, secs, time.perf_counter() - t0))
                err.write(line)

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        timeline: list[tuple[float, float]] = [(0.0, 0.0)]
        killed = False
        unreaped: dict[tuple[int, float], float] = {}
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.perf_counter() - t0
            if timeout is not None and now > timeout:
                os.killpg(proc.pid, signal.SIGKILL)  # the child, its JVM and workers only
                killed = True
                _, status, ru = os.wait4(proc.pid, 0)
                break
            timeline.append((now, max(timeline[-1][1], tree_cpu(proc.pid, unreaped))))
            time.sleep(SAMPLE_S)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        child = ru.ru_utime + ru.ru_stime
        orphans = reap_orphans(proc.pid)
        busy = machine_busy_cpu() - busy0
        reader.join(timeout=10)
    lost = sum(unreaped.values())
    return Tree(
        wall=wall,
        cpu=busy,
        cpu_tree=child + orphans + lost,
        cpu_wait4=child + orphans,
        cpu_unreaped=lost,
        cpu_child_only=child,
        cpu_sampled=timeline[-1][1],
        rc=None if killed else proc.returncode,
        timeline=timeline,
        stages=stages,
    )


def cpu_at(timeline: list[tuple[float, float]], t: float) -> float:
    """Sampled tree CPU at wall time ``t``, interpolated between samples."""
    times = [x for x, _ in timeline]
    i = bisect.bisect_left(times, t)
    if i == 0:
        return timeline[0][1]
    if i >= len(timeline):
        return timeline[-1][1]
    (ta, ca), (tb, cb) = timeline[i - 1], timeline[i]
    return ca + (cb - ca) * (t - ta) / (tb - ta) if tb > ta else cb


# --------------------------------------------------------------------------- the tools


@dataclass
class Outcome:
    name: str
    wall: float | None = None
    cpu: float | None = None
    cpu_wait4: float | None = None
    cpu_unreaped: float | None = None
    cpu_child_only: float | None = None
    cpu_sampled: float | None = None
    cpu_tree: float | None = None
    docs: int = 0
    note: str = ""
    scores: dict[str, float] | None = None
    days: list[dict[str, Any]] = field(default_factory=list)
    groups: dict[str, str] = field(default_factory=dict, repr=False)


def cli(cmd: list[str], env: dict[str, str] | None = None) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout


def hbase_cpu() -> float:
    """CPU seconds so far of the local HBase's daemons (scripts/hbase.sh pid files): a run
    against HBase spends CPU there too, outside crawldedup's process tree."""
    run_dir = Path(os.environ.get("HBASE_DATA_DIR") or HERE.parent / ".hbase") / "run"
    total = 0.0
    for pid_file in run_dir.glob("*.pid"):
        with contextlib.suppress(OSError, ValueError, psutil.Error):
            t = psutil.Process(int(pid_file.read_text().strip())).cpu_times()
            total += t.user + t.system
    return total


def settle_hbase(busy: float = 0.15, window: float = 5.0, limit: float = 300.0) -> float:
    """Untimed: wait until the HBase daemons use under ``busy`` of a core over a
    ``window`` (the compactions the filler load set off run before the timed day, not
    inside it), at most ``limit`` seconds; returns the seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        before = hbase_cpu()
        time.sleep(window)
        if hbase_cpu() - before < busy * window:
            break
    return time.perf_counter() - t0


def store_env(work: Path, name: str, store: str | None, capacity: int = 0) -> dict[str, str] | None:
    """The environment of a tool's crawldedup commands: with ``store``, a config file
    naming it (table prefix: the store URL's, then the tool's name), its tables dropped;
    with ``capacity``, one setting ``bloom.capacity_docs`` (the Bloom blocks sized to the
    index, as docs/configuration.md asks)."""
    if not store and not capacity:
        return None
    lines = []
    if store:
        url = store + name.replace("-", "")
        with open_store(url) as s:
            drop = getattr(s, "drop_all", None)
            if drop is not None:
                drop()  # a fresh store for every measurement
        lines.append(f'store_url = "{url}"')
    if capacity:
        # A block is one store cell, and HBase refuses a cell over 10 MB
        # (hbase.client.keyvalue.maxsize): enough key ranges that the largest (the lsh
        # rule's, 24 keys a document at 14.4 bits a key) stays under 8 MB.
        splits = max(4, math.ceil(capacity * 24 * 14.4 / 8 / (8 << 20)))
        lines += ["[bloom]", f"capacity_docs = {capacity}", f"scan_splits = {splits}"]
    conf = work / f"{name}-store.toml"
    conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {**os.environ, "CRAWLDEDUP_CONFIG": str(conf)}


def preload_index(
    exe: str, home: Path, first_day: str, count: int, env: dict[str, str] | None = None
) -> float:
    """Untimed: ``count`` filler documents of the day before ``first_day`` written into
    the home's store, or the store of ``env``'s config (benchmarks/filler_index.py), and
    the Bloom blocks that earlier days' runs would have left (``stage bloom
    --rebuild-blocks``). Returns seconds."""
    t0 = time.perf_counter()
    home.mkdir(parents=True)
    before = (dt.date.fromisoformat(first_day) - dt.timedelta(days=1)).isoformat()
    url = f"sqlite:///{home / 'store.db'}"
    if env is not None and "CRAWLDEDUP_CONFIG" in env:
        with Path(env["CRAWLDEDUP_CONFIG"]).open("rb") as fh:
            url = tomllib.load(fh).get("store_url", url)
    with open_store(url) as store:
        load_fillers(store, Config(), count, before, random.Random(count))
    # Bloom upkeep only: --rebuild-blocks needs no input and runs no other stage.
    bloom = [exe, "stage", "bloom", "--rebuild-blocks", "--date", first_day, "--home", str(home)]
    cli(bloom, env)
    return time.perf_counter() - t0


def run_crawldedup(
    crawl: Path,
    work: Path,
    days: list[str],
    index: int = 0,
    name: str = "crawldedup",
    store: str | None = None,
    capacity: int = 0,
) -> Outcome:
    exe = crawldedup_bin()
    home = work / f"home-{name}"
    shutil.rmtree(home, ignore_errors=True)
    note = "one `crawldedup run` per day"
    env = store_env(work, name, store, capacity)
    if store:
        note += f", store {store}…, HBase daemons' CPU included"
    if capacity:
        note += f", bloom.capacity_docs = {capacity:,} (scan_splits sized to it)"
    if name == "crawldedup-jvm":
        conf = work / "spark-conf-empty"
        shutil.rmtree(conf, ignore_errors=True)
        conf.mkdir(parents=True)
        env = {**(env or os.environ), "SPARK_CONF_DIR": str(conf)}
        note += ", an empty SPARK_CONF_DIR (the JVM's defaults)"
    extra = PARAGRAPH_ON if name == "crawldedup-paragraph" else []
    if extra:
        note += ", with rule paragraph"
    if index:
        secs = preload_index(exe, home, days[0], index, env)
        note += f", on an index of {index:,} filler documents (loaded untimed in {secs:.0f} s)"
        if store:
            note += f", HBase idle after the load in {settle_hbase():.0f} s"
    res = Outcome(
        name,
        wall=0.0,
        cpu=0.0,
        cpu_wait4=0.0,
        cpu_unreaped=0.0,
        cpu_child_only=0.0,
        cpu_sampled=0.0,
        cpu_tree=0.0,
        note=note,
    )
    if name == "crawldedup-through":
        # One command, one Spark session for every day; per day, its stages' span.
        res.note = res.note.replace(
            "one `crawldedup run` per day", "one `crawldedup run --through`"
        )
        first = crawl / f"dt={days[0]}"
        cmd = [exe, "run", "--date", days[0], "--through", days[-1], "--input", str(first)]
        log = work / f"{name}.log"
        runs = [(days, log, run_counted([*cmd, "--home", str(home)], log, env, store))]
    else:
        runs = []
        for d in days:
            cmd = [exe, "run", "--date", d, "--input", str(crawl / f"dt={d}"), "--home", str(home)]
            cmd += extra
            log = work / f"{name}-{d}.log"
            runs.append(([d], log, run_counted(cmd, log, env, store)))
    for run_days, log, tree in runs:
        if tree.rc not in (0, 3):  # 3: the data-quality gate, still a run
            tail = log.read_text(encoding="utf-8")[-1500:]
            raise SystemExit(f"crawldedup run from {run_days[0]} exited {tree.rc}:\n{tail}")
        for k in CPU_FIELDS:
            setattr(res, k, getattr(res, k) + getattr(tree, k))
        for d in run_days:
            res.docs += collect_day(exe, home, d, tree, len(run_days) == 1, res, env)
    return res


def run_counted(cmd: list[str], log: Path, env: dict[str, str] | None, store: str | None) -> Tree:
    """``run_tree``; against HBase, the HBase daemons' CPU during the run added to the
    tree's accounting (the machine's busy CPU has it already)."""
    before = hbase_cpu() if store else 0.0
    tree = run_tree(cmd, log, env=env)
    if store:
        tree.cpu_tree += hbase_cpu() - before
    return tree


def collect_day(
    exe: str,
    home: Path,
    d: str,
    tree: Tree,
    whole_run: bool,
    res: Outcome,
    env: dict[str, str] | None = None,
) -> int:
    """Day ``d``'s groups into ``res.groups`` and its costs into ``res.days``; its documents.
    ``whole_run``: the run was this day alone (its wall and CPU are the run's), else the
    day's are those of the span of its stages."""
    base = ["--date", d, "--home", str(home)]
    rep = json.loads(cli([exe, "report", *base], env))
    for line in cli([exe, "verdicts", *base], env).splitlines():
        if line.strip():
            v = json.loads(line)
            res.groups[v["id"]] = v.get("group") or v["id"]
    own = [(stage, secs, end) for day, stage, secs, end in tree.stages if day == d]
    stage_cpu = {
        stage: cpu_at(tree.timeline, end) - cpu_at(tree.timeline, end - secs)
        for stage, secs, end in own
    }
    seconds = rep.get("seconds", {})
    docs = int(rep.get("documents") or 0)
    costs = {k: getattr(tree, k) for k in CPU_FIELDS}
    if not whole_run and own:
        t0, t1 = own[0][2] - own[0][1], own[-1][2]
        costs = {k: 0.0 for k in CPU_FIELDS}
        costs.update(wall=t1 - t0, cpu=cpu_at(tree.timeline, t1) - cpu_at(tree.timeline, t0))
    res.days.append(
        {
            "day": d,
            "docs": docs,
            "records_in": rep.get("records_in"),
            "exit": tree.rc,
            **costs,
            "stage_order": [stage for stage, _, _ in own if stage in seconds],
            "stage_seconds": seconds,
            "stage_cpu_sampled": stage_cpu,
        }
    )
    return docs


def run_peer(name: str, crawl: Path, work: Path, timeout: float | None) -> Outcome:
    out = work / f"{name}.jsonl"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, str(HERE / "peers" / PEER_SCRIPT[name]), str(crawl), str(out)]
    tree = run_tree(cmd, work / f"{name}.log", timeout)
    res = Outcome(name, *(getattr(tree, k) for k in CPU_FIELDS))
    if tree.rc is None:
        res.note = f"timeout: killed after {timeout:.0f} s"
        return res
    if tree.rc != 0 or not out.exists():
        tail = (work / f"{name}.log").read_text(encoding="utf-8")[-800:]
        res.note = f"failed: exit {tree.rc}: {tail.strip().splitlines()[-1:] or ''}"
        return res
    for v in load_jsonl(out):
        res.groups[v["id"]] = v["group"]
    res.docs = len(res.groups)
    return res


# --------------------------------------------------------------------------- report


def fmt(x: float | None, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def ratio(x: float | None, base: float | None) -> str:
    return "-" if x is None or not base else f"{x / base:.2f}x"


def table(header: list[str], rows: list[list[str]], emit) -> None:
    emit("| " + " | ".join(header) + " |")
    emit("|" + "---|" * len(header))
    for row in rows:
        emit("| " + " | ".join(row) + " |")


def print_tables(results: list[Outcome], has_truth: bool, emit) -> None:
    base = next((r for r in results if r.name == "datasketch" and r.groups), None)
    header = ["tool", "docs", "wall s", "CPU s", "wall / datasketch", "CPU / datasketch"]
    quality = ("precision", "recall", "f1") if has_truth else ()
    rows = []
    for r in results:
        row = [r.name, str(r.docs), fmt(r.wall), fmt(r.cpu)]
        row += [ratio(r.wall, base and base.wall), ratio(r.cpu, base and base.cpu)]
        row += [fmt((r.scores or {}).get(k), 4) for k in quality]
        rows.append([*row, r.note])
    table([*header, *(q if q != "f1" else "F1" for q in quality), "note"], rows, emit)
    for cd in results:
        if cd.name.startswith("crawldedup") and cd.days:
            print_stage_tables(cd, emit)


def print_stage_tables(cd: Outcome, emit) -> None:
    """Per day and per stage, for one crawldedup run."""
    stages = list(
        dict.fromkeys(k for d in cd.days for k in [*d["stage_order"], *d["stage_seconds"]])
    )
    emit("")
    emit(f"{cd.name} per day (stage columns: wall seconds from the day's stats):")
    emit("")
    rows = []
    for d in cd.days:
        per_doc = 1000 * d["cpu"] / d["docs"] if d["docs"] else None
        row = [d["day"], str(d["docs"]), fmt(d["wall"]), fmt(d["cpu"]), fmt(per_doc, 2)]
        rows.append(row + [fmt(d["stage_seconds"].get(s)) for s in stages])
    table(["day", "docs", "wall s", "CPU s", "CPU ms/doc", *stages], rows, emit)

    n = cd.docs or 1
    emit("")
    emit(f"{cd.name} per stage, all days ({cd.docs} docs; stage CPU sampled from the live tree):")
    emit("")
    rows = []
    in_wall = in_cpu = 0.0
    for s in stages:
        w = sum(d["stage_seconds"].get(s, 0.0) for d in cd.days)
        c = sum(d["stage_cpu_sampled"].get(s, 0.0) for d in cd.days)
        in_wall, in_cpu = in_wall + w, in_cpu + c
        rows.append([s, f"{w:.1f}", f"{1000 * w / n:.2f}", f"{c:.1f}", f"{1000 * c / n:.2f}"])
    for label, w, c in (
        ("outside stages (JVM start, session, shutdown)", cd.wall - in_wall, cd.cpu - in_cpu),
        ("all (whole tree)", cd.wall, cd.cpu),
    ):
        rows.append([label, f"{w:.1f}", f"{1000 * w / n:.2f}", f"{c:.1f}", f"{1000 * c / n:.2f}"])
    table(["stage", "wall s (stages: stats)", "wall ms/doc", "CPU s", "CPU ms/doc"], rows, emit)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crawl", type=Path, required=True, help="ROOT with dt=YYYY-MM-DD folders")
    ap.add_argument("--only", nargs="+", choices=TOOLS, default=list(TOOLS))
    ap.add_argument("--work", type=Path, help="scratch folder (default: a new temp folder)")
    ap.add_argument("--json", type=Path, help="save the numbers here")
    ap.add_argument("--timeout", type=float, default=1800.0, help="mllib's limit, seconds")
    ap.add_argument(
        "--index",
        type=int,
        default=0,
        help="crawldedup's store starts with this many earlier documents (fillers; the peers "
        "have no index)",
    )
    ap.add_argument(
        "--store",
        help="crawldedup's store URL without its table prefix's end, e.g. "
        "hbase://127.0.0.1:9090/bench (each crawldedup row gets its own prefix, dropped "
        "first); default: the embedded store in the row's home",
    )
    ap.add_argument(
        "--bloom-capacity",
        type=int,
        default=0,
        help="crawldedup's bloom.capacity_docs (default: the configuration's, 100,000): size "
        "it to the index and the crawl, as a user is told to",
    )
    args = ap.parse_args(argv)

    crawl = args.crawl.resolve()
    days = sorted(p.name[3:] for p in crawl.glob("dt=*") if p.is_dir())
    if not days:
        raise SystemExit(f"no dt=YYYY-MM-DD folders under {crawl}")
    work = (args.work or Path(tempfile.mkdtemp(prefix="crawl-vs-peers-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    subreaper = become_subreaper()
    if not subreaper:
        print("warning: not a child subreaper: CPU misses orphaned JVMs", file=sys.stderr)
    load_before = os.getloadavg()

    results: list[Outcome] = []
    for name in TOOLS:
        if name not in args.only:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        if name.startswith("crawldedup"):
            r = run_crawldedup(crawl, work, days, args.index, name, args.store, args.bloom_capacity)
        else:
            r = run_peer(name, crawl, work, args.timeout if name == "mllib" else None)
        print(f"  {name}: wall {fmt(r.wall)} s, CPU {fmt(r.cpu)} s {r.note}", file=sys.stderr)
        results.append(r)

    truth_path = crawl / "truth.jsonl"
    truth = load_jsonl(truth_path) if truth_path.exists() else []
    for r in results:
        if truth and r.groups:
            r.scores = score(r.groups, truth)
    load_after = os.getloadavg()

    print(f"# crawl {crawl}: {len(days)} days ({days[0]} .. {days[-1]})")
    print(
        f"machine: {os.cpu_count()} cores; load average before {load_before[0]:.2f}, "
        f"after {load_after[0]:.2f}; CPU = the machine's busy CPU during each run "
        "(/proc/stat; the process tree's accounting below)"
    )
    print()
    print_tables(results, bool(truth), print)
    print()
    print(
        "CPU accounting, seconds (child wait4 / + orphans / + auto-reaped / tree sample / "
        "the machine's busy CPU during the runs: the tables' CPU):"
    )
    for r in results:
        if r.cpu is not None:
            print(
                f"- {r.name}: {r.cpu_child_only:.1f} / {r.cpu_wait4:.1f} / {r.cpu_tree:.1f} / "
                f"{r.cpu_sampled:.1f} / {r.cpu:.1f}"
            )

    if args.json:
        doc = {
            "crawl": str(crawl),
            "days": days,
            "machine": {"cores": os.cpu_count(), "load": [load_before, load_after]},
            "subreaper": subreaper,
            "results": [{k: v for k, v in asdict(r).items() if k != "groups"} for r in results],
        }
        args.json.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
