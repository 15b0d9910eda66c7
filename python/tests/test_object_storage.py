"""Tables on object storage from Python (docs/storage.md): the same writes, reads, MERGE and
stream through silt.sql and silt.delta.tables on the S3 test server (tools/s3-test-server: s3rver
behind silt's proxy) and on Azurite (tools/azurite-test-server), both started on 127.0.0.1 for
this module as the C++ tests start them. Skipped, saying why, without Node.js or when the npm
packages cannot be installed."""

import base64
import datetime
import email.utils
import hashlib
import hmac
import pathlib
import queue
import shutil
import subprocess
import tempfile
import threading
import urllib.request
import uuid

import pytest

from silt.delta.tables import DeltaTable
from silt.sql import Row, SparkSession

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"
BUCKET = "silt-test"
CONTAINER = "silt-test"
AZURITE_ACCOUNT = "devstoreaccount1"
# Azurite's well-known development key (public, as in Azure's emulator documentation).
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
START_TIMEOUT = 300  # the first start installs the server from npm


class Server:
    """A test server process whose standard output announces that it serves."""

    def __init__(self, command, ready_marker):
        if shutil.which("node") is None or shutil.which("npm") is None:
            pytest.skip("Node.js and npm are needed to run the object store test servers")
        self.folder = tempfile.mkdtemp(prefix="silt-py-store-")
        command = [arg.replace("{dir}", self.folder) for arg in command]
        self.errors = pathlib.Path(self.folder) / "stderr.txt"
        with open(self.errors, "w") as errors:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=errors, text=True)
        lines = queue.Queue()

        def forward():  # keeps reading, so a chatty server never blocks on a full pipe
            for line in self.process.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=forward, daemon=True).start()
        deadline = datetime.datetime.now() + datetime.timedelta(seconds=START_TIMEOUT)
        while True:
            remaining = (deadline - datetime.datetime.now()).total_seconds()
            try:
                line = lines.get(timeout=max(remaining, 0.1))
            except queue.Empty:
                line = None
            if line is not None and ready_marker in line:
                self.port = int(line.split(ready_marker, 1)[1].split()[0].split("/")[0])
                return
            if line is None or remaining <= 0:
                error = self.errors.read_text(errors="replace").strip()[-500:]
                self.stop()
                pytest.skip(f"{command[0]} did not start: {error}")

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()  # the S3 server stops when its input closes
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def create_azurite_container(endpoint):
    """Create Container, signed with the development account's shared key."""
    url = f"{endpoint}/{CONTAINER}?restype=container"
    date = email.utils.formatdate(usegmt=True)
    # Method; content encoding, language, length (empty when 0), MD5 and type, then date,
    # If-Modified-Since, If-Match, If-None-Match, If-Unmodified-Since and Range; the x-ms-*
    # headers; the resource and its query.
    to_sign = ("PUT\n\n\n\n\napplication/octet-stream\n" + "\n" * 6 +
               f"x-ms-date:{date}\nx-ms-version:2021-12-02\n"
               f"/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{CONTAINER}\nrestype:container")
    signature = base64.b64encode(hmac.new(base64.b64decode(AZURITE_KEY), to_sign.encode(),
                                          hashlib.sha256).digest()).decode()
    request = urllib.request.Request(url, method="PUT", data=b"", headers={
        "Content-Type": "application/octet-stream", "x-ms-date": date, "x-ms-version": "2021-12-02",
        "Authorization": f"SharedKey {AZURITE_ACCOUNT}:{signature}"})
    try:
        urllib.request.urlopen(request).close()
    except urllib.error.HTTPError as error:
        if error.code != 409:  # already there
            raise


@pytest.fixture(scope="module", params=["s3", "azure"])
def store(request):
    """(session settings, a function giving a fresh folder URL) of a running store."""
    if request.param == "s3":
        server = Server([str(TOOLS / "s3-test-server" / "s3-test-server"), "--dir", "{dir}/data",
                         "--bucket", BUCKET], "READY ")
        endpoint = f"http://127.0.0.1:{server.port}"
        conf = {"spark.hadoop.fs.s3a.endpoint": endpoint,
                "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
                "spark.hadoop.fs.s3a.access.key": "S3RVER",
                "spark.hadoop.fs.s3a.secret.key": "S3RVER",
                "spark.hadoop.fs.s3a.path.style.access": "true",
                "AWS_CONDITIONAL_PUT": "etag"}
        folder = lambda name: f"s3://{BUCKET}/{name}-{uuid.uuid4().hex[:8]}"
    else:
        server = Server([str(TOOLS / "azurite-test-server" / "azurite-test-server"), "--dir", "{dir}"],
                        "successfully listens on http://127.0.0.1:")
        endpoint = f"http://127.0.0.1:{server.port}/{AZURITE_ACCOUNT}"
        try:
            create_azurite_container(endpoint)
        except Exception:
            server.stop()
            raise
        conf = {"AZURE_STORAGE_CONNECTION_STRING":
                f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};"
                f"AccountKey={AZURITE_KEY};BlobEndpoint={endpoint};"}
        folder = lambda name: (f"abfss://{CONTAINER}@{AZURITE_ACCOUNT}.dfs.core.windows.net/"
                               f"{name}-{uuid.uuid4().hex[:8]}")
    yield conf, folder
    server.stop()


@pytest.fixture
def spark(store, tmp_path):
    conf, _ = store
    builder = SparkSession.builder.appName("object-storage") \
        .config("spark.sql.warehouse.dir", str(tmp_path / "warehouse")) \
        .config("spark.sql.session.timeZone", "UTC")
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.create()
    yield session
    session.stop()


def rows(spark, path):
    return [tuple(row) for row in spark.read.format("delta").load(path).orderBy("id").collect()]


def test_write_read_and_merge(spark, store):
    _, folder = store
    path = folder("people")
    spark.createDataFrame([(1, "Ada", 10), (2, "Linus", 20), (3, "Grace", 30)],
                          "id BIGINT, name STRING, n BIGINT").write.format("delta").save(path)
    assert rows(spark, path) == [(1, "Ada", 10), (2, "Linus", 20), (3, "Grace", 30)]
    spark.createDataFrame([(4, "Barbara", 40)], "id BIGINT, name STRING, n BIGINT") \
        .write.format("delta").mode("append").save(path)
    assert spark.sql(f"SELECT count(*) AS c, sum(n) AS s FROM delta.`{path}`").collect() == [Row(c=4, s=100)]

    updates = spark.createDataFrame([(2, "Linus T.", 21), (5, "Edsger", 50)], "id BIGINT, name STRING, n BIGINT")
    DeltaTable.forPath(spark, path).alias("t").merge(updates.alias("s"), "t.id = s.id") \
        .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute()
    assert rows(spark, path) == [(1, "Ada", 10), (2, "Linus T.", 21), (3, "Grace", 30),
                                 (4, "Barbara", 40), (5, "Edsger", 50)]
    table = DeltaTable.forPath(spark, path)
    table.delete("id = 1")
    assert [row.operation for row in table.history().orderBy("version").collect()] == \
        ["CREATE TABLE AS SELECT", "WRITE", "MERGE", "DELETE"]
    # Time travel reads the version before the MERGE from the store's log.
    before = spark.read.format("delta").option("versionAsOf", 1).load(path)
    assert before.count() == 4
    assert DeltaTable.isDeltaTable(spark, path)
    assert not DeltaTable.isDeltaTable(spark, folder("nothing"))


def test_a_stream_with_its_checkpoint_on_the_store_is_exactly_once(spark, store):
    _, folder = store
    source, target, checkpoint = folder("events"), folder("totals"), folder("checkpoint")
    schema = "id BIGINT, kind STRING, amount BIGINT"
    spark.createDataFrame([(1, "a", 10), (2, "b", 20)], schema).write.format("delta").save(source)

    def run():
        query = (spark.readStream.format("delta").load(source)
                 .selectExpr("id", "kind", "amount * 100 AS cents")
                 .writeStream.format("delta").option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start(target))
        query.awaitTermination()

    run()
    assert rows(spark, target) == [(1, "a", 1000), (2, "b", 2000)]
    spark.createDataFrame([(3, "c", 30)], schema).write.format("delta").mode("append").save(source)
    run()
    run()  # nothing new: the checkpoint on the store says so
    assert rows(spark, target) == [(1, "a", 1000), (2, "b", 2000), (3, "c", 3000)]
