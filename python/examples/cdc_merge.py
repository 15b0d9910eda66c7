"""CDC MERGE: applies a batch of change records, each with an operation flag (I, U, D) and a
version, to a Delta table: the newest change of each key wins, deletes delete, updates apply
only when newer than the row they change, inserts add new keys.

Runs on PySpark + delta-spark with only the import lines changed:
    from silt.sql import SparkSession, Window, functions as F  ->  from pyspark.sql import SparkSession, Window, functions as F
    from silt.delta.tables import DeltaTable                   ->  from delta.tables import DeltaTable

Usage: python3 cdc_merge.py FOLDER
"""

import os
import sys

from silt.sql import SparkSession, Window, functions as F
from silt.delta.tables import DeltaTable


def main(base):
    spark = (
        SparkSession.builder.appName("cdc-merge")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    path = os.path.join(base, "customers")
    customers = spark.createDataFrame(
        [(1, "Ada", "London", 10), (2, "Linus", "Helsinki", 10), (3, "Grace", "New York", 10)],
        "id BIGINT, name STRING, city STRING, version BIGINT",
    )
    customers.write.format("delta").mode("overwrite").save(path)

    changes = spark.createDataFrame(
        [
            (1, "Ada", "Cambridge", 11, "U"),
            (2, None, None, 12, "D"),
            (4, "Barbara", "Boston", 11, "I"),
            (1, "Ada", "Oxford", 13, "U"),  # a later change of the same key: the newest wins
            (3, "Grace", "Boston", 9, "U"),  # older than the row it would change: ignored
        ],
        "id BIGINT, name STRING, city STRING, version BIGINT, op STRING",
    )
    newest_first = Window.partitionBy("id").orderBy(F.col("version").desc())
    latest = (
        changes.withColumn("rank", F.row_number().over(newest_first))
        .filter(F.col("rank") == 1)
        .drop("rank")
    )

    metrics = (
        DeltaTable.forPath(spark, path)
        .alias("t")
        .merge(latest.alias("c"), "t.id = c.id")
        .whenMatchedDelete(condition="c.op = 'D'")
        .whenMatchedUpdate(
            condition="c.op = 'U' AND c.version > t.version",
            set={"name": "c.name", "city": "c.city", "version": "c.version"},
        )
        .whenNotMatchedInsert(
            condition="c.op <> 'D'",
            values={"id": "c.id", "name": "c.name", "city": "c.city", "version": "c.version"},
        )
        .execute()
    )
    print("merge:", metrics.first().asDict())
    for row in spark.read.format("delta").load(path).orderBy("id").collect():
        print(row.id, row.name, row.city, row.version)


if __name__ == "__main__":
    main(sys.argv[1])
