"""SCD Type 2 with a staged-union MERGE (the pattern of Delta Lake's documentation): a changed
address closes the customer's current row (current = false, endDate set) and inserts the new
address as the current row, in one MERGE. The staged source holds each update twice: once
with its key as mergeKey (to close the current row) and, for changed addresses, once more
with a NULL mergeKey (which never matches, so it is inserted).

Runs on PySpark + delta-spark with only the import lines changed:
    from silt.sql import SparkSession                ->  from pyspark.sql import SparkSession
    from silt.delta.tables import DeltaTable         ->  from delta.tables import DeltaTable

Usage: python3 scd2_merge.py FOLDER
"""

import datetime
import os
import sys

from silt.sql import SparkSession
from silt.delta.tables import DeltaTable


def main(base):
    spark = (
        SparkSession.builder.appName("scd2-merge")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    path = os.path.join(base, "customers_history")
    day = datetime.date
    spark.createDataFrame(
        [
            (1, "1 Main St", True, day(2024, 1, 1), None),
            (2, "2 Side Rd", True, day(2024, 1, 1), None),
        ],
        "customerId BIGINT, address STRING, current BOOLEAN, effectiveDate DATE, endDate DATE",
    ).write.format("delta").save(path)

    updates = spark.createDataFrame(
        [
            (1, "9 New Ave", day(2024, 6, 1)),  # moved: close the old row, insert the new one
            (2, "2 Side Rd", day(2024, 6, 1)),  # same address: nothing changes
            (3, "3 Third Pl", day(2024, 6, 1)),  # new customer: inserted
        ],
        "customerId BIGINT, address STRING, effectiveDate DATE",
    )
    customers = DeltaTable.forPath(spark, path)

    new_addresses = (
        updates.alias("updates")
        .join(customers.toDF().alias("customers"), "customerId")
        .where("customers.current = true AND updates.address <> customers.address")
    )
    staged_updates = new_addresses.selectExpr("NULL as mergeKey", "updates.*").union(
        updates.selectExpr("customerId as mergeKey", "*")
    )

    (
        customers.alias("customers")
        .merge(staged_updates.alias("staged_updates"), "customers.customerId = mergeKey")
        .whenMatchedUpdate(
            condition="customers.current = true AND customers.address <> staged_updates.address",
            set={"current": "false", "endDate": "staged_updates.effectiveDate"},
        )
        .whenNotMatchedInsert(
            values={
                "customerId": "staged_updates.customerId",
                "address": "staged_updates.address",
                "current": "true",
                "effectiveDate": "staged_updates.effectiveDate",
                "endDate": "null",
            }
        )
        .execute()
    )
    rows = spark.read.format("delta").load(path).orderBy("customerId", "effectiveDate").collect()
    for row in rows:
        print(row.customerId, row.address, row.current, row.effectiveDate, row.endDate)


if __name__ == "__main__":
    main(sys.argv[1])
