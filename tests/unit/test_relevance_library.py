"""The semantic library loader: good files load, bad ones name file and line."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from crawldedup.config import ConfigError
from crawldedup.relevance.library import LibraryError, load_library, parse_library

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
topics:
  football:
    threshold: 0.2
    keywords: [足球, {word: 球队, weight: 2}]
    synonyms:
      - {pattern: "足球|football", weight: 1.5}
      - pattern: "英超|中超"
    antonyms:
      - {pattern: "彩票|投注", weight: 2}
  php-framework:
    synonyms:
      - {pattern: "laravel", weight: 1}
"""


def test_good_library_loads_with_weights_kinds_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "lib.yaml"
    path.write_text(GOOD, encoding="utf-8")
    lib = load_library(path)
    assert list(lib.topics) == ["football", "php-framework"]
    fb = lib.topic("football")
    assert fb.threshold == 0.2
    assert fb.keywords == (("足球", 1.0), ("球队", 2.0))
    assert [(a.pattern, a.weight, a.kind) for a in fb.atoms] == [
        ("足球|football", 1.5, "synonym"),
        ("英超|中超", 1.0, "synonym"),  # weight defaults to 1
        ("彩票|投注", 2.0, "antonym"),
    ]
    assert [a.signed_weight for a in fb.atoms] == [1.5, 1.0, -2.0]
    # Patterns are case-insensitive and atom keys are stable md5 prefixes.
    assert fb.synonyms[0].regex.search("FOOTBALL news")
    assert fb.synonyms[0].key == hashlib.md5("足球|football".encode()).hexdigest()[:16]
    assert len({a.key for a in fb.atoms}) == 3
    php = lib.topic("php-framework")
    assert php.threshold == 0.1 and php.keywords == () and php.antonyms == ()
    with pytest.raises(LibraryError, match="no topic 'golf'"):
        lib.topic("golf")


def test_the_example_library_loads() -> None:
    lib = load_library(ROOT / "config" / "topics.example.yaml")
    assert set(lib.topics) == {"football", "php_framework", "new_energy_vehicle"}
    assert all(t.synonyms and t.antonyms and t.keywords for t in lib.topics.values())


BAD = [
    # (file text, line, reason fragment)
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: '(ab', weight: 1}\n",
        4,
        "invalid regular expression '(ab'",
    ),
    ("topics:\n  a:\n    synonyms:\n      - {pattern: x, weight: 0}\n", 4, "weight must be > 0"),
    ("topics:\n  a:\n    synonyms:\n      - {pattern: x, weight: -2}\n", 4, "weight must be > 0"),
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: x, weight: heavy}\n",
        4,
        "weight must be a number",
    ),
    ("topics:\n  a:\n    synonyms:\n      - {pattern: x, weight: .nan}\n", 4, "must be finite"),
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: x, weight: true}\n",
        4,
        "weight must be a number",
    ),
    ("topics:\n  a:\n    synonyms:\n      - {pattern: 'x?'}\n", 4, "matches the empty string"),
    ("topics:\n  a:\n    synonyms:\n      - {weight: 1}\n", 4, "no pattern"),
    ("topics:\n  a:\n    synonyms:\n      - {pattern: ''}\n", 4, "non-empty string"),
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: x, colour: red}\n",
        4,
        "unknown key 'colour'",
    ),
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: x}\n      - {pattern: y}\n"
        "      - {pattern: x}\n",
        6,
        "'x' is already a synonym",
    ),
    (
        "topics:\n  a:\n    synonyms:\n      - {pattern: x}\n    antonyms:\n      - {pattern: x}\n",
        6,
        "'x' is already a synonym",
    ),
    ("topics:\n  a:\n    antonyms:\n      - {pattern: x}\n", 3, "needs at least one synonym"),
    ("topics:\n  a b:\n    synonyms: [{pattern: x}]\n", 2, "topic name 'a b'"),
    ("topics:\n  a:\n    synonyms: {pattern: x}\n", 3, "synonyms must be a list"),
    (
        "topics:\n  a:\n    threshold: 1.5\n    synonyms: [{pattern: x}]\n",
        3,
        "threshold must be in [0, 1]",
    ),
    ("topics:\n  a:\n    keywords: [x, x]\n", 3, "keyword 'x' given twice"),
    ("topics:\n  a:\n    synonyms: [{pattern: x}]\n    colour: red\n", 4, "unknown key 'colour'"),
    ("topix:\n  a: {}\n", 1, "unknown key 'topix'"),
    ("topics: {}\n", 1, "no topics"),
    ("topics:\n  a:\n    synonyms: [{pattern: x}\n", 4, "not valid YAML"),
    ("", 1, "empty library"),
]


@pytest.mark.parametrize(("text", "line", "reason"), BAD)
def test_bad_library_is_rejected_with_file_line_and_reason(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LibraryError) as err:
        load_library(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert reason in message, message


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="library file not found"):
        load_library(tmp_path / "nope.yaml")


def test_parse_names_the_given_path() -> None:
    with pytest.raises(LibraryError, match=r"^topics\.yaml:1: "):
        parse_library("- a list\n", "topics.yaml")
