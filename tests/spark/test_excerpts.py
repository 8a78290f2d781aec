"""Rule paragraph (docs/algorithm.md#excerpts), through the one runner on the embedded
store: a page quoting one paragraph of an earlier day's article, with its own intro and
credit lines, is that article's copy (measure ``excerpt``) when the rule is on, and unique
with the default rules; a paragraph many pages carry (a standard sentence) makes no
excerpt; a page quoting a paragraph inside a longer text of its own stays unique.

The article is the opening of the Python tutorial's "An Informal Introduction to
Python" chapter (written by people, as published; the other pages are ordinary prose).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from crawldedup.config import Config
from crawldedup.explain import explain
from crawldedup.pipeline.context import DayContext
from crawldedup.rules import RULES
from crawldedup.stage_registry import CANDIDATES, LOOKUPS
from crawldedup.store import open_store
from tests.spark.test_stages import rec, run_all, small_day_config, verdicts, write_day

ARTICLE = [
    "In the following examples, input and output are distinguished by the presence or "
    "absence of prompts: to repeat the example, you must type everything after the prompt, "
    "when the prompt appears; lines that do not begin with a prompt are output from the "
    "interpreter.",
    "Note that a secondary prompt on a line by itself in an example means you must type a "
    "blank line; this is used to end a multi-line command.",
    "Many of the examples in this manual, even those entered at the interactive prompt, "
    "include comments. Comments in Python start with the hash character and extend to the "
    "end of the physical line.",
    "A comment may appear at the start of a line or following whitespace or code, but not "
    "within a string literal. A hash character within a string literal is just a hash "
    "character.",
]
STANDARD = (
    "This function is part of the Open Document Format for Office Applications "
    "(OpenDocument) standard Version 1.2 (ISO/IEC 26300:2-2015)."
)
OWN = [
    "Returns the month for the given date value, as an integer between one and twelve.",
    "Returns the year as a number according to the internal calculation rules of dates.",
    "Returns the day of the month of a date value as a whole number from one to 31.",
    "Returns the hour of a time value as an integer between zero and twenty three.",
    "Returns the number of the minute for an internal time value, from zero to 59.",
    "Returns the second of a time value as an integer between zero and fifty nine.",
    "Returns the day of the week for the date value as an integer from one to seven.",
    "Returns the number of whole days between two dates, counting the first one out.",
    "Returns the serial number of the current date and time, updated on every recalculation.",
    "Converts a date written as text into an internal number that calculations can use.",
]


@pytest.fixture
def small() -> Config:
    return small_day_config()


def _day(spark: Any, root: Path, home: Path, cfg: Config, day: str, records: list[Any]) -> None:
    d = write_day(root, day, records)
    run_all(spark, DayContext(day=day, home=home, cfg=cfg, input_dir=d))


def test_an_excerpt_is_found_by_its_paragraphs_and_frequent_text_is_not(
    spark: Any, tmp_path: Path, small: Config
) -> None:
    on, cfg = small.replace(**{"cascade.rules": RULES}), small
    day1 = [
        rec("article", "\n".join(ARTICLE), "2026-11-01T01:00:00Z", "Informal introduction"),
        # Ten manual pages of one function each, all ending in the standard sentence.
        *(
            # (on ten hosts: one host's repeated line is its boilerplate, removed before)
            rec(
                f"fn{i}",
                f"{line}\n{STANDARD}",
                f"2026-11-01T02:{i:02d}:00Z",
                f"FN{i}",
                url=f"http://docs{i}.example/fn",
            )
            for i, line in enumerate(OWN)
        ),
    ]
    excerpt = "\n".join(["A passage worth quoting:", ARTICLE[2], "(via docs.python.org)"])
    quoted_in_essay = "\n".join(
        [
            "Comments, an essay in seven short lines.",
            ARTICLE[0],
            *(f"{line} So says the manual." for line in OWN[:6]),
        ]
    )
    day2 = [
        rec("excerpt", excerpt, "2026-11-02T01:00:00Z", "Comments in Python"),
        rec("essay", quoted_in_essay, "2026-11-02T02:00:00Z", "An essay"),
        # A new function page: its own line and the standard sentence.
        rec(
            "fn-new",
            f"QUARTER, a date function.\n{STANDARD}",
            "2026-11-02T03:00:00Z",
            "FN new",
        ),
    ]
    # Without the frequency bar, the standard sentence alone makes the new page an excerpt
    # (the length bar is off too: two function pages of about one length are no excerpt
    # of each other either).
    no_bar = on.replace(
        **{"cascade.excerpt_max_docs": 1000, "cascade.excerpt_max_length_share": 1.0}
    )
    for name, c in (("on", on), ("default", cfg), ("no_bar", no_bar)):
        root, home = tmp_path / name / "crawl", tmp_path / name / "home"
        _day(spark, root, home, c, "2026-11-01", day1)
        _day(spark, root, home, c, "2026-11-02", day2)
        got = verdicts(DayContext(day="2026-11-02", home=home, cfg=c))
        if name == "no_bar":
            assert got["fn-new"]["measure"] == "excerpt", got["fn-new"]
            continue
        if name == "on":
            assert got["excerpt"]["verdict"] == "duplicate", got["excerpt"]
            assert got["excerpt"]["duplicate_of"] == "article"
            assert (got["excerpt"]["rule"], got["excerpt"]["measure"]) == ("paragraph", "excerpt")
            # explain says what the verdict rested on: the one paragraph both hold, held by
            # these two documents only, and its share of the excerpt.
            with open_store(DayContext(day="2026-11-02", home=home, cfg=c).store) as store:
                said = explain(store, home, "2026-11-02", "excerpt", c)
            (para,) = [line for line in said if line.startswith("paragraphs ")]
            assert para.startswith("paragraphs 1 shared of 1 and 4 (")
            assert "documents holding each: 2)" in para and "an excerpt needs >= 60" in para
            # The standard sentence, held by ten earlier pages (more than excerpt_max_docs):
            # its lookup gives the count alone, and it finds fn-new no candidate.
            work = DayContext(day="2026-11-02", home=home, cfg=c)
            looked = [
                r
                for r in pq.read_table(work.path(LOOKUPS)).to_pylist()
                if (r["id"], r["rule"]) == ("fn-new", "paragraph")
            ]
            assert looked and all(r["cand_id"] is None and r["n_other"] >= 8 for r in looked)
            cands = pq.read_table(work.path(CANDIDATES)).to_pylist()
            assert not [r for r in cands if (r["id"], r["rule"]) == ("fn-new", "paragraph")]
        else:
            assert got["excerpt"]["verdict"] == "unique", got["excerpt"]
        # A quotation inside a longer text of its own, and the standard sentence that ten
        # earlier pages carry (frequent text): no excerpt.
        assert got["essay"]["verdict"] == "unique", (name, got["essay"])
        assert got["fn-new"]["verdict"] == "unique", (name, got["fn-new"])


def test_a_page_is_no_copy_of_an_earlier_excerpt_of_it(
    spark: Any, tmp_path: Path, small: Config
) -> None:
    """The excerpt comes first, the whole article a day later: the article holds far more
    than the excerpt, so it stays unique (its excerpt shares a paragraph with it, which
    makes the excerpt a copy of the article, never the article a copy of the excerpt).
    With the length bar off (``cascade.excerpt_max_length_share = 1``) the article is
    judged a copy of the earlier excerpt: the bar is what keeps it unique."""
    on = small.replace(**{"cascade.rules": RULES})
    no_bar = on.replace(**{"cascade.excerpt_max_length_share": 1.0})
    excerpt = "\n".join(["A passage worth quoting:", ARTICLE[2], "(via docs.python.org)"])
    day1 = [rec("excerpt", excerpt, "2026-11-01T01:00:00Z", "Comments in Python")]
    day2 = [rec("article", "\n".join(ARTICLE), "2026-11-02T01:00:00Z", "Informal introduction")]
    for name, c in (("on", on), ("no_bar", no_bar)):
        root, home = tmp_path / name / "crawl", tmp_path / name / "home"
        _day(spark, root, home, c, "2026-11-01", day1)
        _day(spark, root, home, c, "2026-11-02", day2)
        got = verdicts(DayContext(day="2026-11-02", home=home, cfg=c))["article"]
        if name == "on":
            assert got["verdict"] == "unique", got
        else:
            assert (got["verdict"], got["measure"], got["duplicate_of"]) == (
                "duplicate",
                "excerpt",
                "excerpt",
            ), got


def test_a_rerun_counts_only_earlier_days_holding_a_paragraph(
    spark: Any, tmp_path: Path, small: Config
) -> None:
    """The excerpt's frequency bar counts the documents of earlier days that hold a
    paragraph. Rerun after later days are published, the day sees what its first run saw:
    three later pages quoting the same paragraph do not make it frequent text for it (a
    rerun equals a fresh run)."""
    cfg = small.replace(**{"cascade.rules": RULES, "cascade.excerpt_max_docs": 2})
    root, home = tmp_path / "crawl", tmp_path / "home"
    excerpt = "\n".join(["A passage worth quoting:", ARTICLE[2], "(via docs.python.org)"])
    _day(
        spark,
        root,
        home,
        cfg,
        "2026-11-01",
        [rec("article", "\n".join(ARTICLE), "2026-11-01T01:00:00Z", "Informal introduction")],
    )
    _day(
        spark,
        root,
        home,
        cfg,
        "2026-11-02",
        [rec("excerpt", excerpt, "2026-11-02T01:00:00Z", "Comments in Python")],
    )
    first = verdicts(DayContext(day="2026-11-02", home=home, cfg=cfg))["excerpt"]
    assert (first["verdict"], first["measure"]) == ("duplicate", "excerpt"), first
    later = [
        rec(
            f"quote{i}",
            f"Quoted on a forum, post {i}.\n{ARTICLE[2]}",
            f"2026-11-03T0{i}:00:00Z",
            f"Quote {i}",
            url=f"http://forum{i}.example/t",
        )
        for i in range(3)
    ]
    _day(spark, root, home, cfg, "2026-11-03", later)
    ctx = DayContext(day="2026-11-02", home=home, cfg=cfg, input_dir=root / "dt=2026-11-02")
    run_all(spark, ctx)
    assert verdicts(DayContext(day="2026-11-02", home=home, cfg=cfg))["excerpt"] == first


def test_the_frequency_bar_counts_the_days_and_the_earlier_days_documents_together(
    spark: Any, tmp_path: Path, small: Config
) -> None:
    """Two forum posts quote a paragraph of the article on its day, two more the next day
    with the excerpt: six documents hold it, over the bar of 4, though neither day nor the
    index alone holds more than three. The paragraph is frequent text, so the excerpt
    (whose article the store holds) is no copy by it; with a bar of 6 it is."""
    excerpt = "\n".join(["A passage worth quoting:", ARTICLE[2], "(via docs.python.org)"])

    def posts(day: str, first: int) -> list[Any]:
        return [
            rec(
                f"post{i}",
                f"Quoted on a forum, post {i}, with a long comment of its own that says why "
                f"the quoted paragraph matters to a beginner reading it.\n{ARTICLE[2]}",
                f"{day}T0{i}:30:00Z",
                f"Post {i}",
                url=f"http://forum{i}.example/t",
            )
            for i in range(first, first + 2)
        ]

    day1 = [
        rec("article", "\n".join(ARTICLE), "2026-11-01T01:00:00Z", "Informal introduction"),
        *posts("2026-11-01", 1),
    ]
    day2 = [
        rec("excerpt", excerpt, "2026-11-02T01:00:00Z", "Comments in Python"),
        *posts("2026-11-02", 3),
    ]
    for bar, expected in ((4, ("unique", None)), (6, ("duplicate", "excerpt"))):
        cfg = small.replace(**{"cascade.rules": RULES, "cascade.excerpt_max_docs": bar})
        root, home = tmp_path / str(bar) / "crawl", tmp_path / str(bar) / "home"
        _day(spark, root, home, cfg, "2026-11-01", day1)
        _day(spark, root, home, cfg, "2026-11-02", day2)
        got = verdicts(DayContext(day="2026-11-02", home=home, cfg=cfg))["excerpt"]
        assert (got["verdict"], got["measure"]) == expected, (bar, got)
