"""The report task's extra link "Day report": the day's HTML page, opened from the task in
the Airflow UI.

Airflow 3 computes an operator's extra links when the task finishes, in the task's own
process, and keeps each URL in the task's XCom (``_link_DayReportLink``); the UI shows a
button per link on the task instance. The report task pushes the page's path
(``report_html``, written by the report stage); the link names the API server's route that
serves it (:mod:`crawldedup_airflow.report_pages`, mounted by the ``crawldedup`` plugin at
:data:`URL_PREFIX`): ``{[api] base_url}/crawldedup/reports/<dag id>/<run id>``. Without a
page (a dry run, a report that failed before writing it) the link is empty and the UI shows
the button disabled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from airflow.sdk import BaseOperatorLink

if TYPE_CHECKING:
    from airflow.sdk.types import TaskInstanceKey

URL_PREFIX = "/crawldedup"
"""Where the plugin mounts its routes on the API server."""

PAGE_XCOM_KEY = "report_html"
"""The report task's XCom that holds the day's page (a path on the workers)."""


def report_page_route(dag_id: str, run_id: str) -> str:
    """The path, under the API server's base URL, that serves a run's day report."""
    return f"{URL_PREFIX}/reports/{quote(dag_id, safe='')}/{quote(run_id, safe='')}"


class DayReportLink(BaseOperatorLink):
    """The day's HTML report, served by the API server to whoever may read the DAG's task
    instances."""

    name = "Day report"

    def get_link(self, operator: Any, *, ti_key: TaskInstanceKey) -> str:
        from airflow.sdk import conf
        from airflow.sdk.execution_time.xcom import XCom

        if not XCom.get_value(ti_key=ti_key, key=PAGE_XCOM_KEY):
            return ""
        base = (conf.get("api", "base_url", fallback="") or "").rstrip("/")
        return base + report_page_route(ti_key.dag_id, ti_key.run_id)
