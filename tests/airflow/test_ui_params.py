"""What the Airflow UI relies on: params submittable as they are, the crawl day in run ids,
notes and logs, the timetable the plugin registers, the hbase connection type.

The Airflow-side checks run in a child process (Airflow reads its configuration once per
process, see conftest.py) that prints one JSON result; the pure ones run here.
"""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from crawldedup_airflow.day import RunSetupError, crawl_date, previous_day_check
from crawldedup_airflow.provider import get_provider_info
from tests.airflow.conftest import DAGS, ROOT, VENV_BIN, airflow_env, new_airflow_home, run_child

DAG_ID = "crawl_dedup_daily"

CHILD = r"""
import copy, json, sys
from datetime import datetime, timezone
import pendulum
from airflow.dag_processing.dagbag import DagBag
from airflow.serialization.serialized_objects import DagSerialization
from airflow.utils.types import DagRunType

out = {}
bag = DagBag(dag_folder=sys.argv[1])
out["import_errors"] = bag.import_errors
dag = bag.dags[sys.argv[2]]

# The trigger form submits the params' defaults as the run's conf.
defaults = {k: dag.params[k] for k in dag.params}
out["defaults"] = defaults
try:
    copy.deepcopy(dag.params).validate()
    out["defaults_valid"] = True
except Exception as exc:
    out["defaults_valid"] = repr(exc)
# What the scheduler and the API server see: the serialized DAG. The trigger endpoint
# validates a run's conf as dag.params.deep_merge(conf).validate().
ser = DagSerialization.from_dict(DagSerialization.to_dict(dag))
checks = {}
for conf in ({}, defaults, {"crawl_date": None, "store": None, "topics_library": None},
             {"crawl_date": "2026-11-02"}, {"crawl_date": "02.11.2026"},
             {"store": "hbase://127.0.0.1:9090/p"}, {"store": "localhost:9090"},
             {"topics_library": "/etc/topics.yaml"}, {"require_previous_day": False}):
    try:
        ser.params.deep_merge(conf).validate()
        checks[json.dumps(conf, sort_keys=True)] = "ok"
    except Exception as exc:
        checks[json.dumps(conf, sort_keys=True)] = str(exc)[:300]
out["checks"] = checks
out["descriptions"] = {k: dag.params.get_param(k).description or "" for k in dag.params}
out["schema"] = {k: dag.params.get_param(k).schema for k in ("crawl_date", "store",
                                                                 "store_conn_id",
                                                                 "topics_library")}
out["depends_on_past"] = sorted(t.task_id for t in dag.tasks if t.depends_on_past)
out["max_active_runs"] = dag.max_active_runs

tt = ser.timetable
out["timetable"] = {"type": type(tt).__name__, "module": type(tt).__module__,
                    "scheduled_runs": tt.scheduled_runs, "description": tt.description}
infos = list(ser.iter_dagrun_infos_between(pendulum.datetime(2026, 11, 1),
                                           pendulum.datetime(2026, 11, 2, 3)))
out["backfill_infos"] = [[str(i.logical_date), str(i.data_interval.start), str(i.run_after)]
                        for i in infos]
# The backfill dialog's midnight To date: its day is included.
midnight = list(ser.iter_dagrun_infos_between(pendulum.datetime(2026, 11, 1),
                                              pendulum.datetime(2026, 11, 2)))
out["midnight_window"] = [str(i.logical_date) for i in midnight]
own = tt.logical_date_interval(pendulum.datetime(2026, 11, 1, 12))
out["own_interval"] = [str(own.start), str(own.end)]
out["end_date"] = str(dag.end_date)
out["next_run"] = str(ser.next_dagrun_info(last_automated_run_info=None))
day1 = infos[0]
end = day1.data_interval.end  # when a scheduled run fires
from airflow.models.dagrun import DagRun
out["run_ids"] = {
    "scheduled": tt.generate_run_id(run_type=DagRunType.SCHEDULED, run_after=end,
                                    data_interval=day1.data_interval),
    "manual": tt.generate_run_id(run_type=DagRunType.MANUAL, run_after=end,
                                 data_interval=day1.data_interval),
    "manual_no_interval": tt.generate_run_id(run_type=DagRunType.MANUAL,
                                             run_after=end, data_interval=None),
    # As Airflow's backfill names its runs (it does not ask the timetable).
    "backfill": DagRun.generate_run_id(run_type=DagRunType.BACKFILL_JOB,
                                       logical_date=day1.logical_date,
                                       run_after=day1.run_after),
}
now = pendulum.now("UTC")
out["manual_intervals"] = {
    "past": str(tt.infer_manual_data_interval(run_after=pendulum.datetime(2026, 11, 1, 12)).start),
    "boundary": str(tt.infer_manual_data_interval(
        run_after=pendulum.datetime(2026, 11, 1, 3)).start),
    "now": str(tt.infer_manual_data_interval(run_after=now).start),
    "now_end": str(tt.infer_manual_data_interval(run_after=now).end),
}
from crawldedup_airflow.timetable import CrawlDayTimetable
always = CrawlDayTimetable("0 3 * * *", "UTC", scheduled_runs=True)
out["roundtrip_equal"] = CrawlDayTimetable.deserialize(always.serialize()) == always

# The plugin: the timetable class and the listener, no plugin import errors.
from airflow import plugins_manager
info = plugins_manager.get_plugin_info()
out["plugins"] = {p["name"]: {"timetables": p["timetables"], "listeners": p["listeners"]}
                  for p in info}
out["plugin_errors"] = plugins_manager.get_import_errors()

# The run note the listener sets, and the first log line of a task.
from crawldedup_airflow.listeners import run_note
from crawldedup_airflow.runlog import crawl_day_line
start = datetime(2026, 11, 2, 3, tzinfo=timezone.utc)
out["notes"] = [run_note({}, start, None), run_note({"crawl_date": "2026-11-01"}, start, None),
                run_note({"crawl_date": "2026-11-02"}, start, None),
                run_note({}, start, "rerun after the fix"), run_note({}, None, None),
                run_note({}, start, "crawl day 2026-11-02")]
out["log_lines"] = [
    crawl_day_line({"params": {"crawl_date": None}, "data_interval_start": start,
                    "run_id": "backfill__2026-11-02T03:00:00+00:00"}),
    crawl_day_line({"params": {"crawl_date": None}, "data_interval_start": None,
                    "run_id": "manual__x"}),
]
# Airflow rejects run ids that do not match this pattern (the trigger endpoint: 400).
from airflow.configuration import conf as airflow_conf
out["run_id_pattern"] = airflow_conf.get("scheduler", "allowed_run_id_pattern")
print("RESULT " + json.dumps(out, default=str))
"""

PROVIDER_CHILD = r"""
import json
from airflow.providers_manager import ProvidersManager
pm = ProvidersManager()
out = {"providers": sorted(pm.providers)}
hook = pm.hooks.get("hbase")
out["hook"] = None if hook is None else {
    "class": hook.hook_class_name, "name": hook.hook_name, "type": hook.connection_type,
    "testable": hook.connection_testable, "package": hook.package_name}
out["behaviour"] = pm.field_behaviours.get("hbase")
out["widgets"] = sorted(k for k in pm.connection_form_widgets if k.startswith("extra__hbase__"))
print("RESULT " + json.dumps(out, default=str))
"""


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # As the quickstart runs it: no scheduled runs.
    env = airflow_env(tmp_path_factory.mktemp("airflow-ui"), CRAWLDEDUP_SCHEDULED_RUNS="false")
    return run_child(CHILD, env, str(DAGS), DAG_ID)


def test_the_trigger_forms_defaults_validate(parsed: dict[str, Any]) -> None:
    assert parsed["import_errors"] == {}
    assert parsed["defaults_valid"] is True
    # Optional fields are nullable with a None default, as Airflow's params UI example.
    for name in ("crawl_date", "store", "store_conn_id", "topics_library", "config"):
        assert parsed["defaults"][name] is None, name
    for name in ("crawl_date", "store", "store_conn_id", "topics_library"):
        assert parsed["schema"][name]["type"] == ["null", "string"], name
    ok = {k for k, v in parsed["checks"].items() if v == "ok"}
    assert ok == {
        "{}",
        json.dumps(parsed["defaults"], sort_keys=True),
        '{"crawl_date": null, "store": null, "topics_library": null}',
        '{"crawl_date": "2026-11-02"}',
        '{"store": "hbase://127.0.0.1:9090/p"}',
        '{"topics_library": "/etc/topics.yaml"}',
        '{"require_previous_day": false}',
    }
    assert "crawl_date" in parsed["checks"]['{"crawl_date": "02.11.2026"}']
    assert "store" in parsed["checks"]['{"store": "localhost:9090"}']


def test_descriptions_say_the_format(parsed: dict[str, Any]) -> None:
    d = parsed["descriptions"]
    assert "YYYY-MM-DD" in d["crawl_date"] and "yesterday" in d["crawl_date"]
    assert "sqlite:///" in d["store"] and "hbase://" in d["store"] and "Empty" in d["store"]
    # A store URL is for deployments that allow it; the store connection is the way.
    assert "CRAWLDEDUP_ALLOW_STORE_URL" in d["store"] and "Store connection" in d["store"]
    assert "hbase" in d["store_conn_id"] and "Empty" in d["store_conn_id"]
    for name in ("input_root", "home", "topics_library", "config"):
        assert "allowed roots" in d[name], name
    assert "YAML" in d["topics_library"] and "Empty" in d["topics_library"]
    # Empty means the config file's rules; the form says so.
    assert "Empty" in d["rules"] and "config file" in d["rules"]
    assert "threshold" not in d


def test_no_depends_on_past_one_run_at_a_time(parsed: dict[str, Any]) -> None:
    # depends_on_past makes Airflow reject the UI's default backfill choice.
    assert parsed["depends_on_past"] == []
    assert parsed["max_active_runs"] == 1


def test_timetable_is_the_plugins_and_plans_no_scheduled_run(parsed: dict[str, Any]) -> None:
    tt = parsed["timetable"]
    assert tt["type"] == "CrawlDayTimetable"
    assert tt["module"] == "crawldedup_airflow.timetable"
    assert tt["scheduled_runs"] is False
    assert "no scheduled runs" in tt["description"]
    assert parsed["next_run"] == "None"  # the UI shows no "Next Run"
    # ... while a backfill still gets one run per day.
    # A backfill's runs: one per day, run after = logical date (their ids name the day).
    assert parsed["backfill_infos"] == [
        ["2026-11-01 00:00:00+00:00"] * 3,
        ["2026-11-02 00:00:00+00:00"] * 3,
    ]
    assert parsed["midnight_window"] == [i[0] for i in parsed["backfill_infos"]]
    # A crawl day is a calendar day (UTC here).
    assert parsed["own_interval"] == ["2026-11-01 00:00:00+00:00", "2026-11-02 00:00:00+00:00"]
    # The timetable tells a backfill from the scheduler by the window's upper bound.
    assert parsed["end_date"] == "None"
    assert parsed["roundtrip_equal"] is True
    plugin = parsed["plugins"]["crawldedup"]
    assert plugin["timetables"] == ["crawldedup_airflow.timetable.CrawlDayTimetable"]
    assert plugin["listeners"] == ["crawldedup_airflow.listeners"]
    assert parsed["plugin_errors"] == {}


def test_run_ids_and_manual_intervals_name_the_crawl_day(parsed: dict[str, Any]) -> None:
    ids = parsed["run_ids"]
    assert ids["scheduled"] == "scheduled__crawl-2026-11-01__2026-11-02T00:00:00+00:00"
    assert ids["manual"] == "manual__crawl-2026-11-01__2026-11-02T00:00:00+00:00"
    assert ids["backfill"] == "backfill__2026-11-01T00:00:00+00:00"
    # Refused by its first task (no crawl day), but a valid id.
    assert ids["manual_no_interval"] == "manual__2026-11-02T00:00:00+00:00"
    for run_id in ids.values():
        assert re.match(parsed["run_id_pattern"], run_id), (run_id, parsed["run_id_pattern"])
    mi = parsed["manual_intervals"]
    # A logical date on a day that is over: that day (dags trigger -l 2026-11-01T12:00).
    assert mi["past"] == "2026-11-01 00:00:00+00:00"
    assert mi["boundary"] == "2026-11-01 00:00:00+00:00"
    # "now" (the trigger form's default): the last complete day, never today.
    from datetime import UTC, datetime

    assert datetime.fromisoformat(mi["now_end"]) <= datetime.now(UTC)


def test_notes_and_log_lines_name_the_crawl_day(parsed: dict[str, Any]) -> None:
    day, mismatch, confirmed, kept, none, existing = parsed["notes"]
    assert (day, confirmed, existing) == ("crawl day 2026-11-02",) * 3
    assert kept == "crawl day 2026-11-02 · rerun after the fix"
    # The run's first task refuses these, for the same reason.
    assert mismatch.startswith("crawl day: none, refused: crawl_date param 2026-11-01 is not ")
    assert "Logical date 2026-11-01" in mismatch
    assert none.startswith("crawl day: none, refused: this run has no logical date")
    first, no_day = parsed["log_lines"]
    assert first.startswith("crawl day 2026-11-02 (from the data interval starting 2026-11-02")
    assert first.endswith("run backfill__2026-11-02T03:00:00+00:00")
    assert no_day.startswith("crawl day: none") and "logical date" in no_day


def test_crawl_date_resolution_and_its_messages() -> None:
    from datetime import UTC, datetime

    start = datetime(2026, 11, 2, 3, tzinfo=UTC)
    assert crawl_date(None, start) == "2026-11-02"
    assert crawl_date(" 2026-11-02 ", start) == "2026-11-02"  # confirms the day
    with pytest.raises(RunSetupError, match=r"YYYY-MM-DD, e\.g\. 2026-11-02"):
        crawl_date("yesterday", start)
    with pytest.raises(RunSetupError, match=r"trigger with Logical date 2026-11-01 \(any time"):
        crawl_date("2026-11-01", start)
    # No logical date, no day: the run id could not name one.
    for param in (None, "2026-11-01"):
        with pytest.raises(RunSetupError, match="no logical date, so no crawl day"):
            crawl_date(param, None)


def test_previous_day_check() -> None:
    assert previous_day_check("2026-11-02", ["2026-10-31", "2026-11-01"], True)[0]
    assert previous_day_check("2026-11-02", ["2026-10-30"], False)[0]  # no crawl on 11-01
    ok, why = previous_day_check("2026-11-02", [], True)
    assert ok and "history starts here" in why
    ok, why = previous_day_check("2026-11-03", ["2026-11-01"], True)
    assert not ok
    assert "2026-11-02 has a crawl but is not published" in why
    assert "require_previous_day" in why and "Logical date 2026-11-02" in why
    assert (
        "airflow backfill create --dag-id crawl_dedup_daily --from-date 2026-11-02 "
        "--to-date 2026-11-02" in why
    )


def test_provider_info_lists_the_hbase_connection_type() -> None:
    info = get_provider_info()
    assert info["package-name"] == "crawldedup"
    (conn,) = info["connection-types"]
    assert conn["connection-type"] == "hbase"
    assert conn["hook-class-name"] == "crawldedup_airflow.hooks.HBaseHook"
    assert {"table_prefix", "timeout_ms", "retries"} <= set(conn["conn-fields"])


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # No plugins folder on sys.path: the installed package must carry the hook.
    env = airflow_env(tmp_path_factory.mktemp("airflow-provider"))
    env["AIRFLOW__CORE__PLUGINS_FOLDER"] = str(tmp_path_factory.mktemp("no-plugins"))
    return run_child(PROVIDER_CHILD, env)


def test_providers_manager_registers_the_hbase_hook(provider: dict[str, Any]) -> None:
    assert "crawldedup" in provider["providers"]
    assert provider["hook"] == {
        "class": "crawldedup_airflow.hooks.HBaseHook",
        "name": "HBase (crawldedup store)",
        "type": "hbase",
        "testable": True,
        "package": "crawldedup",
    }
    behaviour = provider["behaviour"]
    assert behaviour["hidden_fields"] == ["schema", "login", "password"]
    assert behaviour["relabeling"] == {"host": "Thrift host", "port": "Thrift port"}
    assert provider["widgets"] == [
        f"extra__hbase__{k}"
        for k in sorted(["protocol", "retries", "table_prefix", "timeout_ms", "transport"])
    ]


def test_connections_add_keeps_the_hbase_type(tmp_path: Path, airflow_db_template: Path) -> None:
    env = airflow_env(new_airflow_home(tmp_path / "home", airflow_db_template))
    airflow = str(VENV_BIN / "airflow")
    add = subprocess.run(
        [
            *(airflow, "connections", "add", "hb", "--conn-type", "hbase"),
            *("--conn-host", "10.0.0.5", "--conn-port", "9090"),
            *("--conn-extra", '{"table_prefix": "crawl"}'),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert add.returncode == 0, add.stderr[-2000:]
    got = subprocess.run(
        [airflow, "connections", "get", "hb", "-o", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (conn,) = json.loads(got.stdout[got.stdout.index("[") :])
    assert conn["conn_type"] == "hbase"
    assert (conn["host"], str(conn["port"]), conn["extra_dejson"]) == (
        "10.0.0.5",
        "9090",
        {"table_prefix": "crawl"},
    )


def test_the_wheel_carries_the_hook_and_the_entry_point(tmp_path: Path) -> None:
    """A stock (non-editable) install gets crawldedup_airflow and the provider entry point."""
    proc = subprocess.run(
        [str(VENV_BIN / "pip"), "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = tmp_path.glob("crawldedup-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        text = zf.read(entry_points).decode()
    for module in ("hooks", "provider", "timetable", "listeners", "day", "sensors"):
        assert f"crawldedup_airflow/{module}.py" in names, module
    assert "[apache_airflow_provider]" in text
    assert "provider_info = crawldedup_airflow.provider:get_provider_info" in text
