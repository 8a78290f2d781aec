"""The verdicts Asset's side of a test Airflow, one step per fresh process (as dag_run.py).

    python asset_run.py prepare --unpause DAG_ID   # dags/ into the metadata DB, unpause DAG_ID
    python asset_run.py events --asset NAME        # the Asset's events and the queued DAGs
    python asset_run.py consume --dag-id DAG_ID    # dag.test() of DAG_ID on its queued events

``prepare`` does what ``airflow dags reserialize`` then ``airflow dags unpause`` do: Airflow
queues a DAG scheduled on an Asset only when that DAG is serialized and not paused when
the event is registered. ``consume``: ``dag.test()`` always creates a manual run without
triggering events, so the run it creates gets the events queued for the DAG attached
(``consumed_asset_events``), as the scheduler does when it creates an asset-triggered run
and deletes the queue rows; the task then reads them from its context,
``triggering_asset_events``, served by Airflow's execution API.

The last line of stdout is ``RESULT {json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def prepare(dag_id: str) -> dict[str, Any]:
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import BundleDagBag, sync_bag_to_db
    from airflow.models.dag import DagModel
    from airflow.utils.session import create_session

    manager = DagBundlesManager()
    with create_session() as session:
        manager.sync_bundles_to_db(session=session)
    for bundle in manager.get_all_dag_bundles():
        bundle.initialize()
        bag = BundleDagBag(bundle.path, bundle_path=bundle.path, bundle_name=bundle.name)
        if bag.import_errors:
            return {"import_errors": bag.import_errors}
        sync_bag_to_db(bag, bundle.name, bundle.version)
    with create_session() as session:
        model = session.get(DagModel, dag_id)
        if model is None:
            return {"error": f"{dag_id} not in the metadata DB"}
        paused_on_creation = model.is_paused
        model.is_paused = False
    return {"dag_id": dag_id, "paused_on_creation": paused_on_creation}


def events(asset_name: str) -> dict[str, Any]:
    from airflow.models.asset import AssetDagRunQueue, AssetEvent, AssetModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        asset = session.scalars(select(AssetModel).where(AssetModel.name == asset_name)).one()
        found = session.scalars(
            select(AssetEvent).where(AssetEvent.asset_id == asset.id).order_by(AssetEvent.id)
        ).all()
        queued = session.scalars(
            select(AssetDagRunQueue).where(AssetDagRunQueue.asset_id == asset.id)
        ).all()
        return {
            "uri": asset.uri,
            "consumers": sorted(ref.dag_id for ref in asset.scheduled_dags),
            "events": [
                {
                    "id": e.id,
                    "extra": e.extra,
                    "source": [e.source_dag_id, e.source_task_id, e.source_run_id],
                }
                for e in found
            ],
            "queued_for": sorted(q.target_dag_id for q in queued),
        }


def consume(dag_id: str) -> dict[str, Any]:
    import airflow.models.dagrun as dagrun_module
    from airflow.dag_processing.dagbag import DagBag
    from airflow.models.asset import AssetDagRunQueue, AssetEvent, DagScheduleAssetReference
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import delete, select

    create_run = dagrun_module.get_or_create_dagrun
    attached: list[int] = []

    def with_queued_events(**kwargs: Any) -> Any:
        dr = create_run(**kwargs)
        session = kwargs["session"]
        queued = select(AssetDagRunQueue.asset_id).where(AssetDagRunQueue.target_dag_id == dag_id)
        scheduled_on = select(DagScheduleAssetReference.asset_id).where(
            DagScheduleAssetReference.dag_id == dag_id
        )
        found = session.scalars(
            select(AssetEvent)
            .where(AssetEvent.asset_id.in_(queued), AssetEvent.asset_id.in_(scheduled_on))
            .order_by(AssetEvent.timestamp, AssetEvent.id)
        ).all()
        dr.consumed_asset_events.extend(found)
        session.execute(delete(AssetDagRunQueue).where(AssetDagRunQueue.target_dag_id == dag_id))
        session.commit()
        attached.extend(e.id for e in found)
        return dr

    dagrun_module.get_or_create_dagrun = with_queued_events
    bag = DagBag()
    if bag.import_errors:
        return {"import_errors": bag.import_errors}
    dr = bag.dags[dag_id].test(logical_date=None)
    result: dict[str, Any] = {"state": str(dr.state), "run_id": dr.run_id, "events": attached}
    with create_session() as session:
        result["tasks"] = {
            ti.task_id: str(ti.state) for ti in dr.get_task_instances(session=session)
        }
        rows = session.scalars(
            select(XComModel).where(XComModel.dag_id == dag_id, XComModel.run_id == dr.run_id)
        ).all()
        result["xcom"] = {f"{r.task_id}.{r.key}": XComModel.deserialize_value(r) for r in rows}
    return result


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("step", choices=["prepare", "events", "consume"])
    p.add_argument("--dag-id", "--unpause", dest="dag_id")
    p.add_argument("--asset")
    args = p.parse_args()
    if args.step == "prepare":
        result = prepare(args.dag_id)
    elif args.step == "events":
        result = events(args.asset)
    else:
        result = consume(args.dag_id)
    print(f"RESULT {json.dumps(result, default=str)}")
    return 1 if "error" in result or "import_errors" in result else 0


if __name__ == "__main__":
    sys.exit(main())
