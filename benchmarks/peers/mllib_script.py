"""The same texts through Spark MLlib: HashingTF + MinHashLSH + approxSimilarityJoin.

    python benchmarks/peers/mllib_script.py ROOT OUT.jsonl

Reading and shingles are datasketch_script.py's, HTML text fast_script.py's
(resiliparse), all in the driver. A local[2] SparkSession; character 5-grams ->
``HashingTF`` (2^20 features, binary) -> ``MinHashLSH`` (5 hash tables) ->
``approxSimilarityJoin`` of the set with itself at Jaccard distance 0.5. A document's
hits are the earlier documents it joined with; grouping is datasketch_script.py's
(earliest hit's group). The self-join grows with the square of the largest buckets:
pages sharing a site template make it explode, hence the caller's timeout.
"""

import sys

from datasketch_script import records, shingles, write_groups
from fast_script import resiliparse_text


def main(root, out):
    from pyspark.ml.feature import HashingTF, MinHashLSH
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    docs = [(doc_id, sorted(shingles(text))) for doc_id, text in records(root, resiliparse_text)]
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("mllib-minhash-lsh")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    seq = {doc_id: i for i, (doc_id, _) in enumerate(docs)}
    df = spark.createDataFrame([(d, g) for d, g in docs if g], "id string, grams array<string>")
    tf = HashingTF(inputCol="grams", outputCol="features", numFeatures=1 << 20, binary=True)
    vec = tf.transform(df).select("id", "features").cache()
    model = MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=5, seed=13).fit(vec)
    pairs = (
        model.approxSimilarityJoin(vec, vec, 0.5, distCol="jd")
        .select(F.col("datasetA.id").alias("a"), F.col("datasetB.id").alias("b"))
        .filter(F.col("a") != F.col("b"))
        .collect()
    )
    spark.stop()
    hits = {}
    for a, b in pairs:
        if seq[b] < seq[a]:
            hits.setdefault(a, []).append(b)
    write_groups(out, ((doc_id, hits.get(doc_id, [])) for doc_id, _ in docs))


if __name__ == "__main__":
    main(*sys.argv[1:3])
