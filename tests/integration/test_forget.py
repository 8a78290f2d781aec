"""``crawldedup forget`` (crawldedup/retention.py) on both backends: one host's pages, and a
range of days killed with SIGKILL in the middle and run again.

The store is written here through the store's own API with the schema's row builders
(documents, verdicts, postings, recorded line counts, Bloom blocks), not by running the
stages: a forget cut in the middle needs thousands of documents, and the stages' days
are tested with a window in tests/spark/test_retention.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.day_state import PUBLISHED_WITH
from crawldedup.pipeline.bloom_blocks import BLOCKS, block_row, key_ranges, range_of
from crawldedup.retention import FORGOTTEN
from crawldedup.rules import Rule
from crawldedup.store import open_store
from crawldedup.store.day_ledger import put_recorded
from crawldedup.store.schema import (
    DOC_CELL,
    INDEX_FIELDS,
    VerdictRecord,
    doc_fields,
    doc_row,
    get_docs,
    posting_column,
    posting_value,
    verdict_row_key,
)
from tests.cli_helpers import BIN, cli, cli_env, table_dump
from tests.hbase_fixtures import drop_prefix, hbase_url, unique_prefix

DAYS = ("2026-09-01", "2026-09-02", "2026-09-03")
HOSTS = ("a.example", "b.example")


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def build_store(url: str, per_day: int) -> None:
    """``per_day`` documents a day on two hosts, each with a key in four rule tables
    (one shared by every document of its host and day), recorded line counts, Bloom
    blocks and committed days."""
    with open_store(url) as store:
        for day in DAYS:
            docs: dict[str, dict[str, bytes]] = {}
            verdicts: dict[str, dict[str, bytes]] = {}
            postings: dict[str, dict[str, dict[str, bytes]]] = {}
            for i in range(per_day):
                host = HOSTS[i % 2]
                doc_id = f"{day}-{i:05d}"
                keys: dict[str, Any] = {
                    Rule.CONTENT_MD5.value: _md5(f"content {doc_id}"),
                    Rule.HEAD.value: _md5(f"head {host} {day}"),
                    Rule.LSH.value: [_md5(f"band {doc_id} {b}") for b in range(3)],
                }
                row = doc_row(
                    url=f"http://{host}/{doc_id}",
                    title="t",
                    day=day,
                    fetched_at=f"{day}T01:00:00Z",
                    keys=keys,
                    simhash="0" * 16,
                    tf_json='{"x": 1}',
                    group=doc_id,
                    raw_md5=_md5(doc_id),
                    sketch="0abc" * 4,
                    length=100,
                )
                # The first day as a store written before 2026-12 holds it, a cell a
                # field: forgetting reads and forgets both layouts.
                docs[doc_id] = doc_fields(row) if day == DAYS[0] else row
                verdicts[verdict_row_key(day, doc_id)] = VerdictRecord(
                    doc_id, "unique", None, None, None, doc_id
                ).to_row()
                for rule, key in keys.items():
                    for k in key if isinstance(key, list) else [key]:
                        cell = {posting_column(doc_id): posting_value(day, f"{day}T01:00:00Z")}
                        postings.setdefault(Rule(rule).table, {}).setdefault(k, {}).update(cell)
            store.put("docs", docs)
            store.put("verdicts", verdicts)
            for table, rows in postings.items():
                store.put(table, rows)
            counts = {f"{h}|{_md5('footer')}": {f"d:{day}": b"5"} for h in HOSTS}
            counts[f"*|{_md5('footer')}"] = {f"d:@{HOSTS[0]}|{day}": b""}
            put_recorded(store, day, "host_lines", counts)
            store.put("days", {day: {PUBLISHED_WITH: json.dumps({"documents": per_day}).encode()}})
        ranges = range(len(key_ranges(Config().bloom.scan_splits)))
        store.put(BLOCKS, {block_row(Rule.LSH.value, i): {"b:bits": b"\x01"} for i in ranges})


@pytest.fixture(params=["sqlite", pytest.param("hbase", marks=pytest.mark.hbase)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A function giving fresh store URLs of the backend."""
    prefixes: list[str] = []

    def new(tag: str) -> str:
        if request.param == "sqlite":
            return f"sqlite:///{tmp_path / f'{tag}.db'}"
        prefix = unique_prefix(tag)
        prefixes.append(prefix)
        return hbase_url(prefix)

    if request.param == "hbase":
        request.getfixturevalue("hbase")
    yield new
    for p in prefixes:
        drop_prefix(p)


def _comparable_after(dump: dict[str, Any]) -> dict[str, Any]:
    """Every table; of the forget log, what and its state (a forget cut short and run
    again counts only what the second run found)."""
    return {**dump, FORGOTTEN: [(k, c["f:state"]) for k, c in dump[FORGOTTEN]]}


def _comparable(url: str) -> dict[str, Any]:
    return _comparable_after(table_dump(url))


@pytest.mark.parametrize(
    "backend",
    ["sqlite", pytest.param("hbase", marks=[pytest.mark.hbase, pytest.mark.exhaustive])],
    indirect=True,
)
def test_forget_a_host(backend: Any, tmp_path: Path) -> None:
    url = backend("host")
    build_store(url, per_day=20)
    before = table_dump(url)
    home = tmp_path / "home"

    # Without --yes: what would go is printed, nothing goes, exit 2.
    refused = cli_env({}, "forget", "--host", HOSTS[0], "--store", url, home=home)
    assert refused.returncode == 2, refused.stderr
    assert "add --yes" in refused.stderr
    would = json.loads(refused.stdout.splitlines()[0])
    assert would["dry_run"] and would["documents"] == 30 and would["bytes"] > 0, would
    looked = cli("forget", "--host", HOSTS[0], "--dry-run", "--store", url, home=home)
    assert json.loads(looked.stdout.splitlines()[0]) == would
    assert table_dump(url) == before

    done = cli("forget", "--host", HOSTS[0], "--yes", "--store", url, home=home)
    gone = json.loads(done.stdout.splitlines()[0])
    for name in ("documents", "postings", "cells", "rows"):
        assert gone[name] == would[name], name
    after = table_dump(url)
    docs = {k: doc_fields(cells) for k, cells in after["docs"]}
    assert {DOC_CELL in cells for _, cells in after["docs"]} == {True, False}  # both layouts
    for doc_id, cells in docs.items():
        host = cells["m:url"].decode().split("/")[2]
        assert bool(set(INDEX_FIELDS) & set(cells)) == (host != HOSTS[0]), doc_id
        assert cells["m:url"] and cells["m:day"]  # the published record stays
    for table in (Rule.CONTENT_MD5.table, Rule.HEAD.table, Rule.LSH.table):
        owners = {c[2:] for _, cells in after[table] for c in cells}
        assert owners and all(docs[o]["m:url"].decode().split("/")[2] == HOSTS[1] for o in owners)
    assert after["verdicts"] == before["verdicts"]
    assert after["groups"] == before["groups"]
    lines = dict(after["host_lines"])
    assert not any(k.startswith(f"{HOSTS[0]}|") for k in lines)
    assert all(not c.startswith(f"d:@{HOSTS[0]}") for row in lines.values() for c in row)
    assert any(k.startswith(f"{HOSTS[1]}|") for k in lines)
    # The Bloom blocks of its keys' ranges go (the next bloom stage rebuilds them from the
    # index); the others stay.
    lows = [lo for lo, _ in key_ranges(Config().bloom.scan_splits)]
    forgotten_keys = {
        k
        for k, cells in before[Rule.LSH.table]
        for c in cells
        if docs[c[2:]]["m:url"].decode().split("/")[2] == HOSTS[0]
    }
    dropped = {block_row(Rule.LSH.value, range_of(k, lows)) for k in forgotten_keys}
    kept = {k for k, _ in after[BLOCKS]}
    assert gone["bloom_blocks"] == len(dropped) > 0
    assert kept == {k for k, _ in before[BLOCKS]} - dropped

    # Idempotent: again, nothing left to forget, nothing changes; the log says done.
    again = cli("forget", "--host", HOSTS[0], "--yes", "--log", "--store", url, home=home)
    counts = json.loads(again.stdout.splitlines()[0])
    assert counts["documents"] == counts["postings"] == counts["bloom_blocks"] == 0, counts
    log = [json.loads(line) for line in again.stdout.splitlines()[1:]]
    assert log[0]["host"] == HOSTS[0] and log[0]["state"] == "done"
    assert log[0]["counts"]["documents"] == 0
    assert _comparable(url) == _comparable_after(after)


def test_forget_days_killed_in_the_middle_is_finished_by_a_rerun(
    backend: Any, tmp_path: Path
) -> None:
    reference, url = backend("reference"), backend("killed")
    # Enough documents that the kill lands inside the second day (HBase forgets about a
    # fifth as many a second as SQLite: benchmarks/forget_speed.py).
    per_day = 600 if url.startswith("hbase") else 3000
    small = "limits.store_batch_size=20"
    build_store(reference, per_day)
    build_store(url, per_day)
    home = tmp_path / "home"
    first, last = DAYS[0], DAYS[1]

    def forget(store_url: str) -> list[str]:
        return [
            "forget",
            "--from",
            first,
            "--to",
            last,
            "--yes",
            "--set",
            small,
            "--store",
            store_url,
        ]

    cli(*forget(reference), home=home)
    env = {**os.environ, "CRAWLDEDUP_HOME": str(home)}
    cmd = [str(BIN), *forget(url)]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()  # "forgot <first>: ..." once the first day is done
    assert line.startswith(f"crawldedup: forgot {first}"), line
    # Into the second day: the first of its documents forgotten, the last not yet.
    sample = [f"{last}-{i:05d}" for i in range(0, per_day, 50)]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with open_store(url) as store:
            keyed = {k for k, f in get_docs(store, sample).items() if "m:keys" in f}
        if sample[0] not in keyed and sample[-1] in keyed:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    with open_store(url) as store:
        state = store.get(FORGOTTEN, [f"day|{last}"])[f"day|{last}"]["f:state"]
        left = [k for k, c in store.scan("docs") if "m:keys" in doc_fields(c) and k < DAYS[2]]
    assert state == b"running", "the kill came after the second day was done"
    assert left, "the kill came after the second day's documents were forgotten"

    # The rerun takes over the dead holder's lock and finishes the range.
    rerun = cli(*forget(url), home=home)
    assert f"forgot {last}" in rerun.stderr
    assert _comparable(url) == _comparable(reference)
    with open_store(url) as store:
        third = [k for k, c in store.scan("docs") if "m:keys" in doc_fields(c)]
    assert third and all(k.startswith(DAYS[2]) for k in third)
    shutil.rmtree(home, ignore_errors=True)
