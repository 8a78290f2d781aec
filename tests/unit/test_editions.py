"""Editions from URLs: which pages are versions of one document."""

from __future__ import annotations

import pytest

from crawldedup.core.editions import are_editions, edition_of, is_version


@pytest.mark.parametrize(
    "segment",
    [
        "1.11",
        "4.2.x",
        "3.11.2",
        "v2",
        "V1.3",
        "django-4.2",
        "release_2.0",
        "3.x",
        "2024-05",
        "2024-05-17",
        "latest",
        "stable",
        "dev",
        "master",
        "nightly",
        "5.2.html",
    ],
)
def test_version_like_segments(segment: str) -> None:
    assert is_version(segment)


@pytest.mark.parametrize(
    "segment",
    [
        "2",
        "20261102",
        "2024",
        "000123.html",
        "ref",
        "models",
        "en",
        "v",
        "python3",
        "page-2",
        "1st",
        "index.html",
        "main",
    ],
)
def test_ordinary_segments(segment: str) -> None:
    assert not is_version(segment)


def test_versioned_docs_pages_are_editions_of_each_other() -> None:
    a = edition_of("https://docs.example.org/en/4.2/ref/models/querysets/")
    b = edition_of("https://docs.example.org/en/1.11/ref/models/querysets")
    latest = edition_of("http://www.docs.example.org/en/latest/ref/models/querysets/?utm_source=x")
    assert a == ("docs.example.org/en/{v}/ref/models/querysets", "4.2")
    assert are_editions(a, b) and are_editions(a, latest) and are_editions(b, latest)


def test_the_same_version_another_page_or_another_host_is_no_edition() -> None:
    a = edition_of("https://docs.example.org/en/4.2/ref/models/")
    assert not are_editions(a, edition_of("https://docs.example.org/en/4.2/ref/models/#top"))
    assert not are_editions(a, edition_of("https://docs.example.org/en/1.11/ref/forms/"))
    assert not are_editions(a, edition_of("https://mirror.example.net/en/1.11/ref/models/"))


def test_pages_without_a_version_have_no_edition_key() -> None:
    for url in (
        "https://news.example.com/a/20261102/000123.html",
        "not a url",
        "",
        "https://example.com:99999/1.2/x",
    ):
        assert edition_of(url) == ("", "")
    assert not are_editions(("", ""), ("", ""))
