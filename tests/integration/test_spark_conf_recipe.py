"""The Spark configuration crawldedup ships for short drivers reaches the driver JVM of a
crawldedup session when the user has none, beside crawldedup's own JVM option; a user's
SPARK_CONF_DIR replaces it; scripts/spark_conf.sh writes a copy of it and leaves a foreign
file alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "spark_conf.sh"

# The driver JVM's own arguments, from a session built the way every run builds it.
_JVM_ARGS = """
from crawldedup.config import Config
from crawldedup.pipeline.spark import build_session
spark = build_session(Config(), "spark-conf-recipe", master="local[1]")
bean = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
print("\\n".join(str(a) for a in bean.getInputArguments()))
spark.stop()
"""


def _driver_args(env: dict[str, str]) -> list[str]:
    return subprocess.run(
        [sys.executable, "-c", _JVM_ARGS], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()


def test_without_a_conf_dir_the_shipped_settings_reach_the_driver() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONF_DIR", "SPARK_HOME")}
    out = _driver_args(env)
    assert "-XX:TieredStopAtLevel=1" in out
    assert "-XX:+UseParallelGC" in out
    assert any(a.startswith("-Dlog4j2.configurationFile=") for a in out)


def test_a_users_conf_dir_replaces_the_shipped_settings(tmp_path: Path) -> None:
    (tmp_path / "spark-defaults.conf").write_text("spark.driver.defaultJavaOptions -Dmine=1\n")
    out = _driver_args({**os.environ, "SPARK_CONF_DIR": str(tmp_path)})
    assert "-Dmine=1" in out
    assert "-XX:TieredStopAtLevel=1" not in out


def test_the_recipe_reaches_the_driver_beside_crawldedups_own_option(tmp_path: Path) -> None:
    conf = tmp_path / "spark-conf"
    subprocess.run([str(SCRIPT), str(conf)], check=True, capture_output=True)
    env = {**os.environ, "SPARK_CONF_DIR": str(conf)}
    out = subprocess.run(
        [sys.executable, "-c", _JVM_ARGS], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert "-XX:TieredStopAtLevel=1" in out
    assert "-XX:+UseParallelGC" in out
    assert any(a.startswith("-Dlog4j2.configurationFile=") for a in out)


def test_a_spark_defaults_file_it_did_not_write_is_left_alone(tmp_path: Path) -> None:
    theirs = tmp_path / "spark-defaults.conf"
    theirs.write_text("spark.driver.memory 8g\n")
    run = subprocess.run([str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1
    assert theirs.read_text() == "spark.driver.memory 8g\n"
    # Its own file it rewrites.
    mine = tmp_path / "mine"
    for _ in range(2):
        subprocess.run([str(SCRIPT), str(mine)], check=True, capture_output=True)
    assert "TieredStopAtLevel=1" in (mine / "spark-defaults.conf").read_text()
