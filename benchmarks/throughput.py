"""One crawl day of N documents against an index of M earlier documents: where the time goes.

    .venv/bin/python benchmarks/throughput.py --docs 10000 100000 --index 1000000
    .venv/bin/python benchmarks/throughput.py --docs 10000 --index 100000 --store hbase

For every (N, M, store) it prints, from one ``crawldedup run`` per case (a subprocess,
``spark.master`` local[2] unless ``--master``): wall seconds, docs/s overall and per
stage, peak memory of the whole process tree (driver JVM + Python workers), Bloom
filter bytes and build seconds, store round trips per document; then the wall time of
the peers (exact md5, datasketch MinHash LSH at 0.8, the simhash library at Hamming
<= 3) on the same day, and the in-process fingerprinting rate on one core.

The day: 2/3 new articles, 1/6 reposts of indexed articles (prefix, copyright line,
new title), 1/6 reposts of the day's own articles, ~2 KB each, 70 % Chinese, as
JSON Lines in 8 files. The index is bulk-loaded: N/6 real articles (fingerprinted
with the pipeline's own code, written with its row encoders, so the day's reposts
find them) plus M - N/6 documents of filler: unique random keys in every index table,
one posting each, no document row. Fillers cost what real keys cost in scans, Bloom
filters and store size; they are never candidates, as unrelated documents are not.
The peers see the day only (they have no index), which favours them.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "demo"))  # crawldedup_demo

import psutil

from crawldedup.config import Config
from crawldedup.core.fingerprint import fingerprint
from crawldedup.core.normalize import normalize_text
from crawldedup.rules import Rule
from crawldedup.stage_registry import plan
from crawldedup.store import open_store
from crawldedup.store.schema import doc_row, posting_column, posting_value
from crawldedup_demo import corpus

sys.path.insert(0, str(Path(__file__).parent))
import quality  # the peers, shared with the quality benchmark
from filler_index import load_fillers

STAGES = plan(Config())

ROOT = Path(__file__).resolve().parent.parent
TEXT = "generated"  # --text
DAY = "2026-11-10"
INDEX_DAY = "2026-11-09"
ONE_KEY_RULES = [r for r in Rule if not r.multi_key]  # the four md5 keys


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    text: str
    fetched_at: str


@dataclass(frozen=True)
class RealPool:
    """Paragraphs and titles written by people (benchmarks/realtext's packaged corpus)."""

    paragraphs: dict[str, list[str]]  # lang -> distinct paragraphs
    titles: dict[str, list[str]]


@functools.cache
def real_pool() -> RealPool:
    from realtext.corpus import load_corpus

    docs = load_corpus(log=lambda *_: None).docs
    least = {"zh": 20, "en": 40}  # characters: a paragraph, not a heading
    paragraphs = {
        lang: sorted({p for d in docs if d.lang == lang for p in d.paragraphs if len(p) >= n})
        for lang, n in least.items()
    }
    titles = {lang: sorted({d.title for d in docs if d.lang == lang}) for lang in least}
    return RealPool(paragraphs, titles)


def _compose(rng: random.Random, lang: str, day: dt.date) -> tuple[str, str]:
    """(title, text) of one article: generated from the sample corpus's sentence pool
    (``--text generated``), or real paragraphs drawn at random (``--text real``)."""
    target = 700 if lang == "zh" else 2000
    if TEXT == "generated":
        a = corpus.compose_article(rng, lang, day, target=target, max_chars=2600)
        topic = rng.choice(corpus.topics_for(lang))
        return corpus.compose_title(rng, lang, topic, day), a.text
    pool = real_pool()
    parts: list[str] = []
    while sum(len(x) for x in parts) < target:
        parts.append(rng.choice(pool.paragraphs[lang]))
    text = "\n".join(parts)[:2600]
    # A real title and the start of another paragraph: titles repeat as rarely as a
    # crawl's do, not once per base text.
    lead = rng.choice(pool.paragraphs[lang])
    lead = lead[:12] if lang == "zh" else " ".join(lead.split()[:6])
    return f"{rng.choice(pool.titles[lang])} {lead}", text


def articles(rng: random.Random, n: int, prefix: str, day: str) -> list[Article]:
    base = dt.datetime.fromisoformat(f"{day}T00:00:00+00:00")
    out = []
    for i in range(n):
        lang = "zh" if rng.random() < 0.7 else "en"
        title, text = _compose(rng, lang, base.date())
        t = base + dt.timedelta(seconds=i * 86_000 / max(1, n))
        stamp = t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        out.append(Article(f"{prefix}{i:07d}", title, text, stamp))
    return out


def repost(rng: random.Random, a: Article, new_id: str, fetched_at: str) -> Article:
    zh = any("\u4e00" <= c <= "\u9fff" for c in a.text[:50])
    head = rng.choice(
        ["转载自东方日报：", "来源：新华网\n", ""] if zh else ["Source: Daily Post\n", ""]
    )
    tail = rng.choice(
        ["\n版权所有，转载请注明出处。", ""] if zh else ["\nAll rights reserved.", ""]
    )
    title = a.title if rng.random() < 0.5 else a.title + (" 【转】" if zh else " (repost)")
    return Article(new_id, title, head + a.text + tail, fetched_at)


def make_day(rng: random.Random, n: int, indexed: list[Article]) -> list[Article]:
    n_orig = n - 2 * (n // 6)
    day = articles(rng, n_orig, "d", DAY)
    for j in range(n // 6):  # reposts of earlier days, fetched at some time of the day
        day.append(repost(rng, indexed[j], f"r{j:07d}", day[j % len(day)].fetched_at))
    for j in range(n // 6):  # reposts of the same day, fetched after their original
        src = day[j]
        when = dt.datetime.fromisoformat(src.fetched_at.replace("Z", "+00:00")) + dt.timedelta(
            seconds=30
        )
        day.append(repost(rng, src, f"s{j:07d}", when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")))
    rng.shuffle(day)
    return day


def write_day(folder: Path, docs: list[Article], files: int = 8) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    handles = [(folder / f"part-{i:05d}.jsonl").open("w", encoding="utf-8") for i in range(files)]
    for i, a in enumerate(docs):
        rec = {
            "id": a.id,
            "url": f"https://news{i % 50}.example/{a.id}",
            "title": a.title,
            "content": a.text,
            "fetched_at": a.fetched_at,
        }
        handles[i % files].write(json.dumps(rec, ensure_ascii=False) + "\n")
    for h in handles:
        h.close()


def bulk_load(
    store_url: str, cfg: Config, real: list[Article], fillers: int, rng: random.Random
) -> float:
    """Write the index of earlier days straight into the store; returns seconds."""
    t0 = time.perf_counter()
    batch = 20_000
    with open_store(store_url) as store:
        for start in range(0, len(real), batch):
            tables: dict[str, dict[str, dict[str, bytes]]] = {r.table: {} for r in Rule}
            docs: dict[str, dict[str, bytes]] = {}
            for a in real[start : start + batch]:
                fp = fingerprint(a.title, a.text, cfg.fingerprint, cfg.simhash)
                cell = {posting_column(a.id): posting_value(INDEX_DAY, a.fetched_at)}
                keys: dict[str, Any] = {}
                for rule in ONE_KEY_RULES:
                    k = getattr(fp, rule.column)
                    if k:
                        tables[rule.table].setdefault(k, {}).update(cell)
                        keys[rule.value] = k
                sh = f"{fp.simhash:016x}"
                for k in fp.simhash_keys:
                    tables[Rule.SIMHASH.table].setdefault(k, {})[posting_column(a.id)] = (
                        posting_value(INDEX_DAY, a.fetched_at, sh)
                    )
                keys[Rule.SIMHASH.value] = fp.simhash_keys
                docs[a.id] = doc_row(
                    url=f"https://origin.example/{a.id}",
                    title=a.title,
                    day=INDEX_DAY,
                    fetched_at=a.fetched_at,
                    keys=keys,
                    simhash=f"{fp.simhash:016x}",
                    tf_json=json.dumps(fp.tf, ensure_ascii=False, separators=(",", ":")),
                    group=a.id,
                    raw_md5="",
                    sketch=fp.sketch,
                    length=fp.normalized_length,
                )
            for table, rows in tables.items():
                store.put(table, rows)
            store.put("docs", docs)
        load_fillers(store, cfg, fillers, INDEX_DAY, rng)
    return time.perf_counter() - t0


class ProcessTree:
    """Peak resident memory and CPU seconds of a process and all its descendants.

    Sampled every ``every_s``: CPU time is kept per pid at its last sample, so the
    total survives workers that exit (a worker living less than one period is missed).
    ``mark(name)`` records the CPU total at that moment, to split CPU time by stage;
    the JVM's share (processes named java) is kept apart from the Python processes'.
    """

    def __init__(self, pid: int, every_s: float = 0.25) -> None:
        self.peak = 0
        self.marks: list[tuple[str, float, float]] = []
        self._cpu: dict[int, float] = {}
        self._jvm: set[int] = set()
        self._stop = threading.Event()
        self._proc = psutil.Process(pid)
        self._every = every_s
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        try:
            procs = [self._proc, *self._proc.children(recursive=True)]
        except psutil.Error:
            return
        total = 0
        for p in procs:
            with contextlib.suppress(psutil.Error), p.oneshot():
                total += p.memory_info().rss
                t = p.cpu_times()
                is_jvm = p.name() == "java"
                with self._lock:
                    self._cpu[p.pid] = t.user + t.system
                    if is_jvm:
                        self._jvm.add(p.pid)
        self.peak = max(self.peak, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self._every)

    def cpu(self) -> float:
        with self._lock:
            return sum(self._cpu.values())

    def jvm_cpu(self) -> float:
        with self._lock:
            return sum(v for pid, v in self._cpu.items() if pid in self._jvm)

    def mark(self, name: str) -> None:
        self._sample()
        self.marks.append((name, self.cpu(), self.jvm_cpu()))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def cpu_by_stage(self, jvm_only: bool = False) -> dict[str, float]:
        out, last = {}, 0.0
        for name, total, jvm in self.marks:
            now = jvm if jvm_only else total
            out[name] = now - last
            last = now
        return out


def shuffle_by_stage(events_dir: Path) -> dict[str, dict[str, float]]:
    """Shuffle bytes written and read, and task run seconds, per pipeline stage, from
    the Spark event log (jobs are grouped by stage name in ``run_stages``)."""
    group_of_stage: dict[int, str] = {}
    out: dict[str, dict[str, float]] = {}
    for log in sorted(p for p in events_dir.rglob("*") if p.is_file() and "." not in p.name[:1]):
        for line in log.open(encoding="utf-8"):
            ev = json.loads(line)
            kind = ev.get("Event")
            if kind == "SparkListenerJobStart":
                group = (ev.get("Properties") or {}).get("spark.jobGroup.id", "other")
                for sid in ev.get("Stage IDs", []):
                    group_of_stage[sid] = group
            elif kind == "SparkListenerTaskEnd":
                m = ev.get("Task Metrics") or {}
                g = out.setdefault(
                    group_of_stage.get(ev.get("Stage ID", -1), "other"),
                    {"shuffle_write_mb": 0.0, "shuffle_read_mb": 0.0, "task_s": 0.0},
                )
                r = m.get("Shuffle Read Metrics") or {}
                read = r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
                g["shuffle_read_mb"] += read / 2**20
                g["shuffle_write_mb"] += (m.get("Shuffle Write Metrics") or {}).get(
                    "Shuffle Bytes Written", 0
                ) / 2**20
                g["task_s"] += m.get("Executor Run Time", 0) / 1000
    return out


def run_case(
    n: int, m: int, store: str, args: argparse.Namespace, base: Path
) -> list[dict[str, Any]]:
    rng = random.Random(n * 7919 + m)
    cfg = Config()
    case = base / f"{store}-{n}-{m}"
    home, inp = case / "home", case / "in" / f"dt={DAY}"
    t0 = time.perf_counter()
    indexed = articles(rng, n // 6, "i", INDEX_DAY)
    day_docs = make_day(rng, n, indexed)
    write_day(inp, day_docs)
    gen_s = time.perf_counter() - t0
    if store == "hbase":
        store_url = f"hbase://127.0.0.1:{args.hbase_port}/tp{uuid.uuid4().hex[:8]}_"
    else:
        store_url = f"sqlite:///{home / 'store.db'}"
    load_s = bulk_load(store_url, cfg, indexed, max(0, m - len(indexed)), rng)
    common = {"store": store, "docs": n, "index": m, "generate_s": gen_s, "bulk_load_s": load_s}
    out: list[dict[str, Any]] = []
    if args.baseline_tree is not None:
        # The same day against a copy of the same index, by the baseline's code first.
        base_home = case / "home-baseline"
        base_home.mkdir(parents=True, exist_ok=True)
        shutil.copy(home / "store.db", base_home / "store.db")
        prefix = [sys.executable, "-m", "crawldedup.cli"]
        env = {**os.environ, "PYTHONPATH": str(args.baseline_tree)}
        r = _run_once(prefix, env, inp, base_home, f"sqlite:///{base_home / 'store.db'}", case, n)
        out.append({**common, "code": args.baseline, **r})
    prefix = [str(ROOT / ".venv/bin/crawldedup")]
    # Untimed: the index's Bloom blocks, as the days before this one would have left them
    # (bloom.source = "blocks"; a bulk-loaded index has none).
    subprocess.run(
        [*prefix, "stage", "bloom", "--rebuild-blocks", *_day_args(home, store_url, args)],
        check=True,
        capture_output=True,
    )
    drop = store == "hbase" and not args.repeat_stages
    r = _run_once(prefix, dict(os.environ), inp, home, store_url, case, n, drop)
    out.append({**common, "code": "work tree", **r, "day_docs": day_docs})
    if args.repeat_stages:
        runs = [("work tree", prefix, dict(os.environ), home, store_url)]
        if args.baseline_tree is not None:
            base_url = f"sqlite:///{base_home / 'store.db'}"
            runs.insert(
                0,
                (args.baseline, [sys.executable, "-m", "crawldedup.cli"], env, base_home, base_url),
            )
        out[-1]["repeats"] = repeat_stages(runs, args.repeat_stages, args.repeat)
    return out


def repeat_stages(
    runs: list[tuple[str, list[str], dict[str, str], Path, str]], stages: list[str], times: int
) -> list[dict[str, Any]]:
    """Each stage rerun ``times`` times by each code on its own finished day, the codes
    alternating (A B A B ...), so that a slower spell of the machine hits both: CPU
    seconds of the whole process tree (JVM start included) and wall seconds per run."""
    rows = []
    for stage in stages:
        for i in range(times):
            for code, prefix, env, home, store_url in runs:
                cwd = env.get("PYTHONPATH") or None
                cmd = [*prefix, "stage", stage, *_day_args(home, store_url, ARGS)]
                t0 = time.perf_counter()
                proc = subprocess.Popen(
                    cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd
                )
                tree = ProcessTree(proc.pid)
                output, _ = proc.communicate()
                wall = time.perf_counter() - t0
                tree.stop()
                if proc.returncode != 0:
                    raise SystemExit(
                        f"{code}: crawldedup stage {stage} failed:\n{output[-3000:]!r}"
                    )
                rows.append(
                    {
                        "stage": stage,
                        "code": code,
                        "run": i + 1,
                        "wall_s": wall,
                        "cpu_s": tree.cpu(),
                        "jvm_cpu_s": tree.jvm_cpu(),
                    }
                )
                print(
                    f"# repeat {stage} {code} #{i + 1}: {wall:.1f} s wall, {tree.cpu():.1f} CPU s",
                    flush=True,
                )
    return rows


def _day_args(home: Path, store_url: str, args: argparse.Namespace) -> list[str]:
    """The flags every crawldedup command of a case shares."""
    return [
        "--date",
        DAY,
        "--home",
        str(home),
        "--store",
        store_url,
        "--set",
        f"spark.master={args.master}",
    ]


def _run_once(
    prefix: list[str],
    env: dict[str, str],
    inp: Path,
    home: Path,
    store_url: str,
    case: Path,
    n: int,
    drop_hbase: bool = False,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    args = ARGS
    cmd = [
        *prefix,
        "run",
        "--input",
        str(inp),
        *_day_args(home, store_url, args),
        "--set",
        f"spark.shuffle_partitions={args.partitions}",
        "--set",
        f"spark.driver_memory={args.driver_memory}",
        *extra,
    ]
    events = case / f"events-{home.name}"
    shutil.rmtree(events, ignore_errors=True)
    events.mkdir()
    # The event log through spark-submit's arguments.
    submit = [
        "--conf spark.eventLog.enabled=true",
        f"--conf spark.eventLog.dir=file://{events}",
        "--conf spark.eventLog.compress=false",
        "--conf spark.eventLog.rolling.enabled=false",
    ]
    if args.java_options:
        java = f"spark.driver.defaultJavaOptions={args.java_options}"
        submit.append(f"--conf {shlex.quote(java)}")
    env = {**env, "PYSPARK_SUBMIT_ARGS": " ".join([*submit, "pyspark-shell"])}
    t0 = time.perf_counter()
    # In the baseline's tree, so that `python -m` imports its package, not this one.
    cwd = env.get("PYTHONPATH") or None
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd
    )
    tree = ProcessTree(proc.pid)
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:  # "[day] 2/6 bloom  4.1s ..." ends each stage
        lines.append(line)
        for s in STAGES:
            if f"/{len(STAGES)} {s} " in line:
                tree.mark(s)
    proc.wait()
    wall = time.perf_counter() - t0
    load = os.getloadavg()[1]  # 5-minute load average at the end: other work on the machine
    tree.stop()
    if proc.returncode != 0:
        raise SystemExit(f"crawldedup run failed ({proc.returncode}):\n{''.join(lines)[-3000:]}")
    stats = {s: _read(home / "work" / f"dt={DAY}" / "stats" / f"{s}.json") for s in STAGES}
    report = _read(home / "work" / f"dt={DAY}" / "report.json")
    trips = stats["candidates"].get("store", {}).get("round_trips", 0) + stats["publish"].get(
        "store", {}
    ).get("round_trips", 0)
    filters = stats["bloom"].get("filters", {})
    verdicts = _verdicts(store_url)
    if drop_hbase:
        from crawldedup.store.hbase_store import HBaseStore

        with open_store(store_url) as st:
            assert isinstance(st, HBaseStore)
            st.drop_all()
    return {
        "wall_s": wall,
        "peak_rss_mb": tree.peak / 2**20,
        "load_avg_5min": load,
        "cpu_s": tree.cpu_by_stage(),
        "jvm_cpu_s": tree.cpu_by_stage(jvm_only=True),
        "spark": shuffle_by_stage(events),
        "stage_s": {s: stats[s].get("seconds", 0.0) for s in STAGES},
        "bloom_bytes": sum(f["bytes"] for f in filters.values()),
        "bloom_keys": sum(f["keys"] for f in filters.values()),
        "bloom_s": stats["bloom"].get("seconds", 0.0),
        "round_trips_per_doc": trips / n,
        "duplicates": report.get("duplicates", {}),
        "verdicts": verdicts,
    }


def _label(r: dict[str, Any]) -> str:
    """A row's store and code: "embedded (work tree)"."""
    return f"{r['store']} ({r.get('code', 'work tree')})"


def _verdicts(store_url: str) -> dict[str, Any]:
    """The day's verdict cells by document, to compare two codes' runs."""
    with open_store(store_url) as s:
        return {row: cells for row, cells in s.scan("verdicts", start=f"{DAY}|", stop=f"{DAY}}}")}


def _export(commit: str, base: Path) -> Path:
    """``git archive`` of ``commit`` under ``base``: the baseline's code, untouched by the
    work tree."""
    out = base / f"baseline-{commit}"
    if not out.exists():
        out.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


ARGS: argparse.Namespace


def _read(p: Path) -> dict[str, Any]:
    return json.loads(p.read_text()) if p.exists() else {}


def peers(day_docs: list[Article]) -> dict[str, float]:
    docs = [quality.Doc(a.id, DAY, a.fetched_at, a.text, normalize_text(a.text)) for a in day_docs]
    order = quality.order_of(docs)
    out = {"md5": quality.run_md5(docs, order).seconds}
    sigs, sig_s = quality.minhash_signatures(docs)
    out["minhash-lsh@0.8"] = quality.run_minhash_lsh(docs, order, sigs, sig_s, 0.8).seconds
    hashes, hash_s = quality.simhash_values(docs)
    out["simhash<=3"] = quality.run_simhash(docs, order, hashes, hash_s).seconds
    return out


def fingerprint_rate(day_docs: list[Article], limit: int = 5000) -> tuple[float, float]:
    """In-process fingerprinting on one core: docs per CPU second, and mean bytes per doc."""
    cfg = Config()
    sample = day_docs[:limit]
    t0 = time.process_time()
    for a in sample:
        fingerprint(a.title, a.text, cfg.fingerprint, cfg.simhash)
    cpu = time.process_time() - t0
    return len(sample) / cpu, sum(len(a.text.encode()) for a in sample) / len(sample)


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def print_tables(rows: list[dict[str, Any]]) -> None:
    """Markdown tables: the runs, then per stage, then the peers."""
    print()
    print(
        _row(
            [
                "store (code)",
                "docs",
                "index",
                "wall s",
                "docs/s",
                "CPU s",
                "docs/CPU s",
                "peak RSS MB",
                "Bloom keys",
                "Bloom MB",
                "Bloom s",
                "store trips/doc",
            ]
        )
    )
    print(_row(["---"] * 12))
    for r in rows:
        cpu = sum(r["cpu_s"].values())
        print(
            _row(
                [
                    _label(r),
                    r["docs"],
                    r["index"],
                    f"{r['wall_s']:.1f}",
                    f"{r['docs'] / r['wall_s']:.0f}",
                    f"{cpu:.0f}",
                    f"{r['docs'] / cpu:.0f}",
                    f"{r['peak_rss_mb']:.0f}",
                    r["bloom_keys"],
                    f"{r['bloom_bytes'] / 2**20:.1f}",
                    f"{r['bloom_s']:.1f}",
                    f"{r['round_trips_per_doc']:.3f}",
                ]
            )
        )
    print()
    print(
        _row(
            [
                "store (code)",
                "docs",
                "index",
                "stage",
                "wall s",
                "docs/s",
                "CPU s",
                "CPU ms/doc",
                "of it JVM",
                "shuffle write MB",
                "shuffle read MB",
            ]
        )
    )
    print(_row(["---"] * 11))
    for r in rows:
        for stage in STAGES:
            wall = r["stage_s"].get(stage, 0.0)
            cpu = r["cpu_s"].get(stage, 0.0)
            jvm = r.get("jvm_cpu_s", {}).get(stage)
            sp = r["spark"].get(stage, {})
            print(
                _row(
                    [
                        _label(r),
                        r["docs"],
                        r["index"],
                        stage,
                        f"{wall:.1f}",
                        f"{r['docs'] / wall:.0f}" if wall else "-",
                        f"{cpu:.1f}",
                        f"{1000 * cpu / r['docs']:.2f}",
                        f"{1000 * jvm / r['docs']:.2f}" if jvm is not None else "-",
                        f"{sp.get('shuffle_write_mb', 0):.1f}",
                        f"{sp.get('shuffle_read_mb', 0):.1f}",
                    ]
                )
            )
    print_peers(rows)
    print_repeats(rows)


def print_repeats(rows: list[dict[str, Any]]) -> None:
    """Stages rerun alone (``--repeat-stages``): medians per code, and their ratio."""
    for r in rows:
        reps = r.get("repeats")
        if not reps:
            continue
        print()
        print(f"Stages rerun alone, {r['docs']} documents against {r['index']} ({r['store']}):")
        print()
        codes = list(dict.fromkeys(x["code"] for x in reps))
        head = (
            ["stage"]
            + [f"{c}: CPU s (median; runs)" for c in codes]
            + [f"{c}: wall s" for c in codes]
        )
        if len(codes) == 2:
            head.append("CPU ratio")
        print(_row(head))
        print(_row(["---"] * len(head)))
        for stage in dict.fromkeys(x["stage"] for x in reps):
            cpu = {
                c: [x["cpu_s"] for x in reps if x["stage"] == stage and x["code"] == c]
                for c in codes
            }
            wall = {
                c: [x["wall_s"] for x in reps if x["stage"] == stage and x["code"] == c]
                for c in codes
            }
            cells = [stage]
            cells += [
                f"{statistics.median(cpu[c]):.1f} ({', '.join(f'{v:.1f}' for v in cpu[c])})"
                for c in codes
            ]
            cells += [f"{statistics.median(wall[c]):.1f}" for c in codes]
            if len(codes) == 2:
                a, b = (statistics.median(cpu[c]) for c in codes)
                cells.append(f"{b / a:.2f}")
            print(_row(cells))


def print_peers(rows: list[dict[str, Any]]) -> None:
    """The in-process fingerprint rate, crawldedup's wall time, the peers' and the ratio."""
    print()
    print(
        _row(
            [
                "docs",
                "fingerprint docs/CPU s, in process (B/doc)",
                "crawldedup wall s",
                *quality_peer_names(rows),
                "crawldedup / minhash-lsh@0.8",
            ]
        )
    )
    peer_names = quality_peer_names(rows)
    print(_row(["---"] * (4 + len(peer_names))))
    for r in rows:
        if "fingerprint_docs_per_cpu_s" not in r:
            continue  # a baseline's row
        peers_s = r.get("peers_s", {})
        print(
            _row(
                [
                    r["docs"],
                    f"{r['fingerprint_docs_per_cpu_s']:.0f} ({r['mean_doc_bytes']:.0f})",
                    f"{r['wall_s']:.1f}",
                    *([f"{v:.1f}" for v in peers_s.values()] or ["-"] * len(peer_names)),
                    # the peer ratio: how many times datasketch's wall time (the target: 1/3)
                    f"{r['wall_s'] / peers_s['minhash-lsh@0.8']:.1f}x"
                    if peers_s.get("minhash-lsh@0.8")
                    else "-",
                ]
            )
        )


def write_chart(rows: list[dict[str, Any]], path: Path) -> None:
    """Wall and CPU seconds against the day's documents, one line per store and index:
    a straight line through the points is cost linear in documents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_wall, ax_cpu) = plt.subplots(1, 2, figsize=(10, 4))
    series: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        series.setdefault(
            f"{r['store']} ({r.get('code', 'work tree')}), index {r['index']:,}", []
        ).append(r)
    for label, points in sorted(series.items()):
        points.sort(key=lambda r: r["docs"])
        docs = [r["docs"] for r in points]
        ax_wall.plot(docs, [r["wall_s"] for r in points], marker="o", label=label)
        ax_cpu.plot(docs, [sum(r["cpu_s"].values()) for r in points], marker="o", label=label)
    for ax, what in ((ax_wall, "wall s"), (ax_cpu, "CPU s (driver JVM + Python workers)")):
        ax.set_xlabel("documents in the day")
        ax.set_ylabel(what)
        ax.grid(True, alpha=0.3)
    ax_wall.legend(fontsize=8)
    fig.suptitle("crawldedup run: one day against a bulk-loaded index, 2 cores")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"chart: {path}", flush=True)


def quality_peer_names(rows: list[dict[str, Any]]) -> list[str]:
    return [f"{k} s" for k in next((r["peers_s"] for r in rows if "peers_s" in r), {})]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, nargs="+", default=[10_000])
    ap.add_argument("--index", type=int, nargs="+", default=[100_000])
    ap.add_argument("--store", choices=["embedded", "hbase", "both"], default="embedded")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument(
        "--hbase-port", type=int, default=int(os.environ.get("HBASE_THRIFT_PORT", 9090))
    )
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument(
        "--peers-max-docs", type=int, default=20_000, help="skip the peers on bigger days"
    )
    ap.add_argument(
        "--text",
        choices=["generated", "real"],
        default="generated",
        help="articles from the sample generator's sentence pool, or real paragraphs",
    )
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument(
        "--java-options",
        default="",
        help="driver JVM options of every run (spark.driver.defaultJavaOptions), e.g. "
        "--java-options=-XX:TieredStopAtLevel=1",
    )
    ap.add_argument(
        "--repeat-stages",
        nargs="+",
        default=[],
        choices=STAGES,
        help="after the runs, rerun these stages alone on each code's finished day",
    )
    ap.add_argument("--repeat", type=int, default=3, help="times each stage is rerun")
    ap.add_argument("--chart", type=Path, default=None, help="PNG of cost against documents")
    ap.add_argument(
        "--baseline",
        metavar="COMMIT",
        help="also run each case with this commit's code (embedded store), side by side",
    )
    args = ap.parse_args(argv)
    if args.baseline and args.store != "embedded":
        ap.error("--baseline runs on the embedded store only")
    stores = ["embedded", "hbase"] if args.store == "both" else [args.store]
    base = args.work or Path(tempfile.mkdtemp(prefix="crawldedup-throughput-"))
    print(
        f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB; "
        f"master {args.master}; text {args.text}; work {base}",
        flush=True,
    )
    global ARGS, TEXT
    ARGS, TEXT = args, args.text
    args.baseline_tree = _export(args.baseline, base) if args.baseline else None
    rows: list[dict[str, Any]] = []
    for store in stores:
        for m in args.index:
            for n in args.docs:
                case_rows = run_case(n, m, store, args, base)
                r = case_rows[-1]
                rate, size = fingerprint_rate(r["day_docs"])
                r["fingerprint_docs_per_cpu_s"], r["mean_doc_bytes"] = rate, size
                if not args.no_peers and n <= args.peers_max_docs:
                    r["peers_s"] = peers(r["day_docs"])
                del r["day_docs"]
                if len(case_rows) == 2:
                    old, new = case_rows
                    differ = sum(
                        1
                        for k in old["verdicts"].keys() | new["verdicts"].keys()
                        if old["verdicts"].get(k) != new["verdicts"].get(k)
                    )
                    print(
                        f"# {store} {n} vs {m}: {args.baseline} {old['wall_s']:.1f} s wall, "
                        f"{sum(old['cpu_s'].values()):.0f} CPU s; work tree {new['wall_s']:.1f} s, "
                        f"{sum(new['cpu_s'].values()):.0f} CPU s; verdicts differing: {differ} "
                        f"of {len(new['verdicts'])}",
                        flush=True,
                    )
                for c in case_rows:
                    c["verdicts_count"] = len(c.pop("verdicts"))
                    print(json.dumps(c), flush=True)
                rows.extend(case_rows)
    print_tables(rows)
    if args.chart is not None:
        write_chart(rows, args.chart)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
