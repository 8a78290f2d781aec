"""What one crawl day costs through the Airflow DAG next to one `crawldedup run`.

The DAG runs the day's Spark stages in one task (`dedup`, one `spark-submit jobs/day.py`:
one driver JVM, Spark session and set of Python workers, as the CLI), then commit and
report in Python. This runs the same generated day
(`benchmarks/throughput.py`'s articles: 2/3 new, 1/3 reposts) twice on empty stores, once
with the command line and once with the real DAG (`dag.test()` in a fresh Airflow home,
the `spark_default` connection on `local[*]`), and prints per stage the seconds inside
the stage (its own timer, from the stage's stats) on both roads, per DAG task its seconds
and those of its stages, whose difference is the task's overhead, and the whole day's
wall time on both roads. ``dag.test()`` starts Airflow's execution API inside its own
process on the first task's first request (about 5 s: imports, then Cadwyn's versioned
routers), where a deployment's api-server starts once, before any day; the child starts
it before the DAG's clock and prints its seconds apart, with the ratio they would make.

    .venv/bin/python benchmarks/dag_cost.py --docs 10000 [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.airflow.conftest, the isolated Airflow's environment
sys.path.insert(0, str(Path(__file__).parent))
from throughput import DAY, articles, make_day, write_day  # noqa: E402  # the same days

from crawldedup.config import Config  # noqa: E402
from crawldedup.stage_registry import plan, spark_stages  # noqa: E402

VENV_BIN = Path(sys.executable).parent
# The stages the default configuration runs, in order (the CLI's and the DAG's).
STAGES = list(plan(Config()))
_PROGRESS = re.compile(r"\] \d/\d (\w+)\s+([\d.]+)s")

# Runs in a child Python whose environment names the Airflow home: Airflow reads its
# configuration once per process.
_DAG_CHILD = """
import json, sys, time
from datetime import datetime
from airflow.dag_processing.dagbag import DagBag
from airflow.utils.session import create_session
bag = DagBag()
assert not bag.import_errors, bag.import_errors
dag = bag.dags["crawl_dedup_daily"]
# dag.test() stands in for the api-server a deployment starts once, before any day: its
# in-process execution API (imports, then Cadwyn's versioned routers on the first request)
# is started here, before the clock, and its seconds printed apart.
t_api = time.perf_counter()
from airflow.sdk.execution_time.supervisor import InProcessTestSupervisor
assert InProcessTestSupervisor._api_client().get("health").status_code == 200
api_s = time.perf_counter() - t_api
t0 = time.perf_counter()
dr = dag.test(logical_date=datetime.fromisoformat(sys.argv[1]), run_conf=json.loads(sys.argv[2]))
wall = time.perf_counter() - t0
with create_session() as s:
    tis = {ti.task_id: (str(ti.state), ti.duration) for ti in dr.get_task_instances(session=s)}
result = {"state": str(dr.state), "wall_s": wall, "api_s": api_s, "tasks": tis}
print("RESULT " + json.dumps(result))
"""


def airflow_env(home: Path, roots: list[Path]) -> dict[str, str]:
    """The test suite's isolated Airflow (its own home and SQLite DB, our folders,
    ``spark_default`` on ``local[*]``), allowed to read and write under ``roots``."""
    from tests.airflow.conftest import airflow_env as isolated

    return isolated(
        home,
        CRAWLDEDUP_RETRIES="0",
        CRAWLDEDUP_SENSOR_TIMEOUT_H="1",
        CRAWLDEDUP_ALLOWED_ROOTS=os.pathsep.join(str(r) for r in roots),
    )


def stage_seconds(home: Path) -> dict[str, float]:
    """Each stage's own timer (``seconds`` in work/dt=D/stats/<stage>.json)."""
    out = {}
    for stage in STAGES:
        p = home / "work" / f"dt={DAY}" / "stats" / f"{stage}.json"
        if p.exists():
            out[stage] = float(json.loads(p.read_text()).get("seconds") or 0.0)
    return out


def run_cli(day: Path, home: Path, config: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            str(VENV_BIN / "crawldedup"),
            "run",
            "--date",
            DAY,
            "--input",
            str(day),
            "--home",
            str(home),
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - t0
    progress = {m.group(1): float(m.group(2)) for m in _PROGRESS.finditer(proc.stderr)}
    return {"wall_s": wall, "step_s": progress, "inside_s": stage_seconds(home)}


def run_dag(day: Path, home: Path, work: Path, config: Path) -> dict[str, Any]:
    af_home = work / f"airflow-{home.name}"
    af_home.mkdir(parents=True, exist_ok=True)
    env = airflow_env(af_home, [work])
    subprocess.run(
        [str(VENV_BIN / "airflow"), "db", "migrate"], env=env, check=True, capture_output=True
    )
    conf = {
        "crawl_date": DAY,
        "input_root": str(day.parent),
        "home": str(home),
        "require_previous_day": False,
        "config": str(config),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _DAG_CHILD, f"{DAY}T12:00:00+00:00", json.dumps(conf)],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    if not lines:
        raise SystemExit(
            f"the DAG run printed no result:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    result["inside_s"] = stage_seconds(home)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="crawldedup-dagcost-"))).resolve()
    if work.exists():
        shutil.rmtree(work)
    rng = random.Random(args.docs)
    day_docs = make_day(rng, args.docs, articles(rng, args.docs // 6, "i", "2026-11-09"))
    day = work / "in" / f"dt={DAY}"
    write_day(day, day_docs)
    (day / "_SUCCESS").touch()
    print(f"{len(day_docs)} documents in {day}", flush=True)
    # The same (empty) config file for both paths.
    config = work / "crawldedup.toml"
    config.write_text("")
    label = f"{len(day_docs)} documents"
    cli = run_cli(day, work / "home-cli", config)
    print(f"cli: {cli['wall_s']:.1f} s", flush=True)
    dag = run_dag(day, work / "home-dag", work, config)
    print(f"dag: {dag['state']}, {dag['wall_s']:.1f} s", flush=True)
    print_table(label, cli, dag)
    return 0


def print_table(label: str, cli: dict[str, Any], dag: dict[str, Any]) -> None:
    print()
    print(label)
    print()
    print("| stage | CLI: in the stage s | DAG: in the stage s |")
    print("| --- | ---: | ---: |")
    for stage in STAGES:
        print(
            f"| {stage} | {cli['inside_s'].get(stage, 0.0):.1f} | "
            f"{dag['inside_s'].get(stage, 0.0):.1f} |"
        )
    print()
    print("| DAG task | its stages | task s | in the stages s | task overhead s |")
    print("| --- | --- | ---: | ---: | ---: |")
    spark = list(spark_stages(Config()))
    for task, stages in (
        ("wait_for_crawl", []),
        ("dedup", spark),
        ("commit", ["commit"]),
        ("report", ["report"]),
        ("relevance", []),
    ):
        seconds = dag["tasks"].get(task, [None, None])[1] or 0.0
        inside = sum(dag["inside_s"].get(s, 0.0) for s in stages)
        print(
            f"| {task} | {', '.join(stages) or '–'} | {seconds:.1f} | {inside:.1f} | "
            f"{seconds - inside:.1f} |"
        )
    print()
    with_api = dag["wall_s"] + dag["api_s"]
    print(
        f"Airflow's in-process execution API, started before the DAG's clock (a deployment's "
        f"api-server starts once, not per day): {dag['api_s']:.1f} s; the DAG with it "
        f"{with_api:.1f} s wall ({with_api / cli['wall_s']:.2f}x)"
    )
    print(
        f"whole day ({label}): CLI {cli['wall_s']:.1f} s wall, DAG {dag['wall_s']:.1f} s "
        f"wall ({dag['wall_s'] / cli['wall_s']:.2f}x)",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
