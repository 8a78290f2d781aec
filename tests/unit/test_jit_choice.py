"""The driver JVM's JIT chosen from the day's input size (crawldedup.pipeline.jit)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from crawldedup.config import Config, ConfigError, SparkConfig
from crawldedup.pipeline.jit import (
    PACKED_FACTOR,
    QUICK_JIT_FLAGS,
    day_input_bytes,
    input_bytes,
    jit_java_options,
    quick_jit,
)

MB = 1024 * 1024


def test_auto_runs_c1_alone_up_to_the_limit_and_the_tiered_jit_above() -> None:
    spark = SparkConfig(quick_jit_max_mb=40)
    assert quick_jit(spark, 0) and quick_jit(spark, 40 * MB)
    assert not quick_jit(spark, 40 * MB + 1)
    assert jit_java_options(spark, 10 * MB) == QUICK_JIT_FLAGS
    assert jit_java_options(spark, 400 * MB) == ""


def test_an_unknown_size_keeps_the_tiered_jit_unless_quick_is_asked_for() -> None:
    assert not quick_jit(SparkConfig(), None)
    assert quick_jit(SparkConfig(jit="quick"), None)
    assert quick_jit(SparkConfig(jit="quick"), 10_000 * MB)
    assert not quick_jit(SparkConfig(jit="full"), 0)


def test_input_bytes_counts_the_data_files_and_weighs_packed_ones(tmp_path: Path) -> None:
    day = tmp_path / "dt=2026-11-01"
    day.mkdir()
    (day / "a.jsonl").write_bytes(b"x" * 1000)
    with gzip.open(day / "b.jsonl.gz", "wb") as f:
        f.write(b'{"id": "b"}\n' * 100)
    packed = (day / "b.jsonl.gz").stat().st_size
    (day / "_SUCCESS").write_bytes(b"")  # skipped by the readers, so not counted
    (day / ".c.jsonl.part").write_bytes(b"y" * 5000)
    (day / "notes.txt").write_bytes(b"z" * 7000)
    assert input_bytes([day]) == 1000 + PACKED_FACTOR * packed
    assert day_input_bytes([day, None]) == input_bytes([day])


def test_no_folder_or_a_missing_one_is_an_unknown_size(tmp_path: Path) -> None:
    assert day_input_bytes([]) is None
    assert day_input_bytes([None]) is None
    assert day_input_bytes([tmp_path / "absent"]) is None


@pytest.mark.parametrize(
    ("knob", "value", "message"),
    [
        ("spark.jit", "c2", "spark.jit must be"),
        ("spark.quick_jit_max_mb", -1, "spark.quick_jit_max_mb must be >= 0"),
    ],
)
def test_a_bad_jit_setting_is_a_config_error(knob: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config().replace(**{knob: value}).validate()
