"""The ``crawldedup`` Airflow plugin: the DAG's timetable and the run-note listener.

Airflow loads it from the plugins folder (``[core] plugins_folder``, the repo's
``plugins/``); ``plugins/.airflowignore`` keeps the plugin loader out of the
``crawldedup_airflow`` package, which the DAG imports as a normal package.

- ``CrawlDayTimetable``: custom timetables must be registered by a plugin so that the
  scheduler and the API server can deserialize the DAG.
- ``crawldedup_airflow.listeners``: a run's note names its crawl day.
- ``crawldedup_airflow.report_pages``: the API server's route behind the report task's
  "Day report" link (``/crawldedup/reports/<dag id>/<run id>``, signed-in users who may
  read the DAG's task instances).

The ``hbase`` connection type is not here: Airflow registers connection types from
providers only, see ``crawldedup_airflow.provider`` (a pyproject entry point).
"""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin

from crawldedup_airflow import listeners
from crawldedup_airflow.report_link import URL_PREFIX
from crawldedup_airflow.report_pages import LazyReportPages
from crawldedup_airflow.timetable import CrawlDayTimetable


class CrawlDedupPlugin(AirflowPlugin):
    name = "crawldedup"
    timetables = [CrawlDayTimetable]  # noqa: RUF012 (AirflowPlugin's declared interface)
    listeners = [listeners]  # noqa: RUF012
    fastapi_apps = [  # noqa: RUF012
        {"app": LazyReportPages(), "url_prefix": URL_PREFIX, "name": "crawldedup day reports"}
    ]
