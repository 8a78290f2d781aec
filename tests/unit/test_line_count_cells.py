"""A host's line counts of a day are one ``host_lines`` cell (store/line_counts.py),
read back by day window; a day committed before 2026-12 sends readers to the rows per
line too."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawldedup.store import open_store
from crawldedup.store.line_counts import (
    CHUNK,
    PACKED,
    PACKED_MARK,
    counts_of,
    counts_row,
    day_cells,
    old_layout_days,
    pack_counts,
    unpack_counts,
)

LINES = [*sorted(f"{i:016x}" for i in range(5)), "~" + "a" * 15, "=" + "b" * 15]


def test_a_cell_holds_every_line_and_its_count() -> None:
    keys, counts = unpack_counts(pack_counts(LINES, range(1, 8)))
    assert [k.decode() for k in keys.tolist()] == LINES
    assert counts.tolist() == list(range(1, 8))


def test_a_line_key_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError, match="16 characters"):
        pack_counts(["abc"], [1])


def test_counts_sum_over_the_days_of_the_window_only() -> None:
    cells = {
        c: v
        for day, n in (("2026-11-01", 1), ("2026-11-02", 2), ("2026-11-03", 4))
        for _, c, v in day_cells("a.example", day, LINES[:3], [n] * 3)
    }
    assert counts_of(cells, [LINES[0], LINES[2], LINES[4]], "2026-11-02", "2026-11-03") == {
        LINES[0]: 2,
        LINES[2]: 2,
    }
    assert counts_of(cells, [LINES[1]], "", "2026-11-03~") == {LINES[1]: 7}
    assert counts_of(cells, [LINES[1]], "2026-11-04", "2026-11-09") == {}


def test_a_host_with_more_lines_than_a_cell_holds_gets_more_cells_of_the_day() -> None:
    lines = sorted(f"{i:016x}" for i in range(CHUNK + 3))
    cells = list(day_cells(None, "2026-11-02", lines, [1] * len(lines)))
    assert [(r, c) for r, c, _ in cells] == [
        (counts_row(None), "d:2026-11-02"),
        (counts_row(None), "d:2026-11-02#1"),
    ]
    row = {c: v for _, c, v in cells}
    assert counts_of(row, [lines[0], lines[-1]], "2026-11-02", "2026-11-03") == {
        lines[0]: 1,
        lines[-1]: 1,
    }


def test_a_day_committed_without_the_mark_sends_readers_to_the_rows_per_line(
    tmp_path: Path,
) -> None:
    with open_store(f"sqlite:///{tmp_path / 'store.db'}") as store:
        store.put("days", {"2026-11-01": {"r:report": b"{}"}})  # a release before 2026-12
        store.put("days", {"2026-11-02": {"r:published": b"{}", PACKED_MARK: PACKED}})
        store.put("days", {"2026-11-03": {"r:incomplete": b"publish started"}})
        assert old_layout_days(store, "", "2026-11-04")
        assert old_layout_days(store, "2026-11-01", "2026-11-02")
        assert not old_layout_days(store, "2026-11-02", "2026-11-04")
