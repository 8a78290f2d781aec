"""Airflow glue for crawldedup: the DAG ``crawl_dedup_daily`` imports from here.

Modules, lightest first (the DAG file imports day, runlog, timetable and sensors, and so
allowed_paths, at parse time):

- :mod:`.day`       pure: a run's crawl day, its folder, readiness, the previous-day
                    check, spark-submit arguments
- :mod:`.allowed_paths` pure: the allowed roots of path params, and whether the
                    ``store`` param may name a URL (checked by the sensor)
- :mod:`.provider`  pure: the provider info (``apache_airflow_provider`` entry point) that
                    registers the ``hbase`` connection type and its form
- :mod:`.runlog`    the first line of every task's log: the crawl day
- :mod:`.timetable` ``CrawlDayTimetable``: crawl day in run ids, manual runs' intervals
- :mod:`.sensors`   ``CrawlDaySensor``: waits for the previous day and the crawl folder
- :mod:`.hooks`     ``HBaseHook``: the store from the ``hbase_default`` Connection
- :mod:`.listeners` the run note (``crawl day D``), set in the scheduler
- :mod:`.tasks`     the Python tasks: commit the day, report it (counts, the gate),
                    whether an optional stage runs
- :mod:`.report_link` ``DayReportLink``: the report task's "Day report" extra link
- :mod:`.report_pages` the API server's route behind it (mounted by the plugin)
- :mod:`.assets`    ``VERDICTS``: the Asset the commit task emits for later DAGs
- :mod:`.submit_day` a day's stages submitted through the Spark provider's hook

``plugins/crawldedup_plugin.py`` registers the timetable and the listener with Airflow.
The package is installed with the project too (``pyproject.toml``), so that Airflow's
providers manager finds the hook without the plugins folder.

Nothing here imports pyspark or happybase at module level; the store and the report
stage are imported inside the functions that run in a task.
"""
