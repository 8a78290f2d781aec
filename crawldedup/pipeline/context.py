"""What every stage needs to know about the day it processes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.code_version import code_version
from crawldedup.config import Config
from crawldedup.stage_registry import Data, check_declared, stats_of
from crawldedup.store import resolve_store_url


@dataclass(frozen=True)
class DayContext:
    day: str  # YYYY-MM-DD
    home: Path
    cfg: Config
    input_dir: Path | None = None
    dry_run: bool = False
    # Rerun a published day even from far fewer documents (``crawldedup run --replace``).
    replace: bool = False
    store_url: str = field(default="")
    # Who runs the day's stages (the DAG run's id): a retry of the same run resumes after
    # the stages it already finished (their stats carry it). None: every stage runs.
    run_id: str | None = None
    # The stage running (set by run_stages): it opens only the work folders it declares.
    stage: str | None = None

    @property
    def store(self) -> str:
        return resolve_store_url(self.cfg.store_url or self.store_url, self.home)

    @property
    def work(self) -> Path:
        return self.home / "work" / f"dt={self.day}"

    def folder(self, data: Data) -> Path:
        """A work folder (or file) of the day, by its handle in
        :mod:`crawldedup.stage_registry`; a stage may open only those it declares
        (``check_declared``: an undeclared one raises)."""
        if data.where != "work":
            raise ValueError(f"{data} is not a work folder of the day (it is {data.where!r})")
        if self.stage is not None:
            check_declared(self.stage, self.cfg, data)
        return self.work / data.name

    def path(self, data: Data) -> str:
        return str(self.folder(data))

    @property
    def quarantine_dir(self) -> Path:
        return self.home / "quarantine" / f"dt={self.day}"

    def write_stats(self, stage: str, stats: dict[str, Any]) -> None:
        out = self.folder(stats_of(stage))
        out.parent.mkdir(parents=True, exist_ok=True)
        # Which code wrote the stage's outputs, and for which run.
        stamped = {**stats, "code": code_version(), "run": self.run_id}
        out.write_text(json.dumps(stamped, indent=2, sort_keys=True))

    def rows(self, data: Data) -> int:
        """Rows of a Parquet folder the stages wrote, from its files' footers: a count
        without a Spark job."""
        return sum(pq.ParquetFile(f).metadata.num_rows for f in self.folder(data).glob("*.parquet"))

    def counts(self, data: Data, columns: list[str]) -> list[tuple[Any, ...]]:
        """(values of ``columns``, rows) for each distinct combination of ``columns`` in a
        Parquet folder the stages wrote, read by the driver (pyarrow): a tally without a
        Spark job (a warm one on a thousand rows takes 0.2-0.3 CPU s:
        ``benchmarks/spark_action_cost.py``)."""
        files = sorted(self.folder(data).glob("*.parquet"))
        if not files:
            return []
        # File by file (ParquetFile): pq.read_table would import pyarrow.dataset (0.3 CPU s).
        table = pa.concat_tables(pq.ParquetFile(f).read(columns=columns) for f in files)
        grouped = table.group_by(columns, use_threads=False).aggregate([([], "count_all")])
        return [(*(r[c] for c in columns), r["count_all"]) for r in grouped.to_pylist()]

    def read_stats(self, stage: str) -> dict[str, Any]:
        p = self.folder(stats_of(stage))
        return json.loads(p.read_text()) if p.exists() else {}


@contextmanager
def timed(stats: dict[str, Any], key: str = "seconds") -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        stats[key] = round(time.perf_counter() - t0, 3)
