"""Random UPDATE, DELETE, INSERT and MERGE statements applied by silt and by DuckDB to the same
table, whose rows are compared after every statement.

The table is a Delta table of several files, with and without deletion vectors, the change
data feed, partitions and column mapping (each seed picks its properties); MERGE statements have one or two WHEN MATCHED clauses (update,
delete), WHEN NOT MATCHED inserts and WHEN NOT MATCHED BY SOURCE updates and deletes, with
conditions, over sources whose keys are unique (a target row never matches two source rows) and
may be NULL. Delta requires a condition on every MATCHED clause but the last; the statements
keep to that. With the change data feed on, each statement's changes must also turn the table
before it into the table after it.

Usage: random_dml.py --peer PATH [--seeds 1,2,3] [--statements N]   (exit status 1 on a
difference, with the statement after which the tables differ and the rows only one side has)
"""

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile

from random_queries import normalized, values_query
from silt.sql import SparkSession

TARGET = [("id", "INT"), ("k", "INT"), ("v", "INT"), ("s", "STRING")]
SOURCE = [("k", "INT"), ("v", "INT"), ("s", "STRING"), ("op", "STRING")]
PROPERTIES = ["", "TBLPROPERTIES (delta.enableDeletionVectors = true)",
              "TBLPROPERTIES (delta.enableChangeDataFeed = true)",
              "PARTITIONED BY (k) TBLPROPERTIES (delta.enableDeletionVectors = true)",
              "TBLPROPERTIES (delta.columnMapping.mode = 'name', delta.enableChangeDataFeed = true)",
              "PARTITIONED BY (k) TBLPROPERTIES (delta.enableChangeDataFeed = true)"]


class Statements:
    def __init__(self, rng):
        self.rng = rng
        self.next_id = 1000

    def predicate(self, alias):
        rng = self.rng
        name = rng.choice(["k", "v", "s", "id"])
        column = "%s.%s" % (alias, name) if alias else name
        if name == "s":
            return rng.choice(["%s = 'a'" % column, "%s IS NULL" % column, "%s <> 'b'" % column,
                               "%s = ''" % column])
        return rng.choice(["%s > %d" % (column, rng.randint(0, 10)), "%s IS NULL" % column,
                           "%s IN (1, 2, 3)" % column, "%s %% 2 = 0" % column,
                           "%s <= %d" % (column, rng.randint(0, 8))])

    def next(self):
        rng = self.rng
        kind = rng.choice(["update", "delete", "insert", "merge", "merge", "merge"])
        if kind == "update":
            value = rng.choice(["v + 1", "coalesce(v, 0) * 2", "NULL", "k"])
            return "UPDATE t SET v = %s WHERE %s" % (value, self.predicate(None))
        if kind == "delete":
            return "DELETE FROM t WHERE %s" % self.predicate(None)
        if kind == "insert":
            rows = [(self.next_id + i, rng.choice([None] + list(range(15))), rng.randint(0, 5),
                     rng.choice(["a", None])) for i in range(rng.randint(1, 5))]
            self.next_id += 10
            return "INSERT INTO t %s" % values_query(rows, TARGET, "STRING")
        return self.merge()

    def merge(self):
        rng = self.rng
        source = [(key, rng.choice([None, 0, 3, 7]), rng.choice(["x", None, "a"]), rng.choice(["U", "D", "I"]))
                  for key in rng.sample(range(20), rng.randint(1, 12))]
        if rng.random() < 0.3:
            source.append((None, 1, "n", "I"))
        first_id = self.next_id
        self.next_id += 100
        clauses = []
        if rng.random() < 0.8:
            count = rng.randint(1, 2)
            for n in range(count):
                condition = rng.choice(["", " AND src.op = 'D'", " AND src.op = 'U'", " AND t.v > 1",
                                        " AND src.v IS NULL"])
                if n + 1 < count and not condition:
                    condition = " AND src.op = 'D'"
                action = rng.choice(["UPDATE SET v = src.v, s = src.s", "DELETE",
                                     "UPDATE SET v = coalesce(t.v, 0) + 10"])
                clauses.append("WHEN MATCHED%s THEN %s" % (condition, action))
        if rng.random() < 0.7:
            condition = rng.choice(["", " AND src.op <> 'D'", " AND src.v > 0"])
            clauses.append("WHEN NOT MATCHED%s THEN INSERT (id, k, v, s) VALUES (src.k + %d, src.k, src.v, src.s)"
                           % (condition, first_id))
        if rng.random() < 0.4:
            condition = rng.choice(["", " AND t.v > 2", " AND t.s IS NULL"])
            clauses.append("WHEN NOT MATCHED BY SOURCE%s THEN %s" % (condition, rng.choice(["DELETE", "UPDATE SET v = -1"])))
        if not clauses:
            clauses.append("WHEN MATCHED THEN DELETE")
        on = "t.k = src.k" + rng.choice(["", "", " AND t.v IS NOT NULL", " AND src.op <> 'I'"])
        return "MERGE INTO t USING (%s) src ON %s %s" % (values_query(source, SOURCE, "STRING"), on, " ".join(clauses))


def rows_of(values):
    return sorted(tuple(normalized(v) for v in row) for row in values)


def latest_version(spark):
    return spark.sql("DESCRIBE HISTORY t LIMIT 1").collect()[0]["version"]


def changes_explain(spark, version_before, before, after, statement, seed, step):
    """Whether the change data feed of the statement's commit turns the table before it into the
    table after it: the deleted rows and update pre-images are rows of the table before (taken
    out), the inserted rows and post-images are rows of the table after (put in)."""
    version = latest_version(spark)
    if version == version_before:
        return True  # nothing was committed (the statement changed no row)
    changes = spark.sql("SELECT id, k, v, s, _change_type FROM table_changes('t', %d, %d)" % (version, version)).collect()
    remaining = list(before)
    for row in changes:
        if row["_change_type"] in ("delete", "update_preimage"):
            values = tuple(normalized(v) for v in list(row)[:4])
            if values not in remaining:
                print("seed %d, statement %d: the change feed takes out %s, not a row of the table before %s" % (
                    seed, step, values, statement))
                return False
            remaining.remove(values)
    remaining += [tuple(normalized(v) for v in list(row)[:4]) for row in changes
                  if row["_change_type"] in ("insert", "update_postimage")]
    if sorted(remaining) != after:
        print("seed %d, statement %d: the change feed of %s does not give the table after it\n"
              "    only from the feed: %s\n    only in the table: %s" % (
                  seed, step, statement, sorted(set(remaining) - set(after))[:5], sorted(set(after) - set(remaining))[:5]))
        return False
    return True


def run_seed(seed, count, peer):
    rng = random.Random(seed)
    target = [(i, rng.choice([None] + list(range(15))), rng.choice([None, 0, 1, 2, 5]), rng.choice([None, "a", "b", ""]))
              for i in range(rng.randint(20, 80))]
    generator = Statements(rng)
    statements = [generator.next() for _ in range(count)]
    folder = tempfile.mkdtemp(prefix="silt-random-dml-")
    spark = SparkSession.builder.config("spark.sql.warehouse.dir", folder).getOrCreate()
    try:
        spark.sql("DROP TABLE IF EXISTS t")
        spark.sql("CREATE TABLE t (id INT, k INT, v INT, s STRING) USING delta %s" % PROPERTIES[seed % len(PROPERTIES)])
        cuts = [0] + sorted(rng.sample(range(1, len(target)), 2)) + [len(target)]
        for start, end in zip(cuts, cuts[1:]):  # three files
            spark.sql("INSERT INTO t %s" % values_query(target[start:end], TARGET, "STRING"))
        change_feed = "ChangeDataFeed" in PROPERTIES[seed % len(PROPERTIES)]
        before = rows_of(spark.sql("SELECT * FROM t").collect())
        script = ["CREATE TABLE t (id INTEGER, k INTEGER, v INTEGER, s VARCHAR);",
                  "INSERT INTO t %s;" % values_query(target, TARGET, "VARCHAR")]
        for statement in statements:
            script += [statement.replace("AS STRING)", "AS VARCHAR)") + ";", "SELECT * FROM t;"]
        ran = subprocess.run([peer, "--format", "json", "-"], input="\n".join(script), capture_output=True, text=True)
        if ran.returncode != 0:
            print("seed %d: DuckDB failed: %s" % (seed, ran.stderr.strip()))
            return 1
        # Every statement gives a result (DuckDB's row count), then its SELECT the table.
        tables = json.loads(ran.stdout)[-2 * count + 1::2]
        assert len(tables) == count, "DuckDB gave %d tables for %d statements" % (len(tables), count)
        for step, (statement, expected) in enumerate(zip(statements, tables)):
            version_before = latest_version(spark)
            try:
                spark.sql(statement)
            except Exception as error:
                print("seed %d, statement %d: silt failed: %s\n    %s" % (seed, step, statement, str(error).splitlines()[0]))
                return 1
            got = rows_of(spark.sql("SELECT * FROM t").collect())
            want = rows_of(row.values() for row in expected)
            if got != want:
                print("seed %d, statement %d: the tables differ after %s\n    only silt: %s\n    only DuckDB: %s" % (
                    seed, step, statement, sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
                return 1
            if change_feed and not changes_explain(spark, version_before, before, got, statement, seed, step):
                return 1
            before = got
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", required=True, help="the DuckDB peer runner (tools/duckdb-peer/duckdb)")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--statements", type=int, default=15, help="statements per seed")
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    failed = sum(run_seed(seed, args.statements, args.peer) for seed in seeds)
    print("%d seeds of %d statements, %d with a difference" % (len(seeds), args.statements, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
