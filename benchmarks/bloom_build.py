"""Bloom filter build and probe: pybloom-live key by key vs crawldedup's vectorized fill.

    .venv/bin/python benchmarks/bloom_build.py --keys 1000000 --filters 4

Builds ``--filters`` filters of ``--keys`` md5-hex keys each (sized 1.25 × keys at
error rate 0.001, as the bloom stage sizes them) both ways in one process, checks the
bits are identical, and prints seconds and the ratio side by side; then probes 200k keys
both ways. One core: the bloom stage runs one such build per key range and rule in
parallel tasks, plus the store scans (see benchmarks/throughput.py for the stage).
"""

from __future__ import annotations

import argparse
import hashlib
import time

from crawldedup.core.bloom import add_many, contains_many, new_filter


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--filters", type=int, default=4)
    ap.add_argument("--error-rate", type=float, default=0.001)
    args = ap.parse_args(argv)
    tables = [
        [hashlib.md5(f"{t}:{i}".encode()).hexdigest() for i in range(args.keys)]
        for t in range(args.filters)
    ]
    capacity = int(args.keys * 1.25)
    t0, c0 = time.perf_counter(), time.process_time()
    plain = []
    for keys in tables:
        bf = new_filter(capacity, args.error_rate)
        for k in keys:
            bf.add(k, skip_check=True)
        plain.append(bf)
    t_plain, c_plain = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    fast = []
    for keys in tables:
        bf = new_filter(capacity, args.error_rate)
        add_many(bf, keys)
        fast.append(bf)
    t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0
    assert all(a.bitarray == b.bitarray for a, b in zip(plain, fast, strict=True))
    probe = tables[0][:100_000] + [k + "x" for k in tables[0][:100_000]]
    t0 = time.perf_counter()
    hits_plain = sum(k in plain[0] for k in probe)
    p_plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    hits_fast = int(contains_many(fast[0], probe).sum())
    p_fast = time.perf_counter() - t0
    assert hits_plain == hits_fast
    n = args.keys * args.filters
    print(f"build {args.filters} x {args.keys} keys ({fast[0].num_bits / 8 / 2**20:.1f} MiB each)")
    print("| method | build wall s | build CPU s | keys per CPU s | probe 200k wall s |")
    print("|---|---:|---:|---:|---:|")
    for name, t, c, p in (
        ("pybloom-live add()", t_plain, c_plain, p_plain),
        ("crawldedup add_many()", t_fast, c_fast, p_fast),
    ):
        print(f"| {name} | {t:.2f} | {c:.2f} | {n / c:,.0f} | {p:.2f} |")
    print(f"ratio: build {c_plain / c_fast:.1f}x less CPU, probe {p_plain / p_fast:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
