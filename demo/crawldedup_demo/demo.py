"""The README's first command: a sample crawl, every day de-duplicated, a summary."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.store import open_store
from crawldedup.store.schema import VerdictRecord


def predicted_groups(store_url: str, days: list[str]) -> dict[str, VerdictRecord]:
    out: dict[str, VerdictRecord] = {}
    with open_store(store_url) as store:
        for d in days:
            for key, row in store.scan_prefix("verdicts", f"{d}|"):
                rec = VerdictRecord.from_row(key, row)
                out[rec.id] = rec
    return out


def run_demo(
    home: Path,
    cfg: Config,
    days: int = 3,
    seed: int = 7,
    start: date = date(2026, 11, 1),
    progress: Callable[[str], None] = print,
) -> int:
    from crawldedup.pipeline.spark import build_session
    from crawldedup.pipeline.stages import run_stages
    from crawldedup_demo import (
        false_positive_pairs_by_negative,
        generate_sample,
        load_truth,
        pairwise_scores,
        recall_by_transform,
    )

    demo_home = home / "demo"
    # The demo owns this folder: start from nothing so the figures are reproducible.
    shutil.rmtree(demo_home, ignore_errors=True)
    sample_dir = demo_home / "sample"
    generate_sample(sample_dir, days=days, seed=seed, start=start)
    day_list = [(start + timedelta(days=i)).isoformat() for i in range(days)]
    progress(f"sample crawl of {days} days written to {sample_dir}")
    spark = build_session(cfg, "crawldedup-demo")
    reports = []
    try:
        for d in day_list:
            ctx = DayContext(day=d, home=demo_home, cfg=cfg, input_dir=sample_dir / f"dt={d}")
            reports.append(run_stages(spark, ctx, progress=progress))
    finally:
        spark.stop()

    store_url = DayContext(day=day_list[0], home=demo_home, cfg=cfg).store
    verdicts = predicted_groups(store_url, day_list)
    truth = load_truth(sample_dir / "truth.jsonl")
    pred = {i: v.group for i, v in verdicts.items() if i in truth}
    scores = pairwise_scores(pred, truth)
    by_transform = recall_by_transform(pred, truth)
    fp_negatives = false_positive_pairs_by_negative(pred, truth)

    print()
    print(f"{'day':<12}{'docs':>6}{'unique':>8}{'dups':>6}{'quar.':>7}  duplicates by rule")
    for r in reports:
        rules = ", ".join(f"{k} {v}" for k, v in sorted(r["duplicates"].items())) or "-"
        print(
            f"{r['day']:<12}{r['documents']:>6}{r['unique']:>8}{r['duplicates_total']:>6}"
            f"{r['quarantined_total']:>7}  {rules}"
        )
    sizes = Counter(v.group for v in verdicts.values())
    multi = [g for g, n in sizes.items() if n > 1]
    print(f"groups with copies: {len(multi)}, largest: {max(sizes.values(), default=0)} documents")
    quarantined: Counter[str] = Counter()
    for r in reports:
        quarantined.update(r["quarantined"])
    print(f"quarantined by reason: {dict(sorted(quarantined.items()))}")
    print(
        f"against the planted truth: precision {scores.precision:.3f}, recall {scores.recall:.3f}, "
        f"F1 {scores.f1:.3f} (pairs: {scores.tp} right, {scores.fp} wrong, {scores.fn} missed)"
    )
    print(
        "recall by transformation: "
        + ", ".join(f"{k} {v.hits}/{v.total}" for k, v in sorted(by_transform.items()))
    )
    print(f"false-positive pairs among hard negatives: {dict(sorted(fp_negatives.items()))}")
    print(f"verdicts: crawldedup verdicts --date {day_list[-1]} --home {demo_home}")
    print(f"reports:  {demo_home / 'work'}/dt=*/report.json")
    return 0
