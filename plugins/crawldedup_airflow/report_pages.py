"""The API server's route behind the "Day report" link: a run's HTML day report.

Mounted by the ``crawldedup`` plugin (``fastapi_apps``) at
:data:`~crawldedup_airflow.report_link.URL_PREFIX`:

    GET /crawldedup/reports/{dag_id}/{run_id}

Airflow does not authenticate plugin apps, so the route asks what the core API's task
instance routes ask: a signed-in user (the UI's session cookie or a bearer token) who may
read the DAG's task instances; anyone else gets 401/403. It serves one file only: the page
the run's report task pushed (XCom ``report_html``), when that path is a report page
(``.../reports/dt=YYYY-MM-DD/index.html``) under the deployment's allowed roots
(``CRAWLDEDUP_ALLOWED_ROOTS``, :mod:`crawldedup_airflow.allowed_paths`); the request names
no path. The page is the day's, so after a later run published the day again it shows
that run's verdicts and says so ("published by").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from crawldedup_airflow.allowed_paths import AllowedRoots, PathNotAllowedError, check_path
from crawldedup_airflow.report_link import PAGE_XCOM_KEY

if TYPE_CHECKING:
    from fastapi import FastAPI

REPORT_TASK_ID = "report"
_DAY_FOLDER = re.compile(r"dt=\d{4}-\d{2}-\d{2}")


class NotAReportPage(ValueError):
    """The pushed path is not a day report the route may serve."""


def report_page(pushed: Any, roots: AllowedRoots) -> Path:
    """The file to serve for a report task's pushed ``report_html``.

    Raises :class:`NotAReportPage` (one line) when it is not a report page under the
    allowed roots, or when the file is gone."""
    if not isinstance(pushed, str) or not pushed:
        raise NotAReportPage("this run's report task wrote no HTML page (a dry run?)")
    try:
        page = Path(check_path("report page", pushed, roots))
    except PathNotAllowedError as exc:
        raise NotAReportPage(str(exc)) from exc
    if not (
        page.name == "index.html"
        and _DAY_FOLDER.fullmatch(page.parent.name)
        and page.parent.parent.name == "reports"
    ):
        raise NotAReportPage(f"{page} is not a day report (reports/dt=D/index.html)")
    if not page.is_file():
        day = page.parent.name.removeprefix("dt=")
        home = page.parent.parent.parent
        raise NotAReportPage(
            f"{page} is gone; write it again: crawldedup report --date {day} --html --home {home}"
        )
    return page


def create_app() -> FastAPI:
    """The plugin's FastAPI app (imported by the API server only)."""
    from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity
    from airflow.api_fastapi.common.db.common import SessionDep
    from airflow.api_fastapi.core_api.security import requires_access_dag
    from airflow.models.xcom import XComModel
    from fastapi import Depends, FastAPI, HTTPException
    from fastapi.responses import FileResponse
    from sqlalchemy import select

    from crawldedup_airflow.allowed_paths import allowed_roots

    app = FastAPI(title="crawldedup day reports")
    # The core API's session dependency, as a default: this module's annotations are
    # strings that FastAPI resolves in its globals, where SessionDep is not imported.
    session_dep = get_args(SessionDep)[1]

    @app.get(
        "/reports/{dag_id}/{run_id}",
        dependencies=[Depends(requires_access_dag("GET", DagAccessEntity.TASK_INSTANCE))],
    )
    def day_report(dag_id: str, run_id: str, session: Any = session_dep) -> FileResponse:
        row = session.scalar(
            select(XComModel).where(
                XComModel.dag_id == dag_id,
                XComModel.run_id == run_id,
                XComModel.task_id == REPORT_TASK_ID,
                XComModel.key == PAGE_XCOM_KEY,
                XComModel.map_index == -1,
            )
        )
        try:
            pushed = XComModel.deserialize_value(row) if row is not None else None
            page = report_page(pushed, allowed_roots())
        except NotAReportPage as exc:
            raise HTTPException(404, f"{dag_id} {run_id}: {exc}") from exc
        return FileResponse(page, media_type="text/html; charset=utf-8")

    return app


class LazyReportPages:
    """An ASGI app that builds :func:`create_app` on its first request: every Airflow
    component loads the plugin, only the API server serves pages, and the FastAPI and
    auth imports cost about half a second per process."""

    def __init__(self) -> None:
        self._app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._app is None:
            self._app = create_app()
        await self._app(scope, receive, send)
