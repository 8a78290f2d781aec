"""Reading the stages' work folders back into Spark.

``spark.read.parquet(folder)`` without a schema starts a Spark job that reads the
files' footers to infer one: about 0.4 s in a cold driver, and a day reads some thirty
folders. The stages' folders were written by Spark (or, when empty, by pyarrow) on the
work directory's file system, so the driver reads the schema the writer recorded from
one footer itself and hands it to the reader: no job.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import from_arrow_schema
from pyspark.sql.types import StructType

# The key under which Spark's Parquet writer stores the DataFrame's schema (as JSON).
SPARK_SCHEMA_KEY = b"org.apache.spark.sql.parquet.row.metadata"


def recorded_schema(folder: str) -> StructType | None:
    """The schema the folder's writer recorded; None when there is none to read here
    (no local Parquet file: a folder on another file system, or missing)."""
    if "://" in folder and not folder.startswith("file://"):
        return None
    local = Path(folder.removeprefix("file://"))
    first = next(iter(sorted(local.glob("*.parquet"))), None)
    if first is None:
        return None
    meta = pq.read_metadata(first).metadata or {}
    if SPARK_SCHEMA_KEY in meta:
        return StructType.fromJson(json.loads(meta[SPARK_SCHEMA_KEY]))
    return from_arrow_schema(pq.read_schema(first))


def read_work(spark: SparkSession, folder: str) -> DataFrame:
    """The folder as a DataFrame, with its recorded schema (inferred only without one)."""
    schema = recorded_schema(folder)
    reader = spark.read if schema is None else spark.read.schema(schema)
    return reader.parquet(folder)
