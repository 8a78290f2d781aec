"""The HTML day report: one self-contained page rendered from :class:`DayReportData`.

No scripts, no external CSS, fonts or images: styles are inline, charts are inline SVG
(:mod:`crawldedup.reporting.svg`), and a Content-Security-Policy of ``default-src 'none'``
makes the browser refuse any request the page could still trigger. Every text that
comes from the store or the crawl (titles, URLs, hosts, quarantine records) is escaped;
links are made only of http(s) URLs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from crawldedup.reporting import svg
from crawldedup.reporting.data import (
    BloomSummary,
    DayReportData,
    GroupDetail,
    QuarantineReason,
    rule_order,
    type_order,
)
from crawldedup.reporting.svg import esc, fmt
from crawldedup.stage_registry import NAMES as STAGE_ORDER

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"

CSS = """
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","PingFang SC",
 "Microsoft YaHei","WenQuanYi Micro Hei",sans-serif;margin:0;color:#222;
 background:#f6f7f9;line-height:1.4}
header{background:#24323f;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:22px}
header .sub{color:#c9d3dc;font-size:13px;margin-top:4px;word-break:break-all}
nav{padding:6px 24px;background:#e9edf1;font-size:13px}
nav a{margin-right:14px;color:#24323f}
main{padding:8px 24px 32px;max-width:1100px}
section{background:#fff;border:1px solid #dde2e7;border-radius:6px;padding:12px 16px;
 margin:14px 0}
h2{font-size:17px;margin:2px 0 8px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}
.card{background:#fff;border:1px solid #dde2e7;border-radius:6px;padding:8px 14px;
 min-width:110px}
.card .v{font-size:22px;font-weight:600}
.card .k{font-size:12px;color:#666}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{text-align:left;padding:3px 10px 3px 0;vertical-align:top;border-bottom:1px solid #eee}
th{color:#555;font-weight:600}
td.n,th.n{text-align:right}
td.t,span.t{white-space:nowrap}
.tag{background:#e8f1fb;color:#24527a;border-radius:3px;padding:0 4px;font-size:11px}
.note{color:#666;font-size:12px}
.url{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:#555;
 word-break:break-all}
pre{background:#f3f4f6;padding:6px 8px;white-space:pre-wrap;word-break:break-all;
 font-size:12px;margin:4px 0;max-height:8em;overflow:auto}
details{margin:2px 0}
summary{cursor:pointer}
svg.chart{display:block;max-width:100%;height:auto}
"""


def safe_href(url: str) -> str | None:
    """The URL as an href attribute value when it is http(s), else None (no link)."""
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return None
    return esc(url.strip()) if scheme in ("http", "https") else None


def link(url: str, text: str | None = None) -> str:
    shown = esc(text if text else url)
    href = safe_href(url)
    if href is None:
        return shown
    return f'<a href="{href}" rel="noopener noreferrer nofollow">{shown}</a>'


def when(ts: str) -> str:
    """An ISO timestamp to the minute: ``2026-11-01T07:51:20.000000Z`` → ``2026-11-01 07:51Z``."""
    m = re.match(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::[\d.]+)?(Z|[+-]\d{2}:?\d{2})?$", ts)
    if not m:
        return ts
    return f"{m.group(1)} {m.group(2)}{m.group(3) or ''}"


def pct(x: float | None, digits: int = 1, tiny: bool = False) -> str:
    """A share as a percentage; ``tiny``: non-zero shares below the last digit in
    scientific notation (false-positive rates)."""
    if x is None:
        return "–"
    if tiny and 0 < x * 100 < 10**-digits:
        return f"{x * 100:.1e}%"
    return f"{x * 100:.{digits}f}%"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    """A table of cells that are already HTML (escape before); ``numeric``: right-aligned."""
    th = "".join(
        f'<th class="n">{esc(h)}</th>' if i in numeric else f"<th>{esc(h)}</th>"
        for i, h in enumerate(head)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _cards(d: DayReportData) -> str:
    r = d.report
    items = [
        ("documents", fmt(int(r.get("documents", 0)))),
        ("unique", fmt(int(r.get("unique", 0)))),
        ("duplicates", fmt(int(r.get("duplicates_total", 0)))),
        ("duplicate rate", pct(d.today.duplicate_rate)),
        ("quarantined", fmt(int(r.get("quarantined_total", 0)))),
        ("groups with copies today", fmt(int(r.get("groups_with_duplicates_today", 0)))),
        ("largest group", fmt(d.largest_group)),
        ("pairs scored", fmt(int(r.get("pairs_scored", 0)))),
    ]
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><div class="v">{esc(v)}</div><div class="k">{esc(k)}</div></div>'
            for k, v in items
        )
        + "</div>"
    )


def _trend(d: DayReportData) -> str:
    days = [p.day for p in d.history]
    labels = [p.day[5:] if len(days) > 1 else p.day for p in d.history]
    hl = labels[-1]
    rules = sorted({k for p in d.history for k in p.duplicates}, key=rule_order)
    kinds = sorted({k for p in d.history for k in p.types}, key=type_order)
    by_rule = svg.stacked_columns(
        labels,
        [(r, [p.duplicates.get(r, 0) for p in d.history]) for r in rules],
        label="duplicates by rule per day",
        highlight=hl,
    )
    by_type = svg.stacked_columns(
        labels,
        [(k, [p.types.get(k, 0) for p in d.history]) for k in kinds],
        label="duplicates by type per day",
        highlight=hl,
    )
    rows = [
        [
            esc(p.day) if p.day != d.day else f"<b>{esc(p.day)}</b>",
            fmt(p.documents),
            fmt(p.dups),
            esc(pct(p.duplicate_rate)),
            fmt(p.quarantined),
            esc(
                ", ".join(
                    f"{k} {v}" for k, v in sorted(p.types.items(), key=lambda kv: type_order(kv[0]))
                )
            ),
        ]
        for p in d.history
    ]
    return (
        '<section id="trend"><h2>Duplicates over the last days</h2>'
        f'<p class="note">The {len(days)} day(s) with reports up to {esc(d.day)} '
        f"(a window of at most {d.window} days), the report's day in bold.</p>"
        f"<h3>By rule</h3>{by_rule}<h3>By type</h3>{by_type}"
        + _table(
            ["day", "documents", "duplicates", "rate", "quarantined", "by type"],
            rows,
            {1, 2, 3, 4},
        )
        + "</section>"
    )


def _sizes(d: DayReportData) -> str:
    chart = svg.columns(
        [b for b, _ in d.group_sizes],
        [n for _, n in d.group_sizes],
        label="groups by size",
        name="groups",
        height=200,
    )
    return (
        '<section id="sizes"><h2>Group sizes</h2>'
        '<p class="note">Groups holding the day\'s documents, by their number of members '
        "over all days in the store; "
        f"{fmt(d.singletons)} of them have no copy (size 1, not drawn), "
        f"the largest has {fmt(d.largest_group)} members.</p>"
        f"{chart}</section>"
    )


def _group(g: GroupDetail, rank: int, day: str) -> str:
    v = g.view
    head = (
        f'{link(v.url, v.title)}<div class="url">{esc(v.url)}</div>'
        if v.title
        else f'<span class="url">{link(v.url) if v.url else esc(v.group)}</span>'
    )
    rows = [
        [
            f'<span class="t">{esc(when(m.fetched_at))}'
            + (' <span class="tag">today</span>' if m.day == day else "")
            + "</span>",
            link(m.url, m.title or m.url) + (" <b>(canonical)</b>" if m.id == v.group else ""),
            f'<span class="url">{esc(m.url)}</span>',
        ]
        for m in g.members
    ]
    more = f'<p class="note">… and {fmt(g.more)} more members.</p>' if g.more else ""
    return (
        f'<tr><td class="n">{rank}</td><td>{head}'
        f"<details><summary>{fmt(len(g.members))} member(s)</summary>"
        + _table(["fetched at", "page", "url"], rows, set())
        + more
        + "</details></td>"
        f'<td class="n">{fmt(v.size)}</td><td class="n">{fmt(v.new_today)}</td>'
        f'<td class="t">{esc(when(v.first_seen))}</td>'
        f'<td class="t">{esc(when(v.last_seen))}</td></tr>'
    )


def _groups(d: DayReportData) -> str:
    if not d.top_groups:
        body = '<p class="note">No group gained members on this day.</p>'
    else:
        head = "".join(
            f'<th class="n">{h}</th>' if h in ("#", "size", "new today") else f"<th>{h}</th>"
            for h in ("#", "canonical page", "size", "new today", "first seen", "last seen")
        )
        body = (
            f"<table><thead><tr>{head}</tr></thead><tbody>"
            + "".join(_group(g, i, d.day) for i, g in enumerate(d.top_groups, 1))
            + "</tbody></table>"
        )
    return (
        '<section id="groups"><h2>Top groups of the day</h2>'
        '<p class="note">Groups that gained members on this day, most copied first; the '
        "link is the canonical (earliest) copy, the members are listed below it.</p>"
        f"{body}</section>"
    )


def _mirrors(d: DayReportData) -> str:
    if not d.mirrors:
        return (
            '<section id="mirrors"><h2>Mirror host pairs</h2>'
            '<p class="note">No pair of hosts shared two or more duplicates on this day.</p>'
            "</section>"
        )
    rows = [
        [esc(m.host_a), esc(m.host_b), fmt(m.pairs), fmt(m.same_path), fmt(m.exact)]
        for m in d.mirrors
    ]
    return (
        '<section id="mirrors"><h2>Mirror host pairs</h2>'
        '<p class="note">Host pairs whose pages were duplicates of each other at least twice '
        "on this day: pairs, of them under the same path, of them exact (type full or "
        "content).</p>"
        + _table(["host", "host", "pairs", "same path", "exact"], rows, {2, 3, 4})
        + "</section>"
    )


def _reason(q: QuarantineReason, have_files: bool) -> str:
    if q.examples:
        ex = "".join(
            "<li>"
            f'<span class="url">{esc(e.source.rsplit("/", 1)[-1])}:{e.position}</span> '
            f"{esc(e.detail)}" + (f"<pre>{esc(e.raw)}</pre>" if e.raw else "") + "</li>"
            for e in q.examples
        )
        ex = f"<ul>{ex}</ul>"
    else:
        ex = '<span class="note">no example on this machine</span>' if not have_files else ""
    return f'<tr><td>{esc(q.reason)}</td><td class="n">{fmt(q.count)}</td><td>{ex}</td></tr>'


def _quarantine(d: DayReportData, folder: str) -> str:
    total = sum(q.count for q in d.quarantine)
    if not total:
        body = '<p class="note">No record was quarantined on this day.</p>'
    else:
        chart = svg.hbars(
            [q.reason for q in d.quarantine],
            [q.count for q in d.quarantine],
            label="quarantined records by reason",
        )
        body = (
            chart + '<table><thead><tr><th>reason</th><th class="n">records</th>'
            "<th>examples (file:line, detail, record)</th></tr></thead><tbody>"
            + "".join(_reason(q, d.quarantine_files) for q in d.quarantine if q.count)
            + "</tbody></table>"
        )
    where = (
        f'<p class="note">Records are kept whole in <span class="url">{esc(folder)}</span>.</p>'
        if d.quarantine_files
        else f'<p class="note">The quarantine files ({esc(folder)}) are not on this machine: '
        "counts only.</p>"
    )
    share = d.report.get("records_in") or 0
    return (
        '<section id="quarantine"><h2>Quarantine</h2>'
        f'<p class="note">{fmt(total)} of {fmt(int(share))} records read.</p>'
        f"{body}{where if total else ''}</section>"
    )


def _bloom(b: BloomSummary) -> str:
    rows = [
        [
            esc(f.rule),
            fmt(f.keys),
            fmt(f.capacity),
            svg.meter(f.load, label=f"{f.rule}: {pct(f.load, 2)} of capacity")
            + f" {esc(pct(f.load, 2))}",
            esc(pct(f.bit_fill, 2)),
            esc(pct(f.expected_fp_rate, 3, tiny=True)),
            esc(pct(f.design_fp_rate, 3)),
            fmt(f.hashes),
            esc(f"{f.bytes / 1024:,.1f} KiB"),
            fmt(f.parts),
            esc(f.mode),
        ]
        for f in b.filters
    ]
    table = (
        _table(
            [
                "rule",
                "keys",
                "capacity",
                "load",
                "bits set",
                "expected FP",
                "FP at capacity",
                "hashes",
                "size",
                "parts",
                "mode",
            ],
            rows,
            {1, 2, 4, 5, 6, 7, 8, 9},
        )
        if rows
        else '<p class="note">No filter statistics in the report.</p>'
    )
    negatives = b.probes - (b.hits - b.false_positives)
    return (
        '<section id="bloom"><h2>Bloom filters</h2>'
        f"<p>{fmt(b.probes)} probes, {fmt(b.hits)} hits, {fmt(b.false_positives)} false "
        f"positives: measured false-positive rate <b>{esc(pct(b.false_positive_rate, 3))}</b> "
        f"(false positives over the {fmt(max(negatives, 0))} probes of keys the store did "
        "not hold).</p>"
        f"{table}"
        '<p class="note">Load: keys over the capacity the filter was sized for. Bits set and '
        "expected FP: 1 − e<sup>−kn/m</sup> and its k-th power, from the filter's size; FP at "
        "capacity: the same with n = capacity (the rate the filter was sized for).</p>"
        "</section>"
    )


def stage_order(name: str) -> tuple[int, str]:
    return (STAGE_ORDER.index(name) if name in STAGE_ORDER else len(STAGE_ORDER), name)


def _stages(d: DayReportData) -> str:
    names = sorted(d.seconds, key=stage_order)
    total = sum(d.seconds.values())
    chart = svg.hbars(
        names, [round(d.seconds[n], 1) for n in names], label="stage timings", unit=" s"
    )
    days = [p.day[5:] if len(d.history) > 1 else p.day for p in d.history]
    stages = sorted({k for p in d.history for k in p.seconds}, key=stage_order)
    trend = svg.stacked_columns(
        days,
        [(s, [p.seconds.get(s, 0.0) for p in d.history]) for s in stages],
        label="stage seconds per day",
        unit=" s",
        integer=False,
        highlight=days[-1],
        height=200,
    )
    return (
        '<section id="stages"><h2>Stage timings</h2>'
        f'<p class="note">Wall seconds of each stage on this day ({esc(fmt(round(total, 1)))} s '
        "in all; without Spark start-up and scheduling).</p>"
        f"{chart}<h3>Per day</h3>{trend}</section>"
    )


def parameters_line(cfg: dict[str, Any]) -> str:
    """What the day was committed with (escaped): the knobs that acted under its profile,
    its rules, the code version and the configuration's digest."""
    profile = cfg.get("profile")
    if profile == "shingles":
        knobs = (
            f"min_jaccard {cfg.get('min_jaccard')} · min_containment {cfg.get('min_containment')}"
        )
    else:
        knobs = f"threshold {cfg.get('threshold', '–')}"
    parts = [
        f"profile {profile}" if profile else "",
        knobs,
        f"rules {', '.join(cfg.get('rules') or [])}",
        f"code {cfg['code']}" if cfg.get("code") else "",
        f"config {cfg['config_digest']}" if cfg.get("config_digest") else "",
        _published_by(cfg),
    ]
    return esc(" · ".join(p for p in parts if p))


def _published_by(cfg: dict[str, Any]) -> str:
    """Which run published the day: a DAG run's id (its token without the resolution
    time), "crawldedup run" for the command line; nothing for days before the record."""
    if "run" not in cfg:
        return ""
    run = cfg["run"]
    who = str(run).split("@")[0] if run else "crawldedup run (command line)"
    return f"published by {who} at {cfg.get('committed_at', '?')}"


def render(d: DayReportData, quarantine_folder: str) -> str:
    r = d.report
    sub = (
        f"store {esc(r.get('store', ''))} · input {esc(r.get('input') or '–')} · "
        f"{parameters_line(r.get('config') or {})}"
        + (" · <b>dry run</b>" if r.get("dry_run") else "")
        + f" · generated {esc(d.generated_at)}"
    )
    nav = "".join(
        f'<a href="#{a}">{esc(t)}</a>'
        for a, t in (
            ("trend", "over the days"),
            ("sizes", "group sizes"),
            ("groups", "top groups"),
            ("mirrors", "mirrors"),
            ("quarantine", "quarantine"),
            ("bloom", "Bloom filters"),
            ("stages", "stage timings"),
        )
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>crawldedup report {esc(d.day)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>crawldedup · day report {esc(d.day)}</h1>"
        f'<div class="sub">{sub}</div></header>'
        f"<nav>{nav}</nav><main>"
        + _cards(d)
        + _trend(d)
        + _sizes(d)
        + _groups(d)
        + _mirrors(d)
        + _quarantine(d, quarantine_folder)
        + _bloom(d.bloom)
        + _stages(d)
        + "</main></body></html>\n"
    )
