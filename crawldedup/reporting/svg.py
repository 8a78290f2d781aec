"""Small inline SVG charts for the HTML day report: no JavaScript, no external resources.

Every function returns one ``<svg>`` element as a string, with every text escaped, a
``<title>`` tooltip on each bar (the browser shows it on hover, no script needed) and
an ``aria-label``. Values are plain numbers; the caller picks labels and series order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
AXIS = "#666"
GRID = "#e3e3e3"
FONT = "font-family:system-ui,sans-serif;font-size:11px"


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def esc(text: object) -> str:
    """Text or attribute value, escaped for HTML and SVG (quotes too)."""
    return escape(str(text), quote=True)


def fmt(value: float) -> str:
    """A number as a person reads it: integers without decimals, others with up to 3."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def nice_ticks(top: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values from 0 to at least ``top`` (about ``count`` intervals);
    ``integer``: whole-number steps only (for counts)."""
    if top <= 0 or not math.isfinite(top):
        return [0.0, 1.0]
    raw = top / count
    mag = 10 ** math.floor(math.log10(raw))
    steps = [m * mag for m in (1, 2, 2.5, 5, 10)]
    if integer:
        steps = [st for st in steps if st >= 1 and float(st).is_integer()] or [1.0]
    step = next((st for st in steps if st >= raw), steps[-1])
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def _open(width: int, height: int, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{esc(label)}" style="{FONT}">'
    )


def _empty(width: int, label: str, message: str = "no data") -> str:
    return _open(width, 40, label) + f'<text x="8" y="24" fill="{AXIS}">{esc(message)}</text></svg>'


def _legend(names: Sequence[str], x0: float, y: float, width: float) -> list[str]:
    out: list[str] = []
    x, row = x0, 0
    for i, name in enumerate(names):
        w = 18 + 7 * len(name) + 14
        if x + w > width and x > x0:
            x, row = x0, row + 1
        yy = y + row * 16
        out.append(
            f'<rect x="{x:.1f}" y="{yy - 9:.1f}" width="10" height="10" fill="{color(i)}"/>'
            f'<text x="{x + 14:.1f}" y="{yy:.1f}">{esc(name)}</text>'
        )
        x += w
    return out


def legend_rows(names: Sequence[str], width: float, x0: float = 48) -> int:
    """How many lines :func:`_legend` needs for ``names`` in ``width``."""
    x, rows = x0, 1 if names else 0
    for name in names:
        w = 18 + 7 * len(name) + 14
        if x + w > width and x > x0:
            x, rows = x0, rows + 1
        x += w
    return rows


def stacked_columns(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    label: str,
    unit: str = "",
    width: int = 720,
    height: int = 240,
    highlight: str | None = None,
    legend: bool = True,
    integer: bool = True,
) -> str:
    """Vertical bars, one per category (e.g. a day), each stacked by series (e.g. a rule).

    ``series`` is ``[(name, values)]`` with one value per category, drawn bottom-up in
    the given order and named in a legend. ``highlight`` marks one category (the report's
    day) with a bold label. ``integer``: the values are counts (whole-number ticks).
    """
    names = [n for n, _ in series]
    totals = [sum(vals[i] for _, vals in series) for i in range(len(categories))]
    if not categories or not series or max(totals, default=0) <= 0:
        return _empty(width, label)
    left, right, top = 48, 12, 10
    rotate = len(categories) > 10
    bottom = 44 if rotate else 24
    leg = legend_rows(names, width) if legend else 0
    total_h = height + leg * 16 + 6
    plot_h = height - top - bottom
    plot_w = width - left - right
    ticks = nice_ticks(max(totals), integer=integer)
    ymax = ticks[-1]
    out = [_open(width, total_h, label)]
    for t in ticks:
        y = top + plot_h - plot_h * t / ymax
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="{GRID}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{AXIS}">'
            f"{esc(fmt(t))}</text>"
        )
    slot = plot_w / len(categories)
    bar_w = max(2.0, min(48.0, slot * 0.7))
    for i, cat in enumerate(categories):
        x = left + slot * i + (slot - bar_w) / 2
        y = top + plot_h
        for s, (name, vals) in enumerate(series):
            v = vals[i]
            if v <= 0:
                continue
            h = plot_h * v / ymax
            y -= h
            out.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="{color(s)}"><title>{esc(cat)} · {esc(name)}: {esc(fmt(v))}{esc(unit)}'
                "</title></rect>"
            )
        cx = left + slot * i + slot / 2
        ly = top + plot_h + 14
        weight = ' font-weight="bold"' if cat == highlight else ""
        if rotate:
            out.append(
                f'<text x="{cx:.1f}" y="{ly:.1f}" text-anchor="end"{weight} '
                f'transform="rotate(-40 {cx:.1f} {ly:.1f})">{esc(cat)}</text>'
            )
        else:
            out.append(
                f'<text x="{cx:.1f}" y="{ly:.1f}" text-anchor="middle"{weight}>{esc(cat)}</text>'
            )
    base = top + plot_h
    out.append(
        f'<line x1="{left}" y1="{base:.1f}" x2="{width - right}" y2="{base:.1f}" stroke="{AXIS}"/>'
    )
    if legend:
        out += _legend(names, left, height + 8, width)
    out.append("</svg>")
    return "".join(out)


def columns(
    categories: Sequence[str],
    values: Sequence[float],
    *,
    label: str,
    name: str = "count",
    width: int = 720,
    height: int = 220,
) -> str:
    """Plain vertical bars (one series, no legend), e.g. a size histogram."""
    if not categories or max(values, default=0) <= 0:
        return _empty(width, label)
    return stacked_columns(
        categories, [(name, values)], label=label, width=width, height=height, legend=False
    )


def hbars(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    label: str,
    unit: str = "",
    width: int = 720,
    max_value: float | None = None,
) -> str:
    """Horizontal bars, one per label, with the value written after each bar."""
    if not labels or max(values, default=0) <= 0:
        return _empty(width, label)
    row_h, left = 22, min(220, 12 + 7 * max(len(lbl) for lbl in labels))
    right = 90
    top = max_value if max_value is not None else max(values)
    out = [_open(width, row_h * len(labels) + 8, label)]
    plot_w = width - left - right
    for i, (lbl, v) in enumerate(zip(labels, values, strict=True)):
        y = 4 + i * row_h
        w = plot_w * max(0.0, v) / top if top > 0 else 0
        out.append(
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{esc(lbl)}</text>'
            f'<rect x="{left}" y="{y + 3}" width="{max(w, 1):.1f}" height="{row_h - 8}" '
            f'fill="{color(i)}"><title>{esc(lbl)}: {esc(fmt(v))}{esc(unit)}</title></rect>'
            f'<text x="{left + w + 6:.1f}" y="{y + 14}" fill="{AXIS}">'
            f"{esc(fmt(v))}{esc(unit)}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def meter(share: float, *, label: str, width: int = 160, warn: float = 0.8) -> str:
    """A bar filled to ``share`` (0..1), orange above ``warn``, red when full."""
    s = min(max(share, 0.0), 1.0)
    fill = "#e15759" if share >= 1 else ("#f28e2b" if share >= warn else "#59a14f")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="meter" width="{width}" height="12" '
        f'viewBox="0 0 {width} 12" role="img" aria-label="{esc(label)}">'
        f'<rect x="0" y="0" width="{width}" height="12" rx="2" fill="{GRID}"/>'
        f'<rect x="0" y="0" width="{width * s:.1f}" height="12" rx="2" fill="{fill}">'
        f"<title>{esc(label)}</title></rect></svg>"
    )
