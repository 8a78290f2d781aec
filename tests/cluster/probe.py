"""Submitted to the cluster by the tests: where do executors import crawldedup from, and
does jieba (with its dictionary) work there? Prints ``PROBE {json}`` on stdout.

    spark-submit --master spark://127.0.0.1:7077 --py-files dist/crawldedup-<ver>.zip probe.py
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterable, Iterator
from typing import Any

SENTENCE = "我们在北京大学学习自然语言处理和搜索引擎技术"


def where() -> dict[str, Any]:
    import jieba

    import crawldedup
    from crawldedup.core.tokenize import jieba_terms

    jieba.initialize()
    return {
        "crawldedup": crawldedup.__file__,
        "jieba": jieba.__file__,
        "jieba_dict_words": len(jieba.dt.FREQ),
        "words": jieba_terms(SENTENCE),
        "python": sys.executable,
        "cwd": os.getcwd(),
        "pythonpath": os.environ.get("PYTHONPATH", ""),
        "host": socket.gethostname(),
    }


def on_executor(_: Iterable[int]) -> Iterator[dict[str, Any]]:
    from pyspark import TaskContext

    info = where()
    ctx = TaskContext.get()
    info["partition"] = ctx.partitionId() if ctx else None
    yield info


def main() -> int:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("crawldedup-probe").getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    executors = sc.parallelize(range(4), 4).mapPartitions(on_executor).collect()
    ids = sc._jsc.sc().getExecutorMemoryStatus().size()  # driver + executors
    out = {"driver": where(), "executors": executors, "block_managers": ids, "master": sc.master}
    spark.stop()
    print("PROBE " + json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
