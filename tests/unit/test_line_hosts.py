"""The hosts where a line is ordinary text, as the fingerprint stage writes them for the
store (``work/dt=D/line_hosts``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from crawldedup.pipeline.site_boilerplate import (
    _HOST_LINES,
    HOSTS_KEPT,
    ordinary_hosts,
    write_line_hosts,
)


def _counts(*rows: tuple[str | None, str, int]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"host": h, "line": line, "pages": n, "n": n, "elsewhere": False} for h, line, n in rows],
        schema=_HOST_LINES,
    )


def test_a_line_keeps_its_first_hosts_where_it_is_ordinary_text(tmp_path: Path) -> None:
    total = _counts(
        ("c.example", "L1", 1),
        ("a.example", "L1", 2),
        ("b.example", "L1", 1),
        ("t.example", "L1", 9),  # template there: not ordinary text
        ("t.example", "L2", 9),
        (None, "L3", 1),  # a page without a host: the line is listed, with no host
    )
    ordinary = ordinary_hosts(total, min_pages=3)
    assert HOSTS_KEPT == 2
    assert ordinary == {"L1": ["a.example", "b.example"], "L3": []}
    write_line_hosts(ordinary, tmp_path / "line_hosts")
    back = pq.read_table(tmp_path / "line_hosts").to_pylist()
    assert sorted(back, key=lambda r: r["line"]) == [
        {"line": "L1", "hosts": ["a.example", "b.example"]},
        {"line": "L3", "hosts": []},
    ]
