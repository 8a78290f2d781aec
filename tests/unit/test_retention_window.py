"""The retention window's days (crawldedup/retention.py) and the forget command's refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawldedup.cli import main
from crawldedup.day_state import MARKER, PUBLISHED_WITH
from crawldedup.retention import (
    FORGOTTEN,
    day_row,
    days_to_prune,
    prune_cutoff,
    window_start,
)
from crawldedup.store import open_store


def test_the_window_of_a_day() -> None:
    assert window_start("2026-10-12", 5) == "2026-10-07"  # compared with 7 .. 11
    assert prune_cutoff("2026-10-12", 5) == "2026-10-07"  # keeps 8 .. 12 once 12 is in
    assert window_start("2026-03-02", 2) == "2026-02-28"
    assert window_start("2026-10-12", 0) == "" and prune_cutoff("2026-10-12", 0) is None


def test_the_days_to_prune(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    days = [f"2026-10-{d:02d}" for d in range(1, 8)]
    with open_store(url) as store:
        for day in days:
            store.put("days", {day: {PUBLISHED_WITH: json.dumps({"documents": 1}).encode()}})
        store.put("days", {"2026-10-02": {MARKER: b"1"}})  # being published: not complete
        store.put(FORGOTTEN, {day_row("2026-10-01"): {"f:state": b"done"}})
        store.put(FORGOTTEN, {day_row("2026-10-03"): {"f:state": b"running"}})
        # Newest 7, keep 3: 5 .. 7 stay; 1 is done, 3 was cut short, 2 is no published day.
        assert days_to_prune(store, "2026-10-07", 3) == ["2026-10-03", "2026-10-04"]
        assert days_to_prune(store, "2026-10-07", 0) == []


@pytest.mark.parametrize(
    "args, says",
    [
        (["--to", "2026-10-02"], "one of the arguments --from --host is required"),
        (["--from", "2026-10-02", "--host", "a.example"], "not allowed with argument"),
        (["--from", "2026-10-03", "--to", "2026-10-02"], "is before --from"),
        (["--host", "a.example", "--to", "2026-10-02"], "--to needs --from"),
        (["--from", "2026-10-02", "--yes", "--dry-run"], "not allowed with argument"),
    ],
)
def test_forget_refuses_bad_flags_in_one_line(
    args: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "store.db").touch()
    assert main(["forget", *args, "--home", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err


def test_forget_names_an_empty_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with open_store(f"sqlite:///{tmp_path / 'store.db'}"):
        pass
    assert main(["forget", "--from", "2026-10-01", "--yes", "--home", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "no published day in days 2026-10-01 .. 2026-10-01" in captured.err
    assert json.loads(captured.out)["documents"] == 0
