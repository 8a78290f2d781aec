"""The pure core: normalization, fingerprints, similarity, Bloom filters, cascade, grouping.

Nothing under this package imports pyspark, happybase or airflow.
"""
