"""Run ``crawl_dedup_daily`` once with ``dag.test()`` and print what happened as JSON.

Run as a script, in a fresh process whose environment (AIRFLOW_HOME, dags and plugins
folders, connections) the test set up before Airflow is imported: Airflow reads its
configuration once per process, so each scenario gets its own process.

    python dag_run.py --logical-date 2026-11-01T03:00:00+00:00 [--conf JSON] [--mark-success RE]

The last line of stdout is ``RESULT {"state": ..., "tasks": {...}, "xcom": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from typing import Any

DAG_ID = "crawl_dedup_daily"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--logical-date", type=datetime.fromisoformat, default=None)
    p.add_argument("--conf", type=json.loads, default=None)
    p.add_argument("--mark-success", default=None)
    args = p.parse_args()

    from airflow.dag_processing.dagbag import DagBag
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    bag = DagBag()
    if bag.import_errors:
        print(f"RESULT {json.dumps({'import_errors': bag.import_errors})}")
        return 1
    dag = bag.dags[DAG_ID]
    t0 = time.perf_counter()
    dr = dag.test(
        logical_date=args.logical_date,
        run_conf=args.conf,
        mark_success_pattern=args.mark_success,
    )
    seconds = round(time.perf_counter() - t0, 1)

    result: dict[str, Any] = {"state": str(dr.state), "run_id": dr.run_id, "seconds": seconds}
    with create_session() as session:
        tis = dr.get_task_instances(session=session)
        result["tasks"] = {ti.task_id: str(ti.state) for ti in tis}
        rows = session.scalars(
            select(XComModel).where(XComModel.dag_id == DAG_ID, XComModel.run_id == dr.run_id)
        ).all()
        result["xcom"] = {
            f"{row.task_id}.{row.key}": XComModel.deserialize_value(row) for row in rows
        }
        # The Asset events the run emitted (the commit task's outlet).
        from airflow.models.asset import AssetEvent

        events = session.scalars(
            select(AssetEvent).where(
                AssetEvent.source_dag_id == DAG_ID, AssetEvent.source_run_id == dr.run_id
            )
        ).all()
        result["asset_events"] = [
            {"asset": e.asset.name, "task": e.source_task_id, "extra": e.extra} for e in events
        ]
    print(f"RESULT {json.dumps(result, default=str)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
