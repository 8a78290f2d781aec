"""The report task's log says where the day's HTML page is, as a path a person can paste,
and the command that writes it again from the repository (issue 32, point 4).

The day's stages already ran (the shared ``embedded_sample_days``, copied so that this
test writes nothing of theirs); ``dag.test()`` runs only ``wait_for_crawl`` and
``report`` for real, the stages between are marked successful.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import httpx

from tests.airflow.conftest import (
    ROOT,
    VENV_BIN,
    airflow_env,
    api_server_on,
    new_airflow_home,
    run_dag,
)

if TYPE_CHECKING:
    from tests.conftest import EmbeddedDays


def test_the_report_task_logs_the_page_and_a_command_that_works_from_the_repo(
    embedded_sample_days: EmbeddedDays,
    sample_crawl: Path,
    airflow_db_template: Path,
    tmp_path: Path,
) -> None:
    day = embedded_sample_days.days[0]
    home = tmp_path / "home"
    shutil.copytree(embedded_sample_days.home, home)
    env = airflow_env(new_airflow_home(tmp_path / "airflow", airflow_db_template))
    run = run_dag(
        env,
        tmp_path / "report.log",
        logical_date=f"{day}T03:00:00+00:00",
        conf={"input_root": str(sample_crawl), "home": str(home)},
        mark_success="(?!wait_for_crawl$|report$).*",
    )
    assert run.tasks["report"] == "success", run.brief()
    print({"dag.test (wait_for_crawl, report)": run.wall_seconds})
    page = Path(run.xcom["report.report_html"])
    assert page == home.resolve() / "reports" / f"dt={day}" / "index.html"

    # dag.test() prints each event as "<time> [info] <event> [<logger>] loc=...".
    events = re.findall(r"\] (.*) \[crawldedup_airflow\.tasks\]", run.output)
    assert f"HTML report: {page}" in events, events
    # The day was published by `crawldedup run` (the fixture), not by this run, whose
    # dedup and commit were marked done: the report says whose parameters it shows.
    said = [e for e in events if "was last published by" in e]
    assert said and said[0].startswith(
        f"{day} was last published by the command line (crawldedup run), not by this run"
    ), events
    assert run.xcom["report.return_value"]["published_by"] is None
    assert "file://" not in run.output
    (command,) = [e.removeprefix("to write it again: ") for e in events if "write it" in e]
    home_arg = shlex.quote(str(home.resolve()))
    assert command == f"crawldedup report --date {day} --html --home {home_arg}"

    # As a person runs it: from the repository root, the venv's bin on PATH, none of the
    # deployment's CRAWLDEDUP_* settings; it writes the same page again.
    page.unlink()
    person = {k: v for k, v in os.environ.items() if not k.startswith(("CRAWLDEDUP_", "AIRFLOW"))}
    person["PATH"] = f"{VENV_BIN}{os.pathsep}{person.get('PATH', '')}"
    again = subprocess.run(
        shlex.split(command), cwd=ROOT, env=person, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.strip() == str(page)
    assert "<svg" in page.read_text()


def test_the_report_opens_from_the_task_in_the_api_server(
    embedded_sample_days: EmbeddedDays,
    sample_crawl: Path,
    airflow_db_template: Path,
    tmp_path: Path,
) -> None:
    """Issue 46, point 4: the report task's "Day report" link (computed when the task
    ends, kept in its XCom) and the plugin's route on a real API server that serves it to
    a signed-in user only. A dry run writes no page: its link is empty, its route 404s."""
    day = embedded_sample_days.days[0]
    home = tmp_path / "home"
    shutil.copytree(embedded_sample_days.home, home)
    airflow_home = new_airflow_home(tmp_path / "airflow", airflow_db_template)
    base = "http://reports.example:8080"  # [api] base_url: what the link starts with
    env = airflow_env(airflow_home, AIRFLOW__API__BASE_URL=base, AIRFLOW__API__WORKERS="1")
    conf = {"input_root": str(sample_crawl), "home": str(home)}
    only_report = "(?!wait_for_crawl$|report$).*"
    run = run_dag(
        env,
        tmp_path / "report.log",
        logical_date=f"{day}T03:00:00+00:00",
        conf=conf,
        mark_success=only_report,
    )
    dry = run_dag(
        env,
        tmp_path / "dry.log",
        logical_date=f"{day}T09:00:00+00:00",
        conf={**conf, "dry_run": True},
        mark_success=only_report,
    )
    assert run.tasks["report"] == "success", run.brief()
    assert dry.tasks["report"] == "success", dry.brief()
    page = Path(run.xcom["report.report_html"])
    route = f"/crawldedup/reports/crawl_dedup_daily/{quote(run.raw['run_id'], safe='')}"
    assert run.xcom["report._link_DayReportLink"] == base + route
    assert dry.xcom.get("report._link_DayReportLink") == ""

    with api_server_on(airflow_home, env) as api:
        links = f"/api/v2/dags/crawl_dedup_daily/dagRuns/{run.raw['run_id']}/taskInstances"
        got = httpx.get(api.url + links + "/report/links", headers=api.headers, timeout=60)
        assert got.status_code == 200, got.text
        assert got.json()["extra_links"] == {"Day report": base + route}

        served = httpx.get(api.url + route, headers=api.headers, timeout=60)
        assert served.status_code == 200, served.text
        assert served.headers["content-type"].startswith("text/html")
        assert served.content == page.read_bytes()
        # Airflow does not authenticate plugin apps: the route does.
        anonymous = httpx.get(api.url + route, timeout=60)
        assert anonymous.status_code == 401, anonymous.text
        dry_route = route.replace(quote(run.raw["run_id"], safe=""), quote(dry.raw["run_id"]))
        none = httpx.get(api.url + dry_route, headers=api.headers, timeout=60)
        assert none.status_code == 404 and "wrote no HTML page" in none.text, none.text
        page.unlink()
        gone = httpx.get(api.url + route, headers=api.headers, timeout=60)
        assert gone.status_code == 404, gone.text
        assert f"crawldedup report --date {day} --html --home" in gone.json()["detail"]
