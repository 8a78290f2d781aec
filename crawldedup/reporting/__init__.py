"""The HTML day report (``crawldedup report --date D --html``).

:mod:`~crawldedup.reporting.data` gathers the figures through the Store interface (so it
reads the embedded SQLite store and HBase alike), :mod:`~crawldedup.reporting.svg` draws
the charts as inline SVG and :mod:`~crawldedup.reporting.page` renders one self-contained
page, written to ``HOME/reports/dt=D/index.html``.
"""

from __future__ import annotations

from pathlib import Path

from crawldedup.reporting.data import WINDOW, DayReportData, NoReport, gather
from crawldedup.reporting.page import render
from crawldedup.store import open_store

__all__ = ["WINDOW", "DayReportData", "NoReport", "gather", "html_path", "render", "write_report"]


def html_path(home: Path, day: str) -> Path:
    return home / "reports" / f"dt={day}" / "index.html"


def write_report(
    store_url: str, home: Path, day: str, quarantine_dir: Path, window: int = WINDOW
) -> Path:
    """Render day ``day``'s page into ``HOME/reports/dt=D/index.html``; returns the path.

    Raises :class:`NoReport` when the store holds no report for the day. The file is
    written next to itself and renamed, so a reader never sees half a page.
    """
    with open_store(store_url, read_only=True) as store:
        data = gather(store, day, quarantine_dir, window=window)
    out = html_path(home, day)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".html.tmp")
    tmp.write_text(render(data, str(quarantine_dir)), encoding="utf-8")
    tmp.replace(out)
    return out
