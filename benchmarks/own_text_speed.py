"""A page with an own text, fingerprinted twice against once, side by side in one process.

    .venv/bin/python benchmarks/own_text_speed.py --pages 3000 --rounds 3

A page of a host with frequent lines (a sidebar of other pages' titles, standard
headings) is measured on its own text (docs/algorithm.md#boilerplate). Before 2026-12-06
its own text was fingerprinted a second time: ``own_text`` cut the runs,
``runs_sketch`` folded and shingled them again and ``own_text_key`` normalized them
again. Now ``fingerprint`` takes the runs' numbers per line (``own_line_runs``) and
takes the own sketch and key from the page's own pass. Both ways are timed on the same
pages, alternating, best of ``--rounds``, in CPU seconds; their outputs are compared.

Pages: the plain-text records of a crawl's day folder (``--day``, e.g. the real-text
crawl of docs/benchmarks.md), else documents of the real-text set's cached corpus
(benchmarks/realtext: Debian's and Python packages' documentation, Chinese and English)
when present, else the demo's articles; each page gets its host's sidebar, five titles
of other pages, above and below.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# One BLAS thread, as Spark gives its Python workers, set before numpy loads: OpenBLAS
# otherwise spins a thread per core after each small matrix product, doubling CPU time.
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache/crawldedup/realtext"

Page = tuple[str, str, frozenset[str]]  # title, text, the host's frequent line keys


def pages(n: int, day: Path | None) -> list[Page]:
    from crawldedup.config import Config
    from crawldedup.core.boilerplate import line_keys

    rng = random.Random(1)
    docs: list[tuple[str, str]] = []
    for part in sorted(day.glob("*.jsonl")) if day else []:
        for line in part.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if isinstance(rec.get("content"), str) and len(docs) < n:
                docs.append((str(rec.get("title") or ""), rec["content"]))
    for cached in sorted(CACHE.glob("corpus-*.json.gz"))[:1] if not docs else []:
        found = json.loads(gzip.decompress(cached.read_bytes()))["docs"]
        docs = [(d["title"], "\n".join(d["paragraphs"])) for d in rng.sample(found, n)]
    if not docs:
        sys.path.insert(0, str(ROOT / "demo"))
        from crawldedup_demo import corpus

        for i in range(n):
            a = corpus.compose_article(rng, ("zh", "en")[i % 2], dt.date(2026, 11, 1))
            docs.append((a.title, a.text))
    min_chars = Config().boilerplate.min_line_chars
    titles = [t for t, _ in docs if t]
    out = []
    for title, text in docs:
        sidebar = rng.sample(titles, 5)
        frequent = frozenset(k for line in sidebar for k in line_keys(line, min_chars))
        page = "\n".join([title, *sidebar[:2], text, *sidebar[2:]])
        out.append((title, page, frequent))
    return out


def twice(batch: list[Page]) -> list[tuple[str | None, str | None]]:
    """The page, then its own text again (the definitions)."""
    from crawldedup.config import Config
    from crawldedup.core.boilerplate import (
        own_text,
        own_text_key,
        without_title_heading,
    )
    from crawldedup.core.fingerprint import fingerprint, runs_sketch

    cfg = Config()
    out: list[tuple[str | None, str | None]] = []
    for title, text, frequent in batch:
        fingerprint(title, text, cfg.fingerprint, cfg.simhash, cfg.lsh)
        own = own_text(text, frequent, cfg.boilerplate.min_line_chars)
        if own is None:
            out.append((None, None))
            continue
        own = without_title_heading(own, title)
        out.append((runs_sketch(own, cfg.simhash, cfg.lsh), own_text_key(own)))
    return out


def once(batch: list[Page]) -> list[tuple[str | None, str | None]]:
    """The page and its own text in one pass."""
    from crawldedup.config import Config
    from crawldedup.core.boilerplate import own_key_of, own_line_runs
    from crawldedup.core.fingerprint import fingerprint

    cfg = Config()
    out = []
    for title, text, frequent in batch:
        own = own_line_runs(text, frequent, cfg.boilerplate.min_line_chars)
        runs = own.without_title_heading(title).runs if own else None
        fp = fingerprint(title, text, cfg.fingerprint, cfg.simhash, cfg.lsh, runs)
        out.append((fp.own_sketch, own_key_of(fp.own_md5, fp.own_length)))
    return out


def timed(fn: Callable[[list[Page]], object], batch: list[Page]) -> float:
    t0 = time.process_time()
    fn(batch)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--day", type=Path, help="a day folder of a crawl (dt=...): its plain-text pages instead"
    )
    args = ap.parse_args(argv)
    batch = pages(args.pages, args.day)
    if twice(batch) != once(batch):
        print("the two ways differ", file=sys.stderr)
        return 1
    best = {"twice": float("inf"), "once": float("inf")}
    for _ in range(args.rounds):
        for name, fn in (("twice", twice), ("once", once)):
            best[name] = min(best[name], timed(fn, batch))
    chars = sum(len(t) for _, t, _ in batch) / len(batch)
    print(f"{len(batch)} pages, {chars:.0f} characters each on average, best of {args.rounds}:")
    for name, secs in best.items():
        print(f"  {name}: {secs:.2f} CPU s, {secs / len(batch) * 1000:.3f} ms per page")
    print(f"  once / twice: {best['once'] / best['twice']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
