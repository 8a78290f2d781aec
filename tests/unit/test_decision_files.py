"""work/decisions from the day's files (``pipeline.decision_files``), without Spark: two
docs files whose documents copy each other across the files and an earlier day's page
in a real embedded store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.pandas.types import to_arrow_schema

from crawldedup.config import Config
from crawldedup.core.cascade import Policy
from crawldedup.pipeline import schemas
from crawldedup.pipeline.decision_files import FileJob, _part, decide_file
from crawldedup.pipeline.pair_scoring import _SCORES_ARROW
from crawldedup.pipeline.part_files import part_file
from crawldedup.store import open_store

DAY = "2026-11-02"
TF = json.dumps({"a": 4, "b": 4, "c": 2})
HALF_TF = json.dumps({"a": 4, "b": 4})


def _docs(rows: list[dict[str, Any]]) -> pa.Table:
    base = {
        "url": "https://x.example/p",
        "fetched_at": "2026-11-02T00:00:00Z",
        "boilerplate_only": False,
        "paragraph_size": None,
        "paragraph_edges": None,
        "raw_md5": "r",
        "content_key": "c",
        "tf": TF,
    }
    return pa.Table.from_pylist([{**base, **r} for r in rows])


def _cands(rows: list[tuple[str, str, str, str]]) -> pa.Table:
    """(id, rule, cand_id, cand_day) rows."""
    return pa.Table.from_pylist(
        [
            {
                "id": i,
                "fetched_at": "2026-11-02T01:00:00Z",
                "rule": rule,
                "cand_id": c,
                "cand_fetched_at": f"{day}T00:00:00Z",
                "cand_day": day,
                "shared_chars": None,
            }
            for i, rule, c, day in rows
        ],
        schema=to_arrow_schema(schemas.CANDIDATES),
    )


def _scores(rows: list[tuple[str, str, float]]) -> pa.Table:
    """(id, cand_id, jaccard) rows, containment as the Jaccard."""
    return pa.Table.from_pylist(
        [
            {
                "id": i,
                "cand_id": c,
                "similarity": None,
                "hamming": 3,
                "jaccard": j,
                "containment": j,
                "smaller_shingles": 500.0,
                "shorter_chars": 4000,
                "editions": False,
                "cand_chars": 5000,
            }
            for i, c, j in rows
        ],
        schema=_SCORES_ARROW,
    )


def _job(tmp_path: Path, store_url: str, editions: bool = True) -> FileJob:
    cfg = Config()
    return FileJob(
        day=DAY,
        docs_dir=str(tmp_path / "docs"),
        cands_dir=str(tmp_path / "candidates"),
        scores_dir=str(tmp_path / "scores"),
        out_dir=str(tmp_path / "decisions"),
        store_url=store_url,
        batch_size=2,
        policy=Policy.from_config(cfg),
        rules=tuple(cfg.cascade.rules),
        partial_containment=cfg.cascade.partial_containment,
        editions=editions,
    )


def _write(folder: Path, i: int, table: pa.Table) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, part_file(folder, i))


def _day(tmp_path: Path) -> str:
    """Docs file 0: ``copy`` (of ``orig`` in file 1, the same raw page), ``later`` (of
    the earlier day's ``old``, half its terms), ``weak`` (a candidate below every bar),
    ``bp`` (nothing but boilerplate, an exact copy). Docs file 1: ``orig``, ``other``."""
    _write(
        tmp_path / "docs",
        0,
        _docs(
            [
                {"id": "copy", "url": "https://y.example/copy"},
                {"id": "later", "raw_md5": "r2", "content_key": "c2", "tf": HALF_TF},
                {"id": "weak", "raw_md5": "r3", "content_key": "c3"},
                {"id": "bp", "boilerplate_only": True, "raw_md5": "r4"},
            ]
        ),
    )
    _write(tmp_path / "docs", 1, _docs([{"id": "orig"}, {"id": "other", "raw_md5": "r5"}]))
    _write(
        tmp_path / "candidates",
        0,
        _cands(
            [
                ("copy", "title", "orig", DAY),
                ("copy", "lsh", "orig", DAY),
                ("later", "tail", "old", "2026-11-01"),
                ("weak", "title", "other", DAY),
                ("bp", "content_md5", "orig", DAY),
            ]
        ),
    )
    _write(tmp_path / "candidates", 1, _cands([]))
    _write(
        tmp_path / "scores",
        0,
        _scores([("copy", "orig", 0.95), ("later", "old", 0.9), ("weak", "other", 0.1)]),
    )
    _write(tmp_path / "scores", 1, _scores([]))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    with open_store(url) as store:
        keys = json.dumps({"content_md5": "c-old"}).encode()
        store.put("docs", {"old": {"v:tf": TF.encode(), "m:raw_md5": b"r-old", "m:keys": keys}})
    return url


def _decisions(tmp_path: Path, i: int) -> dict[str, dict[str, Any]]:
    rows = pq.read_table(part_file(tmp_path / "decisions", i)).to_pylist()
    return {r.pop("id"): r for r in rows}


def test_each_document_gets_its_verdict_and_each_duplicate_its_type(tmp_path: Path) -> None:
    url = _day(tmp_path)
    (tmp_path / "decisions").mkdir()
    counters: dict[str, Any] = {}
    links = decide_file(_job(tmp_path, url), 0, counters)
    decide_file(_job(tmp_path, url), 1, counters)
    got = _decisions(tmp_path, 0)
    assert got["copy"] == {
        "verdict": "duplicate",
        "rule": "title",  # the first rule in cascade order that found the candidate
        "duplicate_of": "orig",
        "similarity": 0.95,
        "measure": "jaccard",
        "type": "full",  # the same raw page, its target in the other docs file
    }
    assert (got["later"]["duplicate_of"], got["later"]["type"]) == ("old", "partial")
    assert got["weak"] == {
        "verdict": "unique",
        "rule": None,
        "duplicate_of": None,
        "similarity": None,
        "measure": None,
        "type": None,
    }
    assert (got["bp"]["rule"], got["bp"]["measure"], got["bp"]["type"]) == (
        "content_md5",
        "boilerplate_only",
        "content",
    )
    assert {r["verdict"] for r in _decisions(tmp_path, 1).values()} == {"unique"}
    # The editions' chains get every duplicate, with the day's targets' URLs.
    by_id = {x.id: x for x in links}
    assert set(by_id) == {"copy", "later", "bp"}
    assert by_id["copy"].target_url == "https://x.example/p"
    assert by_id["later"].target_url is None  # an earlier day's: the chains ask the store
    no_links = decide_file(_job(tmp_path, url, editions=False), 0, counters)
    assert no_links == []


def test_a_parted_duplicate_becomes_unique_with_measure_edition(tmp_path: Path) -> None:
    url = _day(tmp_path)
    (tmp_path / "decisions").mkdir()
    decide_file(_job(tmp_path, url), 0, {})
    before = _decisions(tmp_path, 0)
    _part(str(tmp_path / "decisions"), {"copy"})
    after = _decisions(tmp_path, 0)
    assert after["copy"] == {
        "verdict": "unique",
        "rule": None,
        "duplicate_of": None,
        "similarity": None,
        "measure": "edition",
        "type": None,
    }
    assert {k: v for k, v in after.items() if k != "copy"} == {
        k: v for k, v in before.items() if k != "copy"
    }
