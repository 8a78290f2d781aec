"""DagBag integrity and structure of ``crawl_dedup_daily``, checked in a fresh process.

The child parses dags/ with Airflow's DagBag and reports as JSON: import errors, parse
time, which heavy modules got imported, every task's settings, the rendered spark-submit
arguments and which param values the trigger form rejects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawldedup.config import Config
from crawldedup.stage_registry import spark_stages
from tests.airflow.conftest import DAGS, ROOT, airflow_env, run_child

SPARK_STAGES = spark_stages(Config())

DAG_ID = "crawl_dedup_daily"
HEAVY = ["pyspark", "py4j", "happybase", "thriftpy2", "crawldedup.pipeline", "jieba"]

CHILD = r"""
import copy, json, sys, time
t0 = time.perf_counter()
from airflow.dag_processing.dagbag import DagBag
airflow_import = time.perf_counter() - t0
t0 = time.perf_counter()
bag = DagBag(dag_folder=sys.argv[1])
parse = time.perf_counter() - t0
out = {"import_errors": bag.import_errors, "dag_ids": sorted(bag.dags),
       "parse_seconds": parse, "airflow_import_seconds": airflow_import,
       "loaded": {m: m in sys.modules for m in json.loads(sys.argv[2])}}
dag = bag.dags.get(sys.argv[3])
if dag is not None:
    out["dag"] = {
        "max_active_runs": dag.max_active_runs, "catchup": dag.catchup,
        "timetable": type(dag.timetable).__name__,
        "cron": getattr(dag.timetable, "run_cron", None)
                or getattr(dag.timetable, "summary", None),
        "tags": sorted(dag.tags), "doc_md": dag.doc_md or "",
        "params": {k: dag.params.get_param(k).resolve(suppress_exception=True)
                   for k in dag.params},
    }
    out["tasks"] = {
        t.task_id: {"type": type(t).__name__, "retries": t.retries, "owner": t.owner,
                    "doc_md": t.doc_md or "", "downstream": sorted(t.downstream_task_ids),
                    "depends_on_past": t.depends_on_past,
                    "backoff": t.retry_exponential_backoff,
                    "mode": getattr(t, "mode", None),
                    "trigger_rule": getattr(t.trigger_rule, "value", t.trigger_rule),
                    "conn_id": getattr(t, "_conn_id", None),
                    "application": getattr(t, "application", None)}
        for t in dag.tasks}
    class TI:
        def xcom_pull(self, task_ids):
            assert task_ids == "wait_for_crawl"
            return {"crawl_date": "2026-11-02", "input": "/c/dt=2026-11-02", "home": "/h",
                    "store": "hbase://hb:9090/p?retries=3", "store_source": "test",
                    "topics_library": None, "config": None}
    params = {k: dag.params[k] for k in dag.params}
    ctx = {"params": {**params, "rules": ["content_md5", "head"], "dry_run": True}, "ti": TI(),
           "run_id": "manual__test"}
    env = dag.get_template_env()
    out["rendered"] = {
        t.task_id: t.render_template(t.application_args, ctx, jinja_env=env)
        for t in dag.tasks if hasattr(t, "application_args")}
    out["rendered_conf"] = {
        t.task_id: t.render_template(t.conf, ctx, jinja_env=env)
        for t in dag.tasks if hasattr(t, "application_args")}
    rejected = {}
    for conf in ({"threshold": 0.85}, {"rules": ["bogus"]}, {"rules": []},
                 {"wait_for": "whenever"}, {"crawl_date": "yesterday"}, {"dry_run": "no"},
                 {"rules": ["content_md5", "head"], "dry_run": True}, {"rules": None}):
        try:
            merged = copy.deepcopy(dag.params)
            for key, value in conf.items():
                merged[key] = value
            merged.validate()
            rejected[json.dumps(conf)] = False
        except Exception:
            rejected[json.dumps(conf)] = True
    out["rejected"] = rejected
print("RESULT " + json.dumps(out, default=str))
"""


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env = airflow_env(tmp_path_factory.mktemp("airflow-parse"))
    return run_child(CHILD, env, str(DAGS), json.dumps(HEAVY), DAG_ID)


def test_dagbag_has_no_import_errors(parsed: dict[str, Any]) -> None:
    assert parsed["import_errors"] == {}
    assert DAG_ID in parsed["dag_ids"]


def test_parsing_imports_no_spark_or_hbase_client(parsed: dict[str, Any]) -> None:
    # How long parsing takes is measured by benchmarks, not asserted here.
    assert parsed["loaded"] == dict.fromkeys(HEAVY, False)


def test_every_task_has_retries_an_owner_and_docs(parsed: dict[str, Any]) -> None:
    for task_id, t in parsed["tasks"].items():
        assert t["retries"] > 0, task_id
        assert t["owner"] and t["owner"] != "airflow", task_id
        assert len(t["doc_md"]) > 40, task_id
        # Not depends_on_past (Airflow would reject the UI's default backfill choice): the
        # sensor orders the days, max_active_runs=1 runs one at a time.
        assert not t["depends_on_past"], task_id
        assert t["backoff"] >= 2, task_id


def test_dag_settings(parsed: dict[str, Any]) -> None:
    dag = parsed["dag"]
    assert dag["max_active_runs"] == 1
    assert dag["catchup"] is False
    assert dag["timetable"] == "CrawlDayTimetable"  # a CronDataIntervalTimetable
    assert dag["cron"] == "0 3 * * *"
    assert {"crawldedup", "spark"} <= set(dag["tags"])
    assert "backfill create" in dag["doc_md"]
    assert set(dag["params"]) == {
        "crawl_date",
        "require_previous_day",
        "rules",
        "dry_run",
        "replace",
        "input_root",
        "home",
        "store",
        "store_conn_id",
        "wait_for",
        "max_quarantined_share",
        "duplicate_rate_tolerance",
        "trailing_days",
        "topics_library",
        "config",
    }
    # Null means "the config file's value": a param sends an override only when set.
    assert dag["params"]["rules"] is None
    # The gate's params are overrides: empty means the config's [gate].
    # Optional params are null by default, so that the trigger form submits as it is.
    for name in (
        "max_quarantined_share",
        "duplicate_rate_tolerance",
        "trailing_days",
        "config",
        "crawl_date",
        "store",
        "store_conn_id",
        "topics_library",
    ):
        assert dag["params"][name] is None, name
    assert dag["params"]["require_previous_day"] is True


def test_exact_task_edges(parsed: dict[str, Any]) -> None:
    """One chain: the sensor, one Spark application for the day's Spark stages, then the
    tasks without Spark (crawldedup.stage_registry.spark_stages, plan)."""
    edges = {(a, b) for a, t in parsed["tasks"].items() for b in t["downstream"]}
    assert edges == {
        ("wait_for_crawl", "dedup"),
        ("dedup", "commit"),
        ("commit", "report"),
        ("report", "relevance"),
    }
    rules = {k: t["trigger_rule"] for k, t in parsed["tasks"].items()}
    # The report also after a dry run's skipped commit; the others need success.
    assert rules["report"] == "none_failed"
    assert rules["dedup"] == rules["commit"] == rules["relevance"] == "all_success"
    types = {k: t["type"] for k, t in parsed["tasks"].items()}
    assert types["wait_for_crawl"] == "CrawlDaySensor"
    assert parsed["tasks"]["wait_for_crawl"]["mode"] == "reschedule"
    # A SparkSubmitOperator whose log starts with the crawl day and the store.
    assert types["dedup"] == "DedupApplication"
    assert {types[t] for t in ("commit", "report", "relevance")} == {"_PythonDecoratedOperator"}


def test_the_dedup_task_submits_the_days_spark_stages_with_the_rendered_day_and_params(
    parsed: dict[str, Any],
) -> None:
    t = parsed["tasks"]["dedup"]
    assert t["conn_id"] == "spark_default"
    assert t["application"] == str(ROOT / "jobs" / "day.py")
    args = parsed["rendered"]["dedup"]
    assert isinstance(args, list) and all(isinstance(a, str) for a in args), args
    n = len(SPARK_STAGES)
    assert tuple(args[:n]) == SPARK_STAGES
    assert args[n : n + 6] == [
        "--date",
        "2026-11-02",
        "--home",
        "/h",
        "--store",
        "hbase://hb:9090/p?retries=3",
    ]
    assert 'cascade.rules=["content_md5", "head"]' in args and "--dry-run" in args
    assert args[args.index("--input") + 1] == "/c/dt=2026-11-02"
    # A retry resumes: the run's id and the sensor's resolution name who runs the stages.
    assert args[-2:] == ["--run-id", "manual__test@"]
    assert not any(a.startswith("seed.threshold=") for a in args)
    # The default (empty) library adds no setting and no relevance stage.
    assert not any(a.startswith("relevance.library=") for a in args)
    # The driver's memory comes from the run's config (the default here), at run time.
    conf = parsed["rendered_conf"]["dedup"]
    assert conf["spark.driver.memory"] == "2g", conf
    # The quiet log4j2 file first, then the JIT's and the class archive's options
    # (tests/airflow/test_plugin_logic.py pins those).
    first, *rest = conf["spark.driver.extraJavaOptions"].split()
    assert first.startswith("-Dlog4j2.configurationFile=") and first.endswith(
        "log4j2.properties"
    ), conf
    assert all(o.startswith(("-XX:", "-Xlog:")) for o in rest), conf


def test_trigger_form_rejects_bad_params(parsed: dict[str, Any]) -> None:
    assert parsed["rejected"] == {
        # The form has no threshold (it acts only under the seed profile: the config file's);
        # Airflow lets unknown conf keys through, the sensor refuses them (test_dag_runs).
        '{"threshold": 0.85}': False,
        '{"rules": ["bogus"]}': True,
        '{"rules": []}': True,
        '{"wait_for": "whenever"}': True,
        '{"crawl_date": "yesterday"}': True,
        '{"dry_run": "no"}': True,
        '{"rules": ["content_md5", "head"], "dry_run": true}': False,
        '{"rules": null}': False,
    }


def test_dag_file_is_only_orchestration() -> None:
    """No store calls, Variables or heavy imports in the DAG file itself."""
    text = (DAGS / "crawl_dedup_daily.py").read_text()
    for forbidden in ("Variable.get", "open_store", "happybase", "import pyspark", "from pyspark"):
        assert forbidden not in text, forbidden
    assert Path(DAGS / "crawl_dedup_daily.py").is_file()


# The spark-submit command each Spark task would run, built by the provider's own hook
# from the rendered task and the spark_default connection (nothing is submitted). The
# DAG run on a real cluster is tests/cluster/test_dag_on_cluster.py (make test-all).
COMMANDS = r"""
import json, sys
from airflow.dag_processing.dagbag import DagBag
dag = DagBag(dag_folder=sys.argv[1]).dags[sys.argv[2]]
class TI:
    def xcom_pull(self, task_ids):
        return {"crawl_date": "2026-11-02", "input": "/c/dt=2026-11-02", "home": "/h",
                "store": "sqlite:////h/store.db", "store_source": "test",
                "topics_library": None, "config": None}
ctx = {"params": {k: dag.params[k] for k in dag.params}, "ti": TI(), "run_id": "manual__t"}
env = dag.get_template_env()
out = {}
for t in dag.tasks:
    if hasattr(t, "application_args"):
        t.conf = t.render_template(t.conf, ctx, jinja_env=env)
        t.application_args = t.render_template(t.application_args, ctx, jinja_env=env)
        out[t.task_id] = t._get_hook()._build_spark_submit_command(t.application)
print("RESULT " + json.dumps(out))
"""


def _commands(tmp_path: Path, **extra: str) -> dict[str, list[str]]:
    env = airflow_env(tmp_path / "airflow", **extra)
    return run_child(COMMANDS, env, str(DAGS), DAG_ID)


def _flag(cmd: list[str], name: str) -> str | None:
    return cmd[cmd.index(name) + 1] if name in cmd else None


def test_spark_default_alone_moves_every_stage_to_a_cluster(tmp_path: Path) -> None:
    local = _commands(tmp_path / "local")
    cluster_conn = {"conn_type": "spark", "host": "spark://10.1.2.3", "port": 7077}
    on_cluster = _commands(
        tmp_path / "cluster",
        AIRFLOW_CONN_SPARK_DEFAULT=json.dumps(cluster_conn),
        CRAWLDEDUP_PY_FILES="/opt/dist/crawldedup-1.0.zip",
    )
    assert set(local) == set(on_cluster) == {"dedup"}
    for task_id, cmd in on_cluster.items():
        assert _flag(local[task_id], "--master") == "local[*]", local[task_id]
        assert _flag(cmd, "--master") == "spark://10.1.2.3:7077", cmd
        assert _flag(cmd, "--py-files") == "/opt/dist/crawldedup-1.0.zip", cmd
        assert _flag(local[task_id], "--py-files") is None, local[task_id]
        assert _flag(cmd, "--name") == "crawldedup-day"
        # The rest of the command (job, day, store, conf) does not depend on the cluster.
        job = str(ROOT / "jobs" / "day.py")
        assert cmd[cmd.index(job) :] == local[task_id][local[task_id].index(job) :]
        assert cmd[cmd.index(job) + 1] == "fingerprint"
        assert _flag(cmd, "--conf") == _flag(local[task_id], "--conf")
