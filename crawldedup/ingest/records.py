"""Validation, HTML extraction and fingerprinting of one raw record.

``prepare`` turns a :class:`RawRecord` into either a document row (dict ready for a
Spark Row) or a quarantine entry with a reason. It never raises on bad data; it does
raise when the environment fails (a module missing from the install, memory, I/O: see
:func:`~crawldedup.ingest.readers.is_environment_error`), since quarantining every
record for that would hide a broken install behind a run that succeeds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from types import ModuleType
from typing import Any

from crawldedup.config import Config, FingerprintConfig
from crawldedup.core.boilerplate import (
    OwnLines,
    host_of,
    own_key_of,
    page_line_keys,
    whole_text_key,
)
from crawldedup.core.fingerprint import fingerprint, md5_hex
from crawldedup.ingest.html_text import TEMPLATE_SKIP, after_heading, page_title
from crawldedup.ingest.readers import RawRecord, is_environment_error, raw_too_large
from crawldedup.rules import Rule

QUARANTINE_REASONS = (
    "bad_json",
    "bad_encoding",
    "bad_file",
    "bad_warc",
    "too_large",
    "wrong_type",
    "no_id",
    "no_text",
    "bad_fetched_at",
    "extraction_failed",
    "duplicate_id",
    "bad_record",
)


@dataclass
class Quarantined:
    source: str
    position: int
    reason: str
    detail: str
    raw: str


def derived_id(url: str, fetched_at: str) -> str:
    """The id of a record that has none, from its url and its canonical fetch time
    (``canonical_time``; the day's midnight when the record has none): stable across runs
    and machines, and a recrawl of the same url at another time gets an id of its own, so
    it is judged against the earlier fetch instead of overwriting it."""
    key = f"{url}\n{fetched_at}".encode()
    return "u" + hashlib.md5(key, usedforsecurity=False).hexdigest()[:16]


def canonical_time(value: str) -> str:
    """ISO-8601 → UTC 'YYYY-MM-DDTHH:MM:SS.ffffffZ' so strings sort in time order.

    Raises ValueError for a text that is no ISO-8601 time or one outside years 1-9999
    once in UTC (``bad_fetched_at``).
    """
    text = value.strip().replace("Z", "+00:00")
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)  # naive times are taken as UTC, and documented so
    try:
        utc = dt.astimezone(UTC)
    except OverflowError as exc:  # 9999-12-31T23:00:00-05:00 is in the year 10000 in UTC
        raise ValueError(f"{value.strip()!r} is out of range in UTC") from exc
    # isoformat pads the year to four digits (strftime's %Y gives "999" for 999 here).
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


# Modules whose pip name differs from the module name, for the message of a missing one.
_PIP_NAMES = {"dateutil": "python-dateutil", "yaml": "PyYAML"}


def _extraction_import_error(exc: ImportError, engine: str = "trafilatura") -> ImportError:
    """One clear error for an install that cannot extract HTML, naming what is missing."""
    name = exc.name or ""
    text = str(exc)
    if name.startswith(("lxml_html_clean", "lxml.html.clean")) or "lxml_html_clean" in text:
        missing = "lxml_html_clean"
    elif isinstance(exc, ModuleNotFoundError) and name:
        missing = name.split(".", 1)[0]
    else:
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        return ImportError(f"HTML extraction cannot import {engine}: {first}")
    pip_name = _PIP_NAMES.get(missing, missing)
    return ModuleNotFoundError(
        f"HTML extraction needs {missing} (pip install {pip_name})", name=missing
    )


def html_extractor(engine: str = "resiliparse") -> ModuleType:
    """The extraction engine's module, ready to use, or a ModuleNotFoundError naming the
    missing module.

    ``resiliparse`` (the default) gives ``resiliparse.extract.html2text``; ``trafilatura``
    (the optional extra) gives trafilatura, which imports justext, which imports
    ``lxml.html.clean``: since lxml 5.2 that is a shim over the separate
    ``lxml_html_clean`` package, and a pip older than 24 does not install it through
    justext's ``lxml[html_clean]`` extra. It is imported here by name so that its absence
    is reported as such (and declared, see tests/unit/test_declared_dependencies.py).
    The fingerprint stage calls this on the driver before any Spark work; executors call
    it per record, and re-raise.
    """
    try:
        if engine == "trafilatura":
            import lxml_html_clean  # noqa: F401
            import trafilatura

            return trafilatura
        import resiliparse.parse.html  # noqa: F401
        from resiliparse.extract import html2text

        return html2text
    except ImportError as exc:
        raise _extraction_import_error(exc, engine) from exc


_DATE_SEARCH = {"extensive_search": False}
# extract_plain_text's options: one line per block (paragraph, <br>, list item, cell),
# no list bullets, alt texts, link targets, form fields, <noscript>, comment sections
# or post meta (bylines, dates).
RESILIPARSE_OPTIONS = {
    "preserve_formatting": True,
    "list_bullets": False,
    "alt_texts": False,
    "links": False,
    "form_fields": False,
    "noscript": False,
    "comments": False,
    "post_meta": False,
}
# Main content without the elements named as template; then the page's visible text
# without them; then all of it: a page with text never gives no text.
_ATTEMPTS = ((True, TEMPLATE_SKIP), (False, TEMPLATE_SKIP), (False, None))


def _lines(text: str) -> str:
    """Lines stripped, spaces collapsed, empty lines dropped."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _resiliparse_extract(html: str) -> tuple[str, str]:
    """resiliparse's main content (see :mod:`crawldedup.ingest.html_text`), after the
    title's heading.

    Each attempt of :data:`_ATTEMPTS` is trimmed before the next is tried: an attempt
    whose text is the heading alone (a main content that came out as the headline, a
    short page whose title is its last line) falls through to the next. When every
    attempt is only the heading, the page's text is its first untrimmed one: a page with
    visible text never gives no text.
    """
    from resiliparse.parse.html import HTMLTree

    html2text = html_extractor("resiliparse")
    tree = HTMLTree.parse(html)
    title = page_title(tree)
    first = ""
    for main_content, skip in _ATTEMPTS:
        text = _lines(
            html2text.extract_plain_text(
                tree, main_content=main_content, skip_elements=skip, **RESILIPARSE_OPTIONS
            )
        )
        if not text:
            continue
        first = first or text
        trimmed = after_heading(text, title)
        if trimmed.strip():
            return title, trimmed
    return title, first


def _trafilatura_extract(html: str, url: str | None) -> tuple[str, str]:
    trafilatura = html_extractor("trafilatura")
    doc = trafilatura.bare_extraction(
        html,
        url=url or None,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        # The page's date is not used; htmldate's extensive search for it is superlinear
        # in the number of elements (minutes for a few MB of small blocks).
        date_extraction_params=_DATE_SEARCH,
    )
    data = {} if doc is None else doc.as_dict() if hasattr(doc, "as_dict") else dict(doc)
    title = str(data.get("title") or "").strip()
    text = after_heading(str(data.get("text") or ""), title)
    if not title or not text.strip():  # nothing found: resiliparse's title or text
        own_title, own_text = _resiliparse_extract(html)
        title = title or own_title
        text = text if text.strip() else own_text
    return title, text


def extract_html(html: str, url: str | None, engine: str = "resiliparse") -> tuple[str, str]:
    """Title and main text of a page, boilerplate (nav, sidebars, footers) dropped.

    ``engine`` is ``[extract] engine``: resiliparse's main-content extraction (the
    default), or trafilatura's. Either way a page whose main content comes out empty
    gets its whole visible text instead, so a page with text never gives no text. The
    title is og:title, else the part of <title> that is the <h1>, else <title>, else
    <h1> (trafilatura's own with trafilatura).

    Raises ModuleNotFoundError (from :func:`html_extractor`) when the install cannot
    extract HTML at all; any other error is about this page.
    """
    # The text starts after the title's heading (its <h1>, which usually repeats the
    # title at the top of the main text, after the site's name or breadcrumbs): a
    # plain-text copy of the same article has none of it, so its head key would differ.
    # Each engine trims before its fallbacks, which therefore also catch a text the
    # trim emptied.
    if engine == "trafilatura":
        return _trafilatura_extract(html, url)
    return _resiliparse_extract(html)


def text_too_large(chars: int) -> str:
    """The detail of a document quarantined by ``limits.max_text_chars``."""
    return f"text of {chars} chars over limits.max_text_chars"


def _str_field(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"field {name!r} must be a string, got {type(value).__name__}")
    return value


def prepare(rec: RawRecord, cfg: Config, day: str) -> dict[str, Any] | Quarantined:
    """A document row with its fingerprints, or the reason it is quarantined (one record
    on its own: ``explain``; the fingerprint stage fingerprints once its host's
    boilerplate is known, see ``read_record``)."""
    out = read_record(rec, cfg, day)
    if isinstance(out, Quarantined):
        return out
    return {**out, **fingerprint_fields(out["title"], out["text"], cfg)}


def read_record(rec: RawRecord, cfg: Config, day: str) -> dict[str, Any] | Quarantined:
    """A document row without its fingerprints (its text, host and line keys, for the
    boilerplate pass), or the reason it is quarantined."""
    if rec.error is not None or rec.data is None:
        return Quarantined(rec.source, rec.position, rec.error or "bad_json", rec.detail, rec.raw)
    data = rec.data
    size = len(rec.raw.encode("utf-8"))
    if size > cfg.limits.max_record_bytes:
        return Quarantined(rec.source, rec.position, "too_large", raw_too_large(size), rec.raw)
    try:
        rid = _str_field(data, "id")
        url = _str_field(data, "url") or ""
        title = _str_field(data, "title") or ""
        content = _str_field(data, "content")
        html = _str_field(data, "html")
        fetched = _str_field(data, "fetched_at")
    except TypeError as exc:
        return Quarantined(rec.source, rec.position, "wrong_type", str(exc), rec.raw)
    if not rid and not url:
        return Quarantined(rec.source, rec.position, "no_id", "no id and no url", rec.raw)
    raw_md5 = md5_hex(html if html is not None else f"{title}\n{content or ''}")
    max_chars = cfg.limits.max_text_chars
    if content and content.strip() and len(content) > max_chars:
        return Quarantined(
            rec.source, rec.position, "too_large", text_too_large(len(content)), rec.raw
        )
    if not (content and content.strip()) and html:
        try:
            html_title, content = extract_html(html, url, cfg.extract.engine)
        except Exception as exc:  # lxml can choke on pathological markup
            if is_environment_error(exc):
                raise  # the install or the machine, not this record: fail the run
            return Quarantined(
                rec.source,
                rec.position,
                "extraction_failed",
                f"{type(exc).__name__}: {exc}",
                rec.raw,
            )
        title = title or html_title
        if len(content) > max_chars:
            return Quarantined(
                rec.source, rec.position, "too_large", text_too_large(len(content)), rec.raw
            )
    if not (content and content.strip()):
        return Quarantined(
            rec.source, rec.position, "no_text", "no content or extractable html", rec.raw
        )
    try:
        fetched_at = canonical_time(fetched) if fetched else f"{day}T00:00:00.000000Z"
    except ValueError as exc:
        return Quarantined(rec.source, rec.position, "bad_fetched_at", str(exc), rec.raw)
    return {
        "id": rid or derived_id(url, fetched_at),
        "url": url,
        "title": title,
        "fetched_at": fetched_at,
        "day": day,
        "source": rec.source,
        "position": rec.position,
        "raw_md5": raw_md5,
        "has_fetched_at": fetched is not None,
        "boilerplate_only": False,
        # For the boilerplate pass of the fingerprint stage (not written to work/docs).
        "text": content,
        "host": host_of(url),
        "line_keys": page_line_keys(content, cfg.boilerplate.min_line_chars),
    }


def paragraphs_if_on(cfg: Config) -> FingerprintConfig:
    """``cfg.fingerprint``, with no paragraph keys unless ``cascade.rules`` names
    ``paragraph``."""
    if Rule.PARAGRAPH.value in cfg.cascade.rules:
        return cfg.fingerprint
    return _without_paragraphs(cfg.fingerprint)


@lru_cache(maxsize=16)
def _without_paragraphs(fingerprint: FingerprintConfig) -> FingerprintConfig:
    # Once per configuration, not once per page (dataclasses.replace: 7 µs).
    return replace(fingerprint, paragraph_max_keys=0)


def fingerprint_fields(
    title: str, content: str, cfg: Config, own: OwnLines | None = None
) -> dict[str, Any]:
    """The columns of work/docs that come from the fingerprints of a title and text
    (paragraph keys only when rule paragraph is on: nothing else reads them), and the
    sketch of the page's ``own`` text (``own_sketch``: None without it). With
    ``boilerplate.own_text_key``, the LSH keys end with the key of the page's own text
    (:func:`crawldedup.core.boilerplate.own_text_key`, when it has one) or else its whole
    text's."""
    fp = fingerprint(
        title, content, paragraphs_if_on(cfg), cfg.simhash, cfg.lsh, own.runs if own else None
    )
    lsh_keys = fp.lsh_keys
    if cfg.boilerplate.own_text_key:
        own_key = own_key_of(fp.own_md5, fp.own_length) or whole_text_key(
            fp.content_key, fp.normalized_length, content, title
        )
        lsh_keys = [*lsh_keys, own_key] if own_key else lsh_keys
    return {
        "title_key": fp.title_key,
        "content_key": fp.content_key,
        "head_key": fp.head_key,
        "tail_key": fp.tail_key,
        "simhash": f"{fp.simhash:016x}",
        "simhash_keys": fp.simhash_keys,
        "lsh_keys": lsh_keys,
        "paragraph_keys": fp.paragraph_keys,
        "paragraph_size": fp.paragraph_size,
        "paragraph_edges": fp.paragraph_edges,
        "sketch": fp.sketch,
        "tf": json.dumps(fp.tf, ensure_ascii=False, separators=(",", ":")),
        "length": fp.normalized_length,
        "own_sketch": fp.own_sketch,
    }
