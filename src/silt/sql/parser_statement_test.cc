#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/error.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;

std::string Sql(std::string_view sql) {
  std::string once = ToString(ParseStatement(sql));
  // The canonical text must parse back to itself.
  EXPECT_EQ(ToString(ParseStatement(once)), once) << "from " << sql;
  return once;
}

TEST(ParserQueryTest, SelectClauses) {
  EXPECT_EQ(Sql("select a, b AS c, d e from t"), "SELECT a, b AS c, d AS e FROM t");
  EXPECT_EQ(Sql("SELECT DISTINCT * FROM db.t WHERE x > 1"),
            "SELECT DISTINCT * FROM db.t WHERE (x > 1)");
  EXPECT_EQ(Sql("SELECT t.*, * EXCEPT (a, b.c) FROM t"), "SELECT t.*, * EXCEPT (a, b.c) FROM t");
  EXPECT_EQ(Sql("SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1 ORDER BY 2 DESC, a "
                "NULLS FIRST LIMIT 10 OFFSET 5"),
            "SELECT a, count(*) FROM t GROUP BY a HAVING (count(*) > 1) ORDER BY 2 DESC, a NULLS "
            "FIRST LIMIT 10 OFFSET 5");
  EXPECT_EQ(Sql("SELECT a, sum(b) FROM t GROUP BY ALL"), "SELECT a, sum(b) FROM t GROUP BY ALL");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY 1, 2"), "SELECT a FROM t GROUP BY 1, 2");
  EXPECT_EQ(Sql("SELECT a FROM t LIMIT ALL"), "SELECT a FROM t LIMIT ALL");
  EXPECT_EQ(Sql("SELECT a, row_number() OVER w AS rn FROM t WINDOW w AS (PARTITION BY b ORDER BY "
                "c) QUALIFY rn = 1"),
            "SELECT a, row_number() OVER w AS rn FROM t QUALIFY (rn = 1) WINDOW w AS (PARTITION "
            "BY b ORDER BY c)");
  EXPECT_EQ(Sql("SELECT a FROM t QUALIFY row_number() OVER (PARTITION BY a ORDER BY b) = 1"),
            "SELECT a FROM t QUALIFY (row_number() OVER (PARTITION BY a ORDER BY b) = 1)");
  EXPECT_EQ(Sql("SELECT 1"), "SELECT 1");
  EXPECT_EQ(Sql("SELECT explode(m) AS (k, v) FROM t"), "SELECT explode(m) AS (k, v) FROM t");
  EXPECT_EQ(Sql("FROM t SELECT a"), "SELECT a FROM t");
  EXPECT_EQ(Sql("TABLE db.t"), "TABLE db.t");
}

TEST(ParserQueryTest, GroupingAnalytics) {
  EXPECT_EQ(Sql("SELECT a, b FROM t GROUP BY GROUPING SETS ((a, b), a, ())"),
            "SELECT a, b FROM t GROUP BY GROUPING SETS ((a, b), (a), ())");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, b WITH ROLLUP"), "SELECT a FROM t GROUP BY ROLLUP (a, b)");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, b WITH CUBE"), "SELECT a FROM t GROUP BY CUBE (a, b)");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, ROLLUP (b, (c, d)), CUBE ((a + 1) * 2)"),
            "SELECT a FROM t GROUP BY a, ROLLUP (b, (c, d)), CUBE (((a + 1) * 2))");
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY a, b GROUPING SETS ((a), ())"),
            "SELECT a FROM t GROUP BY a, b GROUPING SETS ((a), ())");
  // A ROLLUP nested in GROUPING SETS is replaced by its sets.
  EXPECT_EQ(Sql("SELECT a FROM t GROUP BY GROUPING SETS (ROLLUP (a, b), (c))"),
            "SELECT a FROM t GROUP BY GROUPING SETS ((a, b), (a), (), (c))");
  EXPECT_EQ(Sql("SELECT count(*) FROM t GROUP BY ROLLUP ()"), "SELECT count(*) FROM t GROUP BY ROLLUP ()");
  // Not keywords elsewhere: a column named rollup, a function call cube(x) in an expression.
  EXPECT_EQ(Sql("SELECT rollup FROM t GROUP BY rollup"), "SELECT rollup FROM t GROUP BY rollup");
  EXPECT_EQ(ToString(ParseStatement("SELECT struct(a AS x, b) FROM t")), "SELECT struct(a AS x, b) FROM t");
  EXPECT_THROW(ParseStatement("SELECT a FROM t GROUP BY GROUPING SETS ()"), Error);
  EXPECT_THROW(ParseStatement("SELECT upper(a AS x) FROM t"), Error);
}

TEST(ParserQueryTest, PivotUnpivotAndInlineTables) {
  EXPECT_EQ(Sql("SELECT * FROM t PIVOT (sum(a) AS s, avg(b) FOR c IN (1 AS one, 2))"),
            "SELECT * FROM t PIVOT (sum(a) AS s, avg(b) FOR c IN (1 AS one, 2))");
  EXPECT_EQ(Sql("SELECT * FROM t PIVOT (sum(a) FOR (c, d) IN ((1, 'x') AS p, (2, 'y') q))"),
            "SELECT * FROM t PIVOT (sum(a) FOR (c, d) IN ((1, 'x') AS p, (2, 'y') AS q))");
  EXPECT_EQ(Sql("SELECT * FROM t UNPIVOT (v FOR n IN (a, b AS bee)) AS u"),
            "SELECT * FROM t UNPIVOT EXCLUDE NULLS (v FOR n IN (a, b AS bee)) AS u");
  EXPECT_EQ(Sql("SELECT * FROM t UNPIVOT INCLUDE NULLS ((v, w) FOR n IN ((a, b) AS x, (c, d)))"),
            "SELECT * FROM t UNPIVOT INCLUDE NULLS ((v, w) FOR n IN ((a, b) AS x, (c, d)))");
  // PIVOT is not an alias of t.
  EXPECT_EQ(Sql("SELECT * FROM t pivot"), "SELECT * FROM t AS pivot");
  EXPECT_EQ(Sql("VALUES (1, 'a') AS v(x, y)"), "SELECT * FROM (VALUES (1, 'a')) AS v(x, y)");
  EXPECT_EQ(Sql("VALUES (1, 'a') v"), "SELECT * FROM (VALUES (1, 'a')) AS v");
  try {
    ParseStatement("WITH a AS (SELECT 1), b AS (SELECT 2), A AS (SELECT 3) SELECT * FROM a");
    ADD_FAILURE() << "duplicate CTE names accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DUPLICATED_CTE_NAMES");
    EXPECT_THAT(error.what(), ::testing::HasSubstr("`A`"));
  }
}

TEST(ParserQueryTest, FromItems) {
  EXPECT_EQ(Sql("SELECT * FROM delta.`/data/events` e"), "SELECT * FROM delta.`/data/events` AS e");
  EXPECT_EQ(Sql("SELECT * FROM parquet.`/p/x.parquet`, json.`/j`, csv.`/c`"),
            "SELECT * FROM parquet.`/p/x.parquet`, json.`/j`, csv.`/c`");
  EXPECT_EQ(Sql("SELECT * FROM (SELECT 1 AS x) AS s (y)"), "SELECT * FROM (SELECT 1 AS x) AS s(y)");
  EXPECT_EQ(Sql("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(id, name)"),
            "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name)");
  EXPECT_EQ(Sql("SELECT * FROM range(10)"), "SELECT * FROM range(10)");
  EXPECT_EQ(Sql("SELECT * FROM table_changes('db.t', 1, 5)"),
            "SELECT * FROM table_changes('db.t', 1, 5)");
  EXPECT_EQ(Sql("SELECT * FROM table_changes_by_path('/p', 2)"),
            "SELECT * FROM table_changes_by_path('/p', 2)");
  EXPECT_EQ(Sql("SELECT * FROM explode(array(1, 2)) AS e(x)"),
            "SELECT * FROM explode(array(1, 2)) AS e(x)");
  EXPECT_EQ(Sql("SELECT * FROM t LATERAL VIEW OUTER explode(arr) ex AS item WHERE item > 0"),
            "SELECT * FROM t LATERAL VIEW OUTER explode(arr) ex AS item WHERE (item > 0)");
  EXPECT_EQ(Sql("SELECT * FROM t LATERAL VIEW posexplode(arr) p AS pos, v"),
            "SELECT * FROM t LATERAL VIEW posexplode(arr) p AS pos, v");
}

TEST(ParserQueryTest, TimeTravel) {
  EXPECT_EQ(Sql("SELECT * FROM t VERSION AS OF 3"), "SELECT * FROM t VERSION AS OF 3");
  EXPECT_EQ(Sql("SELECT * FROM t TIMESTAMP AS OF '2024-01-01' AS x"),
            "SELECT * FROM t TIMESTAMP AS OF '2024-01-01' AS x");
  EXPECT_EQ(Sql("SELECT * FROM t TIMESTAMP AS OF current_timestamp() - INTERVAL 1 DAY"),
            "SELECT * FROM t TIMESTAMP AS OF (current_timestamp() - INTERVAL 1 DAY)");
  EXPECT_EQ(Sql("SELECT * FROM t@v5"), "SELECT * FROM t VERSION AS OF 5");
  EXPECT_EQ(Sql("SELECT * FROM t FOR VERSION AS OF 3"), "SELECT * FROM t VERSION AS OF 3");
  EXPECT_EQ(Sql("SELECT * FROM t FOR SYSTEM_VERSION AS OF 3 x"), "SELECT * FROM t VERSION AS OF 3 AS x");
  EXPECT_EQ(Sql("SELECT * FROM t FOR SYSTEM_TIME AS OF '2024-01-01'"),
            "SELECT * FROM t TIMESTAMP AS OF '2024-01-01'");
  EXPECT_EQ(Sql("SELECT * FROM delta.`/p/t@v12`"), "SELECT * FROM delta.`/p/t` VERSION AS OF 12");
  EXPECT_EQ(Sql("SELECT * FROM t@20240101120000000"),
            "SELECT * FROM t TIMESTAMP AS OF '20240101120000000'");
  Statement statement = ParseStatement("SELECT * FROM db.t VERSION AS OF 7");
  const TableReference& table = *statement.query->from[0];
  EXPECT_THAT(table.name, ElementsAre("db", "t"));
  ASSERT_TRUE(table.time_travel.has_value());
  EXPECT_EQ(table.time_travel->kind, TimeTravel::Kind::kVersion);
  EXPECT_EQ(table.time_travel->value->text, "7");
}

TEST(ParserQueryTest, Joins) {
  EXPECT_EQ(Sql("SELECT * FROM a JOIN b ON a.id = b.id"),
            "SELECT * FROM (a JOIN b ON (a.id = b.id))");
  EXPECT_EQ(Sql("SELECT * FROM a INNER JOIN b USING (id) LEFT JOIN c ON c.x = b.x"),
            "SELECT * FROM ((a JOIN b USING (id)) LEFT OUTER JOIN c ON (c.x = b.x))");
  EXPECT_EQ(Sql("SELECT * FROM a RIGHT OUTER JOIN b ON true FULL JOIN c ON false"),
            "SELECT * FROM ((a RIGHT OUTER JOIN b ON TRUE) FULL OUTER JOIN c ON FALSE)");
  EXPECT_EQ(Sql("SELECT * FROM a CROSS JOIN b NATURAL JOIN c"),
            "SELECT * FROM ((a CROSS JOIN b) NATURAL JOIN c)");
  EXPECT_EQ(Sql("SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k LEFT ANTI JOIN c ON a.k = c.k"),
            "SELECT * FROM ((a LEFT SEMI JOIN b ON (a.k = b.k)) LEFT ANTI JOIN c ON (a.k = c.k))");
  EXPECT_EQ(Sql("SELECT * FROM a x, b AS y"), "SELECT * FROM a AS x, b AS y");
  EXPECT_EQ(Sql("SELECT * FROM a JOIN (b JOIN c ON b.i = c.i) ON a.i = b.i"),
            "SELECT * FROM (a JOIN (b JOIN c ON (b.i = c.i)) ON (a.i = b.i))");
  EXPECT_EQ(Sql("SELECT * FROM a NATURAL LEFT JOIN b"),
            "SELECT * FROM (a NATURAL LEFT OUTER JOIN b)");
}

TEST(ParserQueryTest, SetOperationsAndWith) {
  // INTERSECT binds tighter than UNION and EXCEPT; those associate to the left.
  EXPECT_EQ(Sql("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3"),
            "(SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))");
  EXPECT_EQ(Sql("SELECT 1 EXCEPT SELECT 2 UNION ALL SELECT 3"),
            "((SELECT 1) EXCEPT (SELECT 2)) UNION ALL (SELECT 3)");
  EXPECT_EQ(Sql("SELECT 1 MINUS SELECT 2"), "(SELECT 1) EXCEPT (SELECT 2)");
  EXPECT_EQ(Sql("SELECT 1 UNION DISTINCT SELECT 2 INTERSECT ALL SELECT 3"),
            "(SELECT 1) UNION ((SELECT 2) INTERSECT ALL (SELECT 3))");
  EXPECT_EQ(Sql("(SELECT a FROM t) UNION (SELECT a FROM u) ORDER BY a LIMIT 3"),
            "(SELECT a FROM t) UNION (SELECT a FROM u) ORDER BY a LIMIT 3");
  EXPECT_EQ(Sql("WITH x AS (SELECT 1 AS a), y (b) AS (SELECT 2) SELECT * FROM x, y"),
            "WITH x AS (SELECT 1 AS a), y (b) AS (SELECT 2) SELECT * FROM x, y");
  EXPECT_EQ(Sql("VALUES (1, 2), (3, 4)"), "VALUES (1, 2), (3, 4)");
  EXPECT_EQ(Sql("((SELECT 1))"), "SELECT 1");
  EXPECT_EQ(Sql("(SELECT a FROM t LIMIT 1) LIMIT 2"),
            "SELECT * FROM (SELECT a FROM t LIMIT 1) LIMIT 2");
}

TEST(ParserStatementTest, CreateTable) {
  EXPECT_EQ(Sql("CREATE TABLE IF NOT EXISTS db.events (id BIGINT NOT NULL COMMENT 'the id', "
                "ts TIMESTAMP, day DATE GENERATED ALWAYS AS (CAST(ts AS DATE)), "
                "amount DECIMAL(10,2) DEFAULT 0, tags ARRAY<STRING>, "
                "CONSTRAINT positive CHECK (amount >= 0)) USING delta PARTITIONED BY (day) "
                "LOCATION '/data/events' COMMENT 'events' "
                "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', delta.appendOnly = false)"),
            "CREATE TABLE IF NOT EXISTS db.events (id bigint NOT NULL COMMENT 'the id', ts "
            "timestamp, day date GENERATED ALWAYS AS (CAST(ts AS date)), amount decimal(10,2) "
            "DEFAULT 0, tags array<string>, CONSTRAINT positive CHECK ((amount >= 0))) USING "
            "delta PARTITIONED BY (day) LOCATION '/data/events' COMMENT 'events' TBLPROPERTIES "
            "('delta.enableChangeDataFeed' = 'true', 'delta.appendOnly' = 'false')");
  EXPECT_EQ(Sql("CREATE OR REPLACE TABLE t USING DELTA AS SELECT * FROM s"),
            "CREATE OR REPLACE TABLE t USING DELTA AS SELECT * FROM s");
  EXPECT_EQ(Sql("REPLACE TABLE t (a INT) USING delta"), "REPLACE TABLE t (a int) USING delta");
  EXPECT_EQ(Sql("CREATE TABLE t (a INT, p STRING) PARTITIONED BY (p)"),
            "CREATE TABLE t (a int, p string) PARTITIONED BY (p)");
  // Liquid clustering: columns are paths into structs, with any quoting.
  EXPECT_EQ(Sql("CREATE TABLE t (a INT, s STRUCT<`b c`: INT>) USING delta CLUSTER BY (a, s.`b c`)"),
            "CREATE TABLE t (a int, s struct<`b c`: int>) USING delta CLUSTER BY (a, s.`b c`)");
  Statement clustered = ParseStatement("CREATE TABLE t CLUSTER BY (s.x) AS SELECT 1 AS a");
  ASSERT_TRUE(clustered.cluster_columns.has_value());
  EXPECT_EQ(*clustered.cluster_columns, (std::vector<QualifiedName>{{"s", "x"}}));
  EXPECT_FALSE(ParseStatement("CREATE TABLE t (a INT)").cluster_columns.has_value());
  EXPECT_EQ(Sql("ALTER TABLE t CLUSTER BY (a, b.c)"), "ALTER TABLE t CLUSTER BY (a, b.c)");
  Statement none = ParseStatement("ALTER TABLE t CLUSTER BY NONE");
  EXPECT_EQ(none.alter_action, AlterTableAction::kClusterBy);
  EXPECT_TRUE(none.cluster_columns.has_value() && none.cluster_columns->empty());
  EXPECT_EQ(Sql("ALTER TABLE t CLUSTER BY NONE"), "ALTER TABLE t CLUSTER BY NONE");
  EXPECT_EQ(Sql("CREATE TABLE t AS SELECT 1 AS a"), "CREATE TABLE t AS SELECT 1 AS a");
  EXPECT_EQ(Sql("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY, "
                "k BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY -2))"),
            "CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1), "
            "k bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY -2))");
  EXPECT_THROW(ParseStatement("CREATE TABLE t (a INT GENERATED BY DEFAULT AS (1))"), Error);
  EXPECT_THROW(ParseStatement("CREATE TABLE t (a INT GENERATED ALWAYS AS IDENTITY (STEP 1))"),
               Error);
  Statement statement = ParseStatement(
      "CREATE TABLE t (s STRUCT<x: INT, y: MAP<STRING, DOUBLE>> NOT NULL) TBLPROPERTIES "
      "(delta.minReaderVersion = 2, 'k' 'v')");
  EXPECT_EQ(statement.kind, StatementKind::kCreateTable);
  ASSERT_EQ(statement.columns.size(), 1u);
  EXPECT_EQ(statement.columns[0].type->ToString(), "struct<x:int,y:map<string,double>>");
  EXPECT_FALSE(statement.columns[0].nullable);
  EXPECT_THAT(statement.properties,
              ElementsAre(std::pair<std::string, std::string>("delta.minReaderVersion", "2"),
                          std::pair<std::string, std::string>("k", "v")));
}

TEST(ParserStatementTest, ViewsDatabasesAndDrops) {
  EXPECT_EQ(Sql("CREATE OR REPLACE TEMP VIEW v (a, b) AS SELECT 1, 2"),
            "CREATE OR REPLACE TEMPORARY VIEW v (a, b) AS SELECT 1, 2");
  EXPECT_EQ(Sql("CREATE VIEW IF NOT EXISTS db.v AS SELECT * FROM t"),
            "CREATE VIEW IF NOT EXISTS db.v AS SELECT * FROM t");
  EXPECT_EQ(Sql("CREATE SCHEMA IF NOT EXISTS sales"), "CREATE DATABASE IF NOT EXISTS sales");
  EXPECT_EQ(Sql("CREATE DATABASE d LOCATION '/w/d' COMMENT 'c'"),
            "CREATE DATABASE d COMMENT 'c' LOCATION '/w/d'");
  EXPECT_EQ(Sql("DROP TABLE IF EXISTS db.t"), "DROP TABLE IF EXISTS db.t");
  EXPECT_EQ(Sql("DROP VIEW v"), "DROP VIEW v");
  EXPECT_EQ(Sql("DROP SCHEMA IF EXISTS d CASCADE"), "DROP DATABASE IF EXISTS d CASCADE");
  EXPECT_EQ(Sql("USE sales"), "USE sales");
  EXPECT_EQ(Sql("USE DATABASE sales"), "USE sales");
}

TEST(ParserStatementTest, Insert) {
  EXPECT_EQ(Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')"),
            "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  EXPECT_EQ(Sql("INSERT INTO TABLE db.t (a, b) SELECT x, y FROM s"),
            "INSERT INTO db.t (a, b) SELECT x, y FROM s");
  EXPECT_EQ(Sql("INSERT OVERWRITE t SELECT * FROM s"), "INSERT OVERWRITE t SELECT * FROM s");
  EXPECT_EQ(Sql("INSERT WITH SCHEMA EVOLUTION INTO t SELECT * FROM s"),
            "INSERT WITH SCHEMA EVOLUTION INTO t SELECT * FROM s");
  EXPECT_EQ(Sql("INSERT INTO t REPLACE WHERE day = '2024-01-01' SELECT * FROM s"),
            "INSERT INTO t REPLACE WHERE (day = '2024-01-01') SELECT * FROM s");
  EXPECT_EQ(Sql("INSERT INTO t (SELECT 1)"), "INSERT INTO t SELECT 1");
  EXPECT_EQ(Sql("INSERT OVERWRITE TABLE t PARTITION (p = 1, `q r`) IF NOT EXISTS SELECT 1, 2"),
            "INSERT OVERWRITE t PARTITION (p = 1, `q r`) IF NOT EXISTS SELECT 1, 2");
  EXPECT_EQ(Sql("INSERT INTO t PARTITION (p = 'x') (a, b) VALUES (1, 2)"),
            "INSERT INTO t PARTITION (p = 'x') (a, b) VALUES (1, 2)");
  EXPECT_EQ(Sql("INSERT INTO t BY NAME SELECT 1 AS a"), "INSERT INTO t BY NAME SELECT 1 AS a");
  EXPECT_EQ(Sql("REORG TABLE t APPLY (PURGE)"), "REORG TABLE t APPLY (PURGE)");
  EXPECT_EQ(Sql("SELECT * FROM t TABLESAMPLE (10 PERCENT) REPEATABLE (3) s, u TABLESAMPLE (5 ROWS), "
                "v TABLESAMPLE (BUCKET 1 OUT OF 8)"),
            "SELECT * FROM t TABLESAMPLE (10 PERCENT) REPEATABLE (3) AS s, u TABLESAMPLE (5 ROWS), "
            "v TABLESAMPLE (BUCKET 1 OUT OF 8)");
  EXPECT_EQ(Sql("CREATE TABLE IF NOT EXISTS c SHALLOW CLONE db.t VERSION AS OF 3 "
                "TBLPROPERTIES ('k' = 'v') LOCATION '/x'"),
            "CREATE TABLE IF NOT EXISTS c SHALLOW CLONE db.t VERSION AS OF 3 "
            "TBLPROPERTIES ('k' = 'v') LOCATION '/x'");
  EXPECT_EQ(Sql("REPLACE TABLE c SHALLOW CLONE delta.`/p`"),
            "REPLACE TABLE c SHALLOW CLONE delta.`/p`");
  EXPECT_EQ(Sql("reorg table delta.`/p` where d = 1 apply ( purge )"),
            "REORG TABLE delta.`/p` WHERE (d = 1) APPLY (PURGE)");
  EXPECT_EQ(Sql("INSERT INTO delta.`/p` VALUES 1, 2"), "INSERT INTO delta.`/p` VALUES (1), (2)");
}

TEST(ParserStatementTest, Merge) {
  EXPECT_EQ(Sql("MERGE INTO target t USING source s ON t.id = s.id "
                "WHEN MATCHED AND s.op = 'D' THEN DELETE "
                "WHEN MATCHED THEN UPDATE SET t.v = s.v, t.n = t.n + 1 "
                "WHEN NOT MATCHED AND s.op != 'D' THEN INSERT (id, v) VALUES (s.id, s.v) "
                "WHEN NOT MATCHED BY SOURCE AND t.old THEN DELETE"),
            "MERGE INTO target AS t USING source AS s ON (t.id = s.id) WHEN MATCHED AND (s.op "
            "= 'D') THEN DELETE WHEN MATCHED THEN UPDATE SET t.v = s.v, t.n = (t.n + 1) WHEN "
            "NOT MATCHED AND (s.op != 'D') THEN INSERT (id, v) VALUES (s.id, s.v) WHEN NOT "
            "MATCHED BY SOURCE AND t.old THEN DELETE");
  EXPECT_EQ(Sql("MERGE WITH SCHEMA EVOLUTION INTO delta.`/t` AS t USING (SELECT * FROM u) s "
                "ON t.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED BY TARGET THEN "
                "INSERT * WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.gone = true"),
            "MERGE WITH SCHEMA EVOLUTION INTO delta.`/t` AS t USING (SELECT * FROM u) AS s ON "
            "(t.k = s.k) WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * WHEN NOT "
            "MATCHED BY SOURCE THEN UPDATE SET t.gone = TRUE");
  Statement statement = ParseStatement(
      "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT * "
      "WHEN MATCHED THEN DELETE");
  EXPECT_EQ(statement.kind, StatementKind::kMerge);
  ASSERT_EQ(statement.merge_clauses.size(), 2u);
  EXPECT_EQ(statement.merge_clauses[0].match, MergeMatch::kNotMatchedByTarget);
  EXPECT_EQ(statement.merge_clauses[0].action, MergeAction::kInsertStar);
  EXPECT_EQ(statement.merge_clauses[1].match, MergeMatch::kMatched);
  EXPECT_EQ(statement.merge_clauses[1].action, MergeAction::kDelete);
  EXPECT_EQ(statement.merge_clauses[1].position.column, 68);
  EXPECT_EQ(statement.target->alias, "");
}

TEST(ParserStatementTest, UpdateAndDelete) {
  EXPECT_EQ(Sql("UPDATE db.t SET a = 1, s.x = 'y' WHERE id > 10"),
            "UPDATE db.t SET a = 1, s.x = 'y' WHERE (id > 10)");
  EXPECT_EQ(Sql("UPDATE t AS u SET u.a = u.a * 2"), "UPDATE t AS u SET u.a = (u.a * 2)");
  EXPECT_EQ(Sql("DELETE FROM t WHERE a IS NULL"), "DELETE FROM t WHERE (a IS NULL)");
  EXPECT_EQ(Sql("DELETE FROM delta.`/p` x"), "DELETE FROM delta.`/p` AS x");
  EXPECT_EQ(Sql("DELETE FROM t"), "DELETE FROM t");
}

TEST(ParserStatementTest, AlterTable) {
  EXPECT_EQ(Sql("ALTER TABLE t SET TBLPROPERTIES ('delta.appendOnly' = 'true')"),
            "ALTER TABLE t SET TBLPROPERTIES ('delta.appendOnly' = 'true')");
  EXPECT_EQ(Sql("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS (delta.appendOnly, 'x')"),
            "ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('delta.appendOnly', 'x')");
  EXPECT_EQ(Sql("ALTER TABLE t ADD COLUMNS (c INT COMMENT 'c', d STRING NOT NULL)"),
            "ALTER TABLE t ADD COLUMNS (c int COMMENT 'c', d string NOT NULL)");
  EXPECT_EQ(Sql("ALTER TABLE t ADD COLUMN e DOUBLE"), "ALTER TABLE t ADD COLUMNS (e double)");
  EXPECT_EQ(Sql("ALTER TABLE t ADD CONSTRAINT valid_date CHECK (d > '1900-01-01')"),
            "ALTER TABLE t ADD CONSTRAINT valid_date CHECK ((d > '1900-01-01'))");
  EXPECT_EQ(Sql("ALTER TABLE t DROP CONSTRAINT IF EXISTS valid_date"),
            "ALTER TABLE t DROP CONSTRAINT IF EXISTS valid_date");
  EXPECT_EQ(Sql("ALTER TABLE t RENAME COLUMN a.b TO c"), "ALTER TABLE t RENAME COLUMN a.b TO c");
  EXPECT_EQ(Sql("ALTER TABLE t ALTER COLUMN c SET DEFAULT 1 + 2"),
            "ALTER TABLE t ALTER COLUMN c SET DEFAULT (1 + 2)");
  EXPECT_EQ(Sql("ALTER TABLE t ALTER COLUMN c DROP DEFAULT"),
            "ALTER TABLE t ALTER COLUMN c DROP DEFAULT");
  EXPECT_EQ(Sql("ALTER TABLE t ALTER COLUMN a TYPE bigint"),
            "ALTER TABLE t ALTER COLUMN a TYPE bigint");
  EXPECT_EQ(Sql("ALTER TABLE t CHANGE COLUMN a DROP NOT NULL"),
            "ALTER TABLE t ALTER COLUMN a DROP NOT NULL");
  EXPECT_EQ(Sql("ALTER TABLE t ALTER COLUMN a COMMENT 'x'"),
            "ALTER TABLE t ALTER COLUMN a COMMENT 'x'");
  EXPECT_EQ(Sql("ALTER TABLE t ALTER COLUMN a AFTER b"), "ALTER TABLE t ALTER COLUMN a AFTER b");
  EXPECT_EQ(Sql("ALTER TABLE t ADD COLUMNS (s.t.c INT, d STRING)"),
            "ALTER TABLE t ADD COLUMNS (s.t.c int, d string)");
  EXPECT_EQ(Sql("ALTER TABLE t DROP FEATURE deletionVectors"),
            "ALTER TABLE t DROP FEATURE deletionVectors");
  EXPECT_EQ(Sql("ALTER TABLE t DROP FEATURE 'typeWidening' TRUNCATE HISTORY"),
            "ALTER TABLE t DROP FEATURE typeWidening TRUNCATE HISTORY");
  EXPECT_EQ(Sql("ALTER TABLE t DROP COLUMNS (a, b.c)"), "ALTER TABLE t DROP COLUMNS (a, b.c)");
  EXPECT_EQ(Sql("ALTER TABLE t DROP COLUMN `a.b`.c"), "ALTER TABLE t DROP COLUMNS (`a.b`.c)");
}

TEST(ParserStatementTest, DescribeAndShow) {
  EXPECT_EQ(Sql("DESCRIBE t"), "DESCRIBE TABLE t");
  EXPECT_EQ(Sql("DESC TABLE EXTENDED db.t"), "DESCRIBE TABLE EXTENDED db.t");
  EXPECT_EQ(Sql("DESCRIBE detail"), "DESCRIBE TABLE detail");
  EXPECT_EQ(Sql("DESCRIBE DETAIL delta.`/p`"), "DESCRIBE DETAIL delta.`/p`");
  EXPECT_EQ(Sql("DESCRIBE HEALTH delta.`/p`"), "DESCRIBE HEALTH delta.`/p`");
  EXPECT_EQ(Sql("DESC health db.t"), "DESCRIBE HEALTH db.t");
  EXPECT_EQ(Sql("DESCRIBE health"), "DESCRIBE TABLE health");
  EXPECT_EQ(Sql("DESCRIBE HISTORY t LIMIT 5"), "DESCRIBE HISTORY t LIMIT 5");
  EXPECT_EQ(Sql("DESCRIBE HISTORY '/data/t'"), "DESCRIBE HISTORY delta.`/data/t`");
  EXPECT_EQ(Sql("SHOW TABLES"), "SHOW TABLES");
  EXPECT_EQ(Sql("SHOW TABLES IN db LIKE 'e*'"), "SHOW TABLES IN db LIKE 'e*'");
  EXPECT_EQ(Sql("SHOW SCHEMAS"), "SHOW DATABASES");
  EXPECT_EQ(Sql("SHOW DATABASES LIKE 's*'"), "SHOW DATABASES LIKE 's*'");
  EXPECT_EQ(Sql("SHOW TBLPROPERTIES t (delta.appendOnly)"),
            "SHOW TBLPROPERTIES t ('delta.appendOnly')");
  EXPECT_EQ(Sql("SHOW CREATE TABLE db.t"), "SHOW CREATE TABLE db.t");
  EXPECT_EQ(Sql("SHOW COLUMNS IN t IN db"), "SHOW COLUMNS IN db.t");
}

TEST(ParserStatementTest, UtilityStatements) {
  EXPECT_EQ(Sql("EXPLAIN SELECT 1"), "EXPLAIN SELECT 1");
  EXPECT_EQ(Sql("EXPLAIN EXTENDED DELETE FROM t WHERE a = 1"),
            "EXPLAIN EXTENDED DELETE FROM t WHERE (a = 1)");
  EXPECT_EQ(Sql("SET"), "SET");
  EXPECT_EQ(Sql("SET spark.sql.shuffle.partitions"), "SET spark.sql.shuffle.partitions");
  EXPECT_EQ(Sql("SET spark.databricks.delta.schema.autoMerge.enabled = true"),
            "SET spark.databricks.delta.schema.autoMerge.enabled = true");
  EXPECT_EQ(Sql("SET a -- comment\n = 1 /* c */ 2"), "SET a = 1 2");
  Statement set = ParseStatement("SET a.b=c d ;");
  EXPECT_EQ(set.key, "a.b");
  EXPECT_EQ(set.value, "c d");
  EXPECT_EQ(Sql("RESET"), "RESET");
  EXPECT_EQ(Sql("RESET spark.sql.x"), "RESET spark.sql.x");
  EXPECT_EQ(Sql("RESTORE TABLE t TO VERSION AS OF 3"), "RESTORE TABLE t TO VERSION AS OF 3");
  EXPECT_EQ(Sql("RESTORE delta.`/p` TIMESTAMP AS OF '2024-01-01'"),
            "RESTORE TABLE delta.`/p` TO TIMESTAMP AS OF '2024-01-01'");
  EXPECT_EQ(Sql("VACUUM t"), "VACUUM t");
  EXPECT_EQ(Sql("VACUUM '/data/t' RETAIN 168 HOURS DRY RUN"),
            "VACUUM delta.`/data/t` RETAIN 168 HOURS DRY RUN");
  EXPECT_EQ(Sql("OPTIMIZE t WHERE day >= '2024-01-01' ZORDER BY (a, b)"),
            "OPTIMIZE t WHERE (day >= '2024-01-01') ZORDER BY (a, b)");
  EXPECT_EQ(Sql("OPTIMIZE t ZORDER BY a"), "OPTIMIZE t ZORDER BY (a)");
  EXPECT_EQ(Sql("OPTIMIZE t FULL"), "OPTIMIZE t FULL");
  EXPECT_EQ(Sql("CONVERT TO DELTA parquet.`/p` PARTITIONED BY (day DATE, h INT)"),
            "CONVERT TO DELTA parquet.`/p` PARTITIONED BY (day date, h int)");
}

TEST(ParserStatementTest, NodesKeepSourcePositions) {
  Statement statement = ParseStatement("SELECT a,\n  b + 1 AS c\nFROM t\n  JOIN u ON t.k = u.k");
  const Query& query = *statement.query;
  EXPECT_EQ(query.position.line, 1);
  const Expression& sum = *query.select_list[1].expression;
  EXPECT_EQ(sum.kind, ExpressionKind::kBinary);
  EXPECT_EQ(sum.position.line, 2);
  EXPECT_EQ(sum.position.column, 5);
  EXPECT_EQ(sum.children[0]->position.column, 3);
  EXPECT_EQ(sum.children[1]->position.column, 7);
  const TableReference& join = *query.from[0];
  EXPECT_EQ(join.kind, TableReferenceKind::kJoin);
  EXPECT_EQ(join.join_type, JoinType::kInner);
  EXPECT_EQ(join.left->position.line, 3);
  EXPECT_EQ(join.left->position.column, 6);
  EXPECT_EQ(join.right->position.line, 4);
  EXPECT_EQ(join.right->position.column, 8);
  EXPECT_EQ(join.condition->position.column, 17);
}

TEST(ParserStatementTest, ScriptsKeepSourceText) {
  std::vector<Statement> statements =
      ParseStatements("  SELECT 1 ;; \n -- c\n UPDATE t SET a = 'x;y'  ;\nSHOW TABLES");
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[0].source_text, "SELECT 1");
  EXPECT_EQ(statements[1].source_text, "UPDATE t SET a = 'x;y'");
  EXPECT_EQ(statements[1].position.line, 3);
  EXPECT_EQ(statements[1].position.column, 2);
  EXPECT_EQ(statements[2].kind, StatementKind::kShowTables);
  EXPECT_EQ(statements[2].source_text, "SHOW TABLES");
  std::vector<Statement> sets = ParseStatements("SET a = 1; SET b");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].value, "1");
  EXPECT_EQ(sets[1].key, "b");
  EXPECT_FALSE(sets[1].value.has_value());
  EXPECT_EQ(ParseStatement("EXPLAIN SELECT 1").explained->source_text, "SELECT 1");
}

}  // namespace
}  // namespace silt::sql

namespace silt::sql {
namespace {

TEST(ParserStreamingTest, StreamingTablesAndStreamReferences) {
  EXPECT_EQ(Sql("create streaming table s as select a from stream(t) where a > 1"),
            "CREATE STREAMING TABLE s AS SELECT a FROM STREAM(t) WHERE (a > 1)");
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE s (a BIGINT) PARTITIONED BY (a) AS "
                "SELECT a FROM STREAM(delta.`/p`) WITH (skipChangeCommits = true) x"),
            "CREATE OR REFRESH STREAMING TABLE s (a bigint) PARTITIONED BY (a) AS SELECT a FROM "
            "STREAM(delta.`/p`) WITH ('skipChangeCommits' = 'true') AS x");
  EXPECT_EQ(Sql("REFRESH STREAMING TABLE db.s"), "REFRESH STREAMING TABLE db.s");
  EXPECT_EQ(Sql("REFRESH STREAMING TABLE s FULL"), "REFRESH STREAMING TABLE s FULL");
  EXPECT_EQ(Sql("refresh streaming table s every '30 seconds'"),
            "REFRESH STREAMING TABLE s EVERY '30 seconds'");
  Statement statement = ParseStatement("SELECT * FROM STREAM(t) WITH ('maxFilesPerTrigger' = 5)");
  const TableReference& from = *statement.query->from.at(0);
  EXPECT_TRUE(from.stream);
  EXPECT_THAT(from.stream_options,
              ElementsAre(std::pair<std::string, std::string>{"maxFilesPerTrigger", "5"}));
  // A table named stream is still a table.
  EXPECT_EQ(Sql("SELECT * FROM stream"), "SELECT * FROM stream");
  // STREAM read_files(...): positional and named (`key => value`) arguments.
  EXPECT_EQ(Sql("SELECT * FROM STREAM read_files('/in', format => 'json', maxFilesPerTrigger => 10) f"),
            "SELECT * FROM STREAM read_files('/in', format => 'json', maxFilesPerTrigger => '10') AS f");
  Statement call = ParseStatement("SELECT * FROM STREAM rate(rowsPerSecond => 5)");
  EXPECT_TRUE(call.query->from.at(0)->stream_call);
  EXPECT_THAT(call.query->from.at(0)->stream_options,
              ElementsAre(std::pair<std::string, std::string>{"rowsPerSecond", "5"}));
  EXPECT_THROW(ParseStatement("SELECT * FROM STREAM read_files(format => 'json', '/in')"), Error);
  // Without a query: a table fed by flows.
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE s"), "CREATE OR REFRESH STREAMING TABLE s");
  // Or by an AUTO CDC flow of its own, written after it.
  EXPECT_EQ(Sql("CREATE OR REFRESH STREAMING TABLE s (id INT, v STRING) FLOW AUTO CDC FROM "
                "STREAM(src) KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (seq)"),
            "CREATE OR REFRESH STREAMING TABLE s (id int, v string) FLOW AUTO CDC FROM STREAM(src) "
            "KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (seq) STORED AS SCD TYPE 1");
  EXPECT_THROW(ParseStatement("CREATE STREAMING TABLE s FLOW AUTO CDC INTO t FROM STREAM(src) "
                              "KEYS (id) SEQUENCE BY seq"),
               Error);
}

TEST(ParserStreamingTest, AutoCdcFlows) {
  EXPECT_EQ(Sql("create flow f as auto cdc into t from stream(src) keys (id) "
                "sequence by seq"),
            "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY seq "
            "STORED AS SCD TYPE 1");
  EXPECT_EQ(Sql("CREATE FLOW f COMMENT 'c' AS APPLY CHANGES INTO db.t FROM STREAM(src) s "
                "KEYS (a, b) IGNORE NULL UPDATES APPLY AS DELETE WHEN op = \"D\" "
                "APPLY AS TRUNCATE WHEN op = 'T' SEQUENCE BY s.seq COLUMNS * EXCEPT (op, seq) "
                "STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (c)"),
            "CREATE FLOW f COMMENT 'c' AS APPLY CHANGES INTO db.t FROM STREAM(src) AS s "
            "KEYS (a, b) IGNORE NULL UPDATES APPLY AS DELETE WHEN (op = 'D') "
            "APPLY AS TRUNCATE WHEN (op = 'T') SEQUENCE BY s.seq COLUMNS * EXCEPT (op, seq) "
            "STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (c)");
  // KEYS ends the source rather than naming its alias; COLUMNS lists with or without parentheses.
  Statement statement = ParseStatement(
      "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY seq COLUMNS a, id "
      "STORED AS SCD TYPE 2 TRACK HISTORY ON (a)");
  ASSERT_EQ(statement.kind, StatementKind::kCreateFlow);
  const Statement& body = *statement.flow_body;
  ASSERT_EQ(body.kind, StatementKind::kAutoCdc);
  EXPECT_TRUE(body.auto_cdc->source->alias.empty());
  EXPECT_THAT(body.auto_cdc->keys, ElementsAre("id"));
  EXPECT_FALSE(body.auto_cdc->columns->all);
  EXPECT_THAT(body.auto_cdc->columns->columns, ElementsAre("a", "id"));
  EXPECT_EQ(body.auto_cdc->scd_type, 2);
  EXPECT_THAT(body.auto_cdc->track_history->columns, ElementsAre("a"));
  EXPECT_EQ(Sql("CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY seq "
                "COLUMNS *"),
            "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(src) KEYS (id) SEQUENCE BY seq "
            "COLUMNS * STORED AS SCD TYPE 1");
  // Clauses out of order, a repeated APPLY AS, SCD type 3, AUTO CDC alone: syntax errors.
  for (const char* text :
       {"CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id)",
        "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) SEQUENCE BY seq KEYS (id)",
        "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) APPLY AS DELETE WHEN a "
        "APPLY AS DELETE WHEN b SEQUENCE BY seq",
        "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY seq "
        "STORED AS SCD TYPE 3",
        "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY seq "
        "TRACK HISTORY ON (a) STORED AS SCD TYPE 2",
        "AUTO CDC INTO t FROM STREAM(s) KEYS (id) SEQUENCE BY seq"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(ParseStatement(text), Error);
  }
}

TEST(ParserStreamingTest, MergeAndInsertFlows) {
  EXPECT_EQ(Sql("CREATE FLOW f AS MERGE INTO t USING STREAM(s) x ON t.id = x.id "
                "WHEN MATCHED THEN UPDATE SET n = t.n + x.n"),
            "CREATE FLOW f AS MERGE INTO t USING STREAM(s) AS x ON (t.id = x.id) "
            "WHEN MATCHED THEN UPDATE SET n = (t.n + x.n)");
  EXPECT_EQ(Sql("CREATE FLOW f AS INSERT INTO t BY NAME SELECT a FROM STREAM(s)"),
            "CREATE FLOW f AS INSERT INTO t BY NAME SELECT a FROM STREAM(s)");
  EXPECT_THROW(ParseStatement("CREATE FLOW f AS INSERT INTO t SELECT a FROM STREAM(s)"), Error);
  EXPECT_THROW(ParseStatement("CREATE FLOW f AS SELECT a FROM STREAM(s)"), Error);
}

}  // namespace
}  // namespace silt::sql
