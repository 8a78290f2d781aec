"""The cascade's rules, named in one place.

Each of the four keys has three names (docs/algorithm.md#one-key-several-names): a letter
(A title, B content, C head, D tail), the part of the document it hashes, and the index
table holding its postings (``title_id``, ``content_id``, ``start_id``, ``end_id``). The
SimHash rule (docs/algorithm.md#simhash) has no letter; its keys are the blocks of the
64-bit hash (table ``simhash_id``).
:class:`Rule` carries all of these per rule, and its members are declared in cascade
order. Its values are the rule strings of verdicts and configs, so a member compares,
hashes and serializes (JSON, f-strings) as that string.

Pure: no pyspark, happybase or airflow. Rows sent to Spark hold ``rule.value``, a
plain ``str`` (the JVM cannot unpickle an enum).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True)
class RuleSpec:
    letter: str | None  # key letter (docs/algorithm.md#one-key-several-names); None: SimHash
    table: str  # the index table of the rule's keys
    column: str  # the key's column in work/docs and attribute of core.fingerprint.Fingerprint


class Rule(StrEnum):
    """A cascade rule. Members in cascade order: B → C → D → A, then SimHash, then the
    MinHash LSH bands (docs/algorithm.md#lsh), then the paragraphs
    (docs/algorithm.md#excerpts)."""

    CONTENT_MD5 = "content_md5"
    HEAD = "head"
    TAIL = "tail"
    TITLE = "title"
    SIMHASH = "simhash"
    LSH = "lsh"
    PARAGRAPH = "paragraph"

    @property
    def letter(self) -> str | None:
        return _SPECS[self].letter

    @property
    def table(self) -> str:
        return _SPECS[self].table

    @property
    def column(self) -> str:
        return _SPECS[self].column

    @property
    def order(self) -> int:
        """Position in the cascade, 0 for the first rule."""
        return CASCADE.index(self)

    @property
    def exact(self) -> bool:
        """Decided by key equality alone (same normalized content), no cosine."""
        return self is Rule.CONTENT_MD5

    @property
    def multi_key(self) -> bool:
        """A document has a list of keys (SimHash blocks, LSH bands, paragraphs), not one
        key."""
        return self in (Rule.SIMHASH, Rule.LSH, Rule.PARAGRAPH)


_SPECS: dict[Rule, RuleSpec] = {
    Rule.CONTENT_MD5: RuleSpec("B", "content_id", "content_key"),
    Rule.HEAD: RuleSpec("C", "start_id", "head_key"),
    Rule.TAIL: RuleSpec("D", "end_id", "tail_key"),
    Rule.TITLE: RuleSpec("A", "title_id", "title_key"),
    Rule.SIMHASH: RuleSpec(None, "simhash_id", "simhash_keys"),
    Rule.LSH: RuleSpec(None, "lsh_id", "lsh_keys"),
    Rule.PARAGRAPH: RuleSpec(None, "para_id", "paragraph_keys"),
}

CASCADE: tuple[Rule, ...] = tuple(Rule)
"""Every rule, in cascade order."""

RULES: tuple[str, ...] = tuple(r.value for r in CASCADE)
"""The rule names in cascade order, as plain strings (what a config may name)."""

DEFAULT_RULES: tuple[str, ...] = tuple(r for r in RULES if r != Rule.PARAGRAPH)
"""The rules on by default: all but ``paragraph`` (the excerpt keys), which costs about
9 % more CPU per page (4.05 to 4.40 ms on the 49.5k real-text crawl) for a small gain in
F1 on the real-text sets (docs/algorithm.md#excerpts): a config turns it on by naming it."""

INDEX_TABLES: dict[str, str] = {r.value: r.table for r in CASCADE}
"""Which index table serves which rule, by rule name."""


def enabled(names: Iterable[str]) -> list[Rule]:
    """The rules among ``names`` (e.g. ``cascade.rules``), in their given order."""
    return [Rule(n) for n in names if n in RULES]
