#include "silt/sql/query_binder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/table_writer.h"
#include "silt/sql/optimizer.h"
#include "silt/sql/parser.h"
#include "silt/sql/planner.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The binder's and optimizer's plans, checked through their structure and text.
class QueryBinderTest : public ::testing::Test {
 protected:
  QueryBinderTest() : fs_(io::MakeMemoryFileSystem()), session_(fs_, "/warehouse") {
    context_.eval = session_.MakeEvalContext();
    context_.parallelism = 1;
    Schema schema({Field{"id", LongType(), false, {}}, Field{"name", StringType(), true, {}},
                   Field{"part", IntegerType(), true, {}}, Field{"info", StructType({Field{"x", IntegerType(), true, {}}}), true, {}}});
    log::CreateTableOptions options;
    options.schema = schema;
    options.partition_columns = {"part"};
    log::CreateTable(fs_, session_.catalog().ManagedLocation("default", "t"), options);
  }

  LogicalPtr Analyze(const std::string& sql) {
    QueryBinder binder(session_, context_);
    return binder.Bind(*ParseStatement(sql).query);
  }
  LogicalPtr Optimize(const std::string& sql) { return OptimizePlan(Analyze(sql), context_.eval); }

  std::vector<std::string> Names(const LogicalPtr& plan) {
    std::vector<std::string> names;
    for (const LogicalColumn& column : plan->columns) names.push_back(column.name);
    return names;
  }

  static const LogicalNode* FindScan(const LogicalNode& node) {
    if (node.kind == LogicalKind::kDeltaScan) return &node;
    for (const LogicalPtr& child : node.children) {
      if (const LogicalNode* scan = FindScan(*child)) return scan;
    }
    return nullptr;
  }

  std::shared_ptr<io::FileSystem> fs_;
  SessionState session_;
  exec::ExecContext context_;
};

TEST_F(QueryBinderTest, NamesOutputColumnsAsSpark) {
  EXPECT_THAT(Names(Analyze("SELECT id, t.name, info.x, id + 1, name AS n FROM t")),
              ElementsAre("id", "name", "x", "(id + 1)", "n"));
  EXPECT_THAT(Names(Analyze("SELECT * FROM t")), ElementsAre("id", "name", "part", "info"));
  EXPECT_THAT(Names(Analyze("SELECT * FROM (SELECT id, name FROM t) AS s(a, b)")), ElementsAre("a", "b"));
}

TEST_F(QueryBinderTest, PrunesColumnsDownToTheScan) {
  LogicalPtr plan = Optimize("SELECT name FROM t WHERE id > 3");
  const LogicalNode* scan = FindScan(*plan);
  ASSERT_NE(scan, nullptr);
  std::vector<std::string> scanned;
  for (const LogicalColumn& column : scan->columns) scanned.push_back(column.name);
  EXPECT_THAT(scanned, ElementsAre("id", "name"));
  ASSERT_NE(scan->predicate, nullptr);
  EXPECT_EQ(plan->columns.size(), 1u);
}

TEST_F(QueryBinderTest, PushesConjunctsIntoScanPruning) {
  LogicalPtr plan = Optimize("SELECT id FROM (SELECT * FROM t) s WHERE part = 2 AND name IS NOT NULL AND id + 1 > 3");
  const LogicalNode* scan = FindScan(*plan);
  ASSERT_NE(scan, nullptr);
  ASSERT_EQ(scan->scan_predicates.size(), 2u);
  EXPECT_EQ(scan->scan_predicates[0].column, "part");
  EXPECT_EQ(scan->scan_predicates[0].op, log::ScanPredicate::Op::kEqual);
  EXPECT_EQ(scan->scan_predicates[0].value, "2");
  EXPECT_EQ(scan->scan_predicates[1].op, log::ScanPredicate::Op::kIsNotNull);
  EXPECT_THAT(LogicalPlanToString(*plan), Not(HasSubstr("Filter")));
}

TEST_F(QueryBinderTest, FoldsConstantsAndMakesTopN) {
  LogicalPtr plan = Optimize("SELECT id FROM t WHERE id > 1 + 2 ORDER BY name LIMIT 5");
  std::string text = LogicalPlanToString(*plan);
  EXPECT_THAT(text, HasSubstr("limit 5"));
  EXPECT_THAT(text, Not(HasSubstr("Limit 5")));
  EXPECT_THAT(text, HasSubstr("> 3"));
}

TEST_F(QueryBinderTest, PushesFiltersIntoJoinSides) {
  LogicalPtr plan = Optimize("SELECT a.id FROM t a JOIN t b ON a.id = b.id WHERE a.part = 1 AND b.name = 'x'");
  ASSERT_EQ(plan->kind, LogicalKind::kProject);
  const LogicalNode& join = *plan->children[0];
  ASSERT_EQ(join.kind, LogicalKind::kJoin);
  EXPECT_NE(FindScan(*join.children[0])->predicate, nullptr);
  EXPECT_NE(FindScan(*join.children[1])->predicate, nullptr);
}

// ROLLUP: an Expand below the aggregate, grouped by the nullable keys and the grouping id; a
// HAVING conjunct over a key filters the expanded rows, never the input; the scan reads only the
// columns the keys and aggregates use.
TEST_F(QueryBinderTest, GroupingSetsExpandBelowTheAggregate) {
  LogicalPtr plan = Optimize("SELECT name, part, count(id) FROM t GROUP BY ROLLUP (name, part) HAVING name IS NULL");
  const LogicalNode* node = plan.get();
  while (node->kind != LogicalKind::kAggregate) node = node->children[0].get();
  ASSERT_EQ(node->expressions.size(), 3u);  // name, part, grouping id
  EXPECT_TRUE(node->columns[0].nullable);
  const LogicalNode& filter = *node->children[0];
  ASSERT_EQ(filter.kind, LogicalKind::kFilter);
  const LogicalNode& expand = *filter.children[0];
  ASSERT_EQ(expand.kind, LogicalKind::kExpand);
  EXPECT_EQ(expand.projections.size(), 3u);
  EXPECT_EQ(FindScan(expand)->predicate, nullptr);
  EXPECT_EQ(FindScan(expand)->columns.size(), 3u);  // id, name, part; not info
  EXPECT_THAT(LogicalPlanToString(*plan), HasSubstr("spark_grouping_id#"));
}

TEST_F(QueryBinderTest, ExplainPrintsTreeOfNodes) {
  std::string text = LogicalPlanToString(*Analyze("SELECT name, count(*) FROM t GROUP BY name"));
  EXPECT_THAT(text, HasSubstr("Project ["));
  EXPECT_THAT(text, HasSubstr("+- Aggregate [name#"));
  EXPECT_THAT(text, HasSubstr("count() AS count(1)#"));
  EXPECT_THAT(text, HasSubstr("Relation "));
}

}  // namespace
}  // namespace silt::sql
