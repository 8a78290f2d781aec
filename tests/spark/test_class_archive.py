"""The driver's class archive on a real JVM (crawldedup/pipeline/class_archive.py): the
first `crawldedup run` that finishes writes it, the next one's driver loads Spark's
classes from it and judges the day the same, and ``spark.class_archive = false`` neither
writes nor reads one.

Which classes came from the archive is the JVM's own class-loading log
(``-Xlog:class+load``, given through JAVA_TOOL_OPTIONS, which every JVM reads): a class
mapped from a dynamic archive is logged with ``source: shared objects file (top)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env

DAY = "2026-11-01"
_TOP = "source: shared objects file (top)"


def _crawl(root: Path) -> Path:
    day = root / f"dt={DAY}"
    day.mkdir(parents=True)
    base = (
        "The river rose overnight and the ferry stopped at noon. Farmers moved their "
        "herds to the hills while the town council met in the school. "
    )
    rows = []
    for i in range(8):
        text = f"{base * 3} Report number {i} on the {i}th field of the valley, " * 2
        rows.append({"id": f"a{i}", "url": f"https://news.example/{i}", "content": text})
    rows.append({"id": "copy", "url": "https://mirror.example/0", "content": rows[0]["content"]})
    (day / "part-00000.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return day


def _run(
    tmp: Path,
    name: str,
    cache: Path,
    *extra: str,
    log: Path | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, tuple[str, str | None]]:
    home = tmp / name
    env = {**(env or {}), "XDG_CACHE_HOME": str(cache)}
    if log is not None:
        log.mkdir()
        env["JAVA_TOOL_OPTIONS"] = f"-Xlog:class+load=info:file={log}/classes-%p.log"
    args = ("run", "--date", DAY, "--input", str(tmp / "crawl" / f"dt={DAY}"), *extra)
    proc = cli_env(env, *args, "--home", str(home), home=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "cds" not in proc.stdout + proc.stderr  # the JDK's archive messages stay quiet
    out = cli_env(env, "verdicts", "--date", DAY, "--home", str(home), home=home).stdout
    return {
        r["id"]: (r["verdict"], r.get("duplicate_of")) for r in map(json.loads, out.splitlines())
    }


def _classes_from_archive(log: Path) -> int:
    """Classes the driver (the JVM that loaded the most classes) mapped from the archive."""
    texts = [p.read_text(errors="replace") for p in log.glob("classes-*.log")]
    return max(texts, key=len).count(_TOP)


# make test-all only (three day runs, 115-200 s on a slow 2-core machine): make test's
# other runs start from the archive the first of them writes; the key, the lock and the
# refusals are unit tests (tests/unit/test_class_archive.py).
@pytest.mark.exhaustive
def test_the_first_run_writes_the_archive_and_the_next_starts_from_it(tmp_path: Path) -> None:
    _crawl(tmp_path / "crawl")
    cache = tmp_path / "cache"
    folder = cache / "crawldedup" / "jvm"

    off = _run(tmp_path, "off", cache, "--set", "spark.class_archive=false", log=tmp_path / "l0")
    assert not folder.exists() or not list(folder.glob("*.jsa"))
    assert _classes_from_archive(tmp_path / "l0") == 0

    first = _run(tmp_path, "first", cache)
    (archive,) = folder.glob("*.jsa")
    assert archive.stat().st_size > 10_000_000  # Spark's classes, not an empty file
    assert not list(folder.glob("*.lock")) and not list(folder.glob(".*.part"))

    second = _run(tmp_path, "second", cache, log=tmp_path / "l2")
    assert _classes_from_archive(tmp_path / "l2") > 5000
    assert list(folder.glob("*.jsa")) == [archive]  # read, not written again
    assert first == second == off
    assert first["copy"] == ("duplicate", "a0")


# make test-all only (95 s on a slow 2-core machine): its parts, the class path refused
# before the JDK is asked and no second ask, are unit tests (tests/unit/test_class_archive.py).
@pytest.mark.exhaustive
def test_a_refused_archive_never_fails_the_day_and_is_not_asked_again(tmp_path: Path) -> None:
    """Spark's own ``conf/`` holding a file (but no spark-defaults.conf, so the shipped
    configuration still applies) puts a folder with files on the driver's class path,
    where JDK 17 writes no archive (it ends the JVM on the request, so crawldedup checks
    the class path first): the day is judged all the same, ``<archive>.failed`` says
    why, and the next driver is not asked again."""
    import pyspark

    real = Path(pyspark.__file__).parent
    home = tmp_path / "spark-home"
    (home / "conf").mkdir(parents=True)
    (home / "conf" / "log4j2.properties.template").write_text("# a template\n")
    for name in ("bin", "jars", "python"):
        if (real / name).exists():
            (home / name).symlink_to(real / name)
    _crawl(tmp_path / "crawl")
    cache = tmp_path / "cache"
    folder = cache / "crawldedup" / "jvm"
    spark_home = {"SPARK_HOME": str(home)}
    first = _run(tmp_path, "first", cache, env=spark_home)
    assert not list(folder.glob("*.jsa"))
    (failed,) = folder.glob("*.failed")
    assert "folder with files" in failed.read_text()  # why, checked before the JDK is asked
    second = _run(tmp_path, "second", cache, env=spark_home, log=tmp_path / "l2")
    assert _classes_from_archive(tmp_path / "l2") == 0
    assert list(folder.glob("*.failed")) == [failed] and not list(folder.glob("*.jsa"))
    assert first == second
