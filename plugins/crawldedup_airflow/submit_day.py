"""Submit one day the way the DAG does, without a scheduler: every Spark stage through
the Spark provider's ``SparkSubmitHook`` (as the DAG's ``SparkSubmitOperator`` tasks do),
the stages without Spark (commit, report) with the venv's python.

    python -m crawldedup_airflow.submit_day --date 2026-11-01 --input /data/crawl/dt=2026-11-01 \\
        --home /shared/crawldedup --store hbase://127.0.0.1:9090/crawldedup \\
        [--py-files dist/crawldedup-0.1.0.zip] [--config FILE] [--set KEY=VALUE ...] \\
        [--conf KEY=VALUE ...] [--conn-id spark_default | --master spark://127.0.0.1:7077]

The master and the deploy mode come from the ``spark`` connection (``--conn-id``, default
``spark_default``). Outside a task, Airflow's Task SDK looks connections up in environment
variables and the configured secrets backend, not in the metadata database: define it as
``AIRFLOW_CONN_SPARK_DEFAULT='{"conn_type": "spark", "host": "spark://127.0.0.1:7077"}'``,
or pass ``--master``, which defines the connection that way for this run. The hook runs
the ``spark-submit`` on PATH (:func:`crawldedup.pipeline.submit.submit_env` adds the
venv's at the end).

The Spark stages of the run's configuration are one application (as the DAG's dedup
task); the project goes to the executors as its built
wheel (``--py-files``, see :func:`crawldedup.pipeline.submit.build_dist`), the driver is
started from a scratch folder with no ``PYTHONPATH``: nothing depends on the repo or the
working folder. ``--home`` is read and written by the driver and by the executors: on one
machine an absolute local path is shared; on a real cluster it must be a shared file
system mounted at the same path everywhere (NFS), see docs/operations.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
from airflow.sdk import BaseHook
from airflow.sdk.exceptions import AirflowException, AirflowNotFoundException

from crawldedup.config import SparkConfig, build_config, parse_override
from crawldedup.pipeline.submit import DEFAULT_JOBS_DIR, LOG4J, build_dist, submit_env
from crawldedup.stage_registry import plan, spark_stages, stage_argv

__all__ = [
    "DEFAULT_CONN_ID",
    "StageHook",
    "StageRun",
    "SubmitFailed",
    "spark_conn_env",
    "stage_hook",
    "submit_day",
    "submit_stage",
]

DEFAULT_CONN_ID = SparkSubmitHook.default_conn_name  # spark_default, as the DAG's tasks
DRIVER_MEMORY = SparkConfig().driver_memory


@dataclass(frozen=True)
class StageRun:
    """One stage's submission: wall seconds and output (a Spark stage's is the hook's log:
    its spark-submit command, then spark-submit's lines, stdout and stderr merged)."""

    stage: str
    seconds: float
    output: str


class SubmitFailed(RuntimeError):
    def __init__(self, stage: str, reason: str, output: str) -> None:
        super().__init__(f"stage {stage}: {reason}\n{output[-4000:]}")
        self.stage, self.reason, self.output = stage, reason, output


def spark_conn_env(master: str, conn_id: str = DEFAULT_CONN_ID) -> dict[str, str]:
    """The environment variable that defines the spark connection ``conn_id`` on
    ``master`` (``spark://host:7077``, ``local[*]``, ``yarn``): the hook reads the master
    from a spark connection's host when it holds a URL or no port is given."""
    value = json.dumps({"conn_type": "spark", "host": master})
    return {f"AIRFLOW_CONN_{conn_id.upper()}": value}


class _KeptLog:
    """A hook's logger that keeps its messages (spark-submit's lines are logged one by
    one) and passes warnings and errors on to Airflow's logging."""

    def __init__(self, passed_to: Any) -> None:
        self.lines: list[str] = []
        self._passed_to = passed_to

    def _keep(self, level: str, msg: object, *args: Any, **kw: Any) -> None:
        self.lines.append(str(msg) % args if args else str(msg))
        if level in ("warning", "error", "exception", "critical"):
            getattr(self._passed_to, level)(msg, *args, **kw)

    def __getattr__(self, level: str) -> Callable[..., None]:
        if level.startswith("_"):
            raise AttributeError(level)
        if level == "debug":
            return lambda *a, **kw: None
        return lambda msg, *args, **kw: self._keep(level, msg, *args, **kw)


class StageHook(SparkSubmitHook):
    """The provider's hook, unchanged but for its log, kept in ``output``."""

    def __init__(self, **kwargs: Any) -> None:
        self._kept: _KeptLog | None = None
        super().__init__(**kwargs)

    @property
    def log(self) -> Any:
        if self._kept is None:
            self._kept = _KeptLog(super().log)
        return self._kept

    @property
    def output(self) -> str:
        return "\n".join(self._kept.lines) if self._kept else ""


def application(jobs_dir: Path = DEFAULT_JOBS_DIR, job: str = "day.py") -> str:
    """The file a submission runs: ``jobs/day.py`` (``crawldedup stage NAME...``)."""
    return str(jobs_dir / job)


def stage_hook(
    name: str,
    args: Sequence[str],
    py_files: Path,
    *,
    conn_id: str = DEFAULT_CONN_ID,
    conf: Mapping[str, str] | None = None,
    driver_memory: str = DRIVER_MEMORY,
) -> StageHook:
    """The hook that submits ``jobs/day.py args`` as the DAG's dedup task does."""
    settings = dict(conf or {})
    if LOG4J.is_file():
        # The driver's quiet logging, before its JVM starts (as the DAG's spark_conf).
        settings.setdefault("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG4J}")
    return StageHook(
        conn_id=conn_id,
        application_args=list(args),
        py_files=str(py_files),
        conf=settings,
        name=f"crawldedup-{name}",
        driver_memory=driver_memory,
    )


def check_connection(conn_id: str) -> None:
    """The hook falls back to ``yarn`` when its connection is missing: refuse instead."""
    try:
        BaseHook.get_connection(conn_id)
    except AirflowNotFoundException:
        var = next(iter(spark_conn_env("spark://HOST:7077", conn_id)))
        raise LookupError(
            f"no spark connection {conn_id!r}: define it, e.g. "
            f"""{var}='{{"conn_type": "spark", "host": "spark://HOST:7077"}}', """
            "or pass --master"
        ) from None


def submit_stage(
    name: str,
    args: Sequence[str],
    py_files: Path,
    jobs_dir: Path,
    cwd: Path,
    env: Mapping[str, str],
    *,
    conn_id: str = DEFAULT_CONN_ID,
    conf: Mapping[str, str] | None = None,
    driver_memory: str = DRIVER_MEMORY,
    job: str = "day.py",
) -> StageRun:
    """``hook.submit(jobs_dir/job args)`` (``jobs/day.py``), from ``cwd`` with ``env``;
    :class:`SubmitFailed` when spark-submit fails."""
    hook = stage_hook(name, args, py_files, conn_id=conn_id, conf=conf, driver_memory=driver_memory)
    t0 = time.perf_counter()
    try:
        hook.submit(application(jobs_dir, job), cwd=str(cwd), env=dict(env))
    except (AirflowException, OSError) as exc:
        raise SubmitFailed(name, str(exc).splitlines()[0], hook.output) from None
    return StageRun(name, round(time.perf_counter() - t0, 2), hook.output)


def run_python_stage(name: str, cmd: Sequence[str], cwd: Path, env: Mapping[str, str]) -> StageRun:
    """A stage without Spark, ``cmd`` run from ``cwd`` with ``env``."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if proc.returncode != 0:
        raise SubmitFailed(name, f"{' '.join(cmd)} exited {proc.returncode}", proc.stdout)
    return StageRun(name, round(time.perf_counter() - t0, 2), proc.stdout)


def submit_day(
    day: str,
    input_dir: Path,
    home: Path,
    store: str,
    py_files: Path,
    *,
    conn_id: str = DEFAULT_CONN_ID,
    config: Path | None = None,
    overrides: Sequence[str] = (),
    conf: Mapping[str, str] | None = None,
    jobs_dir: Path = DEFAULT_JOBS_DIR,
    stages: Sequence[str] | None = None,
    driver_memory: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[StageRun]:
    """Submit the day as the DAG runs it: the configuration's Spark stages in one
    application (``dedup``, with the configuration's driver memory), then commit and
    report with the venv's python; raises :class:`SubmitFailed` on the first failure
    (the gate's too) and LookupError, before any, when the spark connection is missing.
    ``stages``: only these of the day's stages (a benchmark's one at a time)."""
    cfg = build_config(config, store, [parse_override(o) for o in overrides])
    chosen = set(plan(cfg) if stages is None else stages)
    spark = tuple(n for n in spark_stages(cfg) if n in chosen)
    rest = tuple(n for n in plan(cfg)[len(spark_stages(cfg)) :] if n in chosen)
    if spark:
        check_connection(conn_id)
    environ = submit_env(env)
    runs: list[StageRun] = []

    def args(names: Sequence[str]) -> list[str]:
        return stage_argv(
            names,
            day=day,
            home=str(home.resolve()),
            store=store,
            input_dir=str(input_dir.resolve()),
            config=str(config) if config else None,
            overrides=overrides,
        )

    with tempfile.TemporaryDirectory(prefix="crawldedup-submit-") as scratch:
        where = cwd or Path(scratch)
        memory = driver_memory or cfg.spark.driver_memory
        if spark:
            name = "dedup" if len(spark) > 1 else spark[0]
            runs.append(
                submit_stage(
                    name,
                    args(spark),
                    py_files,
                    jobs_dir,
                    where,
                    environ,
                    conn_id=conn_id,
                    conf=conf,
                    driver_memory=memory,
                )
            )
        if rest:
            # No Spark: the venv's python with only the zip on its path.
            cmd = [environ["PYSPARK_DRIVER_PYTHON"], application(jobs_dir), *args(rest)]
            zip_env = {**environ, "PYTHONPATH": str(py_files)}
            runs.append(run_python_stage("_".join(rest), cmd, where, zip_env))
        if progress is not None:
            for r in runs:
                # "[D] 2/6 bloom  3.1s  counts": the application's own line per stage.
                for line in r.output.splitlines():
                    if line.startswith(f"[{day}] ") and "/" in line.split()[1]:
                        progress(f"  in-app {line[len(day) + 3 :]}")
                progress(f"{r.stage:<13} {r.seconds:7.1f}s wall")
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m crawldedup_airflow.submit_day",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--build-dist", type=Path, metavar="DIR", help="only build the --py-files zip into DIR"
    )
    p.add_argument(
        "--conn-id",
        default=DEFAULT_CONN_ID,
        help=f"the spark connection of the Spark stages ({DEFAULT_CONN_ID})",
    )
    p.add_argument(
        "--master",
        help="spark://host:7077, local[*], ...: defines the --conn-id connection for this run",
    )
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
    missing = [f"--{n}" for n in ("date", "input", "home", "store") if not getattr(args, n)]
    if missing:
        p.error(f"the following arguments are required: {', '.join(missing)}")
    if args.master:
        os.environ.update(spark_conn_env(args.master, args.conn_id))

    py_files = args.py_files
    if py_files is None:
        py_files = build_dist(Path(tempfile.mkdtemp(prefix="crawldedup-dist-")))
    conf = dict(item.split("=", 1) for item in args.conf)
    try:
        submit_day(
            args.date,
            args.input,
            args.home,
            args.store,
            py_files.resolve(),
            conn_id=args.conn_id,
            config=args.config.resolve() if args.config else None,
            overrides=args.overrides,
            conf=conf,
            jobs_dir=args.jobs_dir.resolve(),
            progress=lambda line: print(f"[{args.date}] {line}", file=sys.stderr, flush=True),
        )
    except (SubmitFailed, LookupError) as exc:
        print(f"crawldedup: failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
