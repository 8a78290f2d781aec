"""Which JIT the driver JVM runs, chosen from the day's size before the JVM starts.

HotSpot's tiered JIT compiles hot methods twice: quickly with C1, then again, optimised,
with C2. On two cores a small day does not live long enough to repay C2: a 10k-document
day spent about 20 of its 48 JVM CPU seconds in the fingerprint stage compiling (most of
it Spark's generated classes, every query its own), and with C1 alone
(``-XX:TieredStopAtLevel=1``) the whole day took 56 s instead of 77. A 100k-document day
needs C2's loops: 310 s with C1 alone against 212 s (docs/benchmarks.md, "Which JIT").

``[spark] jit``: ``auto`` (the default) runs C1 alone when the day's input is at most
``quick_jit_max_mb``, ``full`` always keeps the tiered JIT, ``quick`` always runs C1
alone. Only the driver's JVM is chosen for: under ``local[*]`` it is the one that does the
work; a cluster's executors keep their own settings. The size is that of everything the
JVM will run (``--cascade-later`` adds the later days): a JVM that lives for many small
days, like the test suite's shared session, pays C2 back and keeps the tiered JIT.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crawldedup.config import SparkConfig
from crawldedup.ingest.readers import COMPRESSIONS, PARQUET_SUFFIXES, select_input_files

QUICK_JIT_FLAGS = "-XX:TieredStopAtLevel=1"
# Compressed and Parquet files hold more text than their bytes: they count this many times.
PACKED_FACTOR = 4


def input_bytes(folders: Iterable[Path]) -> int:
    """The data files' bytes of the given day folders, packed files weighed up."""
    total = 0
    for folder in folders:
        for path in select_input_files(Path(folder)).files:
            size = path.stat().st_size
            packed = path.name.lower().endswith((*COMPRESSIONS, *PARQUET_SUFFIXES))
            total += size * PACKED_FACTOR if packed else size
    return total


def quick_jit(spark: SparkConfig, day_bytes: int | None) -> bool:
    """Whether the driver runs C1 alone; ``day_bytes`` None means the size is not known."""
    if spark.jit == "quick":
        return True
    if spark.jit == "full" or day_bytes is None:
        return False
    return day_bytes <= spark.quick_jit_max_mb * 1024 * 1024


def jit_java_options(spark: SparkConfig, day_bytes: int | None) -> str:
    """The driver JVM's JIT flags for this day ('' keeps the JVM's default)."""
    return QUICK_JIT_FLAGS if quick_jit(spark, day_bytes) else ""


def day_input_bytes(folders: Iterable[Path | None]) -> int | None:
    """``input_bytes`` of the folders that exist; None when none is given or readable."""
    present = [Path(f) for f in folders if f is not None and Path(f).is_dir()]
    if not present:
        return None
    try:
        return input_bytes(present)
    except OSError:
        return None  # the stage reports an unreadable folder itself, with its own error


def driver_jvm_flags(spark: Any) -> list[str]:
    """The running driver JVM's command-line options."""
    jvm = spark.sparkContext._jvm
    bean = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    # One gateway call: iterating the Java list from Python is a call per element
    # (0.8 s of a day's driver, py-spy).
    joined = str(jvm.java.lang.String.join("\n", bean.getInputArguments()))
    return joined.split("\n") if joined else []


def driver_jit(spark: Any) -> str:
    """What the running driver JVM compiles with: ``"c1"`` (C1 alone) or ``"tiered"``."""
    flags = driver_jvm_flags(spark)
    return "c1" if any(f.startswith("-XX:TieredStopAtLevel=1") for f in flags) else "tiered"
