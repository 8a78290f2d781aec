"""Detection quality on the real-text set (benchmarks/realtext): crawldedup and its peers.

    source scripts/env.sh
    .venv/bin/python -m benchmarks.realtext.build --out /tmp/rt --days 3 --per-day 1600 --seed 13
    .venv/bin/python benchmarks/realtext_quality.py --data /tmp/rt [--work W]
        [--skip-spark-peers] [--set KEY=VALUE ...] [--json OUT]

crawldedup runs as a user runs it: ``crawldedup run --date D --input DATA/dt=D --home
W/home [--set ...]`` for each day in order (each run timed, wall clock), then
``crawldedup verdicts --date D``; a document's predicted group is the verdict's
``group``. Exit code 3 (the data-quality gate) still counts as a run. The quarantine
counts per reason come from ``crawldedup report``.

The peers work on the same files and each reads them itself (their time includes
reading and, for HTML records, extracting the text a simple user script would use:
trafilatura's ``extract`` when installed, else the text with tags stripped):

* ``md5``: md5 of the whitespace-normalized text;
* ``minhash-lsh@0.5`` / ``@0.8``: datasketch ``MinHashLSH``, 128 permutations,
  character 5-grams of the lower-cased, whitespace-normalized text, every LSH hit a match;
* ``simhash<=3``: the ``simhash`` package, 64 bits, character 3-gram features,
  ``SimhashIndex`` with k = 3;
* ``spark-mllib-lsh``: Spark MLlib ``MinHashLSH.approxSimilarityJoin`` at Jaccard
  distance 0.5 over binary ``HashingTF`` character 5-gram features, in a child process
  that is ended (and the row skipped with a note) after 10 minutes.

Peers group their matches by union-find; a group's canonical is its earliest member by
fetched_at (then id). Scores are pairwise over the documents of truth.jsonl: a pair is
positive iff both are in the same truth cluster, predicted iff in the same predicted
group. Recall per kind: for each copy, the share of the pairs between it and the other
members of its cluster that are predicted. Hard negatives: how many of the pairs in
hard_negative_pairs.jsonl each method grouped (and per 10,000 of them), and over the
families whose pages share one site's boilerplate (``BOILERPLATE_FAMILIES``: a site's
block around different articles, one template with different fill, different short
texts framed by one big site's header, navigation and footer) the wrong pairs per 1,000.
Wrong links: crawldedup's duplicate verdicts whose ``duplicate_of`` is a page of another
truth cluster, by rule (one such link joins every pair of the two groups, so a few of
them can be most of the false-positive pairs).

This script imports nothing from crawldedup: it reads only what the command prints.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SPARK_TIMEOUT_S = 600
# Hard-negative families whose two pages share one site's boilerplate.
BOILERPLATE_FAMILIES = (
    "shared_boilerplate",
    "same_template_fill",
    "big_template_short",
    "standard_headings_short",
    "rotating_sidebar",
)


# --------------------------------------------------------------------------- reading


class _TagStripper(HTMLParser):
    SKIP = frozenset({"script", "style", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self._skip += 1
        elif tag in ("p", "div", "br", "li", "h1", "h2", "h3", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    """The page's main text as a simple script gets it: trafilatura, else tags stripped."""
    try:
        import trafilatura
    except ImportError:
        p = _TagStripper()
        p.feed(html)
        return "".join(p.parts)
    return trafilatura.extract(html) or ""


@dataclass(frozen=True)
class PeerDoc:
    id: str
    fetched_at: str
    text: str


def read_documents(data: Path) -> list[PeerDoc]:
    """Every record of every day folder (first record of an id wins), in fetch order."""
    out: dict[str, PeerDoc] = {}
    for folder in sorted(data.glob("dt=*")):
        for path in sorted(folder.iterdir()):
            if path.name.startswith(("_", ".")) or not path.name.endswith(".jsonl"):
                continue
            with path.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    i = rec.get("id")
                    if not isinstance(i, str) or i in out:
                        continue
                    content = rec.get("content")
                    if isinstance(content, str) and content.strip():
                        text = content
                    elif isinstance(rec.get("html"), str):
                        text = html_text(rec["html"])
                    else:
                        text = ""
                    out[i] = PeerDoc(i, str(rec.get("fetched_at", "")), text)
    return sorted(out.values(), key=lambda d: (d.fetched_at, d.id))


def ws(text: str) -> str:
    return " ".join(text.split())


def char_ngrams(text: str, k: int) -> list[str]:
    if len(text) <= k:
        return [text] if text else []
    return sorted({text[i : i + k] for i in range(len(text) - k + 1)})


# --------------------------------------------------------------------------- grouping


def union_groups(docs: list[PeerDoc], edges: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Union-find; each group's label is its earliest member by (fetched_at, id)."""
    order = {d.id: (d.fetched_at, d.id) for d in docs}
    parent = {d.id: d.id for d in docs}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            if order[ra] <= order[rb]:
                parent[rb] = ra
            else:
                parent[ra] = rb
    return {d.id: find(d.id) for d in docs}


@dataclass
class Result:
    name: str
    groups: dict[str, str]
    seconds: float
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def run_md5(data: Path) -> Result:
    t0 = time.perf_counter()
    docs = read_documents(data)
    first: dict[str, str] = {}
    edges = []
    for d in docs:
        t = ws(d.text)
        if not t:
            continue
        key = hashlib.md5(t.encode("utf-8"), usedforsecurity=False).hexdigest()
        if key in first:
            edges.append((d.id, first[key]))
        else:
            first[key] = d.id
    return Result("md5", union_groups(docs, edges), time.perf_counter() - t0)


def run_minhash(data: Path, threshold: float) -> Result:
    from datasketch import MinHash, MinHashLSH

    t0 = time.perf_counter()
    docs = read_documents(data)
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    edges: list[tuple[str, str]] = []
    for d in docs:
        grams = char_ngrams(ws(d.text).lower(), 5)
        if not grams:
            continue
        m = MinHash(num_perm=128)
        m.update_batch([g.encode("utf-8") for g in grams])
        edges.extend((d.id, other) for other in lsh.query(m))
        lsh.insert(d.id, m)
    return Result(f"minhash-lsh@{threshold}", union_groups(docs, edges), time.perf_counter() - t0)


def run_simhash(data: Path, k: int = 3) -> Result:
    import logging

    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)  # it warns on every big bucket
    t0 = time.perf_counter()
    docs = read_documents(data)
    index = SimhashIndex([], f=64, k=k)
    edges: list[tuple[str, str]] = []
    for d in docs:
        grams = char_ngrams(ws(d.text).lower(), 3)
        if not grams:
            continue
        h = Simhash(grams, f=64)
        edges.extend((d.id, other) for other in index.get_near_dups(h))
        index.add(d.id, h)
    return Result(f"simhash<={k}", union_groups(docs, edges), time.perf_counter() - t0)


def spark_child(data: Path, out: Path) -> None:
    """Runs in a child process: read, Spark MLlib MinHashLSH self-join, write the edges."""
    from pyspark.ml.feature import HashingTF, MinHashLSH
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    docs = read_documents(data)
    spark = (
        SparkSession.builder.master("local[*]")
        .appName("realtext-mllib-lsh")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.driver.memory", "4g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    rows = [(d.id, char_ngrams(ws(d.text).lower(), 5)) for d in docs if d.text.strip()]
    df = spark.createDataFrame(rows, "id string, grams array<string>").repartition(8)
    tf = HashingTF(inputCol="grams", outputCol="features", numFeatures=1 << 20, binary=True)
    vec = tf.transform(df).select("id", "features").cache()
    model = MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=5, seed=13).fit(vec)
    hashed = model.transform(vec).cache()
    pairs = (
        model.approxSimilarityJoin(hashed, hashed, 0.5, distCol="jd")
        .select(F.col("datasetA.id").alias("a"), F.col("datasetB.id").alias("b"))
        .filter(F.col("a") < F.col("b"))
        .collect()
    )
    spark.stop()
    out.write_text(
        json.dumps(
            {"edges": [[r["a"], r["b"]] for r in pairs], "seconds": time.perf_counter() - t0}
        ),
        encoding="utf-8",
    )


def run_spark(data: Path, work: Path, log) -> Result:
    out = work / "spark_edges.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--spark-child", str(data), str(out)]
    t0 = time.perf_counter()
    with (work / "spark_child.log").open("w") as errlog:
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=errlog, stderr=errlog)
    try:
        rc = proc.wait(timeout=SPARK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the child and the JVM it started, nothing else
        proc.wait()
        seconds = time.perf_counter() - t0
        log(f"spark-mllib-lsh: stopped after {seconds:.0f}s")
        return Result("spark-mllib-lsh", {}, seconds, f"skipped: over {SPARK_TIMEOUT_S}s")
    seconds = time.perf_counter() - t0
    if rc != 0 or not out.exists():
        return Result("spark-mllib-lsh", {}, seconds, f"skipped: child exited {rc}")
    edges = [tuple(e) for e in json.loads(out.read_text(encoding="utf-8"))["edges"]]
    docs = read_documents(data)
    groups = union_groups(docs, edges)  # type: ignore[arg-type]
    return Result(
        "spark-mllib-lsh", groups, seconds, "wall of the child: read, JVM start, fit, self-join"
    )


# --------------------------------------------------------------------------- crawldedup


def crawldedup_bin() -> str:
    local = ROOT / ".venv" / "bin" / "crawldedup"
    if local.exists():
        return str(local)
    found = shutil.which("crawldedup")
    if not found:
        raise SystemExit("crawldedup not found: install the project (.venv/bin/crawldedup)")
    return found


def run_crawldedup(
    data: Path,
    home: Path,
    days: list[str],
    overrides: list[str],
    log,
) -> tuple[Result, list[float], dict[str, int], dict[str, tuple[str, str]]]:
    exe = crawldedup_bin()
    sets = [x for o in overrides for x in ("--set", o)]
    per_day = []
    for d in days:
        cmd = [exe, "run", "--date", d, "--input", str(data / f"dt={d}"), "--home", str(home)]
        t = time.perf_counter()
        proc = subprocess.run([*cmd, *sets], capture_output=True, text=True, check=False)
        per_day.append(time.perf_counter() - t)
        if proc.returncode not in (0, 3):
            raise SystemExit(
                f"crawldedup run --date {d} exited {proc.returncode}: {proc.stderr.strip()[-800:]}"
            )
        log(f"crawldedup run {d}: {per_day[-1]:.1f}s (exit {proc.returncode})")
    groups: dict[str, str] = {}
    links: dict[str, tuple[str, str]] = {}  # a duplicate's id -> (duplicate_of, rule)
    quarantined: Counter[str] = Counter()
    for d in days:
        base = ["--date", d, "--home", str(home), *sets]
        out = subprocess.run(
            [exe, "verdicts", *base], capture_output=True, text=True, check=True
        ).stdout
        for line in out.splitlines():
            if line.strip():
                v = json.loads(line)
                groups[v["id"]] = v.get("group") or v["id"]
                if v.get("verdict") == "duplicate" and v.get("duplicate_of"):
                    links[v["id"]] = (v["duplicate_of"], v.get("rule") or "?")
        rep = subprocess.run([exe, "report", *base], capture_output=True, text=True, check=False)
        if rep.returncode == 0 and rep.stdout.strip():
            quarantined.update(json.loads(rep.stdout).get("quarantined", {}) or {})
    res = Result("crawldedup", groups, sum(per_day), "three `crawldedup run` commands, wall")
    return res, per_day, dict(quarantined), links


def wrong_links(
    links: Mapping[str, tuple[str, str]], truth: list[dict[str, Any]]
) -> dict[str, Any]:
    """crawldedup's duplicate verdicts whose ``duplicate_of`` is a page of another truth
    cluster, by rule: the links that join clusters. One such link joins every pair of
    the two groups, so a few links can be most of the pairwise false positives."""
    cluster = {t["id"]: t["cluster"] for t in truth}
    wrong = Counter(
        rule
        for doc, (to, rule) in links.items()
        if doc in cluster and to in cluster and cluster[doc] != cluster[to]
    )
    return {"links": len(links), "wrong": sum(wrong.values()), "by_rule": dict(wrong)}


# --------------------------------------------------------------------------- scoring


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def c2(n: int) -> int:
    return n * (n - 1) // 2


def score(pred: Mapping[str, str], truth: list[dict[str, Any]]) -> dict[str, float]:
    cells: Counter[tuple[str, str]] = Counter()
    by_pred: Counter[str] = Counter()
    by_true: Counter[str] = Counter()
    for t in truth:
        g = pred.get(t["id"], t["id"])
        cells[(t["cluster"], g)] += 1
        by_pred[g] += 1
        by_true[t["cluster"]] += 1
    tp = sum(c2(n) for n in cells.values())
    pp = sum(c2(n) for n in by_pred.values())
    tt = sum(c2(n) for n in by_true.values())
    p = tp / pp if pp else 1.0
    r = tp / tt if tt else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": pp - tp, "fn": tt - tp}


def recall_by_kind(pred: Mapping[str, str], truth: list[dict[str, Any]]) -> dict[str, float]:
    cells: Counter[tuple[str, str]] = Counter()
    size: Counter[str] = Counter()
    for t in truth:
        cells[(t["cluster"], pred.get(t["id"], t["id"]))] += 1
        size[t["cluster"]] += 1
    num: Counter[str] = Counter()
    den: Counter[str] = Counter()
    for t in truth:
        if t["kind"] == "original":
            continue
        g = pred.get(t["id"], t["id"])
        num[t["kind"]] += cells[(t["cluster"], g)] - 1
        den[t["kind"]] += size[t["cluster"]] - 1
    return {k: num[k] / den[k] if den[k] else 1.0 for k in sorted(den)}


def hard_negative_errors(
    pred: Mapping[str, str], pairs: list[dict[str, Any]]
) -> dict[str, dict[str, float]]:
    total: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for p in pairs:
        total[p["family"]] += 1
        if pred.get(p["a"], p["a"]) == pred.get(p["b"], p["b"]):
            wrong[p["family"]] += 1
    out = {
        f: {"grouped": wrong[f], "pairs": total[f], "per_10k": 1e4 * wrong[f] / total[f]}
        for f in sorted(total)
    }
    n, w = sum(total.values()), sum(wrong.values())
    out["all"] = {"grouped": w, "pairs": n, "per_10k": 1e4 * w / n if n else 0.0}
    return out


def boilerplate_errors(hard: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Wrong pairs over the families sharing a site's boilerplate, per 1,000 pairs."""
    fams = [f for f in BOILERPLATE_FAMILIES if f in hard]
    w = sum(int(hard[f]["grouped"]) for f in fams)
    n = sum(int(hard[f]["pairs"]) for f in fams)
    return {"families": fams, "grouped": w, "pairs": n, "per_1k": 1e3 * w / n if n else 0.0}


# --------------------------------------------------------------------------- report


def report(
    results: list[Result],
    truth: list[dict[str, Any]],
    pairs: list[dict[str, Any]],
    quarantined: dict[str, int],
    emit,
    links: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    scored = {r.name: score(r.groups, truth) for r in results if r.groups}
    kinds = {r.name: recall_by_kind(r.groups, truth) for r in results if r.groups}
    hard = {r.name: hard_negative_errors(r.groups, pairs) for r in results if r.groups}
    names = [r.name for r in results if r.groups]

    emit(f"### Pairwise precision / recall / F1 ({len(truth)} documents)\n")
    emit("| method | P | R | F1 | FP pairs | FN pairs | wall s |")
    emit("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        if not r.groups:
            emit(f"| {r.name} | – | – | – | – | – | {r.seconds:.1f} ({r.note}) |")
            continue
        s = scored[r.name]
        emit(
            f"| {r.name} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} "
            f"| {s['fp']} | {s['fn']} | {r.seconds:.1f} |"
        )
    emit("")

    copies = Counter(t["kind"] for t in truth if t["kind"] != "original")
    emit("### Recall per kind (pairs between each copy and its cluster)\n")
    emit("| kind (copies) | " + " | ".join(names) + " |")
    emit("|---|" + "---:|" * len(names))
    for k in sorted(copies):
        emit(
            f"| {k} ({copies[k]}) | "
            + " | ".join(f"{kinds[n].get(k, 1.0):.3f}" for n in names)
            + " |"
        )
    emit("")

    fams = [*sorted({p["family"] for p in pairs}), "all"]
    emit("### Hard-negative pairs grouped (count, per 10,000 pairs of the family)\n")
    emit("| family (pairs) | " + " | ".join(names) + " |")
    emit("|---|" + "---:|" * len(names))
    for f in fams:
        n_pairs = next(iter(hard.values()))[f]["pairs"] if hard else 0
        cells = [f"{hard[n][f]['grouped']} ({hard[n][f]['per_10k']:.0f})" for n in names]
        emit(f"| {f} ({n_pairs}) | " + " | ".join(cells) + " |")
    emit("")

    shared = {n: boilerplate_errors(hard[n]) for n in names}
    if shared and next(iter(shared.values()))["pairs"]:
        first = next(iter(shared.values()))
        emit(
            "### Wrong pairs per 1,000 pairs of different articles sharing a site's "
            f"boilerplate ({', '.join(first['families'])}: {first['pairs']} pairs)\n"
        )
        emit("| method | grouped | per 1,000 |")
        emit("|---|---:|---:|")
        for name in names:
            emit(f"| {name} | {shared[name]['grouped']} | {shared[name]['per_1k']:.1f} |")
        emit("")

    joined = wrong_links(links or {}, truth)
    emit("### crawldedup: duplicate verdicts linked to a page of another cluster\n")
    by_rule = ", ".join(f"{r} {n}" for r, n in sorted(joined["by_rule"].items())) or "none"
    emit(f"- {joined['wrong']} of {joined['links']} links ({by_rule})")
    emit("")

    emit("### crawldedup: quarantined records per reason\n")
    if quarantined:
        for reason, n in sorted(quarantined.items()):
            emit(f"- {reason}: {n}")
    else:
        emit("- none")
    emit("")
    for r in results:
        if r.note:
            emit(f"- {r.name}: {r.note}")
    return {
        "documents": len(truth),
        "methods": [
            {
                "name": r.name,
                "seconds": round(r.seconds, 2),
                "note": r.note,
                **scored.get(r.name, {}),
            }
            for r in results
        ],
        "recall_by_kind": kinds,
        "copies_by_kind": dict(copies),
        "hard_negatives": hard,
        "shared_boilerplate_per_1k": shared,
        "quarantined": quarantined,
        "wrong_links": joined,
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--spark-child"]:
        spark_child(Path(argv[1]), Path(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data", type=Path, required=True, help="a set written by benchmarks.realtext.build"
    )
    ap.add_argument("--work", type=Path, default=None, help="crawldedup's home goes to WORK/home")
    ap.add_argument("--skip-spark-peers", action="store_true")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    args = ap.parse_args(argv)

    def emit(*parts: Any) -> None:
        print(*parts, flush=True)

    def log(msg: str) -> None:
        print(f"# {msg}", file=sys.stderr, flush=True)

    data = args.data.resolve()
    truth = load_jsonl(data / "truth.jsonl")
    pairs = load_jsonl(data / "hard_negative_pairs.jsonl")
    days = sorted(p.name[3:] for p in data.glob("dt=*") if p.is_dir())
    work = args.work or Path(tempfile.mkdtemp(prefix="realtext-quality-"))
    home = work / "home"
    if home.exists():
        shutil.rmtree(home)
    work.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    try:
        cd, per_day, quarantined, links = run_crawldedup(data, home, days, args.overrides, log)
        results = [cd]
        for fn, a in (
            (run_md5, ()),
            (run_minhash, (0.5,)),
            (run_minhash, (0.8,)),
            (run_simhash, ()),
        ):
            r = fn(data, *a)
            log(f"{r.name}: {r.seconds:.1f}s")
            results.append(r)
        if not args.skip_spark_peers:
            r = run_spark(data, work, log)
            log(f"{r.name}: {r.seconds:.1f}s {r.note}")
            results.append(r)
        missing = sum(1 for t in truth if t["id"] not in cd.groups)
        emit(
            f"## Real-text quality: {data.name}, {len(truth)} documents, days {', '.join(days)}"
            f"{''.join(f', --set {o}' for o in args.overrides)}\n"
        )
        out = report(results, truth, pairs, quarantined, emit, links)
        emit(
            f"- crawldedup per day: {', '.join(f'{s:.1f}s' for s in per_day)}; "
            f"{missing} truth documents without a verdict (counted as their own group)"
        )
        emit(f"- whole benchmark: {time.perf_counter() - t_all:.0f}s")
        out["crawldedup_per_day_seconds"] = [round(s, 2) for s in per_day]
        out["overrides"] = args.overrides
        if args.json:
            args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
