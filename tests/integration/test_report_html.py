"""``crawldedup report --date D --html`` on the embedded store: two sample days run by the
stages in the shared Spark session, day 2 with planted hostile records (a ``<script>``
title, a ``javascript:`` URL, a quarantined line holding markup). The page is checked
against what the store and the command line say, for escaping, and for not referencing
anything outside itself.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.pipeline.context import DayContext
from crawldedup.pipeline.stages import run_stages
from crawldedup.reporting import gather, render
from crawldedup.store import Store, open_store
from crawldedup.store.schema import get_docs, parse_posting, posting_doc_id
from crawldedup.views import mirrors, top_groups
from tests.browser import chromium
from tests.cli_helpers import cli, cli_env, verdicts
from tests.conftest import SAMPLE_DAYS

DAYS = SAMPLE_DAYS[:2]
DAY = DAYS[1]
EVIL_TITLE = '<script>alert("x")</script> 转载 & <b>bold</b>'
EVIL_CONTENT = (
    "这是一篇专门用来测试页面转义的文章，标题里有脚本标签，网址里有引号和尖括号。"
    "报告页面必须把它们当作普通文字显示，而不是执行或者解释成标记。" * 3
)
EVIL_URL = 'https://evil.example/a?q="><script>alert(1)</script>'
JS_URL = "javascript:alert(document.cookie)"


def _evil_records() -> list[str]:
    base = {"title": EVIL_TITLE, "content": EVIL_CONTENT}
    return [
        json.dumps({**base, "id": "evil-1", "url": EVIL_URL, "fetched_at": f"{DAY}T01:00:00Z"}),
        json.dumps({**base, "id": "evil-2", "url": JS_URL, "fetched_at": f"{DAY}T02:00:00Z"}),
        # Two more copies: the group is among the day's top groups (size 4, 3 new today).
        *(
            json.dumps(
                {
                    **base,
                    "id": f"evil-{i}",
                    "url": f"https://copy{i}.example/p/{i}",
                    "fetched_at": f"{DAY}T0{i}:00:00Z",
                }
            )
            for i in (4, 5)
        ),
        '{"id": "evil-3", "title": "<script>alert(2)</script>", "content": "cut',  # bad JSON
    ]


class Page(HTMLParser):
    """The parts of a page the tests read: tables (cell texts), links, tags, SVG titles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.links: list[tuple[str, str]] = []  # (href, text)
        self.tables: list[list[list[str]]] = []
        self.svg_titles: list[str] = []
        self.text: list[str] = []
        self._stack: list[str] = []
        self._open: list[list[list[str]]] = []  # the open tables, innermost last
        self._cells: list[list[str] | None] = []  # each open table's current cell
        self._href: str | None = None
        self._link_text: list[str] = []
        self._title: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        self._stack.append(tag)
        if tag == "table":
            self.tables.append([])
            self._open.append(self.tables[-1])
            self._cells.append(None)
        elif tag == "tr" and self._open:
            self._open[-1].append([])
        elif tag in ("td", "th") and self._open:
            self._cells[-1] = []
        elif tag == "a":
            self._href, self._link_text = a.get("href") or "", []
        elif tag == "title" and "svg" in self._stack:
            self._title = []

    def handle_endtag(self, tag: str) -> None:
        if self._stack and self._stack[-1] == tag:
            self._stack.pop()
        if tag == "table" and self._open:
            self._open.pop()
            self._cells.pop()
        elif tag in ("td", "th") and self._open and self._cells[-1] is not None:
            self._open[-1][-1].append(" ".join("".join(self._cells[-1] or []).split()))
            self._cells[-1] = None
        elif tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._link_text)))
            self._href = None
        elif tag == "title" and self._title is not None:
            self.svg_titles.append("".join(self._title))
            self._title = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for cell in self._cells:  # a nested table's text is its outer cell's too
            if cell is not None:
                cell.append(data)
        if self._href is not None:
            self._link_text.append(data)
        if self._title is not None:
            self._title.append(data)

    def table_with(self, header: str) -> list[list[str]]:
        for t in self.tables:
            if t and header in t[0]:
                return t
        raise AssertionError(f"no table with a {header!r} column")


def parse(html: str) -> Page:
    p = Page()
    p.feed(html)
    p.close()
    return p


@pytest.fixture(scope="module")
def home(spark: Any, sample_crawl: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report-html")
    home = root / "home"
    day2 = root / f"dt={DAY}"
    shutil.copytree(sample_crawl / f"dt={DAY}", day2)
    (day2 / "part-evil.jsonl").write_text("\n".join(_evil_records()) + "\n", encoding="utf-8")
    folders = {DAYS[0]: sample_crawl / f"dt={DAYS[0]}", DAY: day2}
    for day in DAYS:
        run_stages(spark, DayContext(day=day, home=home, cfg=Config(), input_dir=folders[day]))
    return home


@pytest.fixture(scope="module")
def page(home: Path) -> dict[str, Any]:
    proc = cli("report", "--date", DAY, "--html", home=home)
    path = Path(proc.stdout.strip())
    html = path.read_text(encoding="utf-8")
    report = json.loads(cli("report", "--date", DAY, home=home).stdout)
    return {"path": path, "html": html, "doc": parse(html), "report": report}


def store_url(home: Path) -> str:
    return f"sqlite:///{home / 'store.db'}"


def test_writes_the_page_under_home_and_prints_its_path(home: Path, page: dict[str, Any]) -> None:
    assert page["path"] == home.resolve() / "reports" / f"dt={DAY}" / "index.html"
    assert page["html"].startswith("<!DOCTYPE html>")
    assert f"day report {DAY}" in page["html"]


def test_day_counts_and_trend_match_the_reports_and_verdicts(
    home: Path, page: dict[str, Any]
) -> None:
    doc, report = page["doc"], page["report"]
    trend = {row[0]: row for row in doc.table_with("by type")[1:]}
    assert list(trend) == list(DAYS)  # the trailing window: both days with reports
    for day in DAYS:
        rep = json.loads(cli("report", "--date", day, home=home).stdout)
        found = verdicts(day, home)
        types = Counter(v["type"] for v in found.values() if v["verdict"] == "duplicate")
        row = trend[day]
        assert row[1] == f"{rep['documents']:,}"
        assert row[2] == f"{rep['duplicates_total']:,}"
        assert row[4] == f"{rep['quarantined_total']:,}"
        for kind, n in types.items():
            assert f"{kind} {n}" in row[5]
        # Each rule's count is a bar of the by-rule chart (its tooltip).
        for rule, n in rep["duplicates"].items():
            assert f"{day[5:]} · {rule}: {n}" in doc.svg_titles
    cards = " ".join(doc.text)
    assert f"{report['documents']:,}" in cards and "duplicate rate" in cards


def test_group_sizes_and_top_groups_link_their_members(home: Path, page: dict[str, Any]) -> None:
    doc = page["doc"]
    hrefs = {h for h, _ in doc.links}
    with open_store(store_url(home)) as store:
        groups = top_groups(store, DAY, 20)
        rows = store.get("groups", [g.group for g in groups])
        members = {posting_doc_id(c) for g in groups for c in rows[g.group]}
        urls = {
            k: v["m:url"].decode() for k, v in get_docs(store, sorted(members), ["m:url"]).items()
        }
        # Sizes as the store holds them: the top group's size and the day's members.
        assert groups and groups[0].size == max(len(r) for r in rows.values())
        days = {parse_posting(v)[0] for r in rows.values() for v in r.values()}
    assert days <= set(DAYS)
    table = doc.table_with("canonical page")
    assert len(table) - 1 == len(groups)  # member rows live in nested tables
    assert any(g.group == "evil-1" and g.size == 4 for g in groups)
    for g in groups:
        if g.url.startswith("http"):
            assert g.url in hrefs, g
    for doc_id, url in urls.items():
        if url.startswith("http"):
            assert url in hrefs, doc_id
    text = " ".join(doc.text)
    assert f"the largest has {groups[0].size:,} members" in text


def test_mirrors_quarantine_bloom_and_stages(home: Path, page: dict[str, Any]) -> None:
    doc, report = page["doc"], page["report"]
    with open_store(store_url(home)) as store:
        pairs = mirrors(store, DAY, 2)
    table = doc.table_with("same path")
    assert [r[:3] for r in table[1:]] == [[m.host_a, m.host_b, str(m.pairs)] for m in pairs]

    q = {r[0]: r for r in doc.table_with("records")[1:]}
    assert report["quarantined"]["bad_json"] >= 2  # the sample's one and ours
    assert {k: int(v[1]) for k, v in q.items()} == report["quarantined"]
    for row in q.values():
        assert "part-" in row[2]  # an example: file:line, detail, record
    assert "evil-3" in q["bad_json"][2]

    b = report["bloom"]
    text = " ".join(doc.text)
    assert f"{b['probes']:,} probes, {b['hits']:,} hits" in text
    filters = {r[0]: r for r in doc.table_with("FP at capacity")[1:]}
    assert {k: int(v[1].replace(",", "")) for k, v in filters.items()} == {
        k: f["keys"] for k, f in b["filters"].items()
    }
    for stage, secs in report["seconds"].items():
        assert f"{stage}: {round(secs, 1):g} s" in doc.svg_titles


def test_crawled_text_is_escaped(page: dict[str, Any]) -> None:
    html, doc = page["html"], page["doc"]
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html
    # The title shows as text, in a link to its (http) page; the javascript: URL is no link.
    assert (EVIL_URL, EVIL_TITLE) in doc.links
    assert not [h for h, _ in doc.links if h.lower().startswith("javascript")]
    assert JS_URL in " ".join(doc.text)


def test_the_page_references_nothing_outside_itself(page: dict[str, Any]) -> None:
    html, doc = page["html"], page["doc"]
    for tag, attrs in doc.tags:
        assert tag not in ("script", "link", "img", "iframe", "object", "embed", "base"), tag
        assert "src" not in attrs and "srcset" not in attrs, (tag, attrs)
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)  # no handlers
        href = attrs.get("href")
        if href is not None:
            assert tag == "a" and (href.startswith("#") or re.match(r"https?://", href)), href
    assert not re.search(r"url\(|@import", html)
    csp = [a for t, a in doc.tags if t == "meta" and a.get("http-equiv")]
    assert csp and "default-src 'none'" in (csp[0].get("content") or "")
    assert len([t for t, _ in doc.tags if t == "svg"]) >= 5  # the charts are inline


def test_a_day_without_report_fails_in_one_line(home: Path) -> None:
    proc = cli_env({}, "report", "--date", "2026-10-01", "--html", home=home)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"crawldedup: no report for 2026-10-01 in {store_url(home.resolve())}"
    ]
    assert proc.stdout == ""
    assert not (home / "reports" / "dt=2026-10-01").exists()


class OnlyTheInterface(Store):
    """A Store that forwards the abstract calls only: gathering must need nothing else
    (no SQL), so it reads HBase the same way."""

    def __init__(self, inner: Store) -> None:
        self.inner, self.stats = inner, inner.stats
        self.calls: Counter[str] = Counter()

    def put(self, table: str, rows: Any) -> None:
        raise AssertionError("the report must not write")

    def get(self, table: str, rows: Any, columns: Any = None) -> Any:
        self.calls[f"get {table}"] += 1
        return self.inner.get(table, rows, columns)

    def scan(self, table: str, *a: Any, **kw: Any) -> Iterator[Any]:
        self.calls[f"scan {table}"] += 1
        return self.inner.scan(table, *a, **kw)

    def delete(self, table: str, rows: Any, columns: Any = None) -> None:
        raise AssertionError("the report must not delete")

    def check_and_put(self, *args: Any) -> bool:
        raise AssertionError("the report must not write")

    def close(self) -> None:
        self.inner.close()


def test_gathers_through_the_store_interface_only(home: Path, page: dict[str, Any]) -> None:
    quarantine = home / "quarantine" / f"dt={DAY}"
    with OnlyTheInterface(open_store(store_url(home))) as store:
        data = gather(store, DAY, quarantine)
        calls = store.calls  # type: ignore[attr-defined]
    html = render(data, str(quarantine))
    strip = re.compile(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    assert strip.sub("", html) == strip.sub("", page["html"])
    assert set(calls) <= {"get days", "scan days", "scan verdicts", "get groups", "get docs"}


@pytest.mark.exhaustive
def test_a_person_sees_the_page_in_a_browser_without_any_request(
    page: dict[str, Any], tmp_path: Path
) -> None:
    """Chromium opens the file with every request blocked: none is attempted, nothing
    fails in the console, the charts and the top groups are drawn, a screenshot is taken."""
    requests: list[str] = []
    errors: list[str] = []
    with chromium() as browser:
        tab = browser.new_page(viewport={"width": 1200, "height": 900})
        tab.route(
            "**/*",
            lambda r: (
                (requests.append(r.request.url), r.abort())
                if not r.request.url.startswith("file:")
                else r.continue_()
            ),
        )
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(page["path"].as_uri())
        assert tab.title().startswith("crawldedup")
        assert tab.locator("svg").count() >= 3
        assert tab.locator("svg").first.bounding_box()["width"] > 100
        assert tab.get_by_text("转载").first.is_visible()  # a top group, its title escaped
        tab.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert requests == [] and errors == []
    assert (tmp_path / "report.png").stat().st_size > 10_000
