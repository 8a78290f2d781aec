"""The real-text corpus's parsers for the sources added for builds at scale
(benchmarks/realtext/corpus.py) on hand-written inputs: no download needed.

The module is loaded from its file: it is benchmark code, not an installed package.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmark_modules import load_benchmark_module

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


c = load_benchmark_module("benchmarks/realtext/corpus.py", "realtext_corpus_under_test")


def test_pod_formatting_codes_become_text() -> None:
    assert c.pod_inline("Use C<print> and B<I<bold italic>> text.") == (
        "Use print and bold italic text."
    )
    assert c.pod_inline("See L<perlfunc/open> or L<the docs|perldoc>.") == (
        "See perlfunc/open or the docs."
    )
    assert c.pod_inline("C<< $a <=> $b >> and E<lt>tagE<gt>X<index>") == "$a <=> $b and <tag>"


def test_pod_sections_drop_code_and_formatter_blocks() -> None:
    pod = "\n".join(
        [
            "=head1 NAME",
            "",
            "perlfoo - a page",
            "",
            "=head1 DESCRIPTION",
            "",
            "First paragraph,",
            "wrapped.",
            "",
            "    my $code = 1;  # verbatim: dropped",
            "",
            "=over 4",
            "",
            "=item * An item",
            "",
            "=back",
            "",
            "=begin html",
            "",
            "<p>dropped</p>",
            "",
            "=end html",
            "",
            "=head2 Details",
            "",
            "More text.",
            "",
            "=cut",
        ]
    )
    units = c.parse_pod(pod)
    assert units == [
        (1, "NAME", ["perlfoo - a page"]),
        (1, "DESCRIPTION", ["First paragraph, wrapped.", "An item"]),
        (2, "Details", ["More text."]),
    ]


def test_perl_pods_one_document_per_head1(tmp_path: Path) -> None:
    pod_dir = tmp_path / "usr/share/perl/5.36.0/pod"
    pod_dir.mkdir(parents=True)
    (pod_dir / "perlfoo.pod").write_text(
        "=head1 NAME\n\nperlfoo - x\n\n=head1 DESCRIPTION\n\nSome text here.\n\n"
        "=head2 Sub\n\nMore.\n\n=head1 SEE ALSO\n\nperlbar\n",
        encoding="utf-8",
    )
    src = c.Source("deb", "perl-doc", "1")
    docs = c.perl_pods(tmp_path, src)
    assert [(d.title, d.paragraphs) for d in docs] == [
        ("perlfoo: DESCRIPTION", ["Some text here.", "Sub", "More."]),
        ("perlfoo: SEE ALSO", ["perlbar"]),
    ]
    assert all(d.lang == "en" and d.genre == "perldoc" for d in docs)


def test_page_docs_title_language_and_dropped_parts(tmp_path: Path) -> None:
    page = (
        "<html><body><h1>关闭自动识别</h1><p>当您输入文字时，程序会自动识别网址。</p>"
        "<h2>撤消</h2><p>按组合键可以撤消该格式。</p><p>相关主题</p>"
        "<h3>Help content debug info:</h3><p>This page is: x.xhp</p></body></html>"
    )
    (tmp_path / "a.html").write_text(page, encoding="utf-8")
    (tmp_path / "b.html").write_text(
        "<html><body><h1>Untranslated</h1><p>Only English here.</p></body></html>",
        encoding="utf-8",
    )
    src = c.Source("deb", "help", "1")
    docs = c.page_docs(
        sorted(tmp_path.glob("*.html")),
        tmp_path,
        src,
        "zh",
        "help",
        ("Help content debug info:",),
        frozenset({"相关主题"}),
    )
    assert len(docs) == 1
    assert docs[0].title == "关闭自动识别"
    assert docs[0].paragraphs == [
        "当您输入文字时，程序会自动识别网址。",
        "撤消",
        "按组合键可以撤消该格式。",
    ]


def test_poetry_documents(tmp_path: Path) -> None:
    ci = tmp_path / "package/dist/songci"
    ci.mkdir(parents=True)
    entries = [{"author": "苏轼", "rhythmic": "浣溪沙", "paragraphs": ["山下兰芽短浸溪。", ""]}]
    (ci / "ci.song.0.json").write_text(json.dumps(entries, ensure_ascii=False), "utf-8")
    docs = c.parse_poetry(tmp_path, c.Source("npm", "chinese-poetry", "2.0.1"))
    assert [(d.title, d.paragraphs, d.genre, d.lang) for d in docs] == [
        ("浣溪沙", ["作者：苏轼", "山下兰芽短浸溪。"], "verse", "zh")
    ]
    assert docs[0].source == "chinese-poetry@2.0.1"


def test_subset_keeps_order_and_whole_families() -> None:
    a, b = c.CORE_SOURCES[0], c.POETRY_ZH
    docs = [
        c.BaseDoc("k1", a.label, "zh", "verse", "t", ["一二三四五"]),
        c.BaseDoc("k2", b.label, "zh", "verse", "t", ["六七八九十"]),
        c.BaseDoc("k3", a.label, "zh", "verse", "t", ["甲乙丙丁戊"]),
    ]
    corpus = c.Corpus(docs, [[docs[0], docs[2]], [docs[1], docs[0]]], {a.label: "x", b.label: "y"})
    core = corpus.subset(c.CORE_SOURCES)
    assert [d.key for d in core.docs] == ["k1", "k3"]
    assert [[d.key for d in f] for f in core.editions] == [["k1", "k3"]]
    assert core.sources == {a.label: "x"}
    assert c.SOURCES[: len(c.CORE_SOURCES)] == c.CORE_SOURCES
