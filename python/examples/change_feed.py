"""Reading the change data feed by version: a table with delta.enableChangeDataFeed gets an
insert, an update and a delete; the changes of versions 1 to 3 are read back with their
_change_type and _commit_version, and summarised per version.

Runs on PySpark + delta-spark with only the import lines changed:
    from silt.sql import SparkSession, functions as F  ->  from pyspark.sql import SparkSession, functions as F
    from silt.delta.tables import DeltaTable           ->  from delta.tables import DeltaTable

Usage: python3 change_feed.py FOLDER
"""

import os
import sys

from silt.sql import SparkSession, functions as F
from silt.delta.tables import DeltaTable


def main(base):
    spark = (
        SparkSession.builder.appName("change-feed")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    path = os.path.join(base, "accounts")
    (
        DeltaTable.create(spark)
        .location(path)
        .addColumn("id", "BIGINT")
        .addColumn("balance", "BIGINT")
        .property("delta.enableChangeDataFeed", "true")
        .execute()
    )  # version 0
    spark.createDataFrame([(1, 100), (2, 200), (3, 300)], "id BIGINT, balance BIGINT") \
        .write.format("delta").mode("append").save(path)  # version 1
    accounts = DeltaTable.forPath(spark, path)
    accounts.update(condition="id = 2", set={"balance": "balance + 50"})  # version 2
    accounts.delete("id = 3")  # version 3

    changes = (
        spark.read.format("delta")
        .option("readChangeFeed", "true")
        .option("startingVersion", 1)
        .option("endingVersion", 3)
        .load(path)
    )
    for row in changes.orderBy("_commit_version", "id", "_change_type").collect():
        print(row._commit_version, row._change_type, row.id, row.balance)
    summary = changes.groupBy("_commit_version").agg(F.count("*").alias("changes"))
    for row in summary.orderBy("_commit_version").collect():
        print("version", row._commit_version, "changes", row.changes)


if __name__ == "__main__":
    main(sys.argv[1])
