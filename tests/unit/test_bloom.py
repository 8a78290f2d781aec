import math

from crawldedup.core.bloom import (
    BloomSizing,
    build_filter,
    from_bytes,
    measured_false_positive_rate,
    merge_filters,
    to_bytes,
)


def test_sizing_from_capacity_and_error_rate() -> None:
    s = BloomSizing(1_000_000, 0.001)
    assert s.num_bits == math.ceil(1_000_000 * math.log(1000) / math.log(2) ** 2)
    assert s.num_hashes == 10


def test_serialize_round_trip_and_no_false_negatives() -> None:
    keys = [f"k{i}" for i in range(5000)]
    bf = from_bytes(to_bytes(build_filter(keys, 10_000, 0.001)))
    assert all(k in bf for k in keys)


def test_merge_is_a_union() -> None:
    a = build_filter([f"a{i}" for i in range(1000)], 5000, 0.01)
    b = build_filter([f"b{i}" for i in range(1000)], 5000, 0.01)
    m = merge_filters([a, b])
    assert m is not None
    assert all(f"a{i}" in m and f"b{i}" in m for i in range(1000))
    assert merge_filters([]) is None


def test_measured_false_positive_rate_is_near_the_target() -> None:
    bf = build_filter((f"in{i}" for i in range(20_000)), 20_000, 0.01)
    rate = measured_false_positive_rate(bf, (f"out{i}" for i in range(50_000)))
    # At capacity the rate is about the target; 3× covers sampling noise.
    assert 0.0 < rate < 0.03


def test_vectorized_add_and_probe_equal_pybloom_key_by_key() -> None:
    from crawldedup.core.bloom import add_many, contains_many, new_filter

    keys = [f"{i:032x}" for i in range(3000)] + ["网页", "", "x" * 500]
    absent = [f"absent-{i}" for i in range(3000)]
    # Small, medium and large sizings use xxh128, sha1..sha512 and 16/32-bit slices.
    for capacity, error_rate in ((500, 0.3), (5000, 0.01), (40_000, 0.001), (5000, 1e-9)):
        one_by_one = new_filter(capacity, error_rate)
        for k in keys[:capacity]:
            one_by_one.add(k, skip_check=True)
        vectorized = new_filter(capacity, error_rate)
        add_many(vectorized, keys[:capacity], chunk=700)
        assert vectorized.bitarray == one_by_one.bitarray
        assert vectorized.count == one_by_one.count
        probe = keys[:capacity] + absent
        assert contains_many(vectorized, probe).tolist() == [k in one_by_one for k in probe]
    assert contains_many(new_filter(10, 0.1), []).tolist() == []


def test_ranges_of_a_column_of_keys_are_each_keys_range() -> None:
    import random

    import pyarrow as pa

    from crawldedup.pipeline.bloom_blocks import key_ranges, range_of, ranges_of

    rnd = random.Random(7)
    keys = [f"{rnd.getrandbits(64):016x}.{rnd.randrange(24)}" for _ in range(2000)]
    keys += ["", "0", "f", "ff", "fg", "g0", "zz.1", "00", "7f.3", "80"]
    for splits in (1, 3, 16, 256):
        lows = [lo for lo, _ in key_ranges(splits)]
        column = pa.chunked_array([keys[:700], keys[700:]])
        assert ranges_of(column, lows).to_pylist() == [range_of(k, lows) for k in keys]


def test_the_line_filter_is_on_for_hbase_only_unless_asked() -> None:
    from crawldedup.config import Config
    from crawldedup.pipeline.line_filter import block_of, is_on, line_row

    cfg = Config()
    assert is_on(cfg, "hbase://127.0.0.1:9090/x") and not is_on(cfg, "sqlite:///tmp/s.db")
    on, off = (cfg.replace(**{"bloom.line_filter": m}) for m in ("on", "off"))
    assert is_on(on, "sqlite:///tmp/s.db") and not is_on(off, "hbase://127.0.0.1:9090/x")
    # A host's rows share a block, whatever the line; a missing host is "None".
    assert {block_of(line_row("a.example", str(n)), 8) for n in range(50)} == {
        block_of("a.example|x", 8)
    }
    assert line_row(None, "k") == "None|k"
