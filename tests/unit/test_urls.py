import pytest

from crawldedup.urls import normalize_url


@pytest.mark.parametrize(
    "a, b",
    [
        ("http://www.news.example/a/b/", "https://news.example/a/b"),
        ("https://news.example:443/a?utm_source=x&id=3#top", "http://news.example/a?id=3"),
        ("http://news.example/a?b=2&a=1&spm=9", "http://NEWS.example/a?a=1&b=2"),
        ("http://news.example", "http://news.example/"),
    ],
)
def test_same_page(a: str, b: str) -> None:
    assert normalize_url(a) == normalize_url(b)


def test_other_port_and_path_differ() -> None:
    assert normalize_url("http://news.example:8080/a")[0] == "news.example:8080"
    assert normalize_url("http://news.example/a") != normalize_url("http://news.example/b")
