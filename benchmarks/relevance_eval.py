"""Topic relevance evaluation in the shape of the focused-crawling paper's table 1
(docs/relevance.md).

Generates two labelled days with demo/crawldedup_demo/topics.py (a validation seed and a
test seed), scores every page against every topic of the library with plain TF-IDF,
tag-weighted TF-IDF and tag-weighted TF-IDF plus the semantic library, picks each
method's threshold on the validation day (best F1 of keeping on-topic pages) and reports
on the test day, over all topics together:

* f-precise: returned on-topic pages / on-topic pages in the sample
* f-untitle: returned keyword-but-off-topic pages / on-topic pages in the sample
* f-error: returned unrelated pages / returned pages
* f-omission: on-topic pages not returned / on-topic pages in the sample
  (the paper's definitions, §4; by them f-omission = 1 - f-precise)

plus the conventional precision (returned on-topic / returned) and F1.
IDF comes from the day itself (N = its pages), as for a first crawl day.

    .venv/bin/python benchmarks/relevance_eval.py [--library config/topics.example.yaml]
        [--per-topic 200] [--unrelated 400] [--seeds 11 12] [--out docs/relevance_table.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "demo"))  # crawldedup_demo

from crawldedup.relevance.library import load_library
from crawldedup.relevance.page import split_html
from crawldedup.relevance.scoring import MODES, Scorer, default_tokenizer
from crawldedup.relevance.weighting import TermStats
from crawldedup_demo.topics import TopicPage, generate_pages

NAMES = {
    "tfidf": "plain TF-IDF (formula 1)",
    "tag_tfidf": "tag-weighted TF-IDF (formulas 1, 4-6)",
    "semantic": "tag-weighted + semantic library (formula 7)",
}


@dataclass(frozen=True)
class Scored:
    label: str  # on | keyword_off | unrelated
    topic: str
    score: float


def score_day(scorer: Scorer, pages: list[TopicPage]) -> dict[str, list[Scored]]:
    stats: list[TermStats] = [scorer.stats(split_html(p.html, p.url)) for p in pages]
    df = Counter(k for s in stats for k in scorer.df_keys(s))
    n = len(pages)
    out: dict[str, list[Scored]] = {m: [] for m in MODES}
    for page, st in zip(pages, stats, strict=True):
        for mode in MODES:
            for ts in scorer.score(st, n, df.__getitem__, mode):
                out[mode].append(Scored(page.label_for[ts.topic], ts.topic, ts.score))
    return out


@dataclass(frozen=True)
class Metrics:
    threshold: float
    precise: float
    untitle: float
    error: float
    omission: float
    precision: float
    f1: float
    returned: int


def metrics(rows: list[Scored], threshold: float | dict[str, float]) -> Metrics:
    def thr(topic: str) -> float:
        return threshold[topic] if isinstance(threshold, dict) else threshold

    returned = [r for r in rows if r.score >= thr(r.topic)]
    on = sum(1 for r in rows if r.label == "on")
    got = Counter(r.label for r in returned)
    precision = got["on"] / len(returned) if returned else 0.0
    recall = got["on"] / on if on else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Metrics(
        threshold=-1.0 if isinstance(threshold, dict) else threshold,
        precise=recall,
        untitle=got["keyword_off"] / on if on else 0.0,
        error=got["unrelated"] / len(returned) if returned else 0.0,
        omission=(on - got["on"]) / on if on else 0.0,
        precision=precision,
        f1=f1,
        returned=len(returned),
    )


def best_threshold(rows: list[Scored]) -> float:
    """The threshold with the best F1 on these rows (ties: the higher threshold)."""
    candidates = sorted({r.score for r in rows if r.score > 0}, reverse=True)
    best, best_f1 = 1.0, -1.0
    for t in candidates:
        f1 = metrics(rows, t).f1
        if f1 > best_f1:
            best, best_f1 = t, f1
    return best


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", default="config/topics.example.yaml")
    ap.add_argument("--per-topic", type=int, default=200)
    ap.add_argument("--unrelated", type=int, default=400)
    ap.add_argument("--seeds", type=int, nargs=2, default=(11, 12), metavar=("VALID", "TEST"))
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    library = load_library(a.library)
    scorer = Scorer(library, default_tokenizer())
    days = {
        name: score_day(scorer, generate_pages(seed, a.per_topic, a.unrelated))
        for name, seed in zip(("valid", "test"), a.seeds, strict=True)
    }
    n_pages = len(days["test"]["tfidf"]) // len(library.topics)
    lines = [
        f"Test day: seed {a.seeds[1]}, {n_pages} pages ({a.per_topic} on-topic and "
        f"{a.per_topic // 2} keyword-but-off-topic per topic, {a.unrelated} unrelated), "
        f"{len(library.topics)} topics ({', '.join(library.topics)}); thresholds chosen on "
        f"the validation day (seed {a.seeds[0]}).",
        "",
        "| method | threshold | f-precise | f-untitle | f-error | f-omission | precision | F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def row(name: str, thr: str, m: Metrics) -> str:
        return (
            f"| {name} | {thr} | {pct(m.precise)} | {pct(m.untitle)} | {pct(m.error)} "
            f"| {pct(m.omission)} | {pct(m.precision)} | {m.f1:.3f} |"
        )

    for mode in MODES:
        t = best_threshold(days["valid"][mode])
        lines.append(row(NAMES[mode], f"{t:.4f}", metrics(days["test"][mode], t)))
    configured = {name: topic.threshold for name, topic in library.topics.items()}
    lines.append(
        row(
            NAMES["semantic"] + ", the library's own thresholds",
            "per topic",
            metrics(days["test"]["semantic"], configured),
        )
    )
    lines += ["", f"({time.perf_counter() - t0:.1f} s)"]
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
