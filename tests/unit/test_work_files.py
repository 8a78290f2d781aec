"""Work folders read back with the schema their writer recorded (pipeline/work_files)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.types import LongType, StringType, StructField, StructType

from crawldedup.pipeline.work_files import SPARK_SCHEMA_KEY, recorded_schema


def _write(folder: Path, table: pa.Table) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / "part-00000.parquet")


def test_the_schema_spark_recorded_is_read_exactly(tmp_path: Path) -> None:
    spark_schema = StructType(
        [StructField("id", StringType(), False), StructField("n", LongType(), True)]
    )
    table = pa.table({"id": ["a"], "n": [1]}).replace_schema_metadata(
        {SPARK_SCHEMA_KEY: json.dumps(spark_schema.jsonValue())}
    )
    _write(tmp_path / "docs", table)
    assert recorded_schema(str(tmp_path / "docs")) == spark_schema


def test_a_folder_without_spark_metadata_gets_its_arrow_schema(tmp_path: Path) -> None:
    _write(tmp_path / "docs", pa.table({"id": ["a"], "n": pa.array([1], pa.int64())}))
    schema = recorded_schema(str(tmp_path / "docs"))
    assert schema is not None
    assert [(f.name, f.dataType) for f in schema.fields] == [
        ("id", StringType()),
        ("n", LongType()),
    ]


def test_no_local_part_file_leaves_the_schema_to_spark(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".part-00000.parquet.1.tmp").write_bytes(b"half")
    assert recorded_schema(str(tmp_path / "empty")) is None  # hidden files are not parts
    assert recorded_schema(str(tmp_path / "missing")) is None
    assert recorded_schema("hdfs://namenode/work/docs") is None
