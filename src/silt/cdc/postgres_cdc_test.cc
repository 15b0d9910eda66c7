// The PostgreSQL change stream against a real server (testing_postgres_server.h): the mirrored
// Delta tables equal the PostgreSQL tables after every run, whatever the changes were.

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "silt/cdc/postgres_cdc_source.h"
#include "silt/cdc/postgres_connection.h"
#include "silt/cdc/testing_postgres_server.h"
#include "silt/stream/stream_testing.h"
#include "silt/stream/streaming_table.h"

namespace silt::cdc {
namespace {

class PostgresCdcTest : public stream::StreamTest {
 protected:
  static void SetUpTestSuite() { server_ = new testing::PostgresServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    if (!server_->started()) GTEST_SKIP() << server_->error();
    // Each test has its own database objects: a fresh schema, slot and publication.
    schema_ = "t" + std::to_string(++counter_);
    slot_ = "slot_" + schema_;
    publication_ = "pub_" + schema_;
    ASSERT_EQ(server_->Psql("CREATE SCHEMA " + schema_ + ";"), 0);
  }

  void Pg(const std::string& sql) {
    ASSERT_EQ(server_->Psql("SET search_path = " + schema_ + ";\n" + sql), 0) << sql;
  }

  // Rows of a PostgreSQL query, each row's values joined by '|' (NULL as "NULL"), sorted.
  std::vector<std::string> PgRows(const std::string& query) {
    auto connection = PostgresConnection::Open(server_->Uri(), false);
    connection->Execute("SET search_path = " + schema_);
    PostgresResult result = connection->Execute(query);
    std::vector<std::string> rows;
    for (int r = 0; r < result.rows(); ++r) {
      std::string row;
      for (int c = 0; c < result.columns(); ++c) {
        row += (c ? "|" : "") + (result.IsNull(r, c) ? std::string("NULL") : std::string(result.Value(r, c)));
      }
      rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // Rows of a silt query in the same form.
  std::vector<std::string> SiltRows(const std::string& query) {
    commands::StatementResult result = Sql(query);
    std::vector<std::string> rows;
    for (const Batch& batch : result.batches) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        std::string row;
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          row += (c ? "|" : "") + batch.column(c)->ValueToString(r);
        }
        rows.push_back(row);
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  PostgresCdcOptions Options(std::vector<std::string> tables) {
    PostgresCdcOptions options;
    options.connection = server_->Uri();
    for (auto& table : tables) table = schema_ + "." + table;
    options.tables = std::move(tables);
    options.slot = slot_;
    options.publication = publication_;
    return options;
  }

  // Runs the mirror of `tables` (each into warehouse table <schema>_<table>) available-now.
  std::vector<stream::QueryProgress> Mirror(const std::vector<std::string>& tables,
                                            bool schema_evolution = false,
                                            int64_t max_changes = 100000,
                                            const std::vector<std::string>& scd2 = {}) {
    PostgresMirrorSpec spec;
    spec.source = Options(tables);
    spec.source.max_changes_per_batch = max_changes;
    for (const std::string& table : tables) {
      bool type2 = std::find(scd2.begin(), scd2.end(), table) != scd2.end();
      spec.tables.push_back(MirrorTable{schema_ + "." + table, Target(table),
                                        type2 ? MirrorHistory::kScdType2 : MirrorHistory::kScdType1});
    }
    spec.checkpoint_location = CheckpointPath("mirror_" + schema_);
    spec.schema_evolution = schema_evolution;
    stream::StreamSpec stream;
    stream.source = MakeMirrorSource(fs_, spec);
    stream.sink = MakeMirrorSink(*stream.source, spec);
    stream.query = sql::ParseStatement("SELECT * FROM STREAM(changes)").query;
    stream::ReplaceStreamSource(*stream.query);
    stream.checkpoint_location = spec.checkpoint_location;
    stream.trigger.kind = stream::TriggerKind::kAvailableNow;
    stream::StreamExecution execution(*state_, std::move(stream));
    execution.Run();
    return execution.RecentProgress();
  }

  std::string Target(const std::string& table) const { return schema_ + "_" + table; }

  static testing::PostgresServer* server_;
  static int counter_;
  std::string schema_;
  std::string slot_;
  std::string publication_;
};

testing::PostgresServer* PostgresCdcTest::server_ = nullptr;
int PostgresCdcTest::counter_ = 0;

TEST_F(PostgresCdcTest, MirrorsSnapshotThenInsertsUpdatesDeletesAndKeyChanges) {
  Pg("CREATE TABLE customers (id int PRIMARY KEY, name text, balance numeric(12,2), "
     "tags text[], joined timestamptz, doc jsonb, photo bytea, score double precision, active boolean);"
     "INSERT INTO customers SELECT i, 'c' || i, i * 1.5, ARRAY['a', 'b' || i], "
     "  timestamptz '2024-01-01 00:00:00+00' + i * interval '1 hour', jsonb_build_object('i', i), "
     "  decode(lpad(to_hex(i), 4, '0'), 'hex'), i / 3.0, i % 2 = 0 FROM generate_series(1, 500) i;"
     "INSERT INTO customers (id) VALUES (9999);");
  const std::string pg_query =
      "SELECT id, name, balance, array_to_string(tags, ',', 'NULL'), "
      "to_char(joined AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), doc::text, encode(photo, 'hex'), "
      "active::text FROM customers";
  const std::string silt_query =
      "SELECT id, name, balance, array_join(tags, ',', 'NULL'), joined, doc, lower(hex(photo)), active FROM " +
      Target("customers");
  auto progress = Mirror({"customers"});
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(SiltRows(silt_query), PgRows(pg_query));

  Pg("UPDATE customers SET name = 'renamed', balance = NULL WHERE id % 7 = 0;"
     "DELETE FROM customers WHERE id % 11 = 0;"
     "UPDATE customers SET id = id + 1000 WHERE id BETWEEN 20 AND 25;"  // primary-key changes
     "INSERT INTO customers (id, name) VALUES (2000, 'new'), (2001, NULL);"
     "BEGIN; UPDATE customers SET name = 'first' WHERE id = 1; UPDATE customers SET name = 'second' WHERE id = 1; COMMIT;"
     "INSERT INTO customers (id, name) VALUES (3000, 'gone'); DELETE FROM customers WHERE id = 3000;");
  Mirror({"customers"});
  EXPECT_EQ(SiltRows(silt_query), PgRows(pg_query));

  // Nothing new: no batch, nothing changes.
  auto idle = Mirror({"customers"});
  EXPECT_TRUE(idle.empty());
  EXPECT_EQ(SiltRows(silt_query), PgRows(pg_query));
}

TEST_F(PostgresCdcTest, MapsEveryTypeInSnapshotAndStream) {
  Pg("CREATE TYPE mood AS ENUM ('sad', 'happy');"
     "CREATE DOMAIN positive AS int CHECK (VALUE > 0);"
     "CREATE TABLE typed (id smallint PRIMARY KEY, big bigint, r real, n numeric, d date, "
     "ts timestamp, u uuid, m mood, p positive, ints int[], nums numeric(5,1)[], t time, iv interval, "
     "j json, vc varchar(10), ch char(3));"
     "INSERT INTO typed VALUES (1, 9223372036854775807, 1.5, 123456789.123456789, '2024-02-29', "
     "'2024-01-01 10:00:00.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'happy', 7, '{1,NULL,3}', '{1.5,-2.0}', "
     "'12:34:56', '1 day 02:00:00', '{\"a\": [1, 2]}', 'varchar', 'ab');"
     "INSERT INTO typed (id) VALUES (2);");
  const std::string pg_query =
      "SELECT id, big, r, n::numeric(38,18), d, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS'), u, m, p, "
      "array_to_string(ints, ',', 'NULL'), array_to_string(nums, ',', 'NULL'), t, iv, j, vc, ch FROM typed";
  const std::string silt_query =
      "SELECT id, big, r, n, d, date_format(ts, 'yyyy-MM-dd HH:mm:ss.SSS'), u, m, p, array_join(ints, ',', 'NULL'), "
      "array_join(nums, ',', 'NULL'), t, iv, j, vc, ch FROM " + Target("typed");
  Mirror({"typed"});
  Pg("INSERT INTO typed VALUES (3, -1, -0.25, 0.5, '1970-01-01', '1999-12-31 23:59:59', "
     "'00000000-0000-0000-0000-000000000000', 'sad', 1, '{}', '{}', '00:00:00', '-3 mons', 'null', '', 'x');"
     "UPDATE typed SET n = NULL, ints = '{9}' WHERE id = 1;");
  Mirror({"typed"});
  EXPECT_EQ(SiltRows(silt_query), PgRows(pg_query));
  EXPECT_EQ(Query("SELECT typeof(id), typeof(big), typeof(r), typeof(n), typeof(d), typeof(ts), typeof(u), "
                  "typeof(m), typeof(p), typeof(ints), typeof(nums), typeof(t), typeof(j) FROM " +
                  Target("typed") + " LIMIT 1"),
            std::vector<std::string>{"smallint,bigint,float,\"decimal(38,18)\",date,timestamp,string,string,int,"
                                     "array<int>,\"array<decimal(5,1)>\",string,string"});
}

TEST_F(PostgresCdcTest, TruncatesMultiTableTransactionsAndSmallBatches) {
  // A column named by a keyword ("select") must be quoted in the SQL the mirror writes.
  Pg("CREATE TABLE a (k bigint PRIMARY KEY, v text, \"select\" int); CREATE TABLE b (k text PRIMARY KEY, n int);"
     "INSERT INTO a SELECT i, 'v' || i, i FROM generate_series(1, 100) i;"
     "INSERT INTO b VALUES ('x', 1), ('y', 2);");
  Mirror({"a", "b"});
  Pg("BEGIN; INSERT INTO a VALUES (101, 'w'); UPDATE b SET n = 20 WHERE k = 'y'; COMMIT;"
     "TRUNCATE a; INSERT INTO a VALUES (1, 'after truncate'), (2, 'two');"
     "UPDATE a SET v = 'changed' WHERE k = 2;"
     "INSERT INTO b SELECT 'k' || i, i FROM generate_series(1, 300) i;"
     "DELETE FROM b WHERE n % 3 = 0;");
  // At most 50 changes per batch: several batches, each ending on a transaction boundary.
  auto progress = Mirror({"a", "b"}, false, 50);
  EXPECT_GE(progress.size(), 2u);
  EXPECT_EQ(SiltRows("SELECT k, v, `select` FROM " + Target("a")), PgRows("SELECT k, v, \"select\" FROM a"));
  EXPECT_EQ(SiltRows("SELECT k, n FROM " + Target("b")), PgRows("SELECT k, n FROM b"));
}

TEST_F(PostgresCdcTest, LargeTransactionsStayWholeWithBoundedMemory) {
  Pg("CREATE TABLE big (k bigint PRIMARY KEY, v text);");
  Mirror({"big"});
  // One transaction of 1M rows (more than a transaction keeps in memory), then one that
  // changes a third of them.
  Pg("INSERT INTO big SELECT i, 'value ' || i FROM generate_series(1, 1000000) i;");
  Pg("BEGIN; UPDATE big SET v = 'changed' WHERE k % 3 = 0; DELETE FROM big WHERE k % 10 = 1; COMMIT;");
  auto progress = Mirror({"big"}, false, 1000);
  EXPECT_EQ(progress.size(), 2u);  // each transaction is one batch, however large
  const std::string query = "SELECT count(*), sum(k), count(CASE WHEN v = 'changed' THEN 1 END) FROM ";
  EXPECT_EQ(SiltRows(query + Target("big")), PgRows(query + "big"));
}

TEST_F(PostgresCdcTest, KeepsToastedValuesAnUpdateLeavesOut) {
  Pg("CREATE TABLE docs (id int PRIMARY KEY, body text, counter int);"
     "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL;"
     "INSERT INTO docs SELECT i, (SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 300) j), 0 "
     "FROM generate_series(1, 5) i;");
  Mirror({"docs"});
  Pg("UPDATE docs SET counter = counter + 1;"
     "UPDATE docs SET counter = counter + 1 WHERE id = 1;"
     "UPDATE docs SET body = 'short', counter = 10 WHERE id = 2;"
     "UPDATE docs SET counter = 11 WHERE id = 2;");
  Mirror({"docs"});
  EXPECT_EQ(SiltRows("SELECT id, md5(body), length(body), counter FROM " + Target("docs")),
            PgRows("SELECT id, md5(body), length(body), counter FROM docs"));
}

TEST_F(PostgresCdcTest, KeepsHistoryAsScdType2) {
  Pg("CREATE TABLE dim (id int PRIMARY KEY, city text, body text);"
     "ALTER TABLE dim ALTER COLUMN body SET STORAGE EXTERNAL;"
     "INSERT INTO dim SELECT i, 'c0', (SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 300) j) "
     "FROM generate_series(1, 3) i;");
  Mirror({"dim"}, false, 100000, {"dim"});
  Pg("UPDATE dim SET city = 'c1' WHERE id = 1;"
     "BEGIN; UPDATE dim SET city = 'x' WHERE id = 2; UPDATE dim SET city = 'c1' WHERE id = 2; COMMIT;"
     "DELETE FROM dim WHERE id = 3;");
  Mirror({"dim"}, false, 100000, {"dim"});
  Pg("UPDATE dim SET city = 'c2' WHERE id = 1;");
  Mirror({"dim"}, false, 100000, {"dim"});
  // The current versions equal the source; every id has one version per transaction that
  // changed it (the two updates of id 2 in one transaction are one version).
  EXPECT_EQ(SiltRows("SELECT id, city, md5(body) FROM " + Target("dim") + " WHERE __END_AT IS NULL"),
            PgRows("SELECT id, city, md5(body) FROM dim"));
  EXPECT_EQ(Query("SELECT id, city, __END_AT IS NULL FROM " + Target("dim") + " ORDER BY id, __START_AT"),
            (std::vector<std::string>{"1,c0,false", "1,c1,false", "1,c2,true", "2,c0,false", "2,c1,true",
                                      "3,c0,false"}));
  EXPECT_EQ(Query("SELECT count(*) FROM " + Target("dim") + " a JOIN " + Target("dim") +
                  " b ON a.id = b.id AND a.__END_AT = b.__START_AT"),
            std::vector<std::string>{"3"});
  Pg("TRUNCATE dim;");
  EXPECT_EQ(ErrorOf([&] { Mirror({"dim"}, false, 100000, {"dim"}); }), "CDC_SOURCE_FAILED");
}

TEST_F(PostgresCdcTest, ReplayedBatchIsAppliedOnce) {
  Pg("CREATE TABLE t (k int PRIMARY KEY, n int); INSERT INTO t VALUES (1, 1);");
  Mirror({"t"});
  Pg("UPDATE t SET n = n + 1; INSERT INTO t VALUES (2, 2);");
  Mirror({"t"});
  // Lose the last batch's commit marker, as a crash between the MERGE and the marker would:
  // the batch is run again from the staged changes and its MERGE is recognised as applied.
  std::string checkpoint = CheckpointPath("mirror_" + schema_);
  auto commits = fs_->List(io::JoinPath(checkpoint, "commits"));
  ASSERT_FALSE(commits.empty());
  std::string last;
  for (const auto& file : commits) last = std::max(last, file.path);
  ASSERT_TRUE(fs_->Delete(last));
  int64_t version_before = Latest(Target("t"))->version();
  Mirror({"t"});
  EXPECT_EQ(Latest(Target("t"))->version(), version_before);
  EXPECT_EQ(SiltRows("SELECT k, n FROM " + Target("t")), PgRows("SELECT k, n FROM t"));
  Pg("UPDATE t SET n = n + 10;");
  Mirror({"t"});
  EXPECT_EQ(SiltRows("SELECT k, n FROM " + Target("t")), PgRows("SELECT k, n FROM t"));
}

TEST_F(PostgresCdcTest, SchemaChangeStopsOrEvolves) {
  Pg("CREATE TABLE s (k int PRIMARY KEY, a text); INSERT INTO s VALUES (1, 'x');");
  Mirror({"s"});
  Pg("ALTER TABLE s ADD COLUMN b int; INSERT INTO s VALUES (2, 'y', 20); UPDATE s SET b = 10 WHERE k = 1;");
  EXPECT_EQ(ErrorOf([&] { Mirror({"s"}); }), "CDC_SOURCE_SCHEMA_CHANGED");
  // A restart reads the new schema; with evolution the target gains the column.
  Mirror({"s"}, /*schema_evolution=*/true);
  EXPECT_EQ(SiltRows("SELECT k, a, b FROM " + Target("s")), PgRows("SELECT k, a, b FROM s"));
}

TEST_F(PostgresCdcTest, StreamsOneTablesChangeRows) {
  Pg("CREATE TABLE e (id int PRIMARY KEY, v text) ; ALTER TABLE e REPLICA IDENTITY FULL;"
     "INSERT INTO e VALUES (1, 'a');");
  Sql("CREATE TABLE changes (id int, v string, _op string, _lsn bigint, _seq bigint, "
      "_commit_timestamp timestamp, _unchanged_columns array<string>, _before struct<id:int, v:string>) USING delta");
  auto run = [&] {
    stream::StreamSpec spec;
    std::string checkpoint = CheckpointPath("single_" + schema_);
    spec.source = std::make_unique<PostgresCdcSource>(fs_, Options({"e"}));
    spec.sink = SinkInto("changes");
    spec.query = sql::ParseStatement("SELECT * FROM STREAM(e)").query;
    stream::ReplaceStreamSource(*spec.query);
    spec.checkpoint_location = checkpoint;
    spec.trigger.kind = stream::TriggerKind::kAvailableNow;
    stream::StreamExecution execution(*state_, std::move(spec));
    execution.Run();
  };
  run();
  Pg("UPDATE e SET v = 'b' WHERE id = 1; DELETE FROM e WHERE id = 1; TRUNCATE e;");
  run();
  EXPECT_EQ(Query("SELECT _op, id, v, _before.v FROM changes ORDER BY _lsn, _seq"),
            // REPLICA IDENTITY FULL: the delete carries the whole old row.
            (std::vector<std::string>{"r,1,a,", "u,1,b,a", "d,1,b,b", "t,,,"}));
  EXPECT_EQ(Query("SELECT count(DISTINCT _lsn) FROM changes WHERE _op <> 'r'"), std::vector<std::string>{"3"});
}

TEST_F(PostgresCdcTest, ResumesWhenPostgresRestartsUnderARunningMirror) {
  Pg("CREATE TABLE r (k int PRIMARY KEY, n int); INSERT INTO r VALUES (1, 1);");
  PostgresMirrorSpec spec;
  spec.source = Options({"r"});
  spec.tables.push_back(MirrorTable{schema_ + ".r", Target("r"), MirrorHistory::kScdType1});
  spec.checkpoint_location = CheckpointPath("mirror_" + schema_);
  stream::StreamSpec stream;
  stream.source = MakeMirrorSource(fs_, spec);
  stream.sink = MakeMirrorSink(*stream.source, spec);
  stream.query = sql::ParseStatement("SELECT * FROM STREAM(changes)").query;
  stream::ReplaceStreamSource(*stream.query);
  stream.checkpoint_location = spec.checkpoint_location;
  stream.trigger.kind = stream::TriggerKind::kProcessingTime;
  stream.trigger.interval_ms = 100;
  auto reader = std::make_unique<sql::SessionState>(fs_, warehouse_);
  stream::StreamExecution execution(*state_, std::move(stream));
  std::exception_ptr failure;
  std::thread runner([&] {
    try {
      execution.Run();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  auto wait_for = [&](const std::string& expected) {
    for (int i = 0; i < 600; ++i) {
      try {
        commands::StatementResult result = commands::ExecuteStatement(
            *reader, sql::ParseStatement("SELECT sum(n) FROM " + Target("r")));
        if (!result.batches.empty() && result.batches[0].num_rows() == 1 &&
            result.batches[0].column(0)->ValueToString(0) == expected) {
          return true;
        }
      } catch (const Error&) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  EXPECT_TRUE(wait_for("1"));
  ASSERT_TRUE(server_->Restart());
  Pg("INSERT INTO r VALUES (2, 10);");
  EXPECT_TRUE(wait_for("11"));
  execution.Stop();
  runner.join();
  EXPECT_FALSE(failure);
}

TEST_F(PostgresCdcTest, StreamingTableOverPostgresCdcInSql) {
  RegisterPostgresCdcSource();
  Pg("CREATE TABLE q (id int PRIMARY KEY, v text); INSERT INTO q VALUES (1, 'a'), (2, 'b');");
  auto run = [&](const std::string& text) {
    return stream::ExecuteStreamingStatement(*state_, sql::ParseStatement(text));
  };
  run("CREATE STREAMING TABLE q_changes AS SELECT id, v, _op FROM STREAM postgres_cdc('" + server_->Uri() +
      "', tables => '" + schema_ + ".q', slot => '" + slot_ + "', publication => '" + publication_ + "')");
  Pg("UPDATE q SET v = 'z' WHERE id = 2; DELETE FROM q WHERE id = 1;");
  run("REFRESH STREAMING TABLE q_changes");
  EXPECT_EQ(Query("SELECT _op, id, v FROM q_changes ORDER BY _op, id"),
            (std::vector<std::string>{"d,1,", "r,1,a", "r,2,b", "u,2,z"}));
  // A refresh with nothing new reads nothing.
  run("REFRESH STREAMING TABLE q_changes");
  EXPECT_EQ(Query("SELECT count(*) FROM q_changes"), std::vector<std::string>{"4"});
  EXPECT_EQ(ErrorOf([&] { run("CREATE STREAMING TABLE bad AS SELECT * FROM STREAM postgres_cdc('a', 'b')"); }),
            "WRONG_NUM_ARGS");
  EXPECT_EQ(ErrorOf([&] { run("CREATE STREAMING TABLE bad AS SELECT * FROM STREAM postgres_cdc('" + server_->Uri() +
                              "')"); }),
            "INVALID_STREAMING_OPTION");
}

TEST_F(PostgresCdcTest, ClearErrors) {
  Pg("CREATE TABLE z (k int PRIMARY KEY);");
  EXPECT_EQ(ErrorOf([&] { PostgresCdcOptions::FromMap({{"tables", "z"}}); }), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] { PostgresCdcOptions::FromMap({{"connection", server_->Uri()}}); }),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] {
              PostgresCdcOptions::FromMap({{"connection", server_->Uri()}, {"tables", "z"}, {"slot", "Bad-Slot"}});
            }),
            "INVALID_STREAMING_OPTION");
  PostgresCdcOptions unreachable = Options({"z"});
  unreachable.connection = "postgresql://silt@127.0.0.1:1/postgres";
  EXPECT_EQ(ErrorOf([&] { PostgresChangeReader(fs_, unreachable); }),
            "CDC_SOURCE_CONNECTION_FAILED");
  EXPECT_EQ(ErrorOf([&] { PostgresChangeReader(fs_, Options({"missing"})); }),
            "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorOf([&] { PostgresCdcSource(fs_, Options({"z", "z"})); }),
            "INVALID_STREAMING_OPTION");
  Pg("CREATE TABLE nokey (v int); INSERT INTO nokey VALUES (1);");
  EXPECT_EQ(ErrorOf([&] { Mirror({"nokey"}); }), "CDC_SOURCE_FAILED");
}

}  // namespace
}  // namespace silt::cdc
