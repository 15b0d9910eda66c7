"""Dedupe with dropDuplicates: removes exact duplicate rows, then keeps one row per order id,
and appends the result to a Delta table partitioned by day.

Runs on PySpark + delta-spark with only the import line changed:
    from silt.sql import SparkSession, functions as F  ->  from pyspark.sql import SparkSession, functions as F

Usage: python3 dedupe_drop_duplicates.py FOLDER
"""

import os
import sys

from silt.sql import SparkSession, functions as F


def main(base):
    spark = (
        SparkSession.builder.appName("dedupe-drop-duplicates")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    path = os.path.join(base, "orders")
    orders = spark.createDataFrame(
        [
            (100, "2024-05-01", "widget", 3),
            (100, "2024-05-01", "widget", 3),  # an exact duplicate
            (101, "2024-05-01", "gadget", 1),
            (102, "2024-05-02", "widget", 5),
            (102, "2024-05-02", "widget", 5),
            (103, "2024-05-02", "gizmo", 2),
        ],
        ["order_id", "day", "item", "quantity"],
    )
    distinct_rows = orders.dropDuplicates()
    one_per_order = distinct_rows.dropDuplicates(["order_id"]).withColumn("day", F.to_date("day"))
    one_per_order.write.format("delta").mode("append").partitionBy("day").save(path)

    table = spark.read.format("delta").load(path)
    print("distinct rows:", distinct_rows.count())
    print("orders:", table.count())
    for row in table.groupBy("day").agg(F.sum("quantity").alias("quantity")).orderBy("day").collect():
        print(row.day.isoformat(), row.quantity)


if __name__ == "__main__":
    main(sys.argv[1])
