"""The PostgreSQL change stream from Python: spark.readStream.format("postgres_cdc") (docs/cdc.md),
against a real PostgreSQL 15 started on loopback for this module (skipped when the server
binaries are not installed)."""

import os
import shutil
import socket
import subprocess
import tempfile

import pytest

BIN = next((d for d in ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
            if os.path.exists(os.path.join(d, "initdb"))), None)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres():
    if BIN is None:
        pytest.skip("PostgreSQL server binaries (postgresql-15) are not installed")
    folder = tempfile.mkdtemp(prefix="silt-pg-")
    # The server refuses to run as root: as root, the cluster runs as the postgres user.
    as_user = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(folder, "data")
    port = _free_port()
    subprocess.run(as_user + [os.path.join(BIN, "initdb"), "-D", data, "-U", "silt", "--auth=trust", "-E", "UTF8",
                              "--no-locale"], check=True, capture_output=True)
    options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c wal_level=logical "
               "-c max_replication_slots=10 -c max_wal_senders=10 -c fsync=off")
    subprocess.run(as_user + [os.path.join(BIN, "pg_ctl"), "-D", data, "-o", options, "-l",
                              os.path.join(folder, "server.log"), "-w", "start"], check=True, capture_output=True)
    uri = f"postgresql://silt@127.0.0.1:{port}/postgres"
    try:
        yield uri
    finally:
        subprocess.run(as_user + [os.path.join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def psql(uri, sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", uri, "-c", sql], check=True, capture_output=True)


def test_read_stream_format_postgres_cdc_with_foreach_batch_merge(spark, postgres, tmp_path):
    psql(postgres, "CREATE TABLE customers (id int PRIMARY KEY, name text, city text);"
                   "INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Rome');")
    spark.sql("CREATE TABLE customers (id INT, name STRING, city STRING) USING delta")

    def upsert(batch, batch_id):
        # The latest change of each key, applied with Delta's idempotent-write options.
        batch.createOrReplaceTempView("changes")
        session = batch.sparkSession
        session.conf.set("spark.databricks.delta.write.txnAppId", "customers-mirror")
        session.conf.set("spark.databricks.delta.write.txnVersion", str(batch_id))
        session.sql("""
            MERGE INTO customers t
            USING (SELECT * FROM changes QUALIFY row_number() OVER (PARTITION BY id ORDER BY _lsn DESC, _seq DESC) = 1) s
            ON t.id = s.id
            WHEN MATCHED AND s._op = 'd' THEN DELETE
            WHEN MATCHED THEN UPDATE SET name = s.name, city = s.city
            WHEN NOT MATCHED AND s._op <> 'd' THEN INSERT (id, name, city) VALUES (s.id, s.name, s.city)""")

    def run():
        stream = (spark.readStream.format("postgres_cdc")
                  .option("connection", postgres)
                  .option("tables", "public.customers")
                  .option("slot", "python_slot")
                  .load())
        assert stream.isStreaming
        assert {"_op", "_lsn", "_seq", "_commit_timestamp"} <= set(stream.columns)
        (stream.writeStream.foreachBatch(upsert)
         .option("checkpointLocation", str(tmp_path / "checkpoint"))
         .trigger(availableNow=True).start().awaitTermination())

    run()
    psql(postgres, "UPDATE customers SET city = 'Paris' WHERE id = 2; DELETE FROM customers WHERE id = 1;"
                   "INSERT INTO customers VALUES (3, 'Cy', 'Lima');")
    run()
    rows = spark.table("customers").orderBy("id").collect()
    assert [tuple(r) for r in rows] == [(2, "Bob", "Paris"), (3, "Cy", "Lima")]


def test_postgres_cdc_errors_name_their_class(spark, postgres):
    with pytest.raises(Exception) as missing:
        spark.readStream.format("postgres_cdc").option("connection", postgres).load() \
            .writeStream.foreachBatch(lambda df, i: None).option("checkpointLocation", "/nonexistent/x") \
            .trigger(availableNow=True).start().awaitTermination()
    assert "INVALID_STREAMING_OPTION" in str(missing.value)
