"""Fingerprinting speed on one core: this tree against a baseline commit, side by side.

    .venv/bin/python benchmarks/fingerprint_speed.py --baseline 4dd7280 --docs 2000

Composes ``--docs`` articles of ~2 KB (70 % Chinese) from the sample corpus (this tree's
demo/crawldedup_demo), then times ``crawldedup.core.fingerprint.fingerprint`` over the
same articles in a fresh process per code version (the baseline's ``crawldedup`` package
extracted with ``git archive``), best of three passes, in CPU seconds so that other load
on the machine matters less. Prints documents per CPU second for each and the ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The articles come from this tree's sample corpus (demo/crawldedup_demo), composed once
# here and read by each timer from a JSON file: both codes fingerprint the same texts,
# and the baseline's tree needs no corpus of its own.
_TIMER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from crawldedup.config import Config
from crawldedup.core.fingerprint import fingerprint
with open(sys.argv[2], encoding="utf-8") as fh:
    docs = json.load(fh)
cfg = Config()
best = float("inf")
for _ in range(3):
    t0 = time.process_time()
    for text in docs:
        fingerprint("", text, cfg.fingerprint, cfg.simhash)
    best = min(best, time.process_time() - t0)
print(len(docs) / best, sum(len(t.encode()) for t in docs) / len(docs))
"""


def articles(docs: int) -> list[str]:
    sys.path.insert(0, str(ROOT / "demo"))
    from crawldedup_demo import corpus

    rng = random.Random(1)
    out = []
    for _ in range(docs):
        lang = "zh" if rng.random() < 0.7 else "en"
        a = corpus.compose_article(
            rng,
            lang,
            dt.date(2026, 11, 1),
            target=700 if lang == "zh" else 2000,
            max_chars=2600,
        )
        out.append(a.text)
    return out


def rate(code_root: Path, texts: Path) -> tuple[float, float]:
    # One BLAS thread, as Spark gives its Python workers (OMP_NUM_THREADS=1): numpy's
    # OpenBLAS otherwise spins a thread per core after each small matrix product (the
    # SimHash votes), and the process's CPU time doubles (0.37 -> 0.78 ms a page).
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, str(code_root), str(texts)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    ).stdout.split()
    return float(out[0]), float(out[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="4dd7280", help="commit to compare against")
    ap.add_argument("--docs", type=int, default=2000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline, "crawldedup"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        texts = Path(tmp) / "articles.json"
        texts.write_text(json.dumps(articles(args.docs), ensure_ascii=False), encoding="utf-8")
        base, size = rate(Path(tmp), texts)
        here, _ = rate(ROOT, texts)
    print(f"{args.docs} articles, {size:.0f} bytes mean, one core, best of 3, CPU time")
    print("| code | docs per CPU s |")
    print("|---|---:|")
    print(f"| baseline {args.baseline} | {base:,.0f} |")
    print(f"| this tree | {here:,.0f} |")
    print(f"ratio: {here / base:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
