"""An index of earlier days made of fillers, written straight into a store.

A filler is a document of an earlier day with a unique random key in every index table
(title, head, tail, content md5; SimHash blocks), one posting each, and no document
row. Fillers cost what real keys cost in the stages' store lookups, the Bloom filters
and the store's size; they are never candidates, as unrelated documents are not. Used by
benchmarks/throughput.py and benchmarks/crawl_vs_peers.py (``--index``).
"""

from __future__ import annotations

import random

from crawldedup.config import Config
from crawldedup.core.fingerprint import block_keys
from crawldedup.rules import Rule
from crawldedup.store import Store
from crawldedup.store.schema import posting_value

# The fillers' random keys are drawn in this order (A, C, D, B), so a seed gives the
# same index as before the rules were an enum.
FILLER_ORDER = [Rule.TITLE, Rule.HEAD, Rule.TAIL, Rule.CONTENT_MD5]
BATCH = 20_000


def load_fillers(store: Store, cfg: Config, count: int, day: str, rng: random.Random) -> None:
    """Write ``count`` fillers of ``day`` into ``store``, ``BATCH`` documents a put."""
    stamp = f"{day}T00:00:00.000000Z"
    for start in range(0, count, BATCH):
        tables: dict[str, dict[str, dict[str, bytes]]] = {r.table: {} for r in Rule}
        for i in range(start, min(count, start + BATCH)):
            col = f"d:f{i:08d}"
            for rule in FILLER_ORDER:
                tables[rule.table][f"{rng.getrandbits(128):032x}"] = {
                    col: posting_value(day, stamp)
                }
            h = rng.getrandbits(64)
            for k in block_keys(h, cfg.simhash.max_distance):
                tables[Rule.SIMHASH.table].setdefault(k, {})[col] = posting_value(
                    day, stamp, f"{h:016x}"
                )
        for table, rows in tables.items():
            store.put(table, rows)
