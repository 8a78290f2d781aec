"""Groups of a day in Spark: connected components by minimum-label propagation.

The driver-side union-find (:mod:`crawldedup.core.grouping`) collects the day's
duplicate edges; above ``limits.max_driver_edges`` this module computes the same
groups without collecting anything. Every vertex starts labelled with its own order
key (fetched_at, id); each round every vertex takes the smallest label among itself
and its neighbours, until no label changes. The label of a component is then its
earliest member, exactly the union-find's root. Duplicate edges point at earlier
documents, so components are shallow trees and few rounds are needed.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from crawldedup.pipeline.work_files import read_work


class ComponentsDidNotConverge(RuntimeError):
    pass


def connected_components(
    spark: SparkSession, edges: DataFrame, order: DataFrame, work: str, max_rounds: int = 64
) -> DataFrame:
    """(id, group) for every vertex of ``edges`` (columns a, b).

    ``order`` has (id, fetched_at) for every vertex; the group is the id of the
    component's member with the smallest (fetched_at, id). Each round's labels are
    written to ``work`` (Parquet) so the plan never grows with the rounds.
    """
    both = edges.select("a", "b").unionByName(
        edges.select(F.col("b").alias("a"), F.col("a").alias("b"))
    )
    both = both.distinct()
    labels = order.select("id", F.struct("fetched_at", "id").alias("label"))
    for n in range(max_rounds):
        offered = both.join(labels, both["a"] == labels["id"]).select(
            F.col("b").alias("id"), "label"
        )
        new = labels.unionByName(offered).groupBy("id").agg(F.min("label").alias("label"))
        path = f"{work}/round={n}"
        new.write.mode("overwrite").parquet(path)
        new = read_work(spark, path)
        changed = (
            new.alias("n")
            .join(labels.alias("o"), "id")
            .filter(F.col("n.label") != F.col("o.label"))
            .limit(1)
            .count()
        )
        labels = new
        if not changed:
            return labels.select("id", F.col("label.id").alias("group"))
    raise ComponentsDidNotConverge(f"groups did not converge in {max_rounds} rounds")
