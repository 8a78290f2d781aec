"""The rule enum: cascade order, key letters, index tables, and what follows from them.

Behaviour is asserted on the code (crawldedup.rules, crawldedup.config,
crawldedup.core.cascade, crawldedup.store). The check of docs/ compares the code's own
values with the reference page (every store table in docs/store.md), never sentences;
docs/configuration.md is generated (tests/unit/test_config_doc.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from crawldedup import config, rules
from crawldedup.core.cascade import Candidate, Policy, decide
from crawldedup.core.fingerprint import Fingerprints
from crawldedup.rules import CASCADE, INDEX_TABLES, RULES, Rule, enabled
from crawldedup.store import base

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_cascade_order_is_b_c_d_a_then_simhash_then_lsh_then_paragraph() -> None:
    assert RULES == ("content_md5", "head", "tail", "title", "simhash", "lsh", "paragraph")
    assert CASCADE == tuple(Rule) == tuple(Rule(r) for r in RULES)
    assert [r.order for r in CASCADE] == [0, 1, 2, 3, 4, 5, 6]
    assert [r.letter for r in CASCADE] == ["B", "C", "D", "A", None, None, None]


def test_each_key_has_its_letter_table_and_column() -> None:
    got = {r.value: (r.letter, r.table, r.column) for r in Rule}
    assert got == {
        "content_md5": ("B", "content_id", "content_key"),
        "head": ("C", "start_id", "head_key"),
        "tail": ("D", "end_id", "tail_key"),
        "title": ("A", "title_id", "title_key"),
        "simhash": (None, "simhash_id", "simhash_keys"),
        "lsh": (None, "lsh_id", "lsh_keys"),
        "paragraph": (None, "para_id", "paragraph_keys"),
    }
    assert [r for r in Rule if r.exact] == [Rule.CONTENT_MD5]
    assert [r for r in Rule if r.multi_key] == [Rule.SIMHASH, Rule.LSH, Rule.PARAGRAPH]


def test_columns_are_the_fingerprint_attributes() -> None:
    fields = Fingerprints.__dataclass_fields__
    assert all(r.column in fields for r in Rule)


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
        "paragraph": "para_id",
    }
    assert set(INDEX_TABLES.values()) <= set(base.TABLES)
    assert all(base.TABLES[t] == ("d",) for t in INDEX_TABLES.values())


def test_every_rule_but_paragraph_is_on_by_default() -> None:
    assert config.Config().cascade.rules == tuple(r for r in RULES if r != "paragraph")
    assert enabled(config.Config().cascade.rules) == list(CASCADE)[:-1]


def test_members_are_their_rule_strings() -> None:
    assert Rule.HEAD == "head" and f"{Rule.HEAD}" == "head"
    assert {"head": 1}[Rule.HEAD] == 1 and {Rule.HEAD: 1}["head"] == 1
    assert json.dumps({Rule.TITLE: [Rule.SIMHASH]}) == '{"title": ["simhash"]}'
    assert all(type(r) is str for r in RULES)  # plain strings for configs and DAG params


def test_enabled_keeps_config_order_and_drops_unknown_names() -> None:
    assert enabled(["head", "content_md5"]) == [Rule.HEAD, Rule.CONTENT_MD5]
    assert enabled(["nope", "simhash"]) == [Rule.SIMHASH]


def _found_under(names: list[str], doc_id: str, fetched_at: str) -> list[Candidate]:
    # One candidate found under several rules, with measures every profile verifies.
    return [
        Candidate(doc_id, fetched_at, r, 0.99, hamming=0, jaccard=0.95, containment=0.99)
        for r in names
    ]


def test_the_reported_rule_follows_the_cascade_order_of_the_enum() -> None:
    # Found under every non-exact rule, listed backwards: the decision names the first
    # rule of the default cascade, whatever order the candidates arrive in.
    non_exact = [r.value for r in reversed(CASCADE) if not r.exact]
    for profile in ("shingles", "seed"):
        d = decide(_found_under(non_exact, "a", "2026-11-01T00:00:00.000000Z"), Policy(profile))
        assert (d.verdict, d.rule, d.duplicate_of) == ("duplicate", "head", "a")
    # Without head, tail is next; without the md5 keys, simhash, then lsh.
    assert decide(_found_under(non_exact, "a", "x"), Policy(), RULES[2:]).rule == "tail"
    assert decide(_found_under(non_exact, "a", "x"), Policy(), RULES[4:]).rule == "simhash"
    assert decide(_found_under(non_exact, "a", "x"), Policy(), ("lsh",)).rule == "lsh"


def test_the_exact_rule_wins_over_an_earlier_verified_candidate() -> None:
    exact = Candidate("late", "2026-11-02T00:00:00.000000Z", Rule.CONTENT_MD5.value, 1.0)
    near = _found_under(["head"], "early", "2026-11-01T00:00:00.000000Z")
    d = decide([*near, exact], Policy())
    assert (d.rule, d.duplicate_of, d.measure) == ("content_md5", "late", "exact")
    assert d.similarity == 1.0
    # Without the exact rule the earlier verified candidate wins.
    assert decide([*near, exact], Policy(), RULES[1:]).duplicate_of == "early"


# --- the reference pages hold the code's values -------------------------------------------


def test_docs_store_lists_every_table_and_each_index_table_with_its_rule() -> None:
    text = (DOCS / "store.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|(.*)$", text, re.M)
    documented = {name for name, _ in rows}
    assert set(base.TABLES) <= documented, sorted(set(base.TABLES) - documented)
    for rule in Rule:
        cells = [rest for name, rest in rows if name == rule.table]
        assert cells and f"`{rule.value}`" in cells[0], rule
