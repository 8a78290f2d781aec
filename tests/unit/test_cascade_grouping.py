from hypothesis import given
from hypothesis import strategies as st

from crawldedup.core.cascade import UNIQUE, Candidate, decide
from crawldedup.core.grouping import UnionFind, groups


def c(doc: str, t: str, rule: str, sim: float) -> Candidate:
    return Candidate(doc, t, rule, sim)


def test_content_match_wins_and_points_at_earliest_exact_copy() -> None:
    d = decide(
        [
            c("x", "2026-01-02", "content_md5", 1.0),
            c("w", "2026-01-01", "content_md5", 1.0),
            c("v", "2026-01-01", "head", 0.99),
        ],
        0.9,
    )
    assert (d.verdict, d.rule, d.duplicate_of, d.similarity) == (
        "duplicate",
        "content_md5",
        "w",
        1.0,
    )


def test_threshold_is_strictly_greater() -> None:
    assert decide([c("a", "t", "head", 0.9)], 0.9) == UNIQUE
    assert decide([c("a", "t", "head", 0.9001)], 0.9).verdict == "duplicate"


def test_rule_is_the_first_in_cascade_order_for_the_chosen_candidate() -> None:
    d = decide([c("a", "t1", "title", 0.95), c("a", "t1", "tail", 0.95)], 0.9)
    assert d.rule == "tail"


def test_earliest_matching_candidate_is_chosen() -> None:
    d = decide([c("late", "t2", "head", 0.99), c("early", "t1", "title", 0.92)], 0.9)
    assert d.duplicate_of == "early" and d.rule == "title"


def test_disabled_rules_are_ignored() -> None:
    assert decide([c("a", "t", "title", 0.99)], 0.9, rules=("content_md5", "head")) == UNIQUE


def test_no_candidates_is_unique() -> None:
    assert decide([], 0.9) == UNIQUE


def test_groups_canonical_is_earliest_then_smallest_id() -> None:
    order = {"b": ("t1", "b"), "a": ("t1", "a"), "c": ("t0", "c"), "d": ("t2", "d")}
    g = groups(["a", "b", "c", "d"], [("b", "a"), ("d", "b")], order)
    assert g == {"a": "a", "b": "a", "c": "c", "d": "a"}
    g2 = groups(["a", "b", "c", "d"], [("b", "a"), ("d", "b"), ("a", "c")], order)
    assert set(g2.values()) == {"c"}


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=60), st.randoms())
def test_groups_do_not_depend_on_edge_order(edges: list[tuple[int, int]], rnd) -> None:  # type: ignore[no-untyped-def]
    ids = [f"d{i:02d}" for i in range(31)]
    order = {i: (f"t{(n * 7) % 5}", i) for n, i in enumerate(ids)}
    e = [(ids[a], ids[b]) for a, b in edges]
    shuffled = list(e)
    rnd.shuffle(shuffled)
    g1, g2 = groups(ids, e, order), groups(ids, shuffled, order)
    assert g1 == g2
    for member, canon in g1.items():
        assert order[canon] <= order[member]  # the canonical is the earliest of its group


def test_union_find_unknown_ids_sort_last() -> None:
    uf = UnionFind({"a": ("t9", "a")})
    assert uf.union("zz", "a") == "a"


def test_duplicate_types() -> None:
    from crawldedup.core.duplicate_types import containment, duplicate_type

    a = {"我": 4, "们": 4, "好": 2}
    longer = {"我": 4, "们": 4, "好": 2, "新": 3, "增": 3}
    kw = {"partial_containment": 0.9}
    assert duplicate_type(raw_equal=True, content_equal=True, tf_a=a, tf_b=a, **kw) == "full"
    assert duplicate_type(raw_equal=False, content_equal=True, tf_a=a, tf_b=a, **kw) == "content"
    assert containment(a, longer) == 1.0
    assert duplicate_type(raw_equal=False, content_equal=False, tf_a=a, tf_b=longer, **kw) == (
        "partial"
    )
    edited = {"我": 4, "们": 3, "好": 2, "坏": 1}
    assert duplicate_type(raw_equal=False, content_equal=False, tf_a=a, tf_b=edited, **kw) == (
        "near"
    )
    assert containment({}, a) == 0.0


def test_simhash_candidates_need_the_hamming_bound() -> None:
    far = c("a", "t", "simhash", 0.99)
    assert decide([far], 0.9) == UNIQUE  # no distance known: not a SimHash match
    assert decide([Candidate("a", "t", "simhash", 0.99, 5, 0.9)], 0.9, max_hamming=3) == UNIQUE
    # Close fingerprints and a high cosine, but few shared shingles: not a copy.
    assert decide([Candidate("a", "t", "simhash", 0.99, 3, 0.2)], 0.9, max_hamming=3) == UNIQUE
    d = decide([Candidate("a", "t", "simhash", 0.99, 3, 0.9)], 0.9, max_hamming=3)
    assert (d.verdict, d.rule) == ("duplicate", "simhash")
