"""Row keys and cell encodings of every table (documented in the README).

Values are UTF-8 strings, readable from the HBase shell, but for a document's packed
cell (:func:`pack_doc`) and the ledger's.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crawldedup.store.base import Row, Store

if TYPE_CHECKING:
    import pyarrow as pa


def posting_value(day: str, fetched_at: str, simhash: str | None = None) -> bytes:
    """``day|fetched_at``; SimHash postings add ``|simhash`` (16 hex digits), so that a
    lookup can drop block collisions by Hamming distance without reading documents."""
    return (f"{day}|{fetched_at}|{simhash}" if simhash else f"{day}|{fetched_at}").encode()


def posting_values(day: str, fetched_at: pa.Array, simhash: pa.Array | None = None) -> pa.Array:
    """:func:`posting_value` of every row of Arrow columns, as binary."""
    import pyarrow as pa
    import pyarrow.compute as pc

    two = pc.binary_join_element_wise(day, fetched_at, "|")
    if simhash is None:
        return two.cast(pa.binary())
    three = pc.binary_join_element_wise(two, simhash, "|")
    has = pc.fill_null(pc.greater(pc.binary_length(simhash), 0), False)
    return pc.if_else(has, three, two).cast(pa.binary())


def posting_columns(doc_ids: pa.Array) -> pa.Array:
    """:func:`posting_column` of every id of an Arrow column."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise("d:", doc_ids, "")


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


# The cell of a ``verdicts`` row that holds its record (VerdictRecord.to_row).
VERDICT_CELL = "v:verdict"
# The other cells of a ``verdicts`` row of a store written before 2026-12, a cell a field.
OLD_VERDICT_CELLS = (
    "v:rule",
    "v:duplicate_of",
    "v:similarity",
    "v:group",
    "v:type",
    "v:measure",
)


def old_verdict_layout(row: Row) -> bool:
    """Whether a ``verdicts`` row holds cells of the layout before 2026-12."""
    return any(c in row for c in OLD_VERDICT_CELLS)


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
        """One cell, :data:`VERDICT_CELL`: the record as JSON (the id is the row key's).
        A put of it replaces the whole record an earlier run of the day wrote; one cell
        a document where stores before 2026-12 wrote seven (:meth:`from_row` reads both)."""
        fields = self.as_json()
        del fields["id"]
        if self.similarity is not None:
            fields["similarity"] = round(self.similarity, 6)
        return {VERDICT_CELL: json.dumps(fields, separators=(",", ":")).encode()}

    @classmethod
    def from_row(cls, row_key: str, row: Row) -> VerdictRecord:
        """The record of a ``verdicts`` row in either layout: one JSON cell, or (stores
        written before 2026-12) a cell per field, an empty value for null. A row of the
        old layout a later release wrote again holds both; the JSON cell is the record."""
        doc_id = row_key.partition("|")[2]
        packed = row.get(VERDICT_CELL) or b""
        if packed.startswith(b"{"):
            return cls(id=doc_id, **json.loads(packed))

        def s(col: str) -> str | None:
            v = row.get(col)
            return v.decode() if v else None  # absent or empty: null

        sim = s("v:similarity")
        return cls(
            id=doc_id,
            verdict=s(VERDICT_CELL) or "",
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


# The one cell of a ``docs`` row (2026-12 on): every field, packed (:func:`pack_doc`).
DOC_CELL = "m:doc"
# A ``docs`` row's fields, by the name of the cell that held each in stores written
# before 2026-12 (a cell a field, read still): the names :func:`doc_fields` gives them.
DOC_FIELDS = (
    "m:url",
    "m:title",
    "m:day",
    "m:fetched_at",
    "m:keys",
    "m:simhash",
    "m:group",
    "m:raw_md5",
    "v:tf",
    "v:sketch",
    "v:own",
    "m:length",
)
# The fields only the index reads, which forgetting a document removes (crawldedup/
# retention.py); url, title, day, fetch time and group are the published record and stay.
INDEX_FIELDS = ("m:keys", "m:simhash", "m:raw_md5", "m:length", "v:tf", "v:sketch", "v:own")
# Fields held in binary in the packed cell: bottom-k sketches, hex everywhere else.
_HEX_FIELDS = frozenset({"v:sketch", "v:own"})
_PACKED_VERSION = 1
_ABSENT = 0xFFFFFFFF
_HEADER = struct.Struct(f">B{len(DOC_FIELDS)}I")


def pack_doc(fields: Mapping[str, bytes]) -> bytes:
    """The :data:`DOC_CELL` of a document: a version byte, each field's length in
    :data:`DOC_FIELDS`' order (``0xFFFFFFFF`` for a field the row lacks, as a forgotten
    document's index fields), then the fields' bytes; sketches in binary (half their
    hex). One cell a document where stores before 2026-12 wrote twelve."""
    values: list[bytes] = []
    lengths: list[int] = []
    for name in DOC_FIELDS:
        v = fields.get(name)
        if v is None:
            lengths.append(_ABSENT)
            continue
        if name in _HEX_FIELDS:
            v = bytes.fromhex(v.decode())
        values.append(v)
        lengths.append(len(v))
    return _HEADER.pack(_PACKED_VERSION, *lengths) + b"".join(values)


def unpack_doc(cell: bytes) -> Row:
    """The fields of a :data:`DOC_CELL`, by their :data:`DOC_FIELDS` names, sketches as
    hex (absent fields left out)."""
    version, *lengths = _HEADER.unpack_from(cell)
    if version != _PACKED_VERSION:
        raise ValueError(f"a docs cell of an unknown layout (version {version})")
    out: Row = {}
    at = _HEADER.size
    for name, n in zip(DOC_FIELDS, lengths, strict=True):
        if n == _ABSENT:
            continue
        v = cell[at : at + n]
        at += n
        out[name] = v.hex().encode() if name in _HEX_FIELDS else v
    return out


def doc_fields(row: Row) -> Row:
    """A ``docs`` row's fields by their :data:`DOC_FIELDS` names, in either layout: the
    packed cell, or (stores written before 2026-12) a cell a field. A row of the old
    layout a later release wrote again holds both; the packed cell is the document."""
    cell = row.get(DOC_CELL)
    if cell is None:
        return {c: v for c, v in row.items() if c in DOC_FIELDS}
    return unpack_doc(cell)


def get_docs(
    store: Store, ids: Sequence[str], fields: Sequence[str] | None = None
) -> dict[str, Row]:
    """The ``docs`` rows of ``ids`` that exist, each as :func:`doc_fields` (``fields``:
    the old layout's cells to read besides the packed one; None: every cell)."""
    columns = None if fields is None else [DOC_CELL, *fields]
    return {k: doc_fields(r) for k, r in store.get("docs", ids, columns=columns).items()}


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
    own_sketch: str | None = None,
) -> dict[str, bytes]:
    """A document's row: one cell, :data:`DOC_CELL`."""
    fields = {
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
        # The own text's sketch (empty when none; always written, so a rerun replaces it).
        "v:own": (own_sketch or "").encode(),
        "m:length": str(length).encode(),  # normalized characters
    }
    return {DOC_CELL: pack_doc(fields)}


def listed_keys(keys: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(rule, key) of every index key a document row's ``m:keys`` lists, by rule."""
    from crawldedup.rules import RULES

    for rule, key in sorted(keys.items()):
        if key and rule in RULES:
            for k in key if isinstance(key, list) else [key]:
                yield rule, k


def line_hosts_row(line_key: str) -> str:
    """Row ``*|line`` of ``host_lines``: hosts where the line was ordinary text (on fewer
    than ``boilerplate.min_pages`` of their pages), a cell ``d:@HOST|DAY`` per host and day
    (rows ``host|line`` hold page counts). Stores written before 2026-12 hold one cell
    ``d:@HOST`` per host whose value is the last day that wrote it; both are read."""
    return f"*|{line_key}"


def line_hosts_cell(host: str, day: str) -> str:
    return f"d:@{host}|{day}"


def _line_host_days(cells: Row) -> Iterator[tuple[str, str]]:
    """(host, day) of each cell of a ``*|line`` row, in either layout."""
    for c, v in cells.items():
        if not c.startswith("d:@"):
            continue
        host, sep, day = c[3:].rpartition("|")
        yield (host, day) if sep else (c[3:], v.decode())


def served_elsewhere(cells: Row, host: str | None, before: str, since: str = "") -> bool:
    """Whether a ``*|line`` row names a host other than ``host`` on a day before
    ``before`` and from ``since`` on (``served_elsewhere(cells, host, "9999")``: on any
    day)."""
    return any(h != host and since <= d < before for h, d in _line_host_days(cells))
