"""What a submission of the project's jobs needs, without Airflow: the project zip for
``--py-files`` (:func:`build_dist`), the environment of a submission (:func:`submit_env`)
and the driver's quiet logging file (:data:`LOG4J`).

    python -m crawldedup.pipeline.submit --build-dist DIR    # prints DIR/crawldedup-<ver>.zip

The submissions themselves are spark-submit commands built by the Spark provider's hook
(``SparkSubmitHook``) from a ``spark`` connection: the DAG's ``SparkSubmitOperator`` tasks,
and ``python -m crawldedup_airflow.submit_day`` (the airflow extra), which submits every
stage of one day the way the DAG does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["DEFAULT_JOBS_DIR", "LOG4J", "build_dist", "submit_env"]

DEFAULT_JOBS_DIR = Path(__file__).resolve().parents[2] / "jobs"
LOG4J = Path(__file__).with_name("log4j2.properties")
"""The driver's quiet log4j2 file (a file on the submitting host; inside the zip, log4j
cannot read it)."""


def submit_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a submission: no PYTHONPATH, the venv's python on both sides,
    and the venv's ``bin`` (pyspark's ``spark-submit``) at the end of PATH, behind any
    spark-submit the PATH already has."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()}
    env.pop("PYTHONPATH", None)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", env["PYSPARK_PYTHON"])
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    venv_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p]
    if venv_bin not in path:
        env["PATH"] = os.pathsep.join([*path, venv_bin])
    return env


def build_dist(out_dir: Path, project: Path = DEFAULT_JOBS_DIR.parent) -> Path:
    """The project's wheel, built by pip from ``project``, copied to
    ``out_dir/crawldedup-<version>.zip`` for ``--py-files``: Spark puts py-files ending in
    .zip, .egg or .jar on the executors' ``sys.path`` (not .whl), and a pure-Python wheel
    is a zip that zipimport reads as it is."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crawldedup-wheel-") as tmp:
        # Built from a fresh copy of the sources: pip builds in the tree it is given, and
        # setuptools would pack what a checkout's build/lib kept of moved or deleted modules.
        src = Path(tmp) / "src"
        skip = shutil.ignore_patterns("__pycache__", "*.pyc")
        for name in ("crawldedup", "plugins"):
            shutil.copytree(project / name, src / name, ignore=skip)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(project / name, src / name)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp, str(src)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (wheel,) = Path(tmp).glob("crawldedup-*.whl")
        version = wheel.name.split("-")[1]
        target = out_dir / f"crawldedup-{version}.zip"
        shutil.copyfile(wheel, target)
    return target.resolve()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m crawldedup.pipeline.submit", description=__doc__)
    p.add_argument(
        "--build-dist",
        type=Path,
        required=True,
        metavar="DIR",
        help="build the --py-files zip into DIR and print its path",
    )
    args = p.parse_args(argv)
    print(build_dist(args.build_dist))
    return 0


if __name__ == "__main__":
    sys.exit(main())
