from hypothesis import given
from hypothesis import strategies as st

from crawldedup.core.cascade import UNIQUE, Candidate, Policy, decide
from crawldedup.core.grouping import UnionFind, groups

# The seed profile: the character cosine strictly above the threshold decides.
SEED = Policy(profile="seed", threshold=0.9)


def c(doc: str, t: str, rule: str, sim: float) -> Candidate:
    return Candidate(doc, t, rule, sim)


def test_content_match_wins_and_points_at_earliest_exact_copy() -> None:
    d = decide(
        [
            c("x", "2026-01-02", "content_md5", 1.0),
            c("w", "2026-01-01", "content_md5", 1.0),
            c("v", "2026-01-01", "head", 0.99),
        ],
        SEED,
    )
    assert (d.verdict, d.rule, d.duplicate_of, d.similarity, d.measure) == (
        "duplicate",
        "content_md5",
        "w",
        1.0,
        "exact",
    )


def test_threshold_is_strictly_greater() -> None:
    assert decide([c("a", "t", "head", 0.9)], SEED) == UNIQUE
    assert decide([c("a", "t", "head", 0.9001)], SEED).verdict == "duplicate"


def test_rule_is_the_first_in_cascade_order_for_the_chosen_candidate() -> None:
    d = decide([c("a", "t1", "title", 0.95), c("a", "t1", "tail", 0.95)], SEED)
    assert d.rule == "tail"


def test_the_most_similar_verified_candidate_is_chosen_ties_earliest() -> None:
    d = decide([c("late", "t2", "head", 0.99), c("early", "t1", "title", 0.92)], SEED)
    assert d.duplicate_of == "late" and d.rule == "head"
    d = decide([c("late", "t2", "head", 0.95), c("early", "t1", "title", 0.95)], SEED)
    assert d.duplicate_of == "early" and d.rule == "title"


def _shingled(doc: str, t: str, jaccard: float, containment: float, editions: bool) -> Candidate:
    return Candidate(
        doc,
        t,
        "head",
        0.0,
        jaccard=jaccard,
        containment=containment,
        smaller_shingles=400.0,
        shorter_chars=2000,
        editions=editions,
    )


def test_a_copy_joins_the_edition_it_matches_best_not_the_older_one() -> None:
    # A repost of release 4.2's page (another host: no URL signal against either):
    # release 1.11's page is older and passes the ordinary bar, 4.2's is closer.
    d = decide(
        [_shingled("v1.11", "t1", 0.74, 0.8, False), _shingled("v4.2", "t2", 0.97, 0.98, False)],
        Policy(),
    )
    assert (d.duplicate_of, d.measure, d.similarity) == ("v4.2", "jaccard", 0.97)


def test_editions_are_held_to_the_stricter_bar_and_say_so() -> None:
    # Release 4.2's page against release 1.11's (one host, other versions): a Jaccard
    # of 0.75 groups ordinary pages but not editions.
    kept = decide([_shingled("v1.11", "t1", 0.75, 0.8, True)], Policy())
    assert (kept.verdict, kept.duplicate_of, kept.measure) == ("unique", None, "edition")
    # A release that adds a section contains the one before: still an edition.
    grown = decide([_shingled("v1.11", "t1", 0.95, 1.0, True)], Policy())
    assert (grown.verdict, grown.measure) == ("unique", "edition")
    same = decide([_shingled("v1.11", "t1", 1.0, 1.0, True)], Policy())
    assert (same.verdict, same.measure, same.similarity) == ("duplicate", "edition_jaccard", 1.0)
    laxer = decide([_shingled("v1.11", "t1", 0.93, 0.95, True)], Policy(edition_min_jaccard=0.9))
    assert (laxer.verdict, laxer.measure) == ("duplicate", "edition_jaccard")
    off = decide([_shingled("v1.11", "t1", 0.75, 0.8, True)], Policy(editions=False))
    assert (off.verdict, off.measure) == ("duplicate", "jaccard")
    # Below the ordinary bar too: nothing was kept apart, a plain unique.
    assert decide([_shingled("v1.11", "t1", 0.3, 0.4, True)], Policy()) == UNIQUE


def test_disabled_rules_are_ignored() -> None:
    assert decide([c("a", "t", "title", 0.99)], SEED, rules=("content_md5", "head")) == UNIQUE


def test_no_candidates_is_unique() -> None:
    assert decide([], SEED) == UNIQUE


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
    assert decide([far], SEED) == UNIQUE  # no distance known: not a SimHash match
    assert decide([Candidate("a", "t", "simhash", 0.99, 5, 0.9)], SEED) == UNIQUE
    # Close fingerprints and a high cosine, but few shared shingles: not a copy.
    assert decide([Candidate("a", "t", "simhash", 0.99, 3, 0.2)], SEED) == UNIQUE
    d = decide([Candidate("a", "t", "simhash", 0.99, 3, 0.9)], SEED)
    assert (d.verdict, d.rule) == ("duplicate", "simhash")


def m(doc: str, rule: str, jaccard: float, containment: float, smaller: float) -> Candidate:
    return Candidate(doc, "t", rule, 0.0, None, jaccard, containment, smaller)


def test_shingles_profile_decides_by_jaccard_then_containment() -> None:
    policy = Policy(min_jaccard=0.6, min_containment=0.85, short_shingles=40)  # long texts
    d = decide([m("a", "lsh", 0.62, 0.7, 500)], policy)
    assert (d.verdict, d.measure, d.similarity) == ("duplicate", "jaccard", 0.62)
    # An excerpt: little overlap of the whole, but all of it lies in the original.
    d = decide([m("a", "head", 0.35, 0.97, 400)], policy)
    assert (d.verdict, d.rule, d.measure, d.similarity) == (
        "duplicate",
        "head",
        "containment",
        0.97,
    )
    assert decide([m("a", "title", 0.3, 0.8, 400)], policy) == UNIQUE
    # The cosine plays no part in this profile.
    assert decide([Candidate("a", "t", "head", 0.999, None, 0.1, 0.2, 400)], policy) == UNIQUE


def test_short_texts_need_near_total_overlap() -> None:
    policy = Policy(
        min_jaccard=0.6,
        min_containment=0.85,
        short_shingles=300,
        short_min_jaccard=0.9,
        short_min_containment=0.95,
    )
    # A filled-in notice template: most of the short text is shared, not all of it.
    assert decide([m("a", "lsh", 0.77, 0.87, 120)], policy) == UNIQUE
    # A short poem with a source line added: all of the poem is in the copy.
    assert decide([m("a", "lsh", 0.5, 1.0, 18)], policy).measure == "containment"
    assert decide([m("a", "lsh", 0.92, 0.93, 120)], policy).measure == "jaccard"
    # The same overlap in a long article is a copy.
    assert decide([m("a", "lsh", 0.77, 0.87, 800)], policy).measure == "jaccard"


def test_few_word_shingles_of_a_long_text_are_not_a_short_text() -> None:
    policy = Policy(min_jaccard=0.7, short_shingles=150, short_chars=300, short_min_jaccard=0.9)

    def english(chars: int | None) -> Candidate:  # 120 word shingles, two words swapped
        return Candidate("a", "t", "lsh", 0.0, None, 0.84, 0.94, 120, chars)

    assert decide([english(650)], policy).measure == "jaccard"  # a 650-character brief
    assert decide([english(250)], policy) == UNIQUE  # a notice: the short bars
    assert decide([english(None)], policy) == UNIQUE  # length unknown: shingles decide


def test_policy_defaults_are_the_configs() -> None:
    from crawldedup.config import Config

    assert Policy() == Policy.from_config(Config())


def test_an_excerpt_is_the_shorter_page_and_a_part_of_the_earlier_one() -> None:
    policy = Policy(excerpt_min_share=0.8, excerpt_min_chars=60, excerpt_max_length_share=0.5)

    def para(doc_chars: int, cand_chars: int | None) -> Candidate:
        # 150 characters of shared paragraphs; shorter_chars is the shorter of the two
        shorter = min(doc_chars, cand_chars) if cand_chars is not None else doc_chars
        return Candidate(
            "a", "t", "paragraph", 0.0, None, 0.1, 0.3, 40, shorter, False, 150, cand_chars
        )

    # A 180-character quotation of a 2,000-character article: an excerpt.
    assert decide([para(180, 2000)], policy).measure == "excerpt"
    # The article judged against its earlier 180-character excerpt: no copy of it.
    assert decide([para(2000, 180)], policy) == UNIQUE
    # Two pages of about one length sharing most paragraphs (editions): not by paragraphs.
    assert decide([para(180, 200)], policy) == UNIQUE
    # The candidate's length unknown (a row stored before lengths were): shares decide.
    assert decide([para(180, None)], policy).measure == "excerpt"
    # The bar off: the old decision, whichever side is shorter.
    off = Policy(excerpt_min_share=0.8, excerpt_min_chars=60, excerpt_max_length_share=1.0)
    assert decide([para(2000, 180)], off).measure == "excerpt"


def test_an_excerpt_may_have_its_own_intro_and_credit_at_its_edges() -> None:
    policy = Policy(excerpt_min_share=0.8, excerpt_min_chars=60, excerpt_max_length_share=0.5)

    def quote(size: int, edges: int, shared: int = 200) -> Candidate:
        # a page of ``size`` (its edge lines ``edges``) quoting ``shared`` of a long article
        return Candidate(
            "a", "t", "paragraph", 0.0, None, 0.05, 0.3, 40, size, False, shared, 4000, size, edges
        )

    # An intro line and a credit line (80 of 280) around a 200-big quote: an excerpt,
    # its share taken without them.
    found = decide([quote(280, 80)], policy)
    assert found.measure == "excerpt" and found.similarity == 1.0
    # The same page without edge lines (one line of 80 inside): 200 of 280, no excerpt.
    assert decide([quote(280, 0)], policy) == UNIQUE
    # Edge lines bigger than the quote are the page's own text, not an intro and a credit.
    assert decide([quote(480, 260)], policy) == UNIQUE
    # A page of the quote and much more of its own between its edges: no excerpt.
    assert decide([quote(600, 40)], policy) == UNIQUE
    # Shared text bigger than the page without its edges: an edge line is a part of what
    # the two share, and the rest between is the page's own.
    assert decide([quote(160, 96, shared=100)], policy) == UNIQUE
    # The size bar holds whatever the edges: a quote of 50 is too small.
    assert decide([quote(70, 20, shared=50)], policy) == UNIQUE
