#include "silt/sql/planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/base/error_class.h"
#include "silt/expr/scalar.h"
#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_writer.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class PlannerTest : public ::testing::Test {
 protected:
  PlannerTest() : fs_(io::MakeMemoryFileSystem()), session_(fs_, "/warehouse") {}

  exec::ExecContext MakeContext() {
    exec::ExecContext context;
    context.eval = session_.MakeEvalContext();
    context.parallelism = 2;
    return context;
  }

  // Rows of `sql` as "a|b|c" strings, in result order.
  std::vector<std::string> Rows(const std::string& sql) { return RowsWith(sql, nullptr); }

  std::vector<std::string> RowsWith(const std::string& sql, exec::ExecContext* given) {
    exec::ExecContext local = MakeContext();
    exec::ExecContext& context = given ? *given : local;
    Statement statement = ParseStatement(sql);
    PlannedQuery planned = PlanQuery(session_, *statement.query, context);
    std::vector<std::string> rows;
    for (const Batch& batch : exec::Collect(*planned.root, context)) {
      for (int64_t row = 0; row < batch.num_rows(); ++row) {
        std::string text;
        for (size_t column = 0; column < batch.num_columns(); ++column) {
          if (column > 0) text += "|";
          text += expr::Scalar::FromVector(*batch.column(column), row).ToString();
        }
        rows.push_back(text);
      }
    }
    return rows;
  }

  std::vector<std::string> ColumnNames(const std::string& sql) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(sql);
    PlannedQuery planned = PlanQuery(session_, *statement.query, context);
    std::vector<std::string> names;
    for (const Field& field : planned.schema->fields()) names.push_back(field.name);
    return names;
  }

  // The error of planning and running `sql`.
  Error ErrorOf(const std::string& sql) {
    try {
      Rows(sql);
    } catch (const Error& error) {
      return error;
    }
    ADD_FAILURE() << "no error for " << sql;
    return MakeError(ErrorClass::INTERNAL_ERROR, {{"message", "no error"}});
  }

  // Creates table `name` in the default database from the result of `select`.
  void CreateTable(const std::string& name, const std::string& select,
                   std::vector<std::string> partition_columns = {}) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(select);
    PlannedQuery planned = PlanQuery(session_, *statement.query, context);
    std::vector<Batch> rows = exec::Collect(*planned.root, context);
    log::CreateTableOptions options;
    options.schema = *planned.schema;
    options.partition_columns = std::move(partition_columns);
    std::vector<Batch> relabelled;
    for (const Batch& batch : rows) relabelled.emplace_back(planned.schema, batch.columns(), batch.num_rows());
    log::CreateTable(fs_, session_.catalog().ManagedLocation("default", name), options, relabelled);
  }

  void Append(const std::string& name, const std::string& select) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(select);
    PlannedQuery planned = PlanQuery(session_, *statement.query, context);
    std::vector<Batch> rows;
    for (const Batch& batch : exec::Collect(*planned.root, context)) {
      rows.emplace_back(planned.schema, batch.columns(), batch.num_rows());
    }
    log::AppendToTable(fs_, session_.catalog().ManagedLocation("default", name), rows);
  }

  void CreateSampleTables() {
    CreateTable("emp",
                "SELECT col1 AS id, col2 AS name, col3 AS dept, col4 AS salary FROM VALUES "
                "(1, 'ann', 'eng', 100), (2, 'bob', 'eng', 80), (3, 'cid', 'ops', 50), "
                "(4, 'dee', 'ops', 70), (5, 'eve', CAST(NULL AS STRING), 60)");
    CreateTable("dept", "SELECT col1 AS dept, col2 AS floor FROM VALUES ('eng', 3), ('ops', 1), ('hr', 2)");
  }

  std::shared_ptr<io::FileSystem> fs_;
  SessionState session_;
};

TEST_F(PlannerTest, SelectsWithoutFrom) {
  EXPECT_THAT(Rows("SELECT 1 + 2 AS x, 'a'"), ElementsAre("3|a"));
  EXPECT_THAT(ColumnNames("SELECT 1 + 2, 'a' AS s"), ElementsAre("(1 + 2)", "s"));
}

TEST_F(PlannerTest, ValuesRangeAndGenerators) {
  EXPECT_THAT(Rows("SELECT * FROM VALUES (1, 'a'), (2, NULL) AS v(n, s) ORDER BY n DESC"),
              ElementsAre("2|NULL", "1|a"));
  EXPECT_THAT(ColumnNames("SELECT * FROM VALUES (1, 2)"), ElementsAre("col1", "col2"));
  EXPECT_THAT(Rows("SELECT id * 2 FROM range(3)"), ElementsAre("0", "2", "4"));
  EXPECT_THAT(Rows("SELECT sum(id) FROM range(1, 11, 3)"), ElementsAre("22"));
  EXPECT_THAT(Rows("SELECT explode(array(1, 2, 3)) AS x ORDER BY x DESC"), ElementsAre("3", "2", "1"));
  EXPECT_THAT(Rows("SELECT pos, col FROM posexplode(array('a', 'b'))"), ElementsAre("0|a", "1|b"));
  EXPECT_THAT(Rows("SELECT n, x FROM VALUES (1), (2) AS t(n) LATERAL VIEW explode(array(n, n * 10)) e AS x "
                   "ORDER BY n, x"),
              ElementsAre("1|1", "1|10", "2|2", "2|20"));
}

TEST_F(PlannerTest, FiltersProjectsAndOrders) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT name, salary * 2 AS double_pay FROM emp WHERE salary > 60 ORDER BY salary DESC"),
              ElementsAre("ann|200", "bob|160", "dee|140"));
  EXPECT_THAT(Rows("SELECT name FROM emp ORDER BY dept NULLS LAST, id DESC LIMIT 3 OFFSET 1"),
              ElementsAre("ann", "dee", "cid"));
  EXPECT_THAT(Rows("SELECT name FROM emp ORDER BY dept DESC, 1"), ElementsAre("cid", "dee", "ann", "bob", "eve"));
  EXPECT_THAT(Rows("SELECT * EXCEPT (name, salary) FROM emp WHERE id = 1"), ElementsAre("1|eng"));
  EXPECT_THAT(Rows("SELECT e.* FROM emp e WHERE e.id < 2"), ElementsAre("1|ann|eng|100"));
  EXPECT_THAT(Rows("SELECT DISTINCT dept FROM emp WHERE dept IS NOT NULL ORDER BY dept"), ElementsAre("eng", "ops"));
  EXPECT_THAT(ColumnNames("SELECT id, salary + 1, upper(name) FROM emp"),
              ElementsAre("id", "(salary + 1)", "upper(name)"));
}

TEST_F(PlannerTest, Aggregates) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT dept, count(*), sum(salary) FROM emp GROUP BY dept ORDER BY dept"),
              ElementsAre("NULL|1|60", "eng|2|180", "ops|2|120"));
  EXPECT_THAT(Rows("SELECT dept, sum(salary) / count(*) AS avg_pay FROM emp GROUP BY 1 HAVING max(id) > 2 "
                   "ORDER BY avg_pay"),
              ElementsAre("ops|60.0", "NULL|60.0"));
  EXPECT_THAT(Rows("SELECT upper(dept) AS d, min(name) FROM emp WHERE dept IS NOT NULL GROUP BY d ORDER BY d"),
              ElementsAre("ENG|ann", "OPS|cid"));
  EXPECT_THAT(Rows("SELECT dept, count(*) FROM emp GROUP BY ALL ORDER BY count(*) DESC, dept NULLS LAST"),
              ElementsAre("eng|2", "ops|2", "NULL|1"));
  EXPECT_THAT(Rows("SELECT count(*), count(dept), sum(salary) FROM emp WHERE id > 100"), ElementsAre("0|0|NULL"));
  EXPECT_THAT(Rows("SELECT dept FROM emp GROUP BY dept ORDER BY sum(salary) DESC"),
              ElementsAre("eng", "ops", "NULL"));
  EXPECT_THAT(ColumnNames("SELECT count(*), sum(salary) FROM emp"), ElementsAre("count(1)", "sum(salary)"));
}

TEST_F(PlannerTest, Joins) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT e.name, d.floor FROM emp e JOIN dept d ON e.dept = d.dept ORDER BY e.id"),
              ElementsAre("ann|3", "bob|3", "cid|1", "dee|1"));
  EXPECT_THAT(Rows("SELECT name, floor FROM emp LEFT JOIN dept ON emp.dept = dept.dept WHERE id >= 4 ORDER BY id"),
              ElementsAre("dee|1", "eve|NULL"));
  EXPECT_THAT(Rows("SELECT dept, count(name) FROM emp FULL OUTER JOIN dept USING (dept) GROUP BY dept "
                   "ORDER BY dept NULLS FIRST"),
              ElementsAre("NULL|1", "eng|2", "hr|0", "ops|2"));
  EXPECT_THAT(ColumnNames("SELECT * FROM emp JOIN dept USING (dept)"),
              ElementsAre("dept", "id", "name", "salary", "floor"));
  EXPECT_THAT(Rows("SELECT dept.dept FROM dept LEFT SEMI JOIN emp ON emp.dept = dept.dept ORDER BY 1"),
              ElementsAre("eng", "ops"));
  EXPECT_THAT(Rows("SELECT dept FROM dept LEFT ANTI JOIN emp USING (dept)"), ElementsAre("hr"));
  EXPECT_THAT(Rows("SELECT count(*) FROM emp, dept"), ElementsAre("15"));
  EXPECT_THAT(Rows("SELECT e.name FROM emp e JOIN dept d ON e.salary > d.floor * 25 AND d.dept = 'eng' ORDER BY 1"),
              ElementsAre("ann", "bob"));
  EXPECT_THAT(Rows("SELECT a.id, b.id FROM emp a JOIN emp b ON a.id + 1 = b.id AND b.id <= 3 ORDER BY 1"),
              ElementsAre("1|2", "2|3"));
}

TEST_F(PlannerTest, Windows) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT name, row_number() OVER (PARTITION BY dept ORDER BY salary DESC) AS rn FROM emp "
                   "WHERE dept IS NOT NULL ORDER BY dept, rn"),
              ElementsAre("ann|1", "bob|2", "dee|1", "cid|2"));
  EXPECT_THAT(Rows("SELECT id, sum(salary) OVER w FROM emp WINDOW w AS (ORDER BY id) ORDER BY id LIMIT 3"),
              ElementsAre("1|100", "2|180", "3|230"));
  EXPECT_THAT(Rows("SELECT dept, sum(salary), rank() OVER (ORDER BY sum(salary) DESC) FROM emp GROUP BY dept "
                   "ORDER BY 3"),
              ElementsAre("eng|180|1", "ops|120|2", "NULL|60|3"));
  EXPECT_THAT(Rows("SELECT name FROM emp QUALIFY row_number() OVER (ORDER BY salary) = 1"), ElementsAre("cid"));
}

TEST_F(PlannerTest, Subqueries) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT name FROM emp WHERE salary = (SELECT max(salary) FROM emp)"), ElementsAre("ann"));
  EXPECT_THAT(Rows("SELECT name FROM emp WHERE dept IN (SELECT dept FROM dept WHERE floor > 2) ORDER BY 1"),
              ElementsAre("ann", "bob"));
  EXPECT_THAT(Rows("SELECT dept FROM dept WHERE dept NOT IN (SELECT dept FROM emp WHERE dept IS NOT NULL)"),
              ElementsAre("hr"));
  // NOT IN over a set holding NULL is never true.
  EXPECT_THAT(Rows("SELECT dept FROM dept WHERE dept NOT IN (SELECT dept FROM emp)"), ElementsAre());
  EXPECT_THAT(Rows("SELECT d.dept FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.dept) ORDER BY 1"),
              ElementsAre("eng", "ops"));
  EXPECT_THAT(Rows("SELECT d.dept FROM dept d WHERE NOT EXISTS (SELECT * FROM emp e WHERE e.dept = d.dept)"),
              ElementsAre("hr"));
  EXPECT_THAT(Rows("SELECT d.dept, (SELECT max(salary) FROM emp e WHERE e.dept = d.dept) AS top FROM dept d "
                   "ORDER BY d.dept"),
              ElementsAre("eng|100", "hr|NULL", "ops|70"));
  EXPECT_THAT(Rows("SELECT (SELECT count(*) FROM emp) > 3, 2 IN (SELECT id FROM emp)"), ElementsAre("true|true"));
}

TEST_F(PlannerTest, SetOperations) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT dept FROM emp UNION SELECT dept FROM dept ORDER BY 1 NULLS LAST"),
              ElementsAre("eng", "hr", "ops", "NULL"));
  EXPECT_THAT(Rows("SELECT 1 AS x UNION ALL SELECT 2.5 UNION ALL SELECT 1"), ElementsAre("1.0", "2.5", "1.0"));
  EXPECT_THAT(ColumnNames("SELECT 1 AS x UNION ALL SELECT 2 AS y"), ElementsAre("x"));
  EXPECT_THAT(Rows("SELECT dept FROM dept INTERSECT SELECT dept FROM emp ORDER BY 1"), ElementsAre("eng", "ops"));
  EXPECT_THAT(Rows("SELECT dept FROM dept EXCEPT SELECT dept FROM emp"), ElementsAre("hr"));
  EXPECT_THAT(Rows("VALUES (1), (1), (2) EXCEPT ALL VALUES (1)"), UnorderedElementsAre("1", "2"));
}

TEST_F(PlannerTest, CtesViewsAndTimeTravel) {
  CreateSampleTables();
  EXPECT_THAT(Rows("WITH rich AS (SELECT * FROM emp WHERE salary >= 80), emp AS (SELECT name FROM rich) "
                   "SELECT * FROM emp ORDER BY name"),
              ElementsAre("ann", "bob"));
  EXPECT_THAT(Rows("WITH c(n) AS (SELECT 7) SELECT c.n FROM c"), ElementsAre("7"));
  TempView view;
  view.name = "eng_view";
  view.query = ParseStatement("SELECT name, salary FROM emp WHERE dept = 'eng'").query;
  session_.CreateTempView(view, false);
  EXPECT_THAT(Rows("SELECT v.name FROM eng_view v ORDER BY salary"), ElementsAre("bob", "ann"));

  Append("dept", "SELECT 'ops2' AS dept, 9 AS floor");
  EXPECT_THAT(Rows("SELECT count(*) FROM dept"), ElementsAre("4"));
  EXPECT_THAT(Rows("SELECT count(*) FROM dept VERSION AS OF 0"), ElementsAre("3"));
  EXPECT_THAT(Rows("SELECT count(*) FROM dept@v0"), ElementsAre("3"));
  EXPECT_EQ(ErrorOf("SELECT count(*) FROM dept TIMESTAMP AS OF '2999-01-01'").error_class(),
            "DELTA_TIMESTAMP_GREATER_THAN_COMMIT");
  std::vector<log::CommitTimestamp> history =
      log::ListCommitTimestamps(*fs_, session_.catalog().ManagedLocation("default", "dept"));
  ASSERT_EQ(history.size(), 2u);
  std::string first_commit = expr::Scalar::Timestamp(history[0].timestamp_ms * 1000).ToString();
  EXPECT_THAT(Rows("SELECT count(*) FROM dept TIMESTAMP AS OF '" + first_commit + "'"), ElementsAre("3"));
}

TEST_F(PlannerTest, MoreShapes) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT id, sum(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM emp "
                   "ORDER BY id LIMIT 3"),
              ElementsAre("1|100", "2|180", "3|130"));
  EXPECT_THAT(Rows("SELECT id, lag(salary) OVER (ORDER BY id), lead(salary, 2, 0) OVER (ORDER BY id) FROM emp "
                   "ORDER BY id LIMIT 2"),
              ElementsAre("1|NULL|50", "2|100|70"));
  EXPECT_THAT(Rows("SELECT salary DIV 10 + 1 AS k, count(DISTINCT dept) FROM emp GROUP BY salary DIV 10 "
                   "HAVING k > 7 ORDER BY k"),
              ElementsAre("8|1", "9|1", "11|1"));
  EXPECT_THAT(Rows("SELECT name FROM emp NATURAL JOIN dept WHERE floor = 1 ORDER BY name"), ElementsAre("cid", "dee"));
  EXPECT_THAT(Rows("SELECT d.dept, e.name FROM emp e RIGHT JOIN dept d ON e.dept = d.dept AND e.salary > 75 "
                   "ORDER BY 1, 2"),
              ElementsAre("eng|ann", "eng|bob", "hr|NULL", "ops|NULL"));
  EXPECT_THAT(Rows("SELECT x.a + x.b FROM (SELECT id, salary FROM emp WHERE id = 2) AS x(a, b)"), ElementsAre("82"));
  EXPECT_THAT(Rows("SELECT id FROM emp WHERE id < 3 UNION ALL SELECT floor FROM dept ORDER BY 1 DESC LIMIT 2"),
              ElementsAre("3", "2"));
  EXPECT_THAT(Rows("SELECT (SELECT name FROM emp WHERE id = 99) IS NULL"), ElementsAre("true"));
  EXPECT_THAT(Rows("SELECT named_struct('a', 1, 'b', 'x').b"), ElementsAre("x"));
  EXPECT_THAT(Rows("SELECT k, v FROM (SELECT explode(map('a', 1, 'b', 2)) AS (k, v)) ORDER BY k"),
              ElementsAre("a|1", "b|2"));
  EXPECT_THAT(Rows("SELECT name FROM emp e WHERE e.salary IN (SELECT max(salary) FROM emp f WHERE f.dept = e.dept) "
                   "ORDER BY name"),
              ElementsAre("ann", "dee"));
  EXPECT_THAT(Rows("SELECT count(*) FROM delta.`/warehouse/emp` WHERE salary BETWEEN 60 AND 80"), ElementsAre("3"));
  // The table's data files read as plain Parquet (the log folder is skipped).
  EXPECT_THAT(Rows("SELECT count(*), max(name) FROM parquet.`/warehouse/emp` WHERE salary > 60"), ElementsAre("3|dee"));
  EXPECT_THAT(Rows("SELECT dept, max(salary) - min(salary) FROM emp WHERE dept IS NOT NULL GROUP BY dept "
                   "ORDER BY 2 DESC, 1"),
              ElementsAre("eng|20", "ops|20"));
  // The smaller side (dept) is the hash join's build side: columns come back in query order.
  EXPECT_THAT(Rows("SELECT * FROM dept d JOIN emp e ON d.dept = e.dept WHERE e.id = 3"),
              ElementsAre("ops|1|3|cid|ops|50"));
  // A correlated count over no rows is 0, not NULL.
  EXPECT_THAT(Rows("SELECT d.dept, (SELECT count(*) FROM emp e WHERE e.dept = d.dept) FROM dept d ORDER BY 1"),
              ElementsAre("eng|2", "hr|0", "ops|2"));
}

TEST_F(PlannerTest, SubqueriesInsideExpressions) {
  CreateSampleTables();
  // Correlated EXISTS under OR: an existence join.
  EXPECT_THAT(Rows("SELECT d.dept FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.dept AND "
                   "e.salary > 90) OR d.floor = 2 ORDER BY 1"),
              ElementsAre("eng", "hr"));
  EXPECT_THAT(Rows("SELECT d.dept, EXISTS (SELECT 1 FROM emp e WHERE e.dept = d.dept) FROM dept d ORDER BY 1"),
              ElementsAre("eng|true", "hr|false", "ops|true"));
  EXPECT_THAT(Rows("SELECT name FROM emp e WHERE salary > (SELECT avg(salary) FROM emp f WHERE f.dept = e.dept) "
                   "ORDER BY 1"),
              ElementsAre("ann", "dee"));
  EXPECT_THAT(Rows("SELECT dept.* FROM emp JOIN dept USING (dept) WHERE id = 1"), ElementsAre("eng|3"));
  EXPECT_THAT(Rows("SELECT s.* FROM (SELECT upper(name) AS u, id FROM emp) s WHERE id = 2"), ElementsAre("BOB|2"));
  EXPECT_THAT(Rows("SELECT name FROM emp WHERE (dept, salary) IN (SELECT dept, max(salary) FROM emp GROUP BY dept) "
                   "ORDER BY 1"),
              ElementsAre("ann", "dee"));
}

TEST_F(PlannerTest, EdgeCases) {
  CreateSampleTables();
  EXPECT_THAT(Rows("SELECT count(*), max(id) FROM range(0)"), ElementsAre("0|NULL"));
  EXPECT_THAT(Rows("SELECT * FROM emp WHERE 1 = 0"), ElementsAre());
  EXPECT_THAT(Rows("SELECT sum(x) FROM VALUES (1), (2) AS t(x) HAVING sum(x) > 1"), ElementsAre("3"));
  EXPECT_THAT(Rows("SELECT 1 FROM emp LIMIT 0"), ElementsAre());
  EXPECT_THAT(Rows("SELECT count(*) FROM (SELECT name FROM emp) s"), ElementsAre("5"));
  EXPECT_EQ(ErrorOf("SELECT *").error_class(), "INVALID_USAGE_OF_STAR_OR_REGEX");
  EXPECT_EQ(ErrorOf("SELECT x.* FROM emp").error_class(), "CANNOT_RESOLVE_STAR_EXPAND");
}

TEST_F(PlannerTest, ErrorPositions) {
  CreateSampleTables();
  EXPECT_THAT(ErrorOf("SELECT dept, name FROM emp GROUP BY dept").context(), HasSubstr("pos 13"));
  EXPECT_THAT(ErrorOf("SELECT sum(max(salary)) FROM emp").context(), HasSubstr("pos 11"));
  EXPECT_THAT(ErrorOf("SELECT id FROM emp\nUNION SELECT id, name FROM emp").context(), HasSubstr("line 2"));
  EXPECT_THAT(ErrorOf("SELECT e.nope FROM emp e").context(), HasSubstr("pos 7"));
  EXPECT_THAT(ErrorOf("SELECT 1 FROM emp ORDER BY 0").context(), HasSubstr("pos 27"));
}

// Unusual queries either run or fail with a user error; none ends in an internal error.
TEST_F(PlannerTest, UnusualQueriesFailCleanly) {
  CreateSampleTables();
  const char* queries[] = {
      "SELECT explode(array(1)), explode(array(2))",
      "SELECT sum(explode(array(1)))",
      "SELECT row_number() OVER (ORDER BY row_number() OVER (ORDER BY id)) FROM emp",
      "SELECT id FROM emp WHERE row_number() OVER (ORDER BY id) = 1",
      "SELECT id FROM emp GROUP BY id HAVING row_number() OVER (ORDER BY id) = 1",
      "SELECT (SELECT id, name FROM emp LIMIT 1)",
      "SELECT id FROM emp WHERE id IN (SELECT id, name FROM emp)",
      "SELECT d.dept, (SELECT name FROM emp e WHERE e.dept = d.dept) FROM dept d",
      "SELECT * FROM emp e WHERE EXISTS (SELECT 1 FROM dept d WHERE d.floor > e.salary) OR e.id = 1",
      "SELECT DISTINCT name FROM emp ORDER BY salary",
      "SELECT * FROM range(1, 2, 0)",
      "SELECT * FROM range('a')",
      "SELECT * FROM emp a JOIN emp b USING (nope)",
      "SELECT * FROM (SELECT 1, 2) t(a)",
      "SELECT id FROM emp ORDER BY nope",
      "SELECT count(*) FROM emp GROUP BY 2",
      "SELECT id FROM emp LIMIT 'x'",
      "WITH a AS (SELECT * FROM a) SELECT * FROM a",
      "SELECT * FROM emp TIMESTAMP AS OF 'garbage'",
      "SELECT max(id) OVER w FROM emp",
      "SELECT * FROM VALUES (1), ('a')",
      "SELECT 1 UNION SELECT array(1)",
      "SELECT * FROM emp LATERAL VIEW explode(name) x AS y",
      "SELECT inline(array(1))",
      "SELECT id, name FROM emp GROUP BY ALL HAVING count(*) > 0 ORDER BY 3",
  };
  for (const char* sql : queries) {
    try {
      Rows(sql);
    } catch (const Error& error) {
      EXPECT_NE(error.category(), ErrorCategory::kInternal) << sql << ": " << error.what();
    }
  }
}

TEST_F(PlannerTest, ReadsJsonAndCsvFiles) {
  fs_->WriteFile("/data/events/part-0.json",
                 "{\"id\": 1, \"tags\": [\"a\", \"b\"], \"user\": {\"name\": \"ann\"}}\n"
                 "{\"id\": 2.5, \"extra\": true}\n\n");
  fs_->WriteFile("/data/events/_SUCCESS", "");
  EXPECT_THAT(ColumnNames("SELECT * FROM json.`/data/events`"), ElementsAre("extra", "id", "tags", "user"));
  EXPECT_THAT(Rows("SELECT id, typeof(id), size(tags), user.name, extra FROM json.`/data/events` ORDER BY id"),
              ElementsAre("1.0|double|2|ann|NULL", "2.5|double|NULL|NULL|true"));
  fs_->WriteFile("/data/people.csv", "name,age\nann,31\n\"b, o\",\n");
  EXPECT_THAT(Rows("SELECT name, age FROM csv.`/data/people.csv` ORDER BY name"), ElementsAre("ann|31", "b, o|NULL"));
  fs_->WriteFile("/data/bad.json", "[1, 2]\n");
  EXPECT_EQ(ErrorOf("SELECT * FROM json.`/data/bad.json`").error_class(), "MALFORMED_RECORD_IN_PARSING");
}

TEST_F(PlannerTest, PrunesFilesByPartitionAndStats) {
  CreateTable("events", "SELECT id, CAST(id % 4 AS INT) AS part FROM range(40)", {"part"});
  exec::ExecContext context = MakeContext();
  EXPECT_THAT(RowsWith("SELECT count(*) FROM events WHERE part = 2", &context), ElementsAre("10"));
  EXPECT_EQ(context.counters->files_scanned.load(), 1);
  EXPECT_EQ(context.counters->files_pruned.load(), 3);

  exec::ExecContext in_list = MakeContext();
  EXPECT_THAT(RowsWith("SELECT count(*) FROM events WHERE part IN (0, 1)", &in_list), ElementsAre("20"));
  EXPECT_EQ(in_list.counters->files_scanned.load(), 2);
}

TEST_F(PlannerTest, ExplainShowsThePlans) {
  CreateSampleTables();
  exec::ExecContext context = MakeContext();
  Statement statement = ParseStatement("SELECT name FROM emp WHERE id = 1 ORDER BY name LIMIT 2");
  std::string text = ExplainQuery(session_, *statement.query, context, true);
  EXPECT_THAT(text, HasSubstr("== Analyzed Logical Plan =="));
  EXPECT_THAT(text, HasSubstr("== Optimized Logical Plan =="));
  EXPECT_THAT(text, HasSubstr("== Physical Plan =="));
  EXPECT_THAT(text, HasSubstr("Sort [name#"));
  std::string simple = ExplainQuery(session_, *statement.query, context, false);
  EXPECT_EQ(simple.find("Logical"), std::string::npos);
}

TEST_F(PlannerTest, AnalysisErrors) {
  CreateSampleTables();
  Error unresolved = ErrorOf("SELECT nme FROM emp");
  EXPECT_EQ(unresolved.error_class(), "UNRESOLVED_COLUMN");
  EXPECT_THAT(unresolved.message(), HasSubstr("`nme`"));
  EXPECT_THAT(unresolved.message(), HasSubstr("`emp`.`name`"));
  EXPECT_THAT(unresolved.context(), HasSubstr("line 1, pos 7"));

  Error ambiguous = ErrorOf("SELECT dept FROM emp JOIN dept ON emp.dept = dept.dept");
  EXPECT_EQ(ambiguous.error_class(), "AMBIGUOUS_REFERENCE");
  EXPECT_THAT(ambiguous.context(), HasSubstr("pos 7"));

  EXPECT_EQ(ErrorOf("SELECT dept, name FROM emp GROUP BY dept").error_class(), "MISSING_AGGREGATION");
  EXPECT_EQ(ErrorOf("SELECT sum(max(salary)) FROM emp").error_class(), "NESTED_AGGREGATE_FUNCTION");
  EXPECT_EQ(ErrorOf("SELECT count(*) FROM emp GROUP BY sum(salary)").error_class(), "GROUP_BY_AGGREGATE");
  EXPECT_EQ(ErrorOf("SELECT name FROM emp WHERE sum(salary) > 1").error_class(), "INVALID_WHERE_CONDITION");
  EXPECT_EQ(ErrorOf("SELECT id FROM emp UNION SELECT id, name FROM emp").error_class(), "NUM_COLUMNS_MISMATCH");
  EXPECT_EQ(ErrorOf("SELECT array(1) UNION SELECT 1").error_class(), "INCOMPATIBLE_COLUMN_TYPE");
  Error missing = ErrorOf("SELECT * FROM nowhere");
  EXPECT_EQ(missing.error_class(), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_THAT(missing.context(), HasSubstr("pos 14"));
  EXPECT_EQ(ErrorOf("SELECT (SELECT id FROM emp)").error_class(), "SCALAR_SUBQUERY_TOO_MANY_ROWS");
  EXPECT_EQ(ErrorOf("SELECT name FROM emp ORDER BY 3").error_class(), "ORDER_BY_POS_OUT_OF_RANGE");
  EXPECT_EQ(ErrorOf("SELECT name FROM emp GROUP BY 0").error_class(), "GROUP_BY_POS_OUT_OF_RANGE");
  EXPECT_EQ(ErrorOf("SELECT * FROM emp JOIN dept USING (floor)").error_class(), "UNRESOLVED_USING_COLUMN_FOR_JOIN");
  EXPECT_EQ(ErrorOf("SELECT * FROM emp LIMIT -1").error_class(), "INVALID_LIMIT_LIKE_EXPRESSION");
  EXPECT_EQ(ErrorOf("SELECT * FROM emp VERSION AS OF 7").error_class(), "DELTA_VERSION_NOT_FOUND");
}

}  // namespace
}  // namespace silt::sql
