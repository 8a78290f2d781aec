"""Row keys and cell encodings of every table (documented in the README).

All values are UTF-8 strings, readable from the HBase shell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from crawldedup.store.base import Row


def posting_value(day: str, fetched_at: str, simhash: str | None = None) -> bytes:
    """``day|fetched_at``; SimHash postings add ``|simhash`` (16 hex digits), so that a
    lookup can drop block collisions by Hamming distance without reading documents."""
    return (f"{day}|{fetched_at}|{simhash}" if simhash else f"{day}|{fetched_at}").encode()


def parse_posting(value: bytes) -> tuple[str, str]:
    day, fetched_at = value.decode().split("|")[:2]
    return day, fetched_at


def posting_simhash(value: bytes) -> str | None:
    parts = value.decode().split("|")
    return parts[2] if len(parts) > 2 else None


def posting_column(doc_id: str) -> str:
    return f"d:{doc_id}"


def posting_doc_id(column: str) -> str:
    return column[2:]


def verdict_row_key(day: str, doc_id: str) -> str:
    return f"{day}|{doc_id}"


@dataclass(frozen=True)
class VerdictRecord:
    id: str
    verdict: str
    rule: str | None
    duplicate_of: str | None
    similarity: float | None
    group: str
    type: str | None = None  # full | content | partial | near, for duplicates
    measure: str | None = None  # exact | jaccard | containment | cosine | boilerplate_only

    def to_row(self) -> dict[str, bytes]:
        row = {"v:verdict": self.verdict.encode(), "v:group": self.group.encode()}
        if self.rule is not None:
            row["v:rule"] = self.rule.encode()
        if self.duplicate_of is not None:
            row["v:duplicate_of"] = self.duplicate_of.encode()
        if self.similarity is not None:
            row["v:similarity"] = repr(round(self.similarity, 6)).encode()
        if self.type is not None:
            row["v:type"] = self.type.encode()
        if self.measure is not None:
            row["v:measure"] = self.measure.encode()
        return row

    @classmethod
    def from_row(cls, row_key: str, row: Row) -> VerdictRecord:
        def s(col: str) -> str | None:
            v = row.get(col)
            return v.decode() if v is not None else None

        sim = s("v:similarity")
        return cls(
            id=row_key.partition("|")[2],
            verdict=s("v:verdict") or "",
            rule=s("v:rule"),
            duplicate_of=s("v:duplicate_of"),
            similarity=float(sim) if sim is not None else None,
            group=s("v:group") or "",
            type=s("v:type"),
            measure=s("v:measure"),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "rule": self.rule,
            "duplicate_of": self.duplicate_of,
            "similarity": self.similarity,
            "group": self.group,
            "type": self.type,
            "measure": self.measure,
        }


def doc_row(
    *,
    url: str,
    title: str,
    day: str,
    fetched_at: str,
    keys: dict[str, Any],
    simhash: str,
    tf_json: str,
    group: str,
    raw_md5: str,
    sketch: str,
    length: int,
) -> dict[str, bytes]:
    return {
        "m:url": url.encode(),
        "m:title": title.encode(),
        "m:day": day.encode(),
        "m:fetched_at": fetched_at.encode(),
        "m:keys": json.dumps(keys, sort_keys=True).encode(),
        "m:simhash": simhash.encode(),
        "m:group": group.encode(),
        "m:raw_md5": raw_md5.encode(),
        "v:tf": tf_json.encode(),
        "v:sketch": sketch.encode(),
        "m:length": str(length).encode(),  # normalized characters
    }


def line_hosts_row(line_key: str) -> str:
    """Row ``*|line`` of ``host_lines``: hosts where the line was ordinary text (on fewer
    than ``boilerplate.min_pages`` of their pages), a cell ``d:@HOST`` each whose value is
    the day it was written (rows ``host|line`` hold page counts)."""
    return f"*|{line_key}"


def served_elsewhere(cells: Row, host: str | None, before: str) -> bool:
    """Whether a ``*|line`` row names a host other than ``host`` on a day before
    ``before`` (``served_elsewhere(cells, host, "9999")``: on any day)."""
    return any(
        c.startswith("d:@") and c[3:] != host and v.decode() < before for c, v in cells.items()
    )
