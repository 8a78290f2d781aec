"""Topic relevance for focused crawling (docs/relevance.md): semantic library, tag-weighted TF-IDF.

Pure code (no pyspark, happybase or airflow): the library loader, the HTML position
splitter, the weighting formulas, scoring and link ranking. The Spark stage is
:mod:`crawldedup.pipeline.relevance_stage`.
"""
