"""Bronze -> silver -> gold with Structured Streaming: raw orders land in a bronze Delta table; an
available-now stream cleans them into silver; a second one upserts each batch's per-customer
totals into gold with foreachBatch + MERGE, made idempotent with Delta's txnAppId / txnVersion
(a batch run again after a failure is skipped by the MERGE rather than counted twice). Each run
reads only what landed since the previous one, as a scheduled job would.

Runs on PySpark + delta-spark with only the import lines changed:
    from silt.sql import SparkSession, functions as F  ->  from pyspark.sql import SparkSession, functions as F
    from silt.delta.tables import DeltaTable           ->  from delta.tables import DeltaTable

Usage: python3 streaming_medallion.py FOLDER
"""

import os
import sys

from silt.sql import SparkSession, functions as F
from silt.delta.tables import DeltaTable

ORDERS = "order_id BIGINT, customer STRING, amount DOUBLE, status STRING"


def main(base):
    spark = (
        SparkSession.builder.appName("medallion")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate()
    )
    bronze = os.path.join(base, "bronze")
    silver = os.path.join(base, "silver")
    gold = os.path.join(base, "gold")
    checkpoints = os.path.join(base, "checkpoints")
    (
        DeltaTable.createIfNotExists(spark)
        .location(gold)
        .addColumn("customer", "STRING")
        .addColumn("orders", "BIGINT")
        .addColumn("total", "DOUBLE")
        .execute()
    )

    def land(rows):
        spark.createDataFrame(rows, ORDERS).write.format("delta").mode("append").save(bronze)

    def upsert_gold(batch_df, batch_id):
        totals = batch_df.groupBy("customer").agg(
            F.count("order_id").alias("orders"), F.sum("amount").alias("total"))
        # The batch id makes the MERGE idempotent: Delta skips it if gold already has it.
        spark.conf.set("spark.databricks.delta.write.txnAppId", "gold-customer-totals")
        spark.conf.set("spark.databricks.delta.write.txnVersion", str(batch_id))
        (
            DeltaTable.forPath(spark, gold)
            .alias("g")
            .merge(totals.alias("t"), "g.customer = t.customer")
            .whenMatchedUpdate(set={"orders": "g.orders + t.orders", "total": "g.total + t.total"})
            .whenNotMatchedInsertAll()
            .execute()
        )
        spark.conf.unset("spark.databricks.delta.write.txnAppId")
        spark.conf.unset("spark.databricks.delta.write.txnVersion")

    def refresh():
        to_silver = (
            spark.readStream.format("delta").load(bronze)
            .where(F.col("status") != "test")
            .withColumn("customer", F.lower(F.trim(F.col("customer"))))
            .drop("status")
            .writeStream.format("delta")
            .option("checkpointLocation", os.path.join(checkpoints, "silver"))
            .trigger(availableNow=True)
            .start(silver)
        )
        to_silver.awaitTermination()
        to_gold = (
            spark.readStream.format("delta").load(silver)
            .writeStream.foreachBatch(upsert_gold)
            .option("checkpointLocation", os.path.join(checkpoints, "gold"))
            .trigger(availableNow=True)
            .start()
        )
        to_gold.awaitTermination()
        read = sum(p["numInputRows"] for p in to_gold.recentProgress)
        print("run: %d rows read from bronze, %d from silver" % (
            sum(p["numInputRows"] for p in to_silver.recentProgress), read))
        for row in spark.read.format("delta").load(gold).orderBy("customer").collect():
            print(row.customer, row.orders, row.total)

    land([(1, " Ada ", 10.0, "paid"), (2, "linus", 5.5, "paid"), (3, "ada", 1.0, "test")])
    refresh()
    land([(4, "ADA", 2.5, "paid"), (5, "grace", 7.0, "paid")])
    refresh()
    refresh()  # nothing new: nothing read, gold unchanged


if __name__ == "__main__":
    main(sys.argv[1])
