"""A work folder's rows go to the store from its files (store_batches.write_work_folders):
every row once, each file's rows in key order, counted, and the store's counts added to
the stage's accumulators."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crawldedup.pipeline.store_batches import FolderWrite, write_work_folders
from crawldedup.store import Store, open_store


def _put_sorted(store: Store, batch: list[dict[str, Any]]) -> None:
    keys = [(r["rule"], r["key"]) for r in batch]
    # Raised in the task, so the write fails: the batch must arrive in key order.
    if keys != sorted(keys):
        raise AssertionError(f"batch not in key order: {keys[:5]}")
    store.put("groups", {f"{r['rule']}|{r['key']}": {"d:n": str(r["n"]).encode()} for r in batch})


def test_every_row_of_a_work_folder_reaches_the_store_in_key_order(
    spark: Any, tmp_path: Path
) -> None:
    rows = [(f"r{i % 3}", f"k{(i * 7919) % 2500:05d}", i) for i in range(2500)]
    folder = str(tmp_path / "postings")
    spark.createDataFrame(rows, "rule string, key string, n int").repartition(3).write.parquet(
        folder
    )
    assert len(list(Path(folder).glob("*.parquet"))) == 3
    url = f"sqlite:///{tmp_path / 'store.db'}"
    written = spark.sparkContext.accumulator(0)
    write = FolderWrite(folder, _put_sorted, ("rule", "key"), {"cells_written": written})
    assert write_work_folders(spark, [write], url, 100) == [2500]
    assert written.value == 2500
    with open_store(url) as store:
        stored = {k: int(r["d:n"]) for k, r in store.scan("groups")}
    assert stored == {f"{rule}|{key}": i for rule, key, i in rows}


def test_a_folder_without_rows_writes_nothing(spark: Any, tmp_path: Path) -> None:
    folder = str(tmp_path / "empty")
    spark.createDataFrame([], "rule string, key string, n int").write.parquet(folder)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    assert write_work_folders(spark, [FolderWrite(folder, _put_sorted)], url, 100) == [0]
    missing = FolderWrite(str(tmp_path / "none"), _put_sorted)
    assert write_work_folders(spark, [missing], url, 100) == [0]


def _put_names(store: Store, batch: list[dict[str, Any]]) -> None:
    store.put("docs", {r["name"]: {"m:url": r["name"].encode()} for r in batch})


def test_several_folders_go_to_the_store_in_one_job_each_counted_apart(
    spark: Any, tmp_path: Path
) -> None:
    keyed = [(f"r{i % 2}", f"k{(i * 31) % 300:03d}", i) for i in range(300)]
    spark.createDataFrame(keyed, "rule string, key string, n int").repartition(2).write.parquet(
        str(tmp_path / "postings")
    )
    names = [(f"doc{i}",) for i in range(40)]
    spark.createDataFrame(names, "name string").repartition(3).write.parquet(
        str(tmp_path / "names")
    )
    url = f"sqlite:///{tmp_path / 'store.db'}"
    counted = spark.sparkContext.accumulator(0)
    writes = [
        FolderWrite(
            str(tmp_path / "postings"), _put_sorted, ("rule", "key"), {"cells_written": counted}
        ),
        FolderWrite(str(tmp_path / "missing"), _put_names),
        FolderWrite(str(tmp_path / "names"), _put_names),  # not counted
    ]
    sc = spark.sparkContext
    sc.setJobGroup("folders", "write_work_folders")
    try:
        counts = write_work_folders(spark, writes, url, 50)
    finally:
        sc.setJobGroup("", "")
    assert counts == [300, 0, 40]
    assert len(sc.statusTracker().getJobIdsForGroup("folders")) == 1
    assert counted.value == 300
    with open_store(url) as store:
        assert {k for k, _ in store.scan("docs")} == {n for (n,) in names}
        assert len(list(store.scan("groups"))) == 300
