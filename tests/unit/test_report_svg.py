"""The HTML report's inline SVG charts and page helpers (no store, no Spark)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from crawldedup.reporting import svg
from crawldedup.reporting.page import pct, safe_href, when

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)  # well-formed XML, or this raises
    assert root.tag == f"{NS}svg"
    return root


def bars(root: ET.Element) -> list[ET.Element]:
    """The data bars: rects carrying a tooltip."""
    return [r for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]


@pytest.mark.parametrize(
    "top, integer, expected",
    [
        (36, False, [0, 10, 20, 30, 40]),
        (12, False, [0, 2.5, 5, 7.5, 10, 12.5]),
        (12, True, [0, 5, 10, 15]),
        (3, True, [0, 1, 2, 3]),
        (0.42, False, [0, 0.1, 0.2, 0.3, 0.4, 0.5]),
        (0, False, [0, 1]),
    ],
)
def test_nice_ticks_cover_the_top_with_round_steps(
    top: float, integer: bool, expected: list[float]
) -> None:
    assert svg.nice_ticks(top, integer=integer) == expected


def test_stacked_columns_stack_each_series_in_proportion() -> None:
    out = svg.stacked_columns(
        ["11-01", "11-02"],
        [("content_md5", [10, 20]), ("head", [10, 0])],
        label="duplicates by rule",
        height=240,
        highlight="11-02",
    )
    root = parse(out)
    assert root.get("aria-label") == "duplicates by rule"
    rects = bars(root)
    # Zero values draw nothing: three bars, tooltips name day, series and value.
    titles = [r.find(f"{NS}title").text for r in rects]  # type: ignore[union-attr]
    assert titles == ["11-01 · content_md5: 10", "11-01 · head: 10", "11-02 · content_md5: 20"]
    heights = [float(r.get("height", 0)) for r in rects]
    assert heights[0] == pytest.approx(heights[1])
    assert heights[2] == pytest.approx(heights[0] + heights[1])
    # The first day's two parts sit on each other, both day columns on the same base.
    assert float(rects[1].get("y", 0)) + heights[1] == pytest.approx(float(rects[0].get("y", 0)))
    base = float(rects[0].get("y", 0)) + heights[0]
    assert float(rects[2].get("y", 0)) + heights[2] == pytest.approx(base)
    # Same series, same colour; the legend names every series; the day is highlighted.
    assert rects[0].get("fill") == rects[2].get("fill") != rects[1].get("fill")
    texts = {t.text: t for t in root.iter(f"{NS}text")}
    assert {"content_md5", "head"} <= set(texts)
    assert texts["11-02"].get("font-weight") == "bold"
    assert texts["11-01"].get("font-weight") is None


def test_labels_are_escaped() -> None:
    evil = '<script>alert("x")</script>&'
    for out in (
        svg.stacked_columns([evil], [(evil, [1])], label=evil),
        svg.columns([evil], [2], label=evil),
        svg.hbars([evil], [3.5], label=evil, unit=" s"),
        svg.meter(0.5, label=evil),
    ):
        assert "<script" not in out
        root = parse(out)
        assert root.get("aria-label") == evil
        assert any(evil in (t.text or "") for t in root.iter())


def test_columns_draw_one_series_without_legend() -> None:
    root = parse(svg.columns(["2", "3", "6–10"], [12, 0, 3], label="groups by size"))
    assert len(bars(root)) == 2
    assert {t.text for t in root.iter(f"{NS}text")} >= {"2", "3", "6–10"}
    assert all(r.find(f"{NS}title") is not None for r in root.iter(f"{NS}rect"))


def test_hbars_scale_to_the_largest_value_and_print_it() -> None:
    root = parse(svg.hbars(["fingerprint", "bloom"], [30.0, 1.5], label="stages", unit=" s"))
    rects = bars(root)
    widths = [float(r.get("width", 0)) for r in rects]
    assert widths[0] / widths[1] == pytest.approx(20, rel=0.01)
    assert {"30 s", "1.5 s"} <= {t.text for t in root.iter(f"{NS}text")}


def test_many_categories_get_rotated_labels() -> None:
    days = [f"11-{d:02d}" for d in range(1, 15)]
    root = parse(svg.stacked_columns(days, [("a", [1.0] * 14)], label="x"))
    rotated = [t for t in root.iter(f"{NS}text") if (t.get("transform") or "").startswith("rotate")]
    assert len(rotated) == 14


@pytest.mark.parametrize(
    "chart",
    [
        svg.stacked_columns([], [], label="empty"),
        svg.stacked_columns(["a"], [("s", [0])], label="zero"),
        svg.columns([], [], label="empty"),
        svg.hbars([], [], label="empty"),
    ],
)
def test_no_data_is_a_message_not_an_error(chart: str) -> None:
    root = parse(chart)
    assert not bars(root)
    assert [t.text for t in root.iter(f"{NS}text")] == ["no data"]


def test_meter_clamps_and_warns() -> None:
    def fill(share: float) -> tuple[float, str]:
        r = list(parse(svg.meter(share, label="m", width=100)).iter(f"{NS}rect"))[1]
        return float(r.get("width", 0)), r.get("fill", "")

    assert fill(0.25) == (25.0, "#59a14f")
    assert fill(0.9)[1] == "#f28e2b"
    assert fill(1.7) == (100.0, "#e15759")
    assert fill(-1) == (0.0, "#59a14f")


def test_charts_reference_nothing_outside() -> None:
    out = svg.stacked_columns(["a", "b"], [("s", [1, 2]), ("t", [2, 1])], label="x")
    # The namespace is a name, not a request; nothing else may point outside.
    rest = out.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for needle in ("href", "http", "url(", "<image", "<script", "<foreignObject"):
        assert needle not in rest


def test_page_helpers() -> None:
    assert safe_href("https://a.example/x?q=\"<>'") == "https://a.example/x?q=&quot;&lt;&gt;&#x27;"
    assert safe_href("HTTP://A.example/") == "HTTP://A.example/"
    for bad in ("javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,x", "/rel", ""):
        assert safe_href(bad) is None
    assert when("2026-11-01T07:51:20.000000Z") == "2026-11-01 07:51Z"
    assert when("2026-11-02T10:26:44+08:00") == "2026-11-02 10:26+08:00"
    assert when("yesterday") == "yesterday"
    assert pct(0.324) == "32.4%"
    assert pct(None) == "–"
    assert pct(1e-9, 3, tiny=True) == "1.0e-07%"
    assert pct(1e-9, 3) == "0.000%"
    assert pct(0.0, 3) == "0.000%"
