"""Airflow glue for crawldedup: the DAG ``crawl_dedup_daily`` imports from here.

Modules, lightest first (the DAG file imports only the first two at parse time):

- :mod:`.day`      pure: a run's crawl day, its folder, readiness, spark-submit arguments
- :mod:`.sensors`  ``CrawlDaySensor``: waits for the previous day and the crawl folder
- :mod:`.hooks`    ``HBaseHook``: the store from the ``hbase_default`` Connection
- :mod:`.tasks`    the report task: write the report, push counts, apply the gate

Nothing here imports pyspark or happybase at module level; the store and the report
stage are imported inside the functions that run in a task.
"""
