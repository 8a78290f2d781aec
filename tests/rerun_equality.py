"""What a published day looks like to its readers, for comparing a rerun with a fresh run.

A rerun of a day with parameters Y must leave the store as a fresh run with Y would
(docs/store.md#reruns). :func:`published_state` reads everything a user or a later day
reads: every table (the ledger by what it records, not by its writers' random row keys),
and per day the verdicts, the groups view, the report and ``explain`` of its documents.
Left out, because they describe the run rather than the day: timings, store operation
counts, the store's URL, the time of the commit, the figures of the Bloom filter the run
probed, and the run lock. A Bloom block a rerun dropped is
rebuilt by the next day's bloom stage, so blocks are compared where both stores have one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crawldedup.config import Config
from crawldedup.day_state import DOCS_PACKED
from crawldedup.explain import ExplainError, explain
from crawldedup.store import open_store
from crawldedup.store.base import TABLES
from crawldedup.store.day_ledger import LEDGER, recorded
from crawldedup.store.schema import DOC_CELL, VerdictRecord, doc_fields
from crawldedup.views import day_verdicts, top_groups

# Fields of a report that describe the run, not the day (module docstring).
# The Bloom figures describe the filter the run probed: a rerun of an earlier day probes
# one that also holds the later days' keys (and its own earlier run's), which the
# lookups then set aside; the filters' contents are compared as the stored blocks.
RUN_FIELDS = ("seconds", "store_ops", "store", "input", "bloom")


def _report(text: bytes) -> dict[str, Any]:
    report = json.loads(text)
    for f in RUN_FIELDS:
        report.pop(f, None)
    report.get("config", {}).pop("committed_at", None)
    report.get("config", {}).pop("run", None)
    return report


def _day_cell(column: str, value: bytes) -> Any:
    if column == "r:report":
        return _report(value)
    if column == "r:published":
        published = json.loads(value)
        published.pop("committed_at", None)
        published.pop("run", None)
        return published
    return value


def _tables(store: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for table in TABLES:
        if table in ("locks", LEDGER):
            continue
        rows = dict(store.scan(table))
        if table == "days":
            rows = {d: {c: _day_cell(c, v) for c, v in cells.items()} for d, cells in rows.items()}
        if table == "docs":  # what a reader reads, in either layout
            rows = {d: doc_fields(cells) for d, cells in rows.items()}
        if table == "days":  # which layout a day's document rows were written in
            rows = {d: {c: v for c, v in r.items() if c != DOCS_PACKED} for d, r in rows.items()}
        out[table] = rows
    out[LEDGER] = recorded(store)
    return out


def published_state(store_url: str, home: Path, days: list[str], cfg: Config) -> dict[str, Any]:
    with open_store(store_url) as store:
        state: dict[str, Any] = {"tables": _tables(store)}
        for day in days:
            verdicts = sorted((v.as_json() for v in day_verdicts(store, day)), key=str)
            groups = [g.as_json() for g in top_groups(store, day, 10_000)]
            explained = {}
            for v in verdicts:
                try:
                    explained[v["id"]] = explain(store, home, day, v["id"], cfg, None)
                except ExplainError as exc:
                    explained[v["id"]] = [f"error: {exc}"]
            state[day] = {"verdicts": verdicts, "groups": groups, "explain": explained}
    return state


def _leaves(path: str, x: Any, y: Any) -> list[str]:
    if x == y:
        return []
    if isinstance(x, dict) and isinstance(y, dict):
        return [
            d
            for k in sorted(x.keys() | y.keys(), key=str)
            for d in _leaves(f"{path}[{k}]", x.get(k), y.get(k))
        ]
    return [f"{path}: {str(x)[:200]} != {str(y)[:200]}"]


def _lacks_bits(a: dict[str, bytes], b: dict[str, bytes]) -> bool:
    """Whether line-filter block ``a`` is sized otherwise than ``b`` or lacks a bit of it."""
    from crawldedup.core.bloom import from_bytes

    if a.get("b:sizing") != b.get("b:sizing"):
        return True
    bits_a, bits_b = from_bytes(a["b:bits"]).bitarray, from_bytes(b["b:bits"]).bitarray
    return bool((bits_b & ~bits_a).any())


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Readable differences between two states, one per differing leaf (empty: equal);
    Bloom blocks compared where both stores have the row. A rerun's (``a``) line-filter
    blocks (``lines|…``) may hold more than a fresh run's (``b``: the rows the rerun took
    back), never less."""
    blocks_a = a["tables"].pop("bloom_blocks", {})
    blocks_b = b["tables"].pop("bloom_blocks", {})
    try:
        out = [
            f"bloom_blocks {row}: differs"
            for row in sorted(blocks_a.keys() & blocks_b.keys())
            if (
                _lacks_bits(blocks_a[row], blocks_b[row])
                if row.startswith("lines|")
                else blocks_a[row] != blocks_b[row]
            )
        ]
        return out + _leaves("", a, b)
    finally:
        a["tables"]["bloom_blocks"], b["tables"]["bloom_blocks"] = blocks_a, blocks_b


def write_old_verdict_layout(store_url: str, days: list[str]) -> int:
    """Rewrite the verdict rows of ``days`` as releases before 2026-12 wrote them: a cell
    a field, an empty value for a null (the record's JSON cell replaced). Returns the
    rows rewritten."""

    def cell(v: Any) -> bytes:
        return b"" if v is None else (repr(v) if isinstance(v, float) else str(v)).encode()

    with open_store(store_url) as store:
        for day in days:
            rows = {
                key: {f"v:{f}": cell(value) for f, value in record.items() if f != "id"}
                for key, record in (
                    (k, VerdictRecord.from_row(k, r).as_json())
                    for k, r in store.scan_prefix("verdicts", f"{day}|")
                )
            }
            assert rows, f"no verdicts of {day} to rewrite"
            store.delete("verdicts", list(rows))
            store.put("verdicts", rows)
            assert all(
                r.get("v:verdict", b"").decode() in ("unique", "duplicate")
                for _, r in store.scan_prefix("verdicts", f"{day}|")
            )
    return len(rows)


def write_old_doc_layout(store_url: str) -> int:
    """Rewrite every document row as releases before 2026-12 wrote it: a cell a field
    (the packed cell replaced), and no day marked packed. Returns the rows rewritten."""
    with open_store(store_url) as store:
        rows = {k: doc_fields(r) for k, r in store.scan("docs") if DOC_CELL in r}
        assert rows, "no document rows to rewrite"
        store.delete("docs", list(rows))
        store.put("docs", rows)
        assert not any(DOC_CELL in r for _, r in store.scan("docs"))
        marked = [d for d, r in store.scan("days") if DOCS_PACKED in r]
        store.delete("days", marked, columns=[DOCS_PACKED])
    return len(rows)


def unique_lines_with_duplicate_fields(store_url: str, day: str) -> list[dict[str, Any]]:
    """The issue's reproduction: unique verdict lines that carry a rule or a target."""
    with open_store(store_url) as store:
        rows = store.scan_prefix("verdicts", f"{day}|")
        lines = [VerdictRecord.from_row(k, r).as_json() for k, r in rows]
    return [
        v
        for v in lines
        if v["verdict"] == "unique" and (v["rule"] or v["duplicate_of"] or v["type"])
    ]


def check_a_stale_field_is_told(
    rerun: dict[str, Any], fresh: dict[str, Any], store_url: str, home: Path, day: str
) -> None:
    """The comparison can fail: an earlier run's rule put back on a unique page's record
    of ``day`` (what a merging put used to leave) is a difference of the published states
    and a unique line with duplicate fields. Rewrites that record in the rerun's store."""
    unique = next(v for v in rerun[day]["verdicts"] if v["verdict"] == "unique")
    stale = VerdictRecord(**{**unique, "rule": "lsh"})
    with open_store(store_url) as store:
        store.put("verdicts", {f"{day}|{unique['id']}": stale.to_row()})
    again = published_state(store_url, home, [d for d in rerun if d != "tables"], Config())
    assert any("[verdicts]" in d for d in differences(again, fresh))
    assert unique_lines_with_duplicate_fields(store_url, day)
