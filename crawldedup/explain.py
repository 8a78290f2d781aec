"""Why a document got its verdict: ``crawldedup explain --date D ID``.

For one document of a published day: its verdict (rule, measure and value that
decided), the keys it shares with the document it was matched to (its ``duplicate_of``,
or ``--with`` another id), whether the two are editions of one page (their URLs differ
only in versions), and their texts line by line: lines in both, lines of one
only, and which of them are their host's boilerplate (lines held by at least
``boilerplate.min_pages`` pages of the host up to that day, table ``host_lines``) or its
frequent lines the page was measured without, and how much of each page is its own
text, so an engineer can see whether a site's template made the match.

Texts are read again from the day's input files (a document's file and position are in
``work/dt=D/docs``) and prepared as the fingerprint stage prepares them; no JVM starts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from crawldedup.config import Config
from crawldedup.core.boilerplate import (
    FILL_PREFIX,
    SHAPE_PREFIX,
    HostLines,
    host_of,
    is_boilerplate_line,
    own_text,
    page_line_keys,
    strip_boilerplate,
    without_title_heading,
)
from crawldedup.core.editions import are_editions, edition_of
from crawldedup.core.fingerprint import (
    char_classes,
    own_sketch_measures,
    paragraph_chars,
    paragraphs,
    sketch_containment,
    sketch_jaccard,
)
from crawldedup.core.normalize import codepoints, fold, normalize_text, normalize_title
from crawldedup.ingest.readers import read_file
from crawldedup.ingest.records import prepare
from crawldedup.pipeline.context import DayContext
from crawldedup.retention import window_start
from crawldedup.rules import Rule
from crawldedup.stage_registry import DOCS
from crawldedup.store.base import Store
from crawldedup.store.schema import (
    VerdictRecord,
    get_docs,
    line_hosts_row,
    served_elsewhere,
    verdict_row_key,
)


class ExplainError(LookupError):
    """The document, its day or its text cannot be found (one line for the user)."""


@dataclass
class DocView:
    id: str
    day: str
    url: str
    title: str
    keys: dict[str, Any]
    text: str | None  # None: its input file is gone or changed
    sketch: str = ""  # bottom-k sketch of its term shingles (hex)
    length: int | None = None  # normalized characters (None in rows stored before it was)
    lines: HostLines = field(default_factory=HostLines)  # its host's template and frequent lines
    own_sketch: str = ""  # sketch of its own text (without its host's frequent lines)

    def fingerprinted(self, min_chars: int) -> str:
        """The text the fingerprint stage fingerprinted: without its host's template."""
        text = self.text or ""
        cleaned = strip_boilerplate(text, self.lines.template, min_chars, self.lines.shared_fills)
        return text if cleaned is None else cleaned

    def own(self, min_chars: int) -> list[str] | None:
        """Its own text (``own_text``, without a title heading), what it is measured on;
        None when that is the fingerprinted text."""
        own = own_text(self.fingerprinted(min_chars), self.lines.frequent, min_chars)
        return None if own is None else without_title_heading(own, self.title)

    def dropped(self, line: str, min_chars: int, has_own: bool) -> str:
        """ "bp" for a template line of its host, "sh" for one whose template shape
        lost its label but kept its fill (sentences no other page has), "fq" for a
        frequent line of its host that is not its own text (``has_own``: the page has
        an own text, :meth:`own`), "" for the rest."""
        if is_boilerplate_line(line, self.lines.template, min_chars):
            left = strip_boilerplate(line, self.lines.template, min_chars, self.lines.shared_fills)
            return "sh" if left else "bp"
        if has_own and is_boilerplate_line(line, self.lines.frequent, min_chars):
            return "fq"
        return ""


def _doc_row(store: Store, doc_id: str) -> dict[str, bytes]:
    row = get_docs(store, [doc_id]).get(doc_id)
    if not row:
        raise ExplainError(f"no document {doc_id!r} in the store")
    return row


def _source(home: Path, day: str, doc_id: str) -> tuple[str, int] | None:
    """(input file, position) of a document, from its day's work/docs."""
    folder = DayContext(day=day, home=home, cfg=Config()).folder(DOCS)
    if not folder.is_dir():
        return None
    table = pq.read_table(
        folder, columns=["id", "source", "position"], filters=[("id", "=", doc_id)]
    )
    if not table.num_rows:
        return None
    return str(table.column("source")[0]), int(table.column("position")[0].as_py())


def _text(home: Path, day: str, doc_id: str, cfg: Config) -> str | None:
    found = _source(home, day, doc_id)
    if found is None or not Path(found[0]).is_file():
        return None
    path, position = found
    for rec in read_file(path, cfg.limits.max_record_bytes):
        if rec.position == position:
            out = prepare(rec, cfg, day)
            return str(out["text"]) if isinstance(out, dict) else None
    return None


def _host_lines(store: Store, host: str, text: str, day: str, cfg: Config) -> HostLines:
    """The line keys of ``text`` held by ``min_pages`` pages of ``host`` up to ``day``:
    its template (ordinary text of no other host) and its frequent lines (the others),
    the fingerprint stage's rule read back from ``host_lines``."""
    bp = cfg.boilerplate
    keys = page_line_keys(text, bp.min_line_chars)
    if not keys or not bp.enabled:
        return HostLines()
    rows = store.get(
        "host_lines", [f"{host}|{k}" for k in keys] + [line_hosts_row(k) for k in keys]
    )
    template, frequent, fills = set(), set(), set()
    after = f"{day}~"  # the day itself counts: its cells are written when it is published
    since = window_start(day, cfg.index.keep_days)  # the earlier days the index keeps
    for k in keys:
        counts = rows.get(f"{host}|{k}", {}).items()
        pages = sum(int(v) for c, v in counts if since <= c[2:] <= day)
        if k.startswith(FILL_PREFIX) and pages >= 2:
            fills.add(k)
        if pages < bp.min_pages:
            continue
        if not served_elsewhere(rows.get(line_hosts_row(k), {}), host, after, since):
            template.add(k)
        elif bp.drop_frequent:
            frequent.add(k)
    if not any(k.startswith(SHAPE_PREFIX) for k in template):
        fills = set()  # as the fingerprint stage: only hosts whose template has a shape
    return HostLines(frozenset(template), frozenset(fills), frozenset(frequent))


def load(store: Store, home: Path, doc_id: str, cfg: Config) -> DocView:
    row = _doc_row(store, doc_id)
    day = row["m:day"].decode()
    url = row.get("m:url", b"").decode()
    text = _text(home, day, doc_id, cfg)
    view = DocView(
        id=doc_id,
        day=day,
        url=url,
        title=row.get("m:title", b"").decode(),
        keys=json.loads(row.get("m:keys") or b"{}"),
        text=text,
        sketch=(row.get("v:sketch") or b"").decode(),
        own_sketch=(row.get("v:own") or b"").decode(),
        length=int(row["m:length"]) if row.get("m:length") else None,
    )
    if text is not None:
        view.lines = _host_lines(store, host_of(url), text, day, cfg)
    return view


def shared_keys(a: DocView, b: DocView) -> dict[str, str]:
    """Per rule: "same" / "differ" for one-key rules, "k of n" for SimHash blocks and
    LSH bands, "-" when either has none."""
    out: dict[str, str] = {}
    for rule in Rule:
        ka, kb = a.keys.get(rule.value), b.keys.get(rule.value)
        if rule.multi_key:
            sa, sb = set(ka or []), set(kb or [])
            out[rule.value] = f"{len(sa & sb)} of {max(len(sa), len(sb))}" if sa and sb else "-"
        else:
            out[rule.value] = "-" if not ka or not kb else "same" if ka == kb else "differ"
    return out


def paragraph_sizes(doc: DocView, cfg: Config) -> tuple[int, int] | None:
    """Rule paragraph's sizes (the whole, its edge lines) of the document's fingerprinted
    text (``core.fingerprint.paragraphs``); None when its text is not in the work files."""
    if doc.text is None:
        return None
    folded = codepoints(fold(doc.fingerprinted(cfg.boilerplate.min_line_chars)))
    fp = cfg.fingerprint
    found = paragraphs(
        folded,
        char_classes(folded),
        fp.paragraph_min_chars,
        max(1, fp.paragraph_max_keys),
        normalize_title(doc.title, fp.title_noise_words),
    )
    return found.size, found.edges


def paragraph_line(store: Store, a: DocView, b: DocView, cfg: Config) -> str | None:
    """What rule paragraph sees of the pair (docs/algorithm.md#excerpts): the paragraphs
    both hold, their size (a CJK character counts ``CJK_SIZE``), how many documents the
    index holds each for (a paragraph more than ``excerpt_max_docs`` hold counts for no
    excerpt), and the share of the document (``a``) the rare ones make, whole and without
    its edge lines. None when either has no paragraph keys."""
    pa = set(a.keys.get(Rule.PARAGRAPH.value) or [])
    pb = set(b.keys.get(Rule.PARAGRAPH.value) or [])
    if not pa or not pb:
        return None
    both = sorted(pa & pb)
    rows = store.get(Rule.PARAGRAPH.table, both) if both else {}
    held = {k: len(rows.get(k, {})) for k in both}
    c = cfg.cascade
    rare = sum(paragraph_chars(k) for k in both if held[k] <= c.excerpt_max_docs)
    lengths = [n for n in (a.length, b.length) if n]
    ratio = f"{min(lengths) / max(lengths):.3f}" if len(lengths) == 2 else "?"
    sizes = paragraph_sizes(a, cfg)
    if sizes and sizes[0]:
        size, edges = sizes
        body = f"{rare / (size - edges):.3f}" if size > edges else "-"
        share = (
            f"{min(1.0, rare / size):.3f} of the document's size {size} ({body} of it "
            f"without its edge lines of {edges})"
        )
    else:
        share = "? of the document (its text is not in the work files)"
    counts = ", ".join(str(held[k]) for k in both) or "-"
    return (
        f"paragraphs {len(both)} shared of {len(pa)} and {len(pb)} "
        f"(size {sum(paragraph_chars(k) for k in both)}; documents holding each: "
        f"{counts}); rare ones: size {rare}, {share}; the shorter page is "
        f"{ratio} of the longer's length (an excerpt needs >= {c.excerpt_min_chars} and >= "
        f"{c.excerpt_min_share} of the document, or of it without edge lines no bigger than "
        f"the quote when the quote is no bigger than the rest, and is the later page, at "
        f"most {c.excerpt_max_length_share} of the earlier's length)"
    )


def line_diff(a: DocView, b: DocView, min_chars: int) -> Iterator[tuple[str, str, str]]:
    """(mark, dropped, line) for ``a``'s lines then ``b``'s own: "=" a line both
    have (normalized), "-" only ``a``, "+" only ``b``; ``dropped`` as
    :meth:`DocView.dropped`."""
    assert a.text is not None and b.text is not None
    norm_b = {normalize_text(x) for x in b.text.splitlines()}
    norm_a = {normalize_text(x) for x in a.text.splitlines()}
    own_a, own_b = a.own(min_chars) is not None, b.own(min_chars) is not None
    for line in a.text.splitlines():
        if line.strip():
            mark = "=" if normalize_text(line) in norm_b else "-"
            yield mark, a.dropped(line, min_chars, own_a), line
    for line in b.text.splitlines():
        if line.strip() and normalize_text(line) not in norm_a:
            yield "+", b.dropped(line, min_chars, own_b), line


def own_line(a: DocView, b: DocView, min_chars: int) -> str:
    """How much of each side is its own text: the normalized characters it was
    fingerprinted on (without its host's template) and, where its host's frequent lines
    are not its own, the characters left without them."""

    def share(doc: DocView) -> str:
        whole = len(normalize_text(doc.text or ""))
        kept = len(normalize_text(doc.fingerprinted(min_chars)))
        own = doc.own(min_chars)
        rare = f", {sum(len(normalize_text(r)) for r in own)} without [fq]" if own else ""
        return f"{kept} of {whole} characters{rare}"

    return f"own text   the document {share(a)}; the compared one {share(b)}"


def measures_line(a: DocView, b: DocView, k: int) -> str:
    """The sketch measures of the pair on the whole texts and, when either page has an
    own text (its host's frequent lines are not its own), what the similarity stage
    measured (``pair_scoring.own_text_measures``): the Jaccard of the own texts, the
    best containment of an own text in the other's own text or whole page."""
    line = (
        f"measures   Jaccard {sketch_jaccard(a.sketch, b.sketch, k):.3f}, "
        f"containment {sketch_containment(a.sketch, b.sketch, k):.3f}"
    )
    if a.own_sketch or b.own_sketch:
        jaccard, contained = own_sketch_measures(a.sketch, a.own_sketch, b.sketch, b.own_sketch, k)
        line += f"; on own text (what decided): Jaccard {jaccard:.3f}, containment {contained:.3f}"
    return line


def explain(
    store: Store, home: Path, day: str, doc_id: str, cfg: Config, other: str | None = None
) -> list[str]:
    """The lines ``crawldedup explain`` prints."""
    row = store.get("verdicts", [verdict_row_key(day, doc_id)]).get(verdict_row_key(day, doc_id))
    if not row:
        raise ExplainError(f"no verdict for {doc_id!r} on {day}")
    verdict = VerdictRecord.from_row(verdict_row_key(day, doc_id), row)
    doc = load(store, home, doc_id, cfg)
    out = [f"document   {doc.id}  ({doc.day}, {doc.url or 'no url'}) {doc.title!r}"]
    if verdict.verdict == "duplicate":
        value = "" if verdict.similarity is None else f" {verdict.similarity:.3f}"
        out.append(
            f"verdict    duplicate of {verdict.duplicate_of}, group {verdict.group}: "
            f"rule {verdict.rule}, measure {verdict.measure}{value}"
        )
    else:
        measure = f" (measure {verdict.measure})" if verdict.measure else ""
        out.append(f"verdict    unique, group {verdict.group}{measure}")
    target = other or verdict.duplicate_of
    if target is None:
        out.append("compared   nothing (unique: give --with ID to compare with another)")
        return out
    peer = load(store, home, target, cfg)
    out.append(f"compared   {peer.id}  ({peer.day}, {peer.url or 'no url'}) {peer.title!r}")
    keys = shared_keys(doc, peer)
    out.append("keys       " + ", ".join(f"{r} {v}" for r, v in keys.items()))
    if doc.sketch and peer.sketch:
        out.append(measures_line(doc, peer, cfg.simhash.sketch_size))
    para = paragraph_line(store, doc, peer, cfg)
    if para is not None:
        out.append(para)
    ours, theirs = edition_of(doc.url), edition_of(peer.url)
    if are_editions(ours, theirs):
        out.append(
            f"editions   versions {ours[1]} and {theirs[1]} of {ours[0]}: grouped only at "
            f"Jaccard >= {cfg.editions.min_jaccard}"
            + ("" if cfg.editions.enabled else " (off: editions.enabled = false)")
        )
    if doc.text is None or peer.text is None:
        missing = doc.id if doc.text is None else peer.id
        out.append(f"lines      not shown: the input file of {missing} is gone or changed")
        return out
    min_chars = cfg.boilerplate.min_line_chars
    out.append(own_line(doc, peer, min_chars))
    out.append(
        "lines      = both  - only the document  + only the compared one  [bp] boilerplate  "
        "[sh] label removed, fill kept  [fq] frequent on its host, not the page's own text"
    )
    for mark, dropped, line in line_diff(doc, peer, min_chars):
        out.append(f"  {mark} {f'[{dropped}] ' if dropped else '     '}{line}")
    return out
