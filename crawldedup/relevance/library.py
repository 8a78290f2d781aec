"""The semantic library: per topic, weighted regular expressions (docs/relevance.md).

A library file (YAML) describes one or more topics::

    topics:
      football:                     # name: letters, digits, "_" and "-"
        threshold: 0.12             # optional: keep pages scoring at least this
        keywords: [足球, 球队]       # optional: plain words, tokenized with jieba
        synonyms:                   # the synonym set (同义集合): raises relevance
          - {pattern: "足球|football", weight: 1.0}
        antonyms:                   # the antonym set (反义集合): lowers relevance
          - {pattern: "足球(彩票|玩具)", weight: 1.0}

Each expression is one *semantic atom* (§3.1: "用一个正则表达式描述一条语义模型"):
it is unique in its topic's library (§3.1.2, first aspect: no repeated atoms, neither
within a set nor across the synonym and antonym sets), carries its own weight f(k)
(§3.1.2, second aspect) and is evaluated once per document (§3.1.2, third aspect).

Everything is checked at load; the first problem raises :class:`LibraryError` naming the
file, the line and the reason.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from crawldedup.config import ConfigError

TOPIC_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOPIC_KEYS = {"threshold", "keywords", "synonyms", "antonyms"}
_ATOM_KEYS = {"pattern", "weight"}
_KEYWORD_KEYS = {"word", "weight"}


class LibraryError(ConfigError):
    """An invalid library file: ``path:line: reason`` (bad configuration: exit 2)."""


@dataclass(frozen=True)
class Atom:
    """One semantic atom: a compiled regular expression with its weight f(k)."""

    pattern: str
    weight: float
    kind: str  # "synonym" or "antonym"
    regex: re.Pattern[str]

    @property
    def key(self) -> str:
        """A stable id of the atom (md5 of its pattern), used in store row keys."""
        digest = hashlib.md5(self.pattern.encode("utf-8"), usedforsecurity=False).hexdigest()
        return digest[:16]

    @property
    def signed_weight(self) -> float:
        """+f(k) for a synonym, -f(k) for an antonym: its component in the topic vector."""
        return self.weight if self.kind == "synonym" else -self.weight


@dataclass(frozen=True)
class Topic:
    name: str
    threshold: float
    keywords: tuple[tuple[str, float], ...]  # (keyword, weight) as written
    synonyms: tuple[Atom, ...]
    antonyms: tuple[Atom, ...]

    @property
    def atoms(self) -> tuple[Atom, ...]:
        return self.synonyms + self.antonyms


@dataclass(frozen=True)
class Library:
    path: str
    topics: dict[str, Topic]

    def topic(self, name: str) -> Topic:
        try:
            return self.topics[name]
        except KeyError:
            raise LibraryError(
                f"{self.path}: no topic {name!r}; topics: {sorted(self.topics)}"
            ) from None


DEFAULT_THRESHOLD = 0.1


class _Reader:
    """Walks the composed YAML nodes, so every error can name its line."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.loader = yaml.SafeLoader(text)

    def fail(self, node: yaml.Node | None, reason: str) -> LibraryError:
        line = node.start_mark.line + 1 if node is not None else 1
        return LibraryError(f"{self.path}:{line}: {reason}")

    def value(self, node: yaml.Node) -> Any:
        return self.loader.construct_object(node, deep=True)

    def mapping(self, node: yaml.Node, what: str) -> list[tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping")
        seen: set[str] = set()
        for k, _ in node.value:
            key = self.value(k)
            if not isinstance(key, str):
                raise self.fail(k, f"{what}: keys must be strings, got {key!r}")
            if key in seen:
                raise self.fail(k, f"{what}: key {key!r} given twice")
            seen.add(key)
        return list(node.value)

    def number(self, node: yaml.Node, what: str) -> float:
        v = self.value(node)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(node, f"{what} must be a number, got {v!r}")
        if not math.isfinite(v):
            raise self.fail(node, f"{what} must be finite, got {v!r}")
        return float(v)


def _atoms(r: _Reader, node: yaml.Node, kind: str, topic: str) -> list[tuple[yaml.Node, Atom]]:
    what = f"topic {topic!r}: {kind}s"
    if not isinstance(node, yaml.SequenceNode):
        raise r.fail(node, f"{what} must be a list")
    out = []
    for item in node.value:
        pattern_node: yaml.Node | None = None
        weight = 1.0
        for k, v in r.mapping(item, f"{what} entry"):
            key = r.value(k)
            if key not in _ATOM_KEYS:
                raise r.fail(k, f"{what} entry: unknown key {key!r}; known: {sorted(_ATOM_KEYS)}")
            if key == "pattern":
                pattern_node = v
            else:
                weight = r.number(v, f"{what} entry: weight")
                if weight <= 0:
                    raise r.fail(v, f"{what} entry: weight must be > 0, got {weight:g}")
        if pattern_node is None:
            raise r.fail(item, f"{what} entry: no pattern")
        pattern = r.value(pattern_node)
        if not isinstance(pattern, str) or not pattern.strip():
            raise r.fail(pattern_node, f"{what} entry: pattern must be a non-empty string")
        try:
            regex = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise r.fail(pattern_node, f"invalid regular expression {pattern!r}: {exc}") from None
        # A pattern that matches the empty string matches everywhere: no semantics.
        if regex.fullmatch(""):
            raise r.fail(pattern_node, f"pattern {pattern!r} matches the empty string")
        out.append((pattern_node, Atom(pattern, weight, kind, regex)))
    return out


def _keywords(r: _Reader, node: yaml.Node, topic: str) -> tuple[tuple[str, float], ...]:
    what = f"topic {topic!r}: keywords"
    if not isinstance(node, yaml.SequenceNode):
        raise r.fail(node, f"{what} must be a list")
    out: list[tuple[str, float]] = []
    for item in node.value:
        if isinstance(item, yaml.ScalarNode):
            word, weight = r.value(item), 1.0
        else:
            word, weight = None, 1.0
            for k, v in r.mapping(item, f"{what} entry"):
                key = r.value(k)
                if key not in _KEYWORD_KEYS:
                    raise r.fail(k, f"{what} entry: unknown key {key!r}")
                if key == "word":
                    word = r.value(v)
                else:
                    weight = r.number(v, f"{what} entry: weight")
                    if weight <= 0:
                        raise r.fail(v, f"{what} entry: weight must be > 0, got {weight:g}")
        if not isinstance(word, str) or not word.strip():
            raise r.fail(item, f"{what}: a keyword must be a non-empty string")
        if any(word == w for w, _ in out):
            raise r.fail(item, f"{what}: keyword {word!r} given twice")
        out.append((word, weight))
    return tuple(out)


def _topic(r: _Reader, name_node: yaml.Node, node: yaml.Node) -> Topic:
    name = r.value(name_node)
    if not TOPIC_NAME.match(name):
        raise r.fail(name_node, f"topic name {name!r}: use 1-64 letters, digits, '_' or '-'")
    threshold = DEFAULT_THRESHOLD
    keywords: tuple[tuple[str, float], ...] = ()
    sets: dict[str, list[tuple[yaml.Node, Atom]]] = {"synonym": [], "antonym": []}
    for k, v in r.mapping(node, f"topic {name!r}"):
        key = r.value(k)
        if key not in _TOPIC_KEYS:
            raise r.fail(k, f"topic {name!r}: unknown key {key!r}; known: {sorted(_TOPIC_KEYS)}")
        if key == "threshold":
            threshold = r.number(v, f"topic {name!r}: threshold")
            if not 0.0 <= threshold <= 1.0:
                raise r.fail(v, f"topic {name!r}: threshold must be in [0, 1]")
        elif key == "keywords":
            keywords = _keywords(r, v, name)
        else:
            sets[key[:-1]] = _atoms(r, v, key[:-1], name)
    if not sets["synonym"] and not keywords:
        raise r.fail(node, f"topic {name!r}: needs at least one synonym or keyword")
    seen: dict[str, str] = {}
    for kind in ("synonym", "antonym"):
        for pnode, atom in sets[kind]:
            if atom.pattern in seen:
                raise r.fail(
                    pnode,
                    f"topic {name!r}: pattern {atom.pattern!r} is already a {seen[atom.pattern]}"
                    " (an atom is unique in the library)",
                )
            seen[atom.pattern] = kind
    return Topic(
        name=name,
        threshold=threshold,
        keywords=keywords,
        synonyms=tuple(a for _, a in sets["synonym"]),
        antonyms=tuple(a for _, a in sets["antonym"]),
    )


def parse_library(text: str, path: str = "<library>") -> Library:
    """Parse and validate library text; ``path`` only names the file in errors."""
    r = _Reader(path, text)
    try:
        root = r.loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise LibraryError(f"{path}:{line}: not valid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise LibraryError(f"{path}:1: not valid YAML: {exc}") from None
    finally:
        r.loader.dispose()
    if root is None:
        raise LibraryError(f"{path}:1: empty library")
    top = r.mapping(root, "the library")
    topics_node = None
    for k, v in top:
        if r.value(k) != "topics":
            raise r.fail(k, f"unknown key {r.value(k)!r}; the library holds 'topics'")
        topics_node = v
    if topics_node is None:
        raise r.fail(root, "no 'topics' mapping")
    entries = r.mapping(topics_node, "topics")
    if not entries:
        raise r.fail(topics_node, "no topics")
    topics = {t.name: t for t in (_topic(r, k, v) for k, v in entries)}
    return Library(path=path, topics=topics)


def load_library(path: str | Path) -> Library:
    """Load and validate a library file; :class:`LibraryError` on any problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LibraryError(f"{p}:0: library file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LibraryError(f"{p}:0: cannot read: {exc}") from None
    return parse_library(text, str(p))
