"""Run one day the way production does: ``spark-submit`` of every ``jobs/<stage>.py``.

    python -m crawldedup.pipeline.submit --master spark://127.0.0.1:7077 \\
        --date 2026-11-01 --input /data/crawl/dt=2026-11-01 --home /shared/crawldedup \\
        --store hbase://127.0.0.1:9090/crawldedup [--config FILE] [--set KEY=VALUE ...]

Each Spark stage is one application (as the Airflow DAG submits them), the project goes to
the executors as its built wheel (``--py-files``, see :func:`build_dist`), the driver is
started from a scratch folder with no ``PYTHONPATH``: nothing depends on the repo or the
working folder. The report stage needs no Spark and runs as ``python jobs/report.py`` with
the same zip on its path. ``--home`` is read and written by the driver and by the
executors: on one machine an absolute local path is shared; on a real cluster it must be a
shared file system mounted at the same path everywhere (NFS), see the README.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from crawldedup.config import SparkConfig
from crawldedup.stage_registry import DEDUP_STAGES, stage, stage_argv

__all__ = ["StageRun", "SubmitFailed", "spark_submit_cmd", "submit_day"]
DRIVER_MEMORY = SparkConfig().driver_memory

DEFAULT_JOBS_DIR = Path(__file__).resolve().parents[2] / "jobs"
_LOG4J = Path(__file__).with_name("log4j2.properties")


@dataclass(frozen=True)
class StageRun:
    """One stage's submission: its command, wall seconds and output."""

    stage: str
    cmd: list[str]
    seconds: float
    returncode: int
    stdout: str
    stderr: str

    def tail(self, n: int = 4000) -> str:
        return f"$ {' '.join(self.cmd)}\nexit {self.returncode}\n{self.stderr[-n:]}"


class SubmitFailed(RuntimeError):
    def __init__(self, run: StageRun) -> None:
        super().__init__(f"stage {run.stage} exited {run.returncode}:\n{run.tail()}")
        self.run = run


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def submit_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a submission: no PYTHONPATH, the venv's python on both sides."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()}
    env.pop("PYTHONPATH", None)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", env["PYSPARK_PYTHON"])
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return env


def spark_submit_cmd(
    stage: str,
    master: str,
    py_files: Path,
    args: Sequence[str],
    jobs_dir: Path = DEFAULT_JOBS_DIR,
    conf: Mapping[str, str] | None = None,
    driver_memory: str = DRIVER_MEMORY,
    executor_memory: str = "1g",
) -> list[str]:
    """``spark-submit`` of ``jobs/<stage>.py`` on ``master`` with the project zip."""
    cmd = [
        str(spark_home() / "bin" / "spark-submit"),
        "--master",
        master,
        "--name",
        f"crawldedup-{stage}",
        "--py-files",
        str(py_files),
        "--driver-memory",
        driver_memory,
    ]
    if not master.startswith("local"):
        cmd += ["--executor-memory", executor_memory]
    settings = dict(conf or {})
    if _LOG4J.is_file():
        # The driver's quiet logging (a file on the submitting host).
        settings.setdefault("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG4J}")
    for key, value in settings.items():
        cmd += ["--conf", f"{key}={value}"]
    return [*cmd, str(jobs_dir / f"{stage}.py"), *args]


def build_dist(out_dir: Path, project: Path = DEFAULT_JOBS_DIR.parent) -> Path:
    """The project's wheel, built by pip from ``project``, copied to
    ``out_dir/crawldedup-<version>.zip`` for ``--py-files``: Spark puts py-files ending in
    .zip, .egg or .jar on the executors' ``sys.path`` (not .whl), and a pure-Python wheel
    is a zip that zipimport reads as it is."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crawldedup-wheel-") as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp, str(project)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (wheel,) = Path(tmp).glob("crawldedup-*.whl")
        version = wheel.name.split("-")[1]
        target = out_dir / f"crawldedup-{version}.zip"
        shutil.copyfile(wheel, target)
    return target.resolve()


def run_cmd(stage: str, cmd: list[str], cwd: Path, env: Mapping[str, str]) -> StageRun:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=dict(env), capture_output=True, text=True)
    seconds = round(time.perf_counter() - t0, 2)
    run = StageRun(stage, cmd, seconds, proc.returncode, proc.stdout, proc.stderr)
    if proc.returncode != 0:
        raise SubmitFailed(run)
    return run


def submit_day(
    master: str,
    day: str,
    input_dir: Path,
    home: Path,
    store: str,
    py_files: Path,
    *,
    config: Path | None = None,
    overrides: Sequence[str] = (),
    conf: Mapping[str, str] | None = None,
    driver_memory: str = DRIVER_MEMORY,
    jobs_dir: Path = DEFAULT_JOBS_DIR,
    stages: Sequence[str] = DEDUP_STAGES,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[StageRun]:
    """Submit the day's stages in order; raises :class:`SubmitFailed` on the first failure."""
    environ = submit_env(env)
    runs: list[StageRun] = []
    with tempfile.TemporaryDirectory(prefix="crawldedup-submit-") as scratch:
        where = cwd or Path(scratch)
        for name in stages:
            args = stage_argv(
                name,
                day=day,
                home=str(home.resolve()),
                store=store,
                input_dir=str(input_dir.resolve()),
                config=str(config) if config else None,
                overrides=overrides,
            )
            if not stage(name).spark:
                # No Spark: the venv's python with only the zip on its path.
                cmd = [environ["PYSPARK_DRIVER_PYTHON"], str(jobs_dir / f"{name}.py"), *args]
                run = run_cmd(name, cmd, where, {**environ, "PYTHONPATH": str(py_files)})
            else:
                cmd = spark_submit_cmd(
                    name, master, py_files, args, jobs_dir, conf, driver_memory=driver_memory
                )
                run = run_cmd(name, cmd, where, environ)
            runs.append(run)
            if progress is not None:
                # spark-submit merges the Python driver's stderr into its stdout.
                out = f"{run.stdout}\n{run.stderr}".splitlines()
                lines = [x for x in out if x.startswith(f"[{day}]")]
                # "[D] 1/1 stage  12.3s  counts" -> "in-app 12.3s  counts"
                detail = re.sub(r"^\[[^]]*\] 1/1 \S+\s+", "in-app ", lines[-1]) if lines else ""
                progress(f"{name:<11} {run.seconds:7.1f}s wall  {detail}")
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m crawldedup.pipeline.submit", description=__doc__)
    p.add_argument(
        "--build-dist", type=Path, metavar="DIR", help="only build the --py-files zip into DIR"
    )
    p.add_argument("--master", help="spark://host:7077, or local[*]")
    p.add_argument("--date")
    p.add_argument("--input", type=Path)
    p.add_argument("--home", type=Path)
    p.add_argument("--store")
    p.add_argument("--config", type=Path, default=None)
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="spark-submit --conf"
    )
    p.add_argument("--py-files", type=Path, default=None, help="the project zip (built if absent)")
    p.add_argument("--jobs-dir", type=Path, default=DEFAULT_JOBS_DIR)
    args = p.parse_args(argv)
    if args.build_dist is not None:
        print(build_dist(args.build_dist))
        return 0
    missing = [
        f"--{n}" for n in ("master", "date", "input", "home", "store") if not getattr(args, n)
    ]
    if missing:
        p.error(f"the following arguments are required: {', '.join(missing)}")

    py_files = args.py_files
    if py_files is None:
        py_files = build_dist(Path(tempfile.mkdtemp(prefix="crawldedup-dist-")))
    conf = dict(item.split("=", 1) for item in args.conf)
    try:
        submit_day(
            args.master,
            args.date,
            args.input,
            args.home,
            args.store,
            py_files.resolve(),
            config=args.config.resolve() if args.config else None,
            overrides=args.overrides,
            conf=conf,
            jobs_dir=args.jobs_dir.resolve(),
            progress=lambda line: print(f"[{args.date}] {line}", file=sys.stderr, flush=True),
        )
    except SubmitFailed as exc:
        print(f"crawldedup: failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
