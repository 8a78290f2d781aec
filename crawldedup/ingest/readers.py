"""Raw records out of JSON Lines (.jsonl, .ndjson, .json), Parquet and WARC files.

Readers never raise on bad content: an undecodable line becomes a ``RawRecord``
with ``error`` set, so it is quarantined and counted and the rest of the file is read.
A file that breaks part-way (a truncated or corrupt ``.gz``/``.bz2`` stream, a corrupt
Parquet page, a WARC record cut mid-body) keeps the records read before the break and
gives one more entry for the break itself: reason ``bad_file`` (``bad_warc`` for WARC),
the position of the first record not read, and in ``raw`` what was read of it.

They do raise when the machine fails (see :func:`is_environment_error`).

Which files of a day folder are read is decided by :func:`select_input_files`, which
also says why each other file is skipped (the fingerprint stage counts them).
"""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import os
import re
import stat
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

# Data files by format; each JSON Lines and WARC name may end in .gz or .bz2 as well.
# Names are matched case-insensitively (PART-0.JSONL is JSON Lines).
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet",)
WARC_SUFFIXES = (".warc",)
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}

# Why a file of the day folder is not read (``skipped_files`` in the day's stats).
SKIP_SYMLINK = "symlink"  # a symbolic link (to a file or a folder): never followed
SKIP_HIDDEN = "hidden"  # its name or a folder on its path starts with "_" or "."
SKIP_NOT_REGULAR = "not_regular_file"  # a FIFO, socket or device
SKIP_UNKNOWN_EXTENSION = "unknown_extension"  # not a format listed above
SKIP_BAD_NAME = "bad_name"  # a name that is not valid UTF-8
SKIP_REASONS = (
    SKIP_SYMLINK,
    SKIP_HIDDEN,
    SKIP_NOT_REGULAR,
    SKIP_UNKNOWN_EXTENSION,
    SKIP_BAD_NAME,
)

BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 16
_DETAIL_CHARS = 500
_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass
class RawRecord:
    source: str
    position: int  # line number (JSONL), row number (Parquet), record number (WARC)
    data: dict[str, Any] | None
    raw: str  # the original text, kept so nothing is lost in quarantine
    error: str | None = None  # quarantine reason when the record could not be decoded
    detail: str = ""


class InputFileError(Exception):
    """The machine or the install failed while one input file was read or prepared.

    Carries the file, the position and the cause in one line (its message), so that a
    run that must fail says where; the original exception is its ``__cause__``.
    """


def is_environment_error(exc: BaseException) -> bool:
    """True when a failure is the install's or the machine's, not one record's or file's.

    Such a failure must fail the run instead of becoming a quarantine entry: a missing
    module (ImportError, e.g. lxml_html_clean for HTML extraction), memory, or an
    operating-system error that carries an errno (a file gone, EIO, ENOSPC, EMFILE).
    OSErrors without an errno are what parsers raise on bad bytes (gzip's BadGzipFile,
    pyarrow's "Couldn't deserialize thrift"), so those stay the record's fault.
    """
    if isinstance(exc, ImportError | MemoryError | InputFileError):
        return True
    return isinstance(exc, OSError) and exc.errno is not None


def describe(exc: BaseException) -> str:
    """``Name: message`` of an exception on one line (parsers' messages span several)."""
    text = " ".join(str(exc).split())
    if len(text) > _DETAIL_CHARS:
        text = text[:_DETAIL_CHARS] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def raw_too_large(size: int) -> str:
    """The detail of a record quarantined by ``limits.max_record_bytes``."""
    return f"record of {size} bytes over limits.max_record_bytes"


# --- which files are read -----------------------------------------------------------


def file_format(name: str) -> tuple[str, str | None] | None:
    """(format, compression) of a data file by its name, or None when it is none.

    Format is ``jsonl``, ``parquet`` or ``warc``; compression ``gzip``, ``bz2`` or None.
    """
    low = name.lower()
    compression = None
    for ext, kind in COMPRESSIONS.items():
        if low.endswith(ext):
            low, compression = low[: -len(ext)], kind
            break
    if low.endswith(JSONL_SUFFIXES):
        return "jsonl", compression
    if low.endswith(WARC_SUFFIXES):
        return "warc", compression
    if low.endswith(PARQUET_SUFFIXES) and compression is None:
        return "parquet", None
    return None


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def is_input_file(path: Path, root: Path | None = None) -> bool:
    """Whether ``path`` is a data file by the rule the stages read with.

    A known extension (any case), not a symbolic link, and a name that does not start
    with ``_`` or ``.``; given ``root`` (the day folder), no folder between ``root`` and
    the file may start with them either (``_temporary/``, ``.staging/``).
    """
    parts = path.relative_to(root).parts if root is not None else (path.name,)
    if any(_hidden(p) for p in parts) or path.is_symlink():
        return False
    return file_format(path.name) is not None


@dataclass
class InputSelection:
    """The data files of a day folder, and every other file with the reason it is skipped."""

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)

    def skipped_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(reason for _, reason in self.skipped).items()))

    def skipped_listing(self, limit: int = 100) -> list[dict[str, str]]:
        return [{"path": p, "reason": r} for p, r in self.skipped[:limit]]


def _printable(path: str) -> str:
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def _raise(exc: OSError) -> None:
    raise exc


def select_input_files(folder: Path) -> InputSelection:
    """The day's data files in a stable order, and what is skipped and why.

    Walks the folder without following symbolic links (a link is skipped, never read,
    whether it points at a file or a folder, inside the folder or out of it). Files
    whose name or folder starts with ``_`` or ``.`` (``_SUCCESS``, ``_temporary/``,
    ``.staging/``, a crawler's ``.part`` files) are skipped as ``hidden``, FIFOs and
    devices as ``not_regular_file``, other names as ``unknown_extension``. A folder that
    cannot be listed fails (an OSError), rather than silently reading part of the day.
    """
    folder = Path(folder)
    out = InputSelection()
    for dirpath, dirnames, filenames in os.walk(folder, onerror=_raise, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(folder)
        in_hidden = any(_hidden(p) for p in rel_dir.parts)
        for d in list(dirnames):
            if (here / d).is_symlink():
                dirnames.remove(d)
                out.skipped.append((_printable(str(rel_dir / d)), SKIP_SYMLINK))
        for name in filenames:
            full = here / name
            rel = _printable(str(rel_dir / name))
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                reason: str | None = SKIP_SYMLINK
            elif in_hidden or _hidden(name):
                reason = SKIP_HIDDEN
            elif not stat.S_ISREG(mode):
                reason = SKIP_NOT_REGULAR
            elif rel != str(rel_dir / name):
                reason = SKIP_BAD_NAME
            elif file_format(name) is None:
                reason = SKIP_UNKNOWN_EXTENSION
            else:
                reason = None
            if reason is None:
                out.files.append(full)
            else:
                out.skipped.append((rel, reason))
    out.files.sort()
    out.skipped.sort()
    return out


def list_input_files(folder: Path) -> list[Path]:
    """The day's data files in a stable order (see :func:`select_input_files`)."""
    return select_input_files(folder).files


# --- reading ------------------------------------------------------------------------


class _NotAFile(Exception):
    """The path is no longer a regular file (it became a link or a FIFO since listing)."""


def _open(path: str) -> IO[bytes]:
    """The file for reading, never through a symbolic link and never blocking on a FIFO."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            raise _NotAFile("a symbolic link: not followed") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _NotAFile("not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_file(path: str, max_record_bytes: int) -> Iterator[RawRecord]:
    fmt = file_format(path.rsplit("/", 1)[-1])
    if fmt is None:
        return
    kind, compression = fmt
    try:
        fh = _open(path)
    except _NotAFile as exc:
        yield RawRecord(path, 0, None, "", "bad_file", str(exc))
        return
    with fh:
        if kind == "jsonl":
            yield from _read_jsonl(fh, path, compression, max_record_bytes)
        elif kind == "parquet":
            yield from _read_parquet(fh, path)
        else:
            yield from _read_warc(fh, path, compression, max_record_bytes)


def _decompressed(fh: IO[bytes], compression: str | None) -> IO[bytes]:
    if compression == "gzip":
        return gzip.GzipFile(fileobj=fh, mode="rb")  # type: ignore[return-value]
    if compression == "bz2":
        return bz2.BZ2File(fh, mode="rb")
    return fh


class _Lines:
    """The lines of a byte stream, read with ``read1`` so a break loses nothing.

    After an exception from the stream, ``pending`` holds the bytes of the line that
    was being read (what a truncated ``.gz`` still had) and ``n`` the last line number
    handed out.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.n = 0
        self._parts: list[bytes] = []

    def pending(self) -> bytes:
        return b"".join(self._parts)

    def __iter__(self) -> Iterator[bytes]:
        parts = self._parts
        read1 = self.stream.read1  # type: ignore[attr-defined]
        while True:
            chunk: bytes = read1(_CHUNK)
            if not chunk:
                break
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                piece = chunk[start : end + 1]
                if parts:
                    parts.append(piece)
                    piece = b"".join(parts)
                    parts.clear()
                self.n += 1
                yield piece
                start = end + 1
            if start < len(chunk):
                parts.append(chunk[start:] if start else chunk)
        if parts:
            line = b"".join(parts)
            parts.clear()
            self.n += 1
            yield line


def _read_jsonl(
    fh: IO[bytes], path: str, compression: str | None, max_record_bytes: int
) -> Iterator[RawRecord]:
    lines = _Lines(_decompressed(fh, compression))
    try:
        for line in lines:
            rec = _jsonl_record(path, lines.n, line, max_record_bytes)
            if rec is not None:
                yield rec
    except Exception as exc:  # the stream broke: keep what came before, quarantine the rest
        if is_environment_error(exc):
            raise
        partial = lines.pending()
        yield RawRecord(
            path,
            lines.n + 1,
            None,
            partial.decode("utf-8", "replace"),
            "bad_file",
            f"{describe(exc)} (file unreadable after line {lines.n}; "
            f"{len(partial)} bytes of line {lines.n + 1} read)",
        )


def _lone_surrogate(data: dict[str, Any]) -> str | None:
    """The first field whose text holds a lone surrogate ("\\ud800"): not Unicode text."""
    for key, value in data.items():
        if isinstance(value, str) and _SURROGATE.search(value):
            return str(key).encode("utf-8", "backslashreplace").decode("utf-8")
    return None


def _jsonl_record(path: str, n: int, line: bytes, max_record_bytes: int) -> RawRecord | None:
    if line.startswith(BOM):  # a byte-order mark (file start, or files concatenated)
        line = line[len(BOM) :]
    if not line.strip():
        return None
    if len(line) > max_record_bytes:
        # Kept whole for the quarantine (the line is in memory already).
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        return RawRecord(path, n, None, text, "too_large", raw_too_large(len(line)))
    try:
        text = line.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as exc:
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        return RawRecord(path, n, None, text, "bad_encoding", str(exc))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return RawRecord(path, n, None, text, "bad_json", str(exc))
    except RecursionError:
        return RawRecord(path, n, None, text, "bad_json", "nested too deeply to parse")
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        return RawRecord(path, n, None, text, "bad_json", describe(exc))
    if not isinstance(data, dict):
        return RawRecord(path, n, None, text, "bad_json", "a record must be a JSON object")
    # Only JSON escapes can make one: decoded UTF-8 never holds surrogates.
    if "\\u" in text:
        bad = _lone_surrogate(data)
        if bad is not None:
            detail = f"field {bad!r} holds a lone surrogate (\\ud800-\\udfff): not Unicode text"
            return RawRecord(path, n, None, text, "bad_encoding", detail)
    return RawRecord(path, n, data, text)


def _read_parquet(fh: IO[bytes], path: str) -> Iterator[RawRecord]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(fh)
        groups = [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)]
    except Exception as exc:  # a corrupt file is one quarantined entry, not a crash
        if is_environment_error(exc):
            raise
        yield RawRecord(path, 0, None, "", "bad_file", describe(exc))
        return
    # Row groups are read one by one: a corrupt page loses the rest of its group only,
    # and positions stay the rows' numbers in the file.
    first = 0
    for g, size in enumerate(groups):
        n = first
        try:
            for batch in pf.iter_batches(batch_size=2048, row_groups=[g]):
                for rec in _parquet_rows(path, n, batch):
                    n = rec.position
                    yield rec
        except Exception as exc:
            if is_environment_error(exc):
                raise
            yield RawRecord(
                path,
                n + 1,
                None,
                "",
                "bad_file",
                f"{describe(exc)} (row group {g}: rows {n + 1}-{first + size} unreadable)",
            )
        first += size


def _parquet_rows(path: str, n: int, batch: Any) -> Iterator[RawRecord]:
    try:
        rows: list[Any] = batch.to_pylist()
    except Exception as exc:  # one row's bytes (bad UTF-8): convert row by row
        if is_environment_error(exc):
            raise
        rows = []
        for j in range(batch.num_rows):
            try:
                rows.append(batch.slice(j, 1).to_pylist()[0])
            except Exception as row_exc:
                if is_environment_error(row_exc):
                    raise
                rows.append(row_exc)
    for row in rows:
        n += 1
        if isinstance(row, Exception):
            reason = "bad_encoding" if isinstance(row, UnicodeError) else "bad_file"
            yield RawRecord(path, n, None, "", reason, describe(row))
            continue
        try:
            raw = json.dumps(row, ensure_ascii=False, default=str)
        except (ValueError, RecursionError) as exc:
            yield RawRecord(path, n, None, "", "bad_file", describe(exc))
            continue
        yield RawRecord(path, n, row, raw)


def _warc_end(fh: IO[bytes], pos: int, gzipped: bool, block: int) -> int | None:
    """Where the record that starts at ``pos`` ends in the file, None if unknown.

    Plain: after its headers and its ``block`` bytes (Content-Length). Gzip: after the
    gzip members that hold it (one per record, as WARC writers do).
    """
    fh.seek(pos)
    if not gzipped:
        head = fh.read(1 << 16)
        cut = head.find(b"\r\n\r\n")
        return None if cut < 0 else pos + cut + 4 + block
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    offset = pos
    while not member.eof:
        chunk = member.unconsumed_tail or fh.read(_CHUNK)
        if not chunk:
            return None  # the member is cut: FastWARC reported it (a short body)
        offset += len(chunk) - len(member.unconsumed_tail)
        member.decompress(chunk, _CHUNK)
    return offset - len(member.unused_data)


def _warc_tail(fh: IO[bytes], offset: int, gzipped: bool) -> tuple[int, str] | None:
    """Bytes left after the last record read, and their text; None if only blanks.

    FastWARC ends quietly on a file cut inside a gzip member before anything of it can
    be decompressed: those bytes are a record lost.
    """
    try:
        size = os.fstat(fh.fileno()).st_size
    except (OSError, ValueError):
        return None
    if size <= offset:
        return None
    fh.seek(offset)
    rest = fh.read(1 << 20)
    if not rest.strip():
        return None
    if gzipped or rest[:2] == b"\x1f\x8b":
        try:
            rest = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(rest)
        except zlib.error:
            rest = b""
    return size - offset, rest.decode("utf-8", "replace")


def _read_warc(
    fh: IO[bytes], path: str, compression: str | None, max_record_bytes: int
) -> Iterator[RawRecord]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    # FastWARC reads gzip members itself (stream_detect); bz2 is unpacked for it.
    stream = bz2.BZ2File(fh, mode="rb") if compression == "bz2" else fh
    gzipped = compression == "gzip"
    n = 0
    last: tuple[int, int] | None = None  # (stream_pos, Content-Length) of the last record
    records = iter(ArchiveIterator(stream, record_types=WarcRecordType.any_type, fsspec_args=False))
    while True:
        try:
            rec = next(records)
        except StopIteration:
            break
        except Exception as exc:  # a record FastWARC cannot parse: quarantine the rest
            if is_environment_error(exc):
                raise
            yield RawRecord(path, n + 1, None, "", "bad_warc", describe(exc))
            return
        # What FastWARC makes of a file that ends inside a record's headers: no
        # Content-Length (every record has one), or an empty response (even an empty
        # page has an HTTP status line; revisit records may be empty).
        length = rec.headers.get("Content-Length")
        rtype = rec.record_type
        if length is None or (
            length.strip() == "0" and rtype in (WarcRecordType.unknown, WarcRecordType.response)
        ):
            text = "\r\n".join(f"{k}: {v}" for k, v in rec.headers.items())
            detail = f"record after record {n} has no content: its headers are cut"
            yield RawRecord(path, n + 1, None, text, "bad_warc", detail)
            return
        last = (rec.stream_pos, int(length))
        if rtype != WarcRecordType.response:
            continue
        n += 1
        try:
            out = _warc_record(path, n, rec, int(length), max_record_bytes)
        except Exception as exc:
            if is_environment_error(exc):
                raise
            out = RawRecord(path, n, None, "", "bad_warc", describe(exc))
        yield out
        if out.error == "bad_warc":
            return  # the file ends inside this record, or cannot be read past it
    # FastWARC ends quietly when the file ends inside a gzip member before anything of it
    # decompresses: bytes are left after the last record.
    if compression == "bz2":
        return
    end = 0 if last is None else _warc_end(fh, last[0], gzipped, last[1])
    tail = None if end is None else _warc_tail(fh, end, gzipped)
    if tail is not None:
        detail = f"{tail[0]} bytes after record {n} are no complete WARC record"
        yield RawRecord(path, n + 1, None, tail[1], "bad_warc", detail)


def _warc_record(path: str, n: int, rec: Any, block: int, max_record_bytes: int) -> RawRecord:
    url = rec.headers.get("WARC-Target-URI") or ""
    date = rec.headers.get("WARC-Date") or ""
    expected = rec.content_length  # the payload's bytes, after the HTTP headers
    body = rec.reader.read()
    # Bytes of the record's Content-Length that the file did not hold: cut mid-body.
    missing = max(0, expected - len(body))
    charset = (rec.http_charset if rec.is_http else None) or "utf-8"
    try:
        html = body.decode(charset, "replace")
    except LookupError:
        html = body.decode("utf-8", "replace")
    # The quarantine keeps the page itself, not only where it came from.
    raw = json.dumps({"url": url, "warc_date": date, "html": html}, ensure_ascii=False)
    if missing > 0:
        detail = f"record cut short: {block - missing} of {block} bytes (Content-Length)"
        return RawRecord(path, n, None, raw, "bad_warc", detail)
    if len(body) > max_record_bytes:
        return RawRecord(path, n, None, raw, "too_large", raw_too_large(len(body)))
    data = {"url": url, "html": html, "fetched_at": date}
    return RawRecord(path, n, data, raw)
