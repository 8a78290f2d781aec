"""The Airflow Assets the DAG produces, for DAGs that come after it.

``VERDICTS`` gets an event each time a crawl day is committed (the ``commit`` task's
outlet): a downstream DAG (deleting the duplicates, indexing the uniques) scheduled on it
runs once per committed day; the event's ``extra`` names the day, the home and the store,
and the parameters the day was published with.
"""

from __future__ import annotations

from airflow.sdk import Asset

from crawldedup_airflow.day import DAG_ID

VERDICTS = Asset(name="crawldedup_verdicts", uri=f"crawldedup://verdicts/{DAG_ID}")
