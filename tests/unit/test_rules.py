"""The rule enum says what the README says: cascade order, key letters, index tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

from crawldedup import config, rules
from crawldedup.core.fingerprint import Fingerprints
from crawldedup.rules import CASCADE, INDEX_TABLES, RULES, Rule, enabled
from crawldedup.store import base

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_cascade_order_is_b_c_d_a_then_simhash_then_lsh() -> None:
    assert RULES == ("content_md5", "head", "tail", "title", "simhash", "lsh")
    assert CASCADE == tuple(Rule) == tuple(Rule(r) for r in RULES)
    assert [r.order for r in CASCADE] == [0, 1, 2, 3, 4, 5]
    assert [r.letter for r in CASCADE] == ["B", "C", "D", "A", None, None]


def test_each_key_has_its_letter_table_and_column() -> None:
    got = {r.value: (r.letter, r.table, r.column) for r in Rule}
    assert got == {
        "content_md5": ("B", "content_id", "content_key"),
        "head": ("C", "start_id", "head_key"),
        "tail": ("D", "end_id", "tail_key"),
        "title": ("A", "title_id", "title_key"),
        "simhash": (None, "simhash_id", "simhash_keys"),
        "lsh": (None, "lsh_id", "lsh_keys"),
    }
    assert [r for r in Rule if r.exact] == [Rule.CONTENT_MD5]
    assert [r for r in Rule if r.multi_key] == [Rule.SIMHASH, Rule.LSH]


def test_columns_are_the_fingerprint_attributes() -> None:
    fields = Fingerprints.__dataclass_fields__
    assert all(r.column in fields for r in Rule)


def test_readme_store_table_names_the_same_letters() -> None:
    # | `title_id` | md5 hex of the normalized title (A) | ...
    letters = dict(re.findall(r"^\| `(\w+_id)` \| [^|]*\(([ABCD])\) \|", README, re.M))
    assert letters == {r.table: r.letter for r in Rule if r.letter}
    assert "| `simhash_id` | one SimHash block" in README
    assert "| `lsh_id` | one MinHash LSH band" in README


def test_readme_default_rules_and_cascade_sentence() -> None:
    m = re.search(r"^rules = (\[.*?\])", README, re.M)
    assert m and tuple(json.loads(m.group(1))) == RULES
    assert "head (C), tail (D) and title (A) keys" in README
    assert "in the order head → tail → title → simhash → lsh" in README


def test_old_names_are_re_exports_of_the_enum() -> None:
    assert config.RULES is rules.RULES
    assert base.INDEX_TABLES is rules.INDEX_TABLES
    assert INDEX_TABLES == {
        "content_md5": "content_id",
        "head": "start_id",
        "tail": "end_id",
        "title": "title_id",
        "simhash": "simhash_id",
        "lsh": "lsh_id",
    }
    assert set(INDEX_TABLES.values()) <= set(base.TABLES)
    assert config.Config().cascade.rules == RULES


def test_members_are_their_rule_strings() -> None:
    assert Rule.HEAD == "head" and f"{Rule.HEAD}" == "head"
    assert {"head": 1}[Rule.HEAD] == 1 and {Rule.HEAD: 1}["head"] == 1
    assert json.dumps({Rule.TITLE: [Rule.SIMHASH]}) == '{"title": ["simhash"]}'
    assert all(type(r) is str for r in RULES)  # plain strings for configs and DAG params


def test_enabled_keeps_config_order_and_drops_unknown_names() -> None:
    assert enabled(["head", "content_md5"]) == [Rule.HEAD, Rule.CONTENT_MD5]
    assert enabled(["nope", "simhash"]) == [Rule.SIMHASH]
