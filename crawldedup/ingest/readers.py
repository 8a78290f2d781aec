"""Raw records out of JSON Lines (.jsonl, .jsonl.gz), Parquet and WARC files.

Readers never raise on bad content: an undecodable line becomes a ``RawRecord``
with ``error`` set, so it is quarantined and counted and the rest of the file is read.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".parquet", ".warc", ".warc.gz")


@dataclass
class RawRecord:
    source: str
    position: int  # line number (JSONL), row number (Parquet), record number (WARC)
    data: dict[str, Any] | None
    raw: str  # the original text, kept so nothing is lost in quarantine
    error: str | None = None  # quarantine reason when the record could not be decoded
    detail: str = ""


def is_environment_error(exc: BaseException) -> bool:
    """True when a failure is the install's or the machine's, not one record's or file's.

    Such a failure must fail the run instead of becoming a quarantine entry: a missing
    module (ImportError, e.g. lxml_html_clean for HTML extraction), memory, or an
    operating-system error that carries an errno (a file gone, EIO, ENOSPC, EMFILE).
    OSErrors without an errno are what parsers raise on bad bytes (gzip's BadGzipFile,
    pyarrow's "Couldn't deserialize thrift"), so those stay the record's fault.
    """
    if isinstance(exc, ImportError | MemoryError):
        return True
    return isinstance(exc, OSError) and exc.errno is not None


def raw_too_large(size: int) -> str:
    """The detail of a record quarantined by ``limits.max_record_bytes``."""
    return f"record of {size} bytes over limits.max_record_bytes"


def is_input_file(path: Path) -> bool:
    name = path.name
    return not name.startswith(("_", ".")) and name.endswith(SUFFIXES)


def list_input_files(folder: Path) -> list[Path]:
    """The day's data files in a stable order (markers like _SUCCESS are skipped)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_input_file(p))


def read_file(path: str, max_record_bytes: int) -> Iterator[RawRecord]:
    name = path.rsplit("/", 1)[-1]
    if name.endswith((".jsonl", ".jsonl.gz", ".json", ".json.gz")):
        yield from _read_jsonl(path, max_record_bytes)
    elif name.endswith(".parquet"):
        yield from _read_parquet(path)
    elif name.endswith((".warc", ".warc.gz")):
        yield from _read_warc(path, max_record_bytes)


def _read_jsonl(path: str, max_record_bytes: int) -> Iterator[RawRecord]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if len(line) > max_record_bytes:
                # Kept whole for the quarantine (the line is in memory already).
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                yield RawRecord(path, n, None, text, "too_large", raw_too_large(len(line)))
                continue
            try:
                text = line.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                yield RawRecord(
                    path, n, None, line.decode("utf-8", "replace"), "bad_encoding", str(exc)
                )
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                yield RawRecord(path, n, None, text, "bad_json", str(exc))
                continue
            if not isinstance(data, dict):
                yield RawRecord(path, n, None, text, "bad_json", "a record must be a JSON object")
                continue
            yield RawRecord(path, n, data, text)


def _read_parquet(path: str) -> Iterator[RawRecord]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # a corrupt file is one quarantined entry, not a crash
        if is_environment_error(exc):
            raise
        yield RawRecord(path, 0, None, "", "bad_file", f"{type(exc).__name__}: {exc}")
        return
    n = 0
    for batch in pf.iter_batches(batch_size=2048):
        for row in batch.to_pylist():
            n += 1
            yield RawRecord(path, n, row, json.dumps(row, ensure_ascii=False, default=str))


def _read_warc(path: str, max_record_bytes: int) -> Iterator[RawRecord]:
    from warcio.archiveiterator import ArchiveIterator

    n = 0
    with open(path, "rb") as fh:
        try:
            for rec in ArchiveIterator(fh):
                if rec.rec_type != "response":
                    continue
                n += 1
                url = rec.rec_headers.get_header("WARC-Target-URI") or ""
                date = rec.rec_headers.get_header("WARC-Date") or ""
                body = rec.content_stream().read()
                ctype = (
                    rec.http_headers.get_header("Content-Type") if rec.http_headers else ""
                ) or ""
                charset = "utf-8"
                if "charset=" in ctype:
                    charset = ctype.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
                try:
                    html = body.decode(charset, "replace")
                except LookupError:
                    html = body.decode("utf-8", "replace")
                # The quarantine keeps the page itself, not only where it came from.
                raw = json.dumps({"url": url, "warc_date": date, "html": html}, ensure_ascii=False)
                if len(body) > max_record_bytes:
                    yield RawRecord(path, n, None, raw, "too_large", raw_too_large(len(body)))
                    continue
                data = {"url": url, "html": html, "fetched_at": date}
                yield RawRecord(path, n, data, raw)
        except Exception as exc:  # truncated archive: keep what was read, quarantine the rest
            if is_environment_error(exc):
                raise
            yield RawRecord(path, n + 1, None, "", "bad_warc", f"{type(exc).__name__}: {exc}")
