// Join planning for conditions beyond plain equalities: an OR whose branches share an equality
// is a hash join on it (TPC-H Q19), with each side filtered by what every branch needs of it;
// subqueries correlated by comparisons other than equality are decorrelated into joins. Row
// estimates from Delta statistics order the joins and pick each hash join's build side.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "silt/expr/scalar.h"
#include "silt/io/file_system.h"
#include "silt/log/table_writer.h"
#include "silt/sql/cardinality.h"
#include "silt/sql/optimizer.h"
#include "silt/sql/parser.h"
#include "silt/sql/planner.h"
#include "silt/sql/query_binder.h"
#include "silt/sql/session_state.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class JoinPlanningTest : public ::testing::Test {
 protected:
  JoinPlanningTest() : fs_(io::MakeMemoryFileSystem()), session_(fs_, "/warehouse") {
    CreateTable("part",
                "SELECT id AS p_partkey, concat('Brand#', CAST(id % 3 AS STRING)) AS p_brand, "
                "id % 7 AS p_size FROM range(1, 31)");
    CreateTable("line",
                "SELECT id AS l_id, id % 30 + 1 AS l_partkey, id % 11 AS l_quantity "
                "FROM range(0, 200)");
    CreateTable("t1",
                "SELECT col1 AS a, col2 AS b FROM VALUES (1, 10), (2, 20), (3, 30), "
                "(CAST(NULL AS INT), 40), (3, 50)");
    CreateTable("t2",
                "SELECT col1 AS c, col2 AS d FROM VALUES (1, 1), (2, 2), (2, 3), (4, 4), "
                "(CAST(NULL AS INT), 5)");
  }

  exec::ExecContext MakeContext() {
    exec::ExecContext context;
    context.eval = session_.MakeEvalContext();
    context.parallelism = 2;
    return context;
  }

  std::vector<std::string> Rows(const std::string& sql) {
    exec::ExecContext context = MakeContext();
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

  // The estimated rows of `sql`'s optimized plan.
  double EstimatedRows(const std::string& sql) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(sql);
    QueryBinder binder(session_, context);
    LogicalPtr plan = OptimizePlan(binder.Bind(*statement.query), context.eval);
    CardinalityEstimator estimator;
    return estimator.Estimate(plan).rows;
  }

  // TPC-H's orders and lineitem in small: 2,000 orders of customers 1..1000, 8 items per order
  // shipped over 700 days.
  void CreateOrdersAndItems() {
    CreateTable("ord", "SELECT id AS o_orderkey, id % 1000 + 1 AS o_custkey FROM range(1, 2001)");
    CreateTable("item",
                "SELECT id AS l_id, id % 2000 + 1 AS l_orderkey, "
                "date_add(DATE'1994-01-01', CAST(id % 700 AS INT)) AS l_date FROM range(0, 16000)");
  }

  std::string Explain(const std::string& sql) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(sql);
    return ExplainQuery(session_, *statement.query, context, false);
  }

  void CreateTable(const std::string& name, const std::string& select) {
    exec::ExecContext context = MakeContext();
    Statement statement = ParseStatement(select);
    PlannedQuery planned = PlanQuery(session_, *statement.query, context);
    std::vector<Batch> rows;
    for (const Batch& batch : exec::Collect(*planned.root, context)) {
      rows.emplace_back(planned.schema, batch.columns(), batch.num_rows());
    }
    log::CreateTableOptions options;
    options.schema = *planned.schema;
    log::CreateTable(fs_, session_.catalog().ManagedLocation("default", name), options, rows);
  }

  std::shared_ptr<io::FileSystem> fs_;
  SessionState session_;
};

// Q19's shape: every OR branch repeats the join equality next to conditions of its own.
constexpr const char* kOrOfBranches =
    "SELECT count(*), sum(l_quantity) FROM line, part WHERE "
    "(p_partkey = l_partkey AND p_brand = 'Brand#1' AND l_quantity <= 3 AND p_size < 4) OR "
    "(p_partkey = l_partkey AND p_brand = 'Brand#2' AND l_quantity >= 8) OR "
    "(l_partkey = p_partkey AND p_brand = 'Brand#0' AND l_quantity = 5)";

TEST_F(JoinPlanningTest, OrBranchesSharingAnEqualityJoinOnItsKey) {
  std::string plan = Explain(kOrOfBranches);
  EXPECT_THAT(plan, HasSubstr("HashJoin Inner"));
  EXPECT_THAT(plan, Not(HasSubstr("NestedLoopJoin")));
  // The rows the branches accept, counted by hand: part p has brand p % 3 and size p % 7; line
  // l joins part l % 30 + 1 with quantity l % 11.
  int64_t count = 0, sum = 0;
  for (int64_t l = 0; l < 200; ++l) {
    int64_t p = l % 30 + 1, q = l % 11;
    bool first = p % 3 == 1 && q <= 3 && p % 7 < 4;
    bool second = p % 3 == 2 && q >= 8;
    bool third = p % 3 == 0 && q == 5;
    if (first || second || third) {
      ++count;
      sum += q;
    }
  }
  EXPECT_THAT(Rows(kOrOfBranches), ElementsAre(std::to_string(count) + "|" + std::to_string(sum)));
}

TEST_F(JoinPlanningTest, OrBranchesFilterEachSideBeforeTheJoin) {
  // Each branch needs its own brand of part and its own quantity range of line: both scans get
  // the OR of those parts as a filter, while the join keeps the whole condition.
  std::string plan = Explain(kOrOfBranches);
  EXPECT_THAT(plan, HasSubstr("'Brand#1'"));
  size_t join = plan.find("HashJoin");
  ASSERT_NE(join, std::string::npos);
  size_t brand_filter = plan.find("'Brand#0'", join);
  EXPECT_NE(brand_filter, std::string::npos) << plan;
  // An OR whose branches do not all read one side leaves that side unfiltered, and a branch
  // that is nothing but the shared equality makes the OR the equality alone.
  EXPECT_THAT(Rows("SELECT count(*) FROM line JOIN part ON (p_partkey = l_partkey AND p_size = 1) "
                   "OR (p_partkey = l_partkey)"),
              ElementsAre("200"));
  EXPECT_THAT(
      Explain("SELECT count(*) FROM line JOIN part ON (p_partkey = l_partkey AND p_size = 1) "
              "OR (p_partkey = l_partkey)"),
      HasSubstr("HashJoin Inner"));
}

TEST_F(JoinPlanningTest, ColumnsReadOnlyByAScanFilterEndAtTheScan) {
  // TPC-H Q13's shape: p_brand is read for the filter pushed into part's scan and by nothing
  // above it, so a projection drops it before the join copies rows.
  std::string sql =
      "SELECT count(*), count(p_partkey) FROM line LEFT JOIN part ON "
      "p_partkey = l_partkey AND p_brand NOT LIKE '%1'";
  EXPECT_THAT(Explain(sql), HasSubstr("+- Project [p_partkey#0]\n         +- Scan delta `spark_catalog`.`default`.`part` "
                                      "[p_partkey, p_brand]"));
  int64_t matched = 0;
  for (int64_t l = 0; l < 200; ++l) {
    if ((l % 30 + 1) % 3 != 1) ++matched;
  }
  EXPECT_THAT(Rows(sql), ElementsAre("200|" + std::to_string(matched)));
}

TEST_F(JoinPlanningTest, OuterJoinOnConditionWithSharedEquality) {
  // In a LEFT JOIN's ON condition the shared equality is a key too; unmatched rows survive.
  std::string sql =
      "SELECT count(*), count(p_partkey) FROM line LEFT JOIN part ON "
      "(p_partkey = l_partkey AND p_size = 1) OR (p_partkey = l_partkey AND p_size = 2)";
  EXPECT_THAT(Explain(sql), HasSubstr("HashJoin LeftOuter"));
  int64_t matched = 0;
  for (int64_t l = 0; l < 200; ++l) {
    int64_t p = l % 30 + 1;
    if (p % 7 == 1 || p % 7 == 2) ++matched;
  }
  EXPECT_THAT(Rows(sql), ElementsAre("200|" + std::to_string(matched)));
}

TEST_F(JoinPlanningTest, FromListJoinsConnectedRelationsBeforeCrossProducts) {
  CreateTable("sup", "SELECT id AS s_key, id * 100 AS s_value FROM range(0, 5)");
  // part and sup share no condition: lineitem, which both join, comes between them.
  std::string sql =
      "SELECT * FROM part, sup, line WHERE p_partkey = l_partkey AND s_key = l_id % 5 AND l_id < 3";
  std::string plan = Explain(sql);
  EXPECT_THAT(plan, Not(HasSubstr("NestedLoopJoin"))) << plan;
  // The columns keep the FROM order.
  EXPECT_THAT(Rows(sql), ElementsAre("1|Brand#1|1|0|0|0|1|0", "2|Brand#2|2|1|100|1|2|1",
                                     "3|Brand#0|3|2|200|2|3|2"));
  // Relations no condition reaches are joined last, as a cross product.
  EXPECT_THAT(Rows("SELECT count(*) FROM part, sup, line WHERE p_partkey = l_partkey"),
              ElementsAre("1000"));
}

TEST_F(JoinPlanningTest, ScalarSubqueryCorrelatedByInequality) {
  // t1: (1,10) (2,20) (3,30) (NULL,40) (3,50); t2.c: 1 2 2 4 NULL.
  EXPECT_THAT(Rows("SELECT b, (SELECT count(*) FROM t2 WHERE t2.c > t1.a) FROM t1 ORDER BY b"),
              ElementsAre("10|3", "20|1", "30|1", "40|0", "50|1"));
  EXPECT_THAT(Rows("SELECT b, (SELECT sum(d) FROM t2 WHERE t2.c <> t1.a) FROM t1 ORDER BY b"),
              ElementsAre("10|9", "20|5", "30|10", "40|NULL", "50|10"));
  EXPECT_THAT(
      Rows("SELECT b FROM t1 WHERE b > (SELECT max(d) * 10 FROM t2 WHERE t2.c < t1.a) ORDER BY b"),
      ElementsAre("20", "50"));
  // Mixed: an equality and an inequality on one subquery.
  EXPECT_THAT(Rows("SELECT b, (SELECT count(*) FROM t2 WHERE t2.c = t1.a AND t2.d <= t1.b / 10) "
                   "FROM t1 ORDER BY b"),
              ElementsAre("10|1", "20|1", "30|0", "40|0", "50|0"));
  // With HAVING: a count that fails it gives NULL, also over no rows at all.
  EXPECT_THAT(Rows("SELECT b, (SELECT count(*) FROM t2 WHERE t2.c >= t1.a HAVING count(*) > 1) "
                   "FROM t1 ORDER BY b"),
              ElementsAre("10|4", "20|3", "30|NULL", "40|NULL", "50|NULL"));
}

TEST_F(JoinPlanningTest, ExistsAndInCorrelatedByInequality) {
  EXPECT_THAT(Rows("SELECT b FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.c > t1.a) ORDER BY b"),
              ElementsAre("10", "20", "30", "50"));
  EXPECT_THAT(
      Rows("SELECT b FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.c > t1.a) ORDER BY b"),
      ElementsAre("40"));
  EXPECT_THAT(Rows("SELECT b FROM t1 WHERE a IN (SELECT d FROM t2 WHERE t2.c <> t1.a) ORDER BY b"),
              ElementsAre("30", "50"));
  // Outside a WHERE conjunct: in the select list and under OR.
  EXPECT_THAT(Rows("SELECT b, EXISTS (SELECT 1 FROM t2 WHERE t2.c > t1.a) FROM t1 ORDER BY b"),
              ElementsAre("10|true", "20|true", "30|true", "40|false", "50|true"));
  EXPECT_THAT(Rows("SELECT b FROM t1 WHERE b = 40 OR a IN (SELECT d FROM t2 WHERE t2.c < t1.a) "
                   "ORDER BY b"),
              ElementsAre("30", "40", "50"));
  EXPECT_THAT(Rows("SELECT b, a NOT IN (SELECT d FROM t2 WHERE t2.c < t1.a) FROM t1 ORDER BY b"),
              ElementsAre("10|true", "20|true", "30|false", "40|true", "50|false"));
}

// Whether the plan semi-joins an aggregate's input with the keys the other join side holds.
bool ReducesAggregate(const std::string& plan) {
  size_t aggregate = plan.find("HashAggregate(keys=[#");
  return aggregate != std::string::npos &&
         plan.find("HashJoin LeftSemi", aggregate) != std::string::npos;
}

TEST_F(JoinPlanningTest, CorrelatedAggregateReadsOnlyTheKeysOfFilteredOuterRows) {
  // TPC-H Q17's shape: the subquery's average per part is needed for the Brand#1 parts only,
  // so its input is semi-joined with them before it is aggregated.
  std::string sql =
      "SELECT count(*), sum(l_quantity) FROM line, part WHERE p_partkey = l_partkey AND "
      "p_brand = 'Brand#1' AND l_quantity * 3 < (SELECT 4 * avg(l2.l_quantity) FROM line l2 "
      "WHERE l2.l_partkey = p_partkey)";
  std::string plan = Explain(sql);
  EXPECT_TRUE(ReducesAggregate(plan)) << plan;
  // By hand: line l has part l % 30 + 1 and quantity l % 11; part p has brand p % 3.
  std::vector<int64_t> sums(31, 0), counts(31, 0);
  for (int64_t l = 0; l < 200; ++l) {
    sums[l % 30 + 1] += l % 11;
    ++counts[l % 30 + 1];
  }
  int64_t count = 0, sum = 0;
  for (int64_t l = 0; l < 200; ++l) {
    int64_t p = l % 30 + 1, q = l % 11;
    // q * 3 < 4 * sums[p] / counts[p], exactly.
    if (p % 3 == 1 && q * 3 * counts[p] < 4 * sums[p]) {
      ++count;
      sum += q;
    }
  }
  EXPECT_THAT(Rows(sql), ElementsAre(std::to_string(count) + "|" + std::to_string(sum)));
}

TEST_F(JoinPlanningTest, ReducedAggregateKeepsNullAndEmptyGroups) {
  // Outer keys 1, 2, NULL and 5 (tag x) and 3 (tag y); the inner table has keys 1 to 4 and
  // three NULL keys: counts 1:5 2:5 3:5 4:6 NULL:3, sums of v 1:40 2:53 3:66 4:78 NULL:39.
  CreateTable(
      "o",
      "SELECT col1 AS k, col2 AS tag FROM VALUES (1, 'x'), (2, 'x'), (CAST(NULL AS BIGINT), 'x'), "
      "(5, 'x'), (3, 'y')");
  CreateTable(
      "i",
      "SELECT CASE WHEN id % 7 = 6 THEN NULL ELSE id % 4 + 1 END AS k, id AS v FROM range(0, 24)");
  auto expect = [&](const std::string& sql, const std::vector<std::string>& rows) {
    std::string plan = Explain(sql);
    EXPECT_TRUE(ReducesAggregate(plan)) << sql << "\n" << plan;
    EXPECT_EQ(Rows(sql), rows) << sql;
  };
  // A count over no rows is 0 (for the NULL key and for a key the inner table lacks), a sum NULL.
  expect("SELECT k, (SELECT count(*) FROM i WHERE i.k = o.k) FROM o WHERE tag = 'x' ORDER BY k",
         {"NULL|0", "1|5", "2|5", "5|0"});
  expect("SELECT k, (SELECT sum(v) FROM i WHERE i.k = o.k) FROM o WHERE tag = 'x' ORDER BY k",
         {"NULL|NULL", "1|40", "2|53", "5|NULL"});
  // HAVING decides per group, also for the empty one.
  expect(
      "SELECT k, (SELECT count(*) FROM i WHERE i.k = o.k HAVING sum(v) > 45) FROM o WHERE tag = "
      "'x' "
      "ORDER BY k",
      {"NULL|NULL", "1|NULL", "2|5", "5|NULL"});
  // Joins with a grouped table: inner, left outer, left semi and left anti.
  const std::string grouped = "(SELECT k, sum(v) AS s, count(*) AS c FROM i GROUP BY k) a";
  expect("SELECT o.k, a.s FROM o JOIN " + grouped + " ON o.k = a.k WHERE o.tag = 'x' ORDER BY o.k",
         {"1|40", "2|53"});
  expect("SELECT o.k, a.s FROM o LEFT JOIN " + grouped +
             " ON o.k = a.k WHERE o.tag = 'x' ORDER BY o.k",
         {"NULL|NULL", "1|40", "2|53", "5|NULL"});
  expect("SELECT o.k FROM o LEFT SEMI JOIN " + grouped +
             " ON o.k = a.k AND a.c = 5 WHERE o.tag = 'x' ORDER BY o.k",
         {"1", "2"});
  expect("SELECT o.k FROM o LEFT ANTI JOIN " + grouped +
             " ON o.k = a.k AND a.c = 5 WHERE o.tag = 'x' ORDER BY o.k",
         {"NULL", "5"});
  // Without a filter on the other side there is nothing to reduce by; nor through a NOT IN,
  // whose result a NULL key decides.
  EXPECT_FALSE(
      ReducesAggregate(Explain("SELECT o.k, a.s FROM o JOIN " + grouped + " ON o.k = a.k")));
  std::string not_in =
      "SELECT k FROM o WHERE tag = 'x' AND k NOT IN (SELECT k FROM i GROUP BY k) ORDER BY k";
  EXPECT_FALSE(ReducesAggregate(Explain(not_in)));
  EXPECT_THAT(Rows(not_in), ElementsAre());
  // A domain that could differ when computed again is not computed twice.
  EXPECT_FALSE(ReducesAggregate(
      Explain("SELECT o.k, a.s FROM o JOIN " + grouped + " ON o.k = a.k WHERE rand() < 2")));
}

// The tables scanned under the deepest hash join of a physical plan's text.
std::vector<std::string> TablesUnderDeepestJoin(const std::string& plan) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < plan.size();) {
    size_t end = plan.find('\n', start);
    if (end == std::string::npos) end = plan.size();
    lines.push_back(plan.substr(start, end - start));
    start = end + 1;
  }
  auto indent = [](const std::string& line) { return line.find_first_not_of(" +-|"); };
  size_t deepest = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("HashJoin") == std::string::npos) continue;
    if (deepest == lines.size() || indent(lines[i]) > indent(lines[deepest])) deepest = i;
  }
  std::vector<std::string> tables;
  if (deepest == lines.size()) return tables;
  const std::string marker = "`spark_catalog`.`default`.`";
  for (size_t i = deepest + 1; i < lines.size() && indent(lines[i]) > indent(lines[deepest]); ++i) {
    size_t at = lines[i].find(marker);
    if (at == std::string::npos) continue;
    size_t begin = at + marker.size();
    tables.push_back(lines[i].substr(begin, lines[i].find('`', begin) - begin));
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

TEST_F(JoinPlanningTest, EstimatesRowsFromFileStatistics) {
  CreateOrdersAndItems();
  EXPECT_DOUBLE_EQ(EstimatedRows("SELECT l_id FROM item"), 16000);
  // A week of the 700 days the dates span: about 1% of the rows.
  double week = EstimatedRows(
      "SELECT l_id FROM item WHERE l_date >= DATE'1994-01-01' AND l_date < DATE'1994-01-08'");
  EXPECT_GT(week, 80);
  EXPECT_LT(week, 320);
  // One of 2,000 keys: 8 rows; three of them: 24.
  double one = EstimatedRows("SELECT l_id FROM item WHERE l_orderkey = 5");
  EXPECT_GT(one, 4);
  EXPECT_LT(one, 16);
  double three = EstimatedRows("SELECT l_id FROM item WHERE l_orderkey IN (5, 6, 7)");
  EXPECT_GT(three, 12);
  EXPECT_LT(three, 48);
  // A key outside the column's range matches (about) nothing.
  EXPECT_LE(EstimatedRows("SELECT l_id FROM item WHERE l_orderkey = 5000"), 1);
  // Groups: at most the distinct values of the key.
  double groups = EstimatedRows("SELECT l_orderkey, count(*) FROM item GROUP BY l_orderkey");
  EXPECT_LE(groups, 2001);
  EXPECT_GE(groups, 1000);
}

TEST_F(JoinPlanningTest, LikePatternsWithMoreLiteralCharactersKeepFewerRows) {
  CreateTable("names", "SELECT id, concat('name', CAST(id AS STRING)) AS name FROM range(0, 1000)");
  double any = EstimatedRows("SELECT id FROM names WHERE name LIKE '%'");
  double prefix = EstimatedRows("SELECT id FROM names WHERE name LIKE 'n%'");
  double word = EstimatedRows("SELECT id FROM names WHERE name LIKE '%name12%'");
  double not_word = EstimatedRows("SELECT id FROM names WHERE name NOT LIKE '%name12%'");
  EXPECT_DOUBLE_EQ(any, 1000);
  EXPECT_DOUBLE_EQ(prefix, 500);
  EXPECT_LT(word, 50);
  EXPECT_GE(word, 10);
  EXPECT_GT(not_word, 950);
}

TEST_F(JoinPlanningTest, ForeignKeyJoinKeepsTheReferencingRowsTheKeySideKeeps) {
  CreateOrdersAndItems();
  // Every item finds its order: 16,000 rows; a tenth of the orders keeps a tenth of the items.
  double all = EstimatedRows("SELECT l_id FROM item, ord WHERE l_orderkey = o_orderkey");
  EXPECT_GT(all, 8000);
  EXPECT_LT(all, 32000);
  double tenth = EstimatedRows(
      "SELECT l_id FROM item, ord WHERE l_orderkey = o_orderkey AND o_orderkey <= 200");
  EXPECT_GT(tenth, 800);
  EXPECT_LT(tenth, 3200);
}

TEST_F(JoinPlanningTest, FilteredReferencingSideIsTheBuildSide) {
  CreateOrdersAndItems();
  // TPC-H Q12's shape: a week of items (161 rows) against all 2,000 orders. The hash join
  // builds its right input, printed second: the items.
  std::string sql =
      "SELECT count(*) FROM ord, item WHERE o_orderkey = l_orderkey AND l_date < DATE'1994-01-08'";
  std::string plan = Explain(sql);
  size_t orders = plan.find("`ord`"), items = plan.find("`item`");
  ASSERT_NE(orders, std::string::npos) << plan;
  ASSERT_NE(items, std::string::npos) << plan;
  EXPECT_LT(orders, items) << plan;
  EXPECT_THAT(Rows(sql), ElementsAre("161"));
}

TEST_F(JoinPlanningTest, SelectiveDimensionJoinsFirst) {
  CreateOrdersAndItems();
  CreateTable("cust", "SELECT id AS c_custkey, id % 25 AS c_nationkey FROM range(1, 1001)");
  CreateTable(
      "nat",
      "SELECT id AS n_nationkey, concat('N', CAST(id AS STRING)) AS n_name FROM range(0, 25)");
  // TPC-H Q7's shape: the FROM order starts at the items, but only the one nation filters; its
  // customers join first, then their orders, and the items probe what is left.
  std::string sql =
      "SELECT count(*) FROM item, ord, cust, nat WHERE l_orderkey = o_orderkey AND "
      "o_custkey = c_custkey AND c_nationkey = n_nationkey AND n_name = 'N3'";
  std::string plan = Explain(sql);
  EXPECT_THAT(TablesUnderDeepestJoin(plan), ElementsAre("cust", "nat")) << plan;
  EXPECT_THAT(plan, Not(HasSubstr("NestedLoopJoin"))) << plan;
  // Customers 3, 28, ..., 978 (40 of them) hold orders c, c + 1000 ...: 80 orders of 8 items.
  EXPECT_THAT(Rows(sql), ElementsAre("640"));
}

TEST_F(JoinPlanningTest, HavingComparisonOnAnAggregateKeepsFewGroups) {
  CreateOrdersAndItems();
  // 2,000 groups; a threshold on an aggregate keeps a small fraction of them (1%), not the
  // third a range without known bounds would keep.
  double having = EstimatedRows(
      "SELECT l_orderkey FROM item GROUP BY l_orderkey HAVING sum(l_id) > 71900");
  EXPECT_GE(having, 1);
  EXPECT_LE(having, 40);
  double counted = EstimatedRows(
      "SELECT l_orderkey, count(*) AS n FROM item GROUP BY l_orderkey HAVING count(*) BETWEEN 2 AND 3");
  EXPECT_LE(counted, 40);
  // A comparison on a group key is read from the key's range (here the upper half).
  double keys = EstimatedRows("SELECT l_orderkey FROM item GROUP BY l_orderkey HAVING l_orderkey > 1000");
  EXPECT_GT(keys, 500);
}

TEST_F(JoinPlanningTest, SemiJoinFiltersTheRelationWhoseRowsItKeeps) {
  CreateOrdersAndItems();
  CreateTable("cust", "SELECT id AS c_custkey, id % 25 AS c_nationkey FROM range(1, 1001)");
  // TPC-H Q18's shape: an IN over the orders whose items' sum passes a threshold (orders 1989
  // to 2000, whose ids sum to 8 * key + 55992). The semi join filters the orders before they
  // join the customers and the items probe them, instead of filtering the joined items.
  std::string sql =
      "SELECT count(*), count(DISTINCT o_orderkey), min(o_orderkey) FROM cust, ord, item "
      "WHERE c_custkey = o_custkey AND o_orderkey = l_orderkey AND o_orderkey IN "
      "(SELECT l_orderkey FROM item GROUP BY l_orderkey HAVING sum(l_id) > 71900)";
  std::string plan = Explain(sql);
  size_t semi = plan.find("HashJoin LeftSemi");
  ASSERT_NE(semi, std::string::npos) << plan;
  size_t next_line = plan.find('\n', semi);
  EXPECT_THAT(plan.substr(next_line, plan.find('\n', next_line + 1) - next_line), HasSubstr("`ord`")) << plan;
  EXPECT_THAT(Rows(sql), ElementsAre("96|12|1989"));
  // NOT IN the same way: every other order's items.
  std::string anti =
      "SELECT count(*) FROM cust, ord, item WHERE c_custkey = o_custkey AND o_orderkey = l_orderkey "
      "AND o_orderkey NOT IN (SELECT l_orderkey FROM item GROUP BY l_orderkey HAVING sum(l_id) > 71900)";
  EXPECT_THAT(Rows(anti), ElementsAre("15904"));
}

TEST_F(JoinPlanningTest, SemiJoinKeepingMostRowsStaysAboveASelectiveJoin) {
  CreateOrdersAndItems();
  CreateTable("cust", "SELECT id AS c_custkey, id % 25 AS c_nationkey FROM range(1, 1001)");
  // EXISTS keeps about every item, and the customers of one nation keep a twenty-fifth of them:
  // the semi join probes the joined rows, not all items.
  std::string sql =
      "SELECT count(*) FROM cust, ord, item WHERE c_custkey = o_custkey AND o_orderkey = l_orderkey "
      "AND c_nationkey = 3 AND EXISTS (SELECT 1 FROM item i2 WHERE i2.l_orderkey = item.l_orderkey "
      "AND i2.l_id <> item.l_id)";
  std::string plan = Explain(sql);
  size_t semi = plan.find("HashJoin LeftSemi");
  ASSERT_NE(semi, std::string::npos) << plan;
  size_t next_line = plan.find('\n', semi);
  EXPECT_THAT(plan.substr(next_line, plan.find('\n', next_line + 1) - next_line), Not(HasSubstr("Scan"))) << plan;
  EXPECT_THAT(Rows(sql), ElementsAre("640"));
}

}  // namespace
}  // namespace silt::sql
