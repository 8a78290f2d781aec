"""``crawl_dedup_daily`` for real: ``dag.test()`` with a real Airflow (SQLite metadata DB)
and real Spark (spark-submit of every stage).

``make test`` runs one sample day on the embedded store, every task included (relevance
too), and the HBase hook against a real HBase. ``make test-all`` adds the second day on
the same home, two days against HBase through the ``hbase_default`` connection, a rerun of
the first day with another config file, and the quality gate on a day without documents.

Each ``dag.test()`` runs in its own process (see conftest); a day costs five or six
spark-submit JVM starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from crawldedup.rules import DEFAULT_RULES
from crawldedup.store import open_store
from crawldedup_demo import load_truth
from tests.airflow.conftest import (
    ROOT,
    DagRunResult,
    airflow_env,
    new_airflow_home,
    run_child,
    run_dag,
)
from tests.cli_helpers import cli_env, verdicts
from tests.hbase_fixtures import HBASE_HOST, HBASE_PORT, drop_prefix, unique_prefix
from tests.rerun_equality import RUN_FIELDS

DAYS = ["2026-11-01", "2026-11-02"]
ALL_TASKS = {"wait_for_crawl", "dedup", "commit", "report", "relevance"}
# The runs take the relevance stage too (docs/relevance.md), on the dedup sample's pages:
# in the dedup application, its outcome in the relevance task after the report.
TASK_STATES = dict.fromkeys(ALL_TASKS, "success")
# The Spark stages of one application, each with its seconds and counts in dedup's XCom.
DEDUP_STAGES = ["fingerprint", "relevance", "bloom", "candidates", "similarity", "publish"]
LIBRARY = str(ROOT / "config" / "topics.example.yaml")


def logical(day: str) -> str:
    """A scheduled run's logical date: the crawl day at the cron time (03:00 UTC)."""
    return f"{day}T03:00:00+00:00"


@dataclass
class Scenario:
    env: dict[str, str]
    root: Path
    home: Path
    conf: dict[str, Any]
    runs: dict[str, DagRunResult]
    store: str
    verdicts: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def run_stages(self, day: str) -> DagRunResult:
        run = run_dag(self.env, self.root / f"{day}.log", logical_date=logical(day), conf=self.conf)
        self.runs[day] = run
        # A later day would only wait for, then fail on, a failed day: stop here.
        assert run.state == "success", run.brief()
        self.store = run.xcom["wait_for_crawl.return_value"]["store"]
        self.verdicts[day] = verdicts(day, self.home, self.store)
        return run


def new_scenario(root: Path, template_db: Path, conf: dict[str, Any], **env: str) -> Scenario:
    environ = airflow_env(new_airflow_home(root / "airflow", template_db), **env)
    return Scenario(environ, root, Path(conf["home"]), conf, runs={}, store="")


@pytest.fixture(scope="module")
def embedded(
    sample_crawl: Path, airflow_db_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Scenario:
    """Day 1 through the DAG on the embedded store (no hbase_default connection)."""
    root = tmp_path_factory.mktemp("embedded")
    conf = {"input_root": str(sample_crawl), "home": str(root / "home"), "topics_library": LIBRARY}
    # A cache of its own: its dedup driver finds no class archive, so it writes one.
    s = new_scenario(root, airflow_db_template, conf, XDG_CACHE_HOME=str(root / "cache"))
    s.run_stages(DAYS[0])
    return s


@pytest.fixture(scope="module")
def embedded_two_days(embedded: Scenario) -> Scenario:
    """The same home, day 2 on top of day 1."""
    if DAYS[1] not in embedded.runs:
        embedded.run_stages(DAYS[1])
    return embedded


@pytest.fixture(scope="module")
def on_hbase(
    hbase: str,
    sample_crawl: Path,
    airflow_db_template: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    root = tmp_path_factory.mktemp("hbase")
    prefix = unique_prefix("af")
    # The store comes from the hbase_default connection through HBaseHook; the folder is
    # ready as soon as it has data files.
    connection = {
        "conn_type": "hbase",
        "host": HBASE_HOST,
        "port": HBASE_PORT,
        "extra": {"table_prefix": prefix, "timeout_ms": 60000, "retries": 5},
    }
    conf = {
        "input_root": str(sample_crawl),
        "home": str(root / "home"),
        "wait_for": "data_files",
        "topics_library": LIBRARY,
    }
    s = new_scenario(
        root, airflow_db_template, conf, AIRFLOW_CONN_HBASE_DEFAULT=json.dumps(connection)
    )
    try:
        for day in DAYS:
            s.run_stages(day)
        yield s
    finally:
        drop_prefix(prefix)


def check_days(s: Scenario, sample: Path) -> None:
    """Every document has one verdict, every task succeeded, the report's counts add up;
    with two days, day 2 has duplicates of day-1 documents."""
    truth = load_truth(sample / "truth.jsonl")
    for day in s.runs:
        run = s.runs[day]
        assert run.tasks == TASK_STATES, run.brief()
        stages = run.xcom["dedup.return_value"]
        assert list(stages) == DEDUP_STAGES, stages
        assert all(st["seconds"] is not None and st["summary"] for st in stages.values())
        found = s.verdicts[day]
        assert set(found) == {i for i, t in truth.items() if t.day == day}
        assert all(v["verdict"] in ("unique", "duplicate") for v in found.values())
        # The report task's XCom counts are the day's verdicts.
        counts = run.xcom["report.counts"]
        assert run.xcom["report.return_value"] == counts
        dups = [v for v in found.values() if v["verdict"] == "duplicate"]
        by_rule: dict[str, int] = {}
        for v in dups:
            by_rule[v["rule"]] = by_rule.get(v["rule"], 0) + 1
        assert counts["day"] == day
        assert counts["documents"] == len(found)
        assert counts["duplicates_total"] == len(dups)
        assert counts["unique"] == len(found) - len(dups)
        assert counts["duplicates"] == by_rule
        assert counts["store"] == s.store
        # The parameters the day was committed with, from the store (the config's defaults).
        assert (counts["profile"], counts["rules"]) == ("shingles", list(DEFAULT_RULES))
        assert run.xcom["commit.return_value"]["config_digest"] == counts["config_digest"]
        # Which run published it: this run's token (run id @ its sensor's resolution).
        resolved_at = run.xcom["wait_for_crawl.return_value"]["resolved_at"]
        assert counts["published_by"].endswith(f"@{resolved_at}"), counts["published_by"]
        assert run.xcom["commit.return_value"]["run"] == counts["published_by"]
        # The committed day is an event of the verdicts Asset (docs/operations.md), for the
        # DAGs scheduled on it; its extra names the day and the store.
        events = run.raw["asset_events"]
        assert [(e["asset"], e["task"]) for e in events] == [("crawldedup_verdicts", "commit")]
        extra = events[0]["extra"]
        assert (extra["crawl_date"], extra["store"]) == (day, s.store)
        assert extra["published_with"] == run.xcom["commit.return_value"]
        # The relevance task scored every document of the day against the three topics.
        with open_store(s.store) as store:
            scored = sum(1 for _ in store.scan_prefix("rel_scores", f"{day}|", keys_only=True))
        assert scored == 3 * counts["documents"]
    if len(s.runs) == 1:
        return
    day1 = set(s.verdicts[DAYS[0]])
    cross_day = [v for v in s.verdicts[DAYS[1]].values() if v["duplicate_of"] in day1]
    assert cross_day, "no day-2 duplicate points at a day-1 document"
    assert s.runs[DAYS[1]].xcom["report.counts"]["trailing_days"] == 1


def test_one_day_on_the_embedded_store(embedded: Scenario, sample_crawl: Path) -> None:
    assert embedded.store == f"sqlite:///{embedded.home.resolve() / 'store.db'}"
    assert embedded.runs[DAYS[0]].xcom["wait_for_crawl.return_value"]["store_source"] == (
        "the embedded default under home"
    )
    check_days(embedded, sample_crawl)
    # The report task wrote the day's HTML page and said where.
    page = Path(embedded.runs[DAYS[0]].xcom["report.report_html"])
    assert page == embedded.home / "reports" / f"dt={DAYS[0]}" / "index.html"
    assert (
        "<svg" in page.read_text() and str(page) in (embedded.root / f"{DAYS[0]}.log").read_text()
    )
    print({d: r.wall_seconds for d, r in embedded.runs.items()})


def test_the_dedup_tasks_driver_writes_the_class_archive_as_the_cli_does(
    embedded: Scenario,
) -> None:
    """The dedup task's spark-submit got the shipped configuration and the archive's
    options (crawldedup_airflow.tasks.shipped_submit_settings), and its application wrote
    the archive once the day was done, as ``crawldedup run`` does
    (tests/spark/test_class_archive.py: a later driver starts from it)."""
    folder = embedded.root / "cache" / "crawldedup" / "jvm"
    (archive,) = folder.glob("driver-*.jsa")
    assert archive.stat().st_size > 10_000_000
    assert not list(folder.glob("*.failed")) and not list(folder.glob("*.lock"))


@pytest.mark.exhaustive
def test_second_day_on_the_embedded_store(embedded_two_days: Scenario, sample_crawl: Path) -> None:
    check_days(embedded_two_days, sample_crawl)
    print({d: r.wall_seconds for d, r in embedded_two_days.runs.items()})


@pytest.mark.exhaustive
@pytest.mark.hbase
def test_two_days_on_hbase_through_the_connection(on_hbase: Scenario, sample_crawl: Path) -> None:
    resolved = on_hbase.runs[DAYS[0]].xcom["wait_for_crawl.return_value"]
    assert resolved["store_source"] == "connection hbase_default"
    assert on_hbase.store.startswith(f"hbase://{HBASE_HOST}:{HBASE_PORT}/taf")
    assert "retries=5" in on_hbase.store
    check_days(on_hbase, sample_crawl)
    print({d: r.wall_seconds for d, r in on_hbase.runs.items()})


# Before the rerun test below, which replaces day 1 of the same ``embedded`` home with
# another configuration (make test-all runs both).
def test_the_topic_library_day_is_the_same_through_the_cli_and_the_dag(
    embedded: Scenario, sample_crawl: Path, tmp_path: Path
) -> None:
    config = tmp_path / "library.toml"
    config.write_text(CONFIGS["topic library"])
    cli = _cli_day(tmp_path, sample_crawl, config, ONE_ROAD_DAY)
    dag = (embedded.home, embedded.store, embedded.runs[ONE_ROAD_DAY])
    _compare(ONE_ROAD_DAY, dag, cli, failing=False)


@pytest.mark.exhaustive
def test_rerun_of_the_first_day_with_another_config_replaces_that_day_only(
    embedded_two_days: Scenario,
) -> None:
    embedded = embedded_two_days
    before = dict(embedded.verdicts)
    # A manual run with a logical date on the day (crawl_date confirms it); the config
    # param names a file that selects the cosine profile and its threshold.
    config = embedded.root / "seed-profile.toml"
    config.write_text('[cascade]\nprofile = "seed"\n\n[seed]\nthreshold = 0.999\n')
    conf = {**embedded.conf, "crawl_date": DAYS[0], "config": str(config)}
    on_the_day = f"{DAYS[0]}T12:00:00+00:00"
    rerun = run_dag(embedded.env, embedded.root / "rerun.log", logical_date=on_the_day, conf=conf)
    assert rerun.state == "success", rerun.brief()
    print({"rerun": rerun.wall_seconds})
    counts = rerun.xcom["report.counts"]
    assert (counts["day"], counts["profile"], counts["threshold"]) == (DAYS[0], "seed", 0.999)

    after = {d: verdicts(d, embedded.home, embedded.store) for d in DAYS}
    assert after[DAYS[1]] == before[DAYS[1]], "a rerun of day 1 must not touch day 2"
    assert set(after[DAYS[0]]) == set(before[DAYS[0]])  # still one verdict per document
    dups_before = sum(v["verdict"] == "duplicate" for v in before[DAYS[0]].values())
    dups_after = [v for v in after[DAYS[0]].values() if v["verdict"] == "duplicate"]
    assert len(dups_after) <= dups_before
    assert counts["duplicates_total"] == len(dups_after)
    # Only exact copies, or near copies above the new threshold, are duplicates now.
    for v in dups_after:
        assert v["measure"] == "exact" or (v["measure"], v["similarity"] > 0.999) == (
            "cosine",
            True,
        ), v


@pytest.mark.exhaustive
def test_quality_gate_fails_loudly_on_a_day_without_documents(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    crawl = tmp_path / "crawl"
    empty = crawl / "dt=2026-11-05"
    empty.mkdir(parents=True)
    (empty / "_SUCCESS").touch()  # the crawler finished, and wrote nothing
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    conf = {"input_root": str(crawl), "home": str(tmp_path / "home"), "topics_library": LIBRARY}
    # Every stage runs for real: after fingerprint counts 0 documents the others have
    # nothing to judge and start no Spark job.
    run = run_dag(env, tmp_path / "empty.log", logical_date=logical("2026-11-05"), conf=conf)
    assert run.state == "failed", run.brief()
    assert run.tasks["dedup"] == "success" and run.tasks["report"] == "failed"
    assert run.xcom["report.counts"]["documents"] == 0  # pushed before the gate failed
    assert "AirflowFailException: data-quality gate failed: 2026-11-05: no input documents" in (
        run.output
    ), run.brief()
    # The day is committed; relevance, after the report, waits until the day is accepted
    # (mark report success), and the run fails at its leaf.
    assert run.tasks["commit"] == "success" and run.tasks["relevance"] == "upstream_failed"

    # Days run in order: the next day fails at once, saying which run to fix.
    nxt = run_dag(env, tmp_path / "next.log", logical_date=logical("2026-11-06"), conf=conf)
    assert nxt.state == "failed", nxt.brief()
    assert nxt.tasks["wait_for_crawl"] == "failed"
    assert nxt.tasks["dedup"] == "upstream_failed"
    assert "the previous run" in nxt.output and "(logical date 2026-11-05) failed" in nxt.output


@pytest.mark.hbase
def test_hbase_hook_builds_and_opens_the_store_from_the_connection(
    hbase: str, tmp_path: Path
) -> None:
    prefix = unique_prefix("hook")
    connection = {
        "conn_type": "hbase",
        "host": HBASE_HOST,
        "port": HBASE_PORT,
        "extra": {"table_prefix": prefix, "retries": 2},
    }
    env = airflow_env(tmp_path / "airflow", AIRFLOW_CONN_HBASE_DEFAULT=json.dumps(connection))
    code = """
import json
import airflow  # noqa: F401  (configures Airflow, which puts the plugins folder on sys.path)
from crawldedup_airflow.hooks import HBaseHook, resolve_store
hook = HBaseHook()
ok, message = hook.test_connection()
with hook.get_conn() as store:
    store.put("days", {"2026-01-01": {"r:report": b"{}"}})
    got = store.get("days", ["2026-01-01"])["2026-01-01"]["r:report"].decode()
print("RESULT " + json.dumps({
    "url": hook.store_url(), "ok": ok, "message": message, "got": got,
    "default": resolve_store("", "/srv/h"),
    "param": resolve_store("sqlite:////x/store.db", "/srv/h"),
    "missing": resolve_store("", "/srv/h", conn_id="hbase_missing"),
}))
"""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
        )
        lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        assert lines, proc.stdout[-3000:] + proc.stderr[-3000:]
        out = json.loads(lines[-1][len("RESULT ") :])
    finally:
        drop_prefix(prefix)
    url = f"hbase://{HBASE_HOST}:{HBASE_PORT}/{prefix}?retries=2"
    assert out["url"] == url
    assert out["ok"], out["message"]
    assert out["got"] == "{}"
    assert out["default"] == [url, "connection hbase_default"]
    assert out["param"] == ["sqlite:////x/store.db", "the store param"]
    assert out["missing"] == ["sqlite:////srv/h/store.db", "the embedded default under home"]


# Allowed roots (crawldedup_airflow.allowed_paths): the first task refuses a path param
# outside CRAWLDEDUP_ALLOWED_ROOTS, and a free store URL unless the deployment allows it,
# before it waits or touches anything. Only wait_for_crawl runs for real here.
AFTER_THE_SENSOR = "(?!wait_for_crawl$).*"


def one_ready_day(crawl: Path, day: str) -> Path:
    """A crawl folder with one finished day (a record and the _SUCCESS marker)."""
    folder = crawl / f"dt={day}"
    folder.mkdir(parents=True)
    record = {"id": "a", "url": "https://example.com/a", "html": "<p>a page</p>"}
    (folder / "part-0.jsonl").write_text(json.dumps(record) + "\n")
    (folder / "_SUCCESS").touch()
    return folder


def assert_refused_by_the_first_task(run: DagRunResult, line: str) -> None:
    assert run.state == "failed", run.brief()
    assert run.tasks["wait_for_crawl"] == "failed", run.brief()
    assert "success" not in {s for t, s in run.tasks.items() if t != "wait_for_crawl"}, run.tasks
    assert f"AirflowFailException: {line}" in run.output, run.brief()
    assert "up_for_retry" not in run.output  # failed at once: bad params stay bad
    assert "wait_for_crawl.return_value" not in run.xcom  # nothing for later tasks


def test_an_input_root_outside_the_allowed_roots_fails_the_first_task(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    crawl = tmp_path / "crawl"
    one_ready_day(crawl, "2026-11-01")
    env = airflow_env(
        new_airflow_home(tmp_path / "airflow", airflow_db_template),
        CRAWLDEDUP_ALLOWED_ROOTS=str(allowed),
    )
    escape = f"{allowed}/../crawl"  # a ready day, but `..` leaves the root
    conf = {"input_root": escape, "home": str(allowed / "home")}
    run = run_dag(env, tmp_path / "refused.log", logical_date=logical("2026-11-01"), conf=conf)
    assert_refused_by_the_first_task(
        run,
        f"input_root param {escape!r} resolves to {crawl.resolve()}, outside the allowed "
        f"roots [{allowed.resolve()}] (CRAWLDEDUP_ALLOWED_ROOTS)",
    )
    # Nothing was written.
    assert not (allowed / "home").exists()
    assert list(allowed.iterdir()) == []


@pytest.mark.exhaustive  # make test-all: one more Airflow process (about 20 s)
def test_a_conf_key_that_is_no_param_is_refused_by_the_first_task(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    """Airflow lets unknown conf keys through to the params; a removed param (the old
    threshold, which did nothing under the default profile) must not be ignored silently."""
    crawl = tmp_path / "crawl"
    one_ready_day(crawl, "2026-11-01")
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    conf = {"input_root": str(crawl), "home": str(tmp_path / "home"), "threshold": 0.85}
    run = run_dag(env, tmp_path / "refused.log", logical_date=logical("2026-11-01"), conf=conf)
    assert_refused_by_the_first_task(run, "unknown param(s) threshold in the run's conf")
    assert not (tmp_path / "home").exists()


@pytest.mark.exhaustive  # make test-all: one more Airflow process (about 20 s)
def test_a_crawl_date_other_than_the_logical_dates_day_is_refused_by_the_first_task(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    """The run id names the logical date's day: a crawl_date naming another day would make
    the run process a day its id does not name."""
    crawl = tmp_path / "crawl"
    one_ready_day(crawl, "2026-11-01")
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    conf = {"input_root": str(crawl), "home": str(tmp_path / "home"), "crawl_date": "2026-11-01"}
    run = run_dag(env, tmp_path / "refused.log", logical_date=logical("2026-11-02"), conf=conf)
    assert_refused_by_the_first_task(
        run, "crawl_date param 2026-11-01 is not this run's crawl day 2026-11-02"
    )
    assert not (tmp_path / "home").exists()


def test_a_store_url_param_is_refused_unless_the_deployment_allows_it(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    crawl = tmp_path / "crawl"
    one_ready_day(crawl, "2026-11-01")
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    url = "hbase://any-host:9090/x"
    conf = {"input_root": str(crawl), "home": str(tmp_path / "home"), "store": url}
    run = run_dag(env, tmp_path / "refused.log", logical_date=logical("2026-11-01"), conf=conf)
    assert_refused_by_the_first_task(
        run,
        f"store param {url!r} refused: this deployment takes the store from a connection, "
        "not a URL (CRAWLDEDUP_ALLOW_STORE_URL is not true)",
    )
    assert not (tmp_path / "home").exists()


def test_a_config_files_embedded_store_outside_the_roots_is_refused(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    """The config file (under the roots) names an embedded store outside them: the first
    task fails with one line naming the file, and nothing is written."""
    crawl = tmp_path / "crawl"
    one_ready_day(crawl, "2026-11-01")
    outside = "sqlite:////var/tmp/crawldedup-config-elsewhere.db"
    config = tmp_path / "crawldedup.toml"
    config.write_text(f'store_url = "{outside}"\n')
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    conf = {"input_root": str(crawl), "home": str(tmp_path / "home"), "config": str(config)}
    run = run_dag(env, tmp_path / "refused.log", logical_date=logical("2026-11-01"), conf=conf)
    assert_refused_by_the_first_task(
        run,
        f"config file {config.resolve()}: store_url {outside!r} resolves to "
        "/var/tmp/crawldedup-config-elsewhere.db, outside the allowed roots",
    )
    assert not Path("/var/tmp/crawldedup-config-elsewhere.db").exists()


@pytest.mark.exhaustive
def test_the_store_from_store_conn_id_or_an_allowed_url_reaches_the_later_tasks(
    airflow_db_template: Path, tmp_path: Path
) -> None:
    """What the sensor hands on: the connection's URL (store_conn_id), or a URL where the
    deployment allows one (an embedded one only under the roots)."""
    crawl = tmp_path / "crawl"
    folder = one_ready_day(crawl, "2026-11-01")
    (tmp_path / "stores").mkdir()
    config = tmp_path / "conf" / "crawldedup.toml"
    config.parent.mkdir()
    config.write_text("[gate]\ntrailing_days = 3\n")
    backup = {"conn_type": "hbase", "host": "10.9.9.9", "port": 9091, "extra": {"retries": 2}}
    env = airflow_env(
        new_airflow_home(tmp_path / "airflow", airflow_db_template),
        AIRFLOW_CONN_HBASE_BACKUP=json.dumps(backup),
        CRAWLDEDUP_ALLOW_STORE_URL="true",
    )
    # Not opening the store: no HBase behind 10.9.9.9 (the previous-day check would).
    conf = {
        "input_root": f"{crawl}/",
        "home": str(tmp_path / "home"),
        "require_previous_day": False,
        "config": f"{config.parent}/../conf/crawldedup.toml",
    }
    by_conn = run_dag(
        env,
        tmp_path / "conn.log",
        logical_date=logical("2026-11-01"),
        conf={**conf, "store_conn_id": "hbase_backup"},
        mark_success=AFTER_THE_SENSOR,
    )
    assert by_conn.tasks["wait_for_crawl"] == "success", by_conn.brief()
    resolved = dict(by_conn.xcom["wait_for_crawl.return_value"])
    resolved_at = resolved.pop("resolved_at")  # when the sensor resolved it (in the token)
    # The command line's day arguments of the commit and report tasks: the same store.
    args = resolved.pop("stage_args")
    assert args["store"] == "hbase://10.9.9.9:9091/crawldedup?retries=2"
    assert args["config"] == str(config.resolve())
    assert args["run_id"].endswith(f"@{resolved_at}")
    assert resolved == {
        "crawl_date": "2026-11-01",
        "input": str(folder.resolve()),
        "home": str((tmp_path / "home").resolve()),
        "store": "hbase://10.9.9.9:9091/crawldedup?retries=2",
        "store_source": "connection hbase_backup (the store_conn_id param)",
        "topics_library": None,
        "config": str(config.resolve()),
    }

    sqlite = f"sqlite://{tmp_path}/stores/../stores/day.db"
    by_url = run_dag(
        env,
        tmp_path / "url.log",
        logical_date="2026-11-01T12:00:00+00:00",
        conf={**conf, "crawl_date": "2026-11-01", "store": sqlite},
        mark_success=AFTER_THE_SENSOR,
    )
    assert by_url.tasks["wait_for_crawl"] == "success", by_url.brief()
    resolved = by_url.xcom["wait_for_crawl.return_value"]
    assert resolved["store"] == f"sqlite://{(tmp_path / 'stores' / 'day.db').resolve()}"
    assert resolved["store_source"] == "the store param"

    outside = "sqlite:////var/tmp/crawldedup-elsewhere.db"
    refused = run_dag(
        env,
        tmp_path / "outside.log",
        logical_date="2026-11-01T13:00:00+00:00",
        conf={**conf, "crawl_date": "2026-11-01", "store": outside},
    )
    assert_refused_by_the_first_task(
        refused, f"store param {outside!r} resolves to /var/tmp/crawldedup-elsewhere.db, outside"
    )


def test_store_conn_id_must_name_an_hbase_connection(tmp_path: Path) -> None:
    backup = {"conn_type": "hbase", "host": "10.9.9.9", "extra": {"table_prefix": "bk"}}
    env = airflow_env(tmp_path / "airflow", AIRFLOW_CONN_HBASE_BACKUP=json.dumps(backup))
    code = """
import json
import airflow  # noqa: F401  (configures Airflow, which puts the plugins folder on sys.path)
from crawldedup_airflow.hooks import resolve_store
from crawldedup_airflow.stores import StoreSetupError
out = {"backup": resolve_store(None, "/srv/h", store_conn_id="hbase_backup")}
for name in ("hbase_missing", "spark_default"):
    try:
        out[name] = resolve_store(None, "/srv/h", store_conn_id=name)
    except StoreSetupError as exc:
        out[name] = str(exc)
print("RESULT " + json.dumps(out))
"""
    out = run_child(code, env)
    assert out["backup"] == [
        "hbase://10.9.9.9:9090/bk",
        "connection hbase_backup (the store_conn_id param)",
    ]
    assert out["hbase_missing"].startswith("store_conn_id param 'hbase_missing': no such ")
    assert out["spark_default"] == (
        "store_conn_id param 'spark_default': connection type is 'spark', not 'hbase' (the "
        "crawldedup store)"
    )


@pytest.mark.exhaustive
def test_a_rerun_through_the_dag_equals_a_fresh_run(
    sample_crawl: Path, airflow_db_template: Path, tmp_path: Path
) -> None:
    """Days 1-2 with the defaults (the CLI, ``--through``), then day 2 rerun through the
    DAG with a config file of two rules: the store, verdicts, groups, reports and
    ``explain`` equal day 1 with the defaults and day 2 with the file, run fresh
    (docs/store.md#reruns)."""
    from crawldedup.config import load_config
    from tests.cli_helpers import cli
    from tests.rerun_equality import (
        differences,
        published_state,
        unique_lines_with_duplicate_fields,
    )

    two_rules = tmp_path / "two-rules.toml"
    two_rules.write_text('[cascade]\nrules = ["content_md5", "head"]\n')
    rerun, fresh = tmp_path / "rerun", tmp_path / "fresh"

    def day_input(day: str) -> str:
        return str(sample_crawl / f"dt={day}")

    cli("run", "--date", DAYS[0], "--input", day_input(DAYS[0]), "--through", DAYS[1], home=rerun)
    conf = {"input_root": str(sample_crawl), "home": str(rerun), "config": str(two_rules)}
    s = new_scenario(tmp_path / "dag", airflow_db_template, conf)
    run = run_dag(
        s.env,
        tmp_path / "rerun.log",
        logical_date=f"{DAYS[1]}T12:00:00+00:00",
        conf={**conf, "crawl_date": DAYS[1]},
    )
    assert run.state == "success", run.brief()
    cli("run", "--date", DAYS[0], "--input", day_input(DAYS[0]), home=fresh)
    cli("run", "--date", DAYS[1], "--input", day_input(DAYS[1]), "--config", str(two_rules),
        home=fresh)  # fmt: skip
    cfg = load_config(two_rules)
    a, b = (published_state(f"sqlite:///{h / 'store.db'}", h, DAYS, cfg) for h in (rerun, fresh))
    assert not unique_lines_with_duplicate_fields(f"sqlite:///{rerun / 'store.db'}", DAYS[1])
    diff = differences(a, b)
    assert not diff, "\n".join(diff[:30])


# One road for a day: the same sample day through ``crawldedup run`` and through the real
# DAG gives the same verdicts, report counts and gate outcome, for the default
# configuration, the seed profile, a topic library, the tag-weighted cosine, and a gate
# the day fails (docs/operations.md#airflow). make test compares the topic-library
# configuration against the DAG day of the ``embedded`` fixture (the library as the
# ``topics_library`` param there, as the config file's ``relevance.library`` here).

ONE_ROAD_DAY = DAYS[0]
CONFIGS = {
    "default": "",
    "seed": '[cascade]\nprofile = "seed"\n',
    "topic library": f'[relevance]\nlibrary = "{LIBRARY}"\n',
    "tag_tfidf": f'[relevance]\nlibrary = "{LIBRARY}"\n\n[cascade]\ncosine_weights = "tag_tfidf"\n',
    # A limit the sample day's 5 quarantined records of 116 exceed: both roads refuse it.
    "failing gate": "[gate]\nmax_quarantined_share = 0.01\n",
}


def _report(store: str, day: str) -> dict[str, Any]:
    import json

    with open_store(store) as s:
        report = json.loads(s.get("days", [day])[day]["r:report"])
    for f in (*RUN_FIELDS, "config"):  # config: compared as the digest below
        report.pop(f, None)
    return report


def _cli_day(tmp: Path, sample: Path, config: Path, day: str) -> tuple[int, str, Path]:
    home = tmp / "cli-home"
    proc = cli_env(
        {"CRAWLDEDUP_CONFIG": str(config)},
        "run", "--date", day, "--input", str(sample / f"dt={day}"),
        home=home,
    )  # fmt: skip
    return proc.returncode, proc.stderr, home


def _compare(
    day: str, dag: tuple[Path, str, Any], cli: tuple[int, str, Path], failing: bool
) -> None:
    dag_home, dag_store, dag_run = dag
    code, stderr, cli_home = cli
    cli_store = f"sqlite:///{cli_home / 'store.db'}"
    assert verdicts(day, cli_home) == verdicts(day, dag_home, dag_store)
    assert _report(cli_store, day) == _report(dag_store, day)
    with open_store(cli_store) as a, open_store(dag_store) as b:
        digest = [json_cell(s, day, "r:published")["config_digest"] for s in (a, b)]
    assert digest[0] == digest[1]
    if failing:
        assert code == 3, stderr[-2000:]
        line = stderr.strip().splitlines()[-1].removeprefix("crawldedup: ")
        assert dag_run.tasks["report"] == "failed", dag_run.brief()
        assert f"AirflowFailException: {line}" in dag_run.output, (line, dag_run.brief())
    else:
        assert code == 0, stderr[-2000:]
        assert dag_run.state == "success", dag_run.brief()


def json_cell(store: Any, day: str, column: str) -> dict[str, Any]:
    import json

    return dict(json.loads(store.get("days", [day])[day][column]))


@pytest.mark.exhaustive  # a DAG day and a CLI day each (about 90 s)
@pytest.mark.parametrize("name", ["default", "seed", "tag_tfidf", "failing gate"])
def test_a_day_is_the_same_through_the_cli_and_the_dag(
    name: str, sample_crawl: Path, airflow_db_template: Path, tmp_path: Path
) -> None:
    # The gate case on the sample's second day, whose 5 of 116 records are quarantined
    # (its store starts there: no earlier day to wait for).
    day = DAYS[1] if name == "failing gate" else ONE_ROAD_DAY
    config = tmp_path / "crawldedup.toml"
    config.write_text(CONFIGS[name])
    dag_home = tmp_path / "dag-home"
    conf = {"input_root": str(sample_crawl), "home": str(dag_home), "config": str(config)}
    s = new_scenario(tmp_path / "dag", airflow_db_template, conf)
    run = run_dag(s.env, tmp_path / "dag.log", logical_date=logical(day), conf=conf)
    dag_store = f"sqlite:///{dag_home.resolve() / 'store.db'}"
    cli = _cli_day(tmp_path, sample_crawl, config, day)
    _compare(day, (dag_home, dag_store, run), cli, failing=name == "failing gate")


@pytest.mark.exhaustive  # a DAG day and a CLI day on HBase (about 100 s)
@pytest.mark.hbase
def test_a_config_file_naming_the_store_is_honoured_by_both_roads(
    hbase: str, sample_crawl: Path, airflow_db_template: Path, tmp_path: Path
) -> None:
    """docs/operations.md#which-store: no store param, no store_conn_id, no hbase_default:
    the config file's store_url is the store, for the DAG as for ``crawldedup run``."""
    prefixes = {road: unique_prefix(f"cf{road[0]}") for road in ("dag", "cli")}
    try:
        configs = {}
        for road, prefix in prefixes.items():
            configs[road] = tmp_path / f"{road}.toml"
            configs[road].write_text(f'store_url = "hbase://{HBASE_HOST}:{HBASE_PORT}/{prefix}"\n')
        conf = {
            "input_root": str(sample_crawl),
            "home": str(tmp_path / "dag-home"),
            "config": str(configs["dag"]),
        }
        s = new_scenario(tmp_path / "dag", airflow_db_template, conf)
        run = run_dag(s.env, tmp_path / "dag.log", logical_date=logical(DAYS[0]), conf=conf)
        assert run.state == "success", run.brief()
        resolved = run.xcom["wait_for_crawl.return_value"]
        assert resolved["store_source"] == "the config file's store_url"
        assert resolved["store"] == f"hbase://{HBASE_HOST}:{HBASE_PORT}/{prefixes['dag']}"
        # Every task's first line names the store and why.
        assert f"store {resolved['store']} (from the config file's store_url)" in run.output
        assert not (tmp_path / "dag-home" / "store.db").exists()
        proc = cli_env(
            {"CRAWLDEDUP_CONFIG": str(configs["cli"])},
            "run", "--date", DAYS[0], "--input", str(sample_crawl / f"dt={DAYS[0]}"),
            home=tmp_path / "cli-home",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert not (tmp_path / "cli-home" / "store.db").exists()
        urls = {r: f"hbase://{HBASE_HOST}:{HBASE_PORT}/{p}" for r, p in prefixes.items()}
        on_dag = verdicts(DAYS[0], tmp_path / "dag-home", urls["dag"])
        assert on_dag and on_dag == verdicts(DAYS[0], tmp_path / "cli-home", urls["cli"])
    finally:
        for prefix in prefixes.values():
            drop_prefix(prefix)
