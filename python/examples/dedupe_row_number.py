"""Dedupe with row_number over a Window: keeps the newest event of each key (by event time,
ties broken by the larger sequence number) and appends only keys the table lacks.

Runs on PySpark + delta-spark with only the import line changed:
    from silt.sql import SparkSession, Window, functions as F  ->  from pyspark.sql import SparkSession, Window, functions as F

Usage: python3 dedupe_row_number.py FOLDER
"""

import datetime
import os
import sys

from silt.sql import SparkSession, Window, functions as F


def main(base):
    spark = (
        SparkSession.builder.appName("dedupe-row-number")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    path = os.path.join(base, "events")
    at = datetime.datetime
    raw = spark.createDataFrame(
        [
            ("a", at(2024, 5, 1, 10, 0), 1, 10.0),
            ("a", at(2024, 5, 1, 12, 0), 2, 12.5),
            ("a", at(2024, 5, 1, 12, 0), 3, 13.0),  # same time as seq 2: the larger seq wins
            ("b", at(2024, 5, 2, 9, 30), 4, 7.25),
            ("b", at(2024, 5, 1, 9, 30), 5, 6.0),
            ("c", at(2024, 5, 3, 8, 0), 6, None),
        ],
        "key STRING, event_time TIMESTAMP, seq BIGINT, amount DOUBLE",
    )
    newest = Window.partitionBy("key").orderBy(F.col("event_time").desc(), F.col("seq").desc())
    deduped = (
        raw.withColumn("rn", F.row_number().over(newest))
        .where(F.col("rn") == 1)
        .drop("rn")
    )
    deduped.write.format("delta").mode("append").save(path)

    table = spark.read.format("delta").load(path)
    print("rows:", table.count())
    for row in table.orderBy("key").collect():
        print(row.key, row.event_time.isoformat(), row.seq, row.amount)


if __name__ == "__main__":
    main(sys.argv[1])
