// Scans of Delta tables and plain Parquet files: projection, filtering inside the scan, file
// pruning counters, parallel streaming over row groups, deletion vectors, early destruction and
// worker errors; the progress scans and ranges report, and cancellation between batches.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "silt/base/testing_error_class.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/operators.h"
#include "silt/exec/parquet_scan_stream.h"
#include "silt/exec/sort_window.h"
#include "silt/io/file_system.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_writer.h"
#include "silt/parquet/writer.h"

namespace silt::exec {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

SchemaPtr TableSchema() {
  return std::make_shared<const Schema>(std::vector<Field>{
      Field{"id", LongType(), true, {}},
      Field{"name", StringType(), true, {}},
      Field{"part", StringType(), true, {}},
  });
}

// Rows (id, "n<id>", part) for ids in [first, last).
Batch Rows(int64_t first, int64_t last, const std::string& part) {
  VectorBuilder ids(LongType());
  VectorBuilder names(StringType());
  VectorBuilder parts(StringType());
  for (int64_t id = first; id < last; ++id) {
    ids.AppendInt(id);
    names.AppendString("n" + std::to_string(id));
    parts.AppendString(part);
  }
  return Batch(TableSchema(), {ids.Finish(), names.Finish(), parts.Finish()}, last - first);
}

std::vector<int64_t> LongColumn(const std::vector<Batch>& batches, size_t column) {
  std::vector<int64_t> values;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      values.push_back(batch.column(column)->values<int64_t>()[row]);
    }
  }
  return values;
}

int64_t CountRows(const std::vector<Batch>& batches) {
  int64_t rows = 0;
  for (const Batch& batch : batches) rows += batch.num_rows();
  return rows;
}

expr::ExpressionPtr IdGreaterThan(int64_t value, int id_column = 0) {
  return expr::Compare(expr::ComparisonOperator::kGreater, expr::Column(id_column, LongType()),
                       expr::Literal(expr::Scalar::Long(value)));
}

class DeltaScanTest : public ::testing::Test {
 protected:
  DeltaScanTest() : fs_(io::MakeLocalFileSystem()), root_(folder_.path() + "/table") {}

  // Creates the table partitioned by `part` with one file per append: ids [0,100) in part a,
  // [100,200) in part b, [200,300) in part a.
  void CreatePartitionedTable() {
    log::CreateTableOptions options;
    options.schema = *TableSchema();
    options.partition_columns = {"part"};
    log::CreateTable(fs_, root_, options, {Rows(0, 100, "a")});
    log::AppendToTable(fs_, root_, {Rows(100, 200, "b")});
    log::AppendToTable(fs_, root_, {Rows(200, 300, "a")});
  }

  // One file of `rows` rows in row groups of `group_rows`.
  void CreateTableWithRowGroups(int64_t rows, int64_t group_rows) {
    log::CreateTableOptions options;
    options.schema = *TableSchema();
    options.writer.parquet.row_group_max_rows = group_rows;
    log::CreateTable(fs_, root_, options, {Rows(0, rows, "x")});
  }

  OperatorPtr Scan(log::ScanOptions options = {}, expr::ExpressionPtr filter = nullptr) {
    DeltaScanSpec spec;
    spec.snapshot = log::Snapshot::Load(fs_, root_);
    spec.options = std::move(options);
    spec.filter = std::move(filter);
    spec.table_name = "default.t";
    return MakeDeltaScan(std::move(spec));
  }

  io::TestingTemporaryFolder folder_;
  std::shared_ptr<io::FileSystem> fs_;
  std::string root_;
};

TEST_F(DeltaScanTest, ProjectionReturnsRequestedColumnsInOrder) {
  CreatePartitionedTable();
  log::ScanOptions options;
  options.columns = {"part", "ID"};
  OperatorPtr scan = Scan(options);
  ASSERT_EQ(scan->schema()->num_fields(), 2u);
  EXPECT_EQ(scan->schema()->field(0).name, "part");
  EXPECT_EQ(scan->schema()->field(1).name, "id");
  ExecContext context;
  std::vector<Batch> batches = Collect(*scan, context);
  std::map<std::string, int64_t> rows_per_part;
  std::vector<int64_t> ids = LongColumn(batches, 1);
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      ++rows_per_part[std::string(batch.column(0)->GetString(row))];
    }
  }
  EXPECT_EQ(rows_per_part["a"], 200);
  EXPECT_EQ(rows_per_part["b"], 100);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 300u);
  for (int64_t i = 0; i < 300; ++i) EXPECT_EQ(ids[static_cast<size_t>(i)], i);
  EXPECT_EQ(context.counters->files_scanned, 3);
  EXPECT_EQ(context.counters->rows_scanned, 300);
  EXPECT_FALSE(scan->Next(context).has_value());  // stays exhausted
}

TEST_F(DeltaScanTest, FilterRunsInsideTheScan) {
  CreatePartitionedTable();
  OperatorPtr scan = Scan({}, IdGreaterThan(250));
  ExecContext context;
  std::vector<Batch> batches = Collect(*scan, context);
  std::vector<int64_t> ids = LongColumn(batches, 0);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 49u);
  EXPECT_EQ(ids.front(), 251);
  EXPECT_EQ(ids.back(), 299);
  // Without pruning predicates every row is decoded before the filter.
  EXPECT_EQ(context.counters->rows_scanned, 300);
  EXPECT_EQ(context.counters->files_pruned, 0);
}

TEST_F(DeltaScanTest, PredicatesPruneFilesByStatsAndPartition) {
  CreatePartitionedTable();
  log::ScanOptions by_stats;
  by_stats.predicates = {{"id", log::ScanPredicate::Op::kGreaterOrEqual, "200"}};
  OperatorPtr scan = Scan(by_stats, IdGreaterThan(199));
  ExecContext context;
  EXPECT_EQ(CountRows(Collect(*scan, context)), 100);
  EXPECT_EQ(context.counters->files_scanned, 1);
  EXPECT_EQ(context.counters->files_pruned, 2);
  EXPECT_THAT(scan->Describe(),
              HasSubstr("Scan delta default.t [id, name, part] PushedFilters: "
                        "[GreaterThanOrEqual(id,200)]"));
  EXPECT_THAT(scan->Describe(), HasSubstr("(files 1 of 3)"));

  log::ScanOptions by_partition;
  by_partition.predicates = {{"part", log::ScanPredicate::Op::kEqual, "b"}};
  by_partition.columns = {"id"};
  OperatorPtr partition_scan = Scan(by_partition);
  ExecContext partition_context;
  std::vector<int64_t> ids = LongColumn(Collect(*partition_scan, partition_context), 0);
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(*std::min_element(ids.begin(), ids.end()), 100);
  EXPECT_EQ(partition_context.counters->files_scanned, 1);
  EXPECT_EQ(partition_context.counters->files_pruned, 2);
}

TEST_F(DeltaScanTest, ManyRowGroupsOfOneFileReadOnSeveralThreadsExactlyOnce) {
  CreateTableWithRowGroups(50'000, 1'000);
  ThreadPool pool(4);
  ExecContext context;
  context.pool = &pool;
  log::ScanOptions options;
  options.columns = {"id", "name"};
  OperatorPtr scan = Scan(options);
  std::vector<Batch> batches = Collect(*scan, context);
  EXPECT_EQ(batches.size(), 50u);  // one batch per row group
  std::vector<int64_t> ids = LongColumn(batches, 0);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 50'000u);
  for (int64_t i = 0; i < 50'000; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);
  for (const Batch& batch : batches) {
    int64_t id = batch.column(0)->values<int64_t>()[0];
    EXPECT_EQ(batch.column(1)->GetString(0), "n" + std::to_string(id));
  }
  EXPECT_EQ(context.counters->files_scanned, 1);
}

// What `threads` threads pulling one operator at once got.
struct ParallelPulls {
  std::vector<Batch> batches;
  std::vector<std::string> error_classes;  // one per thread that failed
};

// Pulls `root` (after EnableParallelNext) from `threads` threads at once, each with its own
// context copy, until each sees the end or an error.
ParallelPulls PullInParallel(Operator& root, const ExecContext& context, int threads) {
  EXPECT_TRUE(root.EnableParallelNext());
  std::mutex mutex;
  ParallelPulls pulls;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      ExecContext own = context;
      try {
        while (std::optional<Batch> batch = root.Next(own)) {
          std::lock_guard<std::mutex> lock(mutex);
          pulls.batches.push_back(std::move(*batch));
        }
      } catch (const Error& error) {
        std::lock_guard<std::mutex> lock(mutex);
        pulls.error_classes.push_back(std::string(error.error_class()));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  return pulls;
}

// 1 / (id - at) > 0: divides by zero in the row group holding id `at`.
expr::ExpressionPtr DividesByZeroAt(int64_t at) {
  auto divisor = expr::Arithmetic(expr::ArithmeticOperator::kSubtract, expr::Column(0, LongType()),
                                  expr::Literal(expr::Scalar::Long(at)));
  auto quotient = expr::Arithmetic(expr::ArithmeticOperator::kDivide,
                                   expr::Literal(expr::Scalar::Long(1)), divisor);
  return expr::Compare(expr::ComparisonOperator::kGreater, quotient,
                       expr::Literal(expr::Scalar::Double(0)));
}

TEST(ScanStreamTest, CallersDecodeEveryRowGroupThemselves) {
  // A free pool: had the stream submitted tasks, some row groups would decode on its threads.
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::mutex mutex;
  std::multiset<int64_t> decoded;
  std::set<std::thread::id> decoders;
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field{"id", LongType(), true, {}}});
  ScanStream stream(
      3,
      [&](size_t index) {
        ScanFile file;
        for (int group = 0; group < 10; ++group) file.row_groups.push_back(group);
        file.read = [&, index](int group) {
          const int64_t first = static_cast<int64_t>(index) * 1000 + group * 100;
          {
            std::lock_guard<std::mutex> lock(mutex);
            decoded.insert(first);
            decoders.insert(std::this_thread::get_id());
          }
          VectorBuilder ids(LongType());
          for (int64_t id = first; id < first + 100; ++id) ids.AppendInt(id);
          return Batch(schema, {ids.Finish()}, 100);
        };
        return file;
      },
      nullptr);
  stream.DecodeOnCallers();
  std::set<std::thread::id> callers;
  std::vector<int64_t> ids;
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([&] {
      ExecContext own = context;
      {
        std::lock_guard<std::mutex> lock(mutex);
        callers.insert(std::this_thread::get_id());
      }
      while (std::optional<Batch> batch = stream.Next(own)) {
        std::lock_guard<std::mutex> lock(mutex);
        for (int64_t row = 0; row < batch->num_rows(); ++row) ids.push_back(batch->column(0)->values<int64_t>()[row]);
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 3000u);
  for (int64_t i = 0; i < 3000; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);
  EXPECT_EQ(decoded.size(), 30u);  // every row group once
  EXPECT_EQ(std::set<int64_t>(decoded.begin(), decoded.end()).size(), 30u);
  for (const std::thread::id& decoder : decoders) EXPECT_TRUE(callers.count(decoder)) << "decoded off the callers";
}

TEST_F(DeltaScanTest, ParallelPullsReadEveryRowOnceOnTheCallingThreads) {
  CreateTableWithRowGroups(50'000, 1'000);
  // A pool whose only thread is taken: the callers must decode everything themselves.
  ThreadPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto blocker = pool.Submit([released] { released.wait(); });
  ExecContext context;
  context.pool = &pool;
  OperatorPtr scan = Scan({}, IdGreaterThan(9'999));
  ParallelPulls pulls = PullInParallel(*scan, context, 3);
  EXPECT_TRUE(pulls.error_classes.empty());
  std::vector<int64_t> ids = LongColumn(pulls.batches, 0);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 40'000u);
  for (int64_t i = 0; i < 40'000; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i + 10'000);
  EXPECT_EQ(context.counters->rows_scanned, 50'000);
  EXPECT_EQ(context.counters->files_scanned, 1);
  // Every caller sees the end once the rows are gone.
  ExecContext after = context;
  EXPECT_FALSE(scan->Next(after).has_value());
  release.set_value();
  blocker.wait();
}

TEST_F(DeltaScanTest, ParallelPullsSurfaceAWorkersErrorToEveryCaller) {
  CreateTableWithRowGroups(8'000, 1'000);
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  OperatorPtr scan = Scan({}, DividesByZeroAt(6500));
  ParallelPulls pulls = PullInParallel(*scan, context, 3);
  EXPECT_EQ(pulls.error_classes,
            std::vector<std::string>(3, "DIVIDE_BY_ZERO"));
}

TEST_F(DeltaScanTest, ProjectAndFilterAllowParallelPullsOnlyOverAScanThatDoes) {
  CreateTableWithRowGroups(5'000, 1'000);
  OperatorPtr plan = MakeFilter(Scan(), IdGreaterThan(4'499));
  plan = MakeProject(std::move(plan), {expr::Column(0, LongType())}, {"id"});
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  ParallelPulls pulls = PullInParallel(*plan, context, 2);
  EXPECT_TRUE(pulls.error_classes.empty());
  std::vector<int64_t> ids = LongColumn(pulls.batches, 0);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 500u);
  EXPECT_EQ(ids.front(), 4'500);
  EXPECT_EQ(ids.back(), 4'999);

  OperatorPtr over_batches = MakeFilter(MakeBatchSource(TableSchema(), {Rows(0, 10, "x")}),
                                        IdGreaterThan(4));
  EXPECT_FALSE(over_batches->EnableParallelNext());
}

TEST_F(DeltaScanTest, RowGroupsAreSkippedByStatistics) {
  CreateTableWithRowGroups(10'000, 1'000);
  log::ScanOptions options;
  options.predicates = {{"id", log::ScanPredicate::Op::kGreaterOrEqual, "8500"}};
  OperatorPtr scan = Scan(options, IdGreaterThan(8499));
  ExecContext context;
  EXPECT_EQ(CountRows(Collect(*scan, context)), 1'500);
  EXPECT_EQ(context.counters->rows_scanned, 2'000);  // row groups 8 and 9 only
}

TEST_F(DeltaScanTest, ATopNBoundSkipsRowGroupsThatCannotEnterIt) {
  // ids 0..99999 in row groups of 1,000, in order: ORDER BY id LIMIT 3 holds its three rows
  // after the first row group, and its bound (id <= 2) then rules out every later group by its
  // statistics, which are not decoded.
  CreateTableWithRowGroups(100'000, 1'000);
  auto top_three = [&](std::shared_ptr<log::ScanBound> bound, ExecContext& context) {
    log::ScanOptions options;
    options.columns = {"id", "name"};
    options.bound = bound;
    OperatorPtr top = MakeSort(Scan(options), {SortKey{0, true, false}}, 3, 0, bound);
    return Collect(*top, context);
  };
  ExecContext unbounded_context;
  std::vector<Batch> unbounded = top_three(nullptr, unbounded_context);
  EXPECT_EQ(unbounded_context.counters->rows_scanned, 100'000);
  ExecContext bounded_context;
  auto bound = std::make_shared<log::ScanBound>("ID", log::ScanPredicate::Op::kLessOrEqual);
  std::vector<Batch> bounded = top_three(bound, bounded_context);
  EXPECT_EQ(LongColumn(bounded, 0), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(LongColumn(unbounded, 0), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(bounded[0].column(1)->GetString(2), "n2");
  // The row groups decoded before the first bound was set, and none after.
  EXPECT_LT(bounded_context.counters->rows_scanned, 20'000);
  ASSERT_TRUE(bound->Current().has_value());
  EXPECT_EQ(bound->Current()->value, "2");
}

TEST_F(DeltaScanTest, ATopNBoundKeepsTiesAndDropsOnlyWorseRows) {
  // Descending on a key with many ties: rows equal to the bound stay (a later key may still
  // prefer them), and the result is the unbounded one.
  log::CreateTableOptions create;
  create.schema = *TableSchema();
  create.writer.parquet.row_group_max_rows = 500;
  std::vector<Batch> batches;
  for (int64_t file = 0; file < 4; ++file) batches.push_back(Rows(file * 5'000, (file + 1) * 5'000, "x"));
  log::CreateTable(fs_, root_, create, batches);
  auto top = [&](std::shared_ptr<log::ScanBound> bound) {
    log::ScanOptions options;
    options.columns = {"part", "id"};
    options.bound = bound;
    ExecContext context;
    OperatorPtr sort = MakeSort(Scan(options), {SortKey{0, false, false}, SortKey{1, false, false}}, 7, 2, bound);
    return LongColumn(Collect(*sort, context), 1);
  };
  std::vector<int64_t> expected = top(nullptr);
  EXPECT_EQ(expected, (std::vector<int64_t>{19'997, 19'996, 19'995, 19'994, 19'993, 19'992, 19'991}));
  EXPECT_EQ(top(std::make_shared<log::ScanBound>("part", log::ScanPredicate::Op::kGreaterOrEqual)), expected);
}

TEST_F(DeltaScanTest, ATopNBoundWithNullsFirstSkipsOnlyRowGroupsWithoutNulls) {
  // ORDER BY name LIMIT 4 (NULLs first): a NULL beats every bound, so the row group holding
  // NULL names is read whole; the others are skipped once the bound is set.
  log::CreateTableOptions create;
  create.schema = *TableSchema();
  create.writer.parquet.row_group_max_rows = 1'000;
  Batch rows = Rows(0, 20'000, "x");
  VectorBuilder names(StringType());
  for (int64_t id = 0; id < 20'000; ++id) {
    if (id == 17'500 || id == 17'501) {
      names.AppendNull();
    } else {
      names.AppendString("n" + std::to_string(100'000 + id));
    }
  }
  log::CreateTable(fs_, root_, create,
                   {Batch(TableSchema(), {rows.column(0), names.Finish(), rows.column(2)}, 20'000)});
  auto top = [&](std::shared_ptr<log::ScanBound> bound, ExecContext& context) {
    log::ScanOptions options;
    options.columns = {"name", "id"};
    options.bound = bound;
    OperatorPtr sort = MakeSort(Scan(options), {SortKey{0, true, true}}, 4, 0, bound);
    return LongColumn(Collect(*sort, context), 1);
  };
  ExecContext unbounded_context;
  std::vector<int64_t> expected = top(nullptr, unbounded_context);
  EXPECT_EQ(expected, (std::vector<int64_t>{17'500, 17'501, 0, 1}));
  ExecContext bounded_context;
  EXPECT_EQ(top(std::make_shared<log::ScanBound>("name", log::ScanPredicate::Op::kLessOrEqual, true),
                bounded_context),
            expected);
  EXPECT_LT(bounded_context.counters->rows_scanned, 10'000);
}

TEST_F(DeltaScanTest, AWideScanUnderABoundDecodesOnlyRowGroupsHoldingTheFilesBestRows) {
  // Nine columns, row groups of 1,000 rows, ids ascending: a bound keeping 3 rows of the
  // largest ids reads the id column alone first, and then decodes only the last row group, and
  // only its rows from the file's third largest id on.
  std::vector<Field> fields{Field{"id", LongType(), true, {}}};
  for (int c = 0; c < 8; ++c) fields.push_back(Field{"c" + std::to_string(c), StringType(), true, {}});
  auto schema = std::make_shared<const Schema>(fields);
  std::vector<VectorPtr> columns;
  VectorBuilder ids(LongType());
  for (int64_t id = 0; id < 20'000; ++id) ids.AppendInt(id);
  columns.push_back(ids.Finish());
  for (int c = 0; c < 8; ++c) {
    VectorBuilder text(StringType());
    for (int64_t id = 0; id < 20'000; ++id) text.AppendString("v" + std::to_string(id * 8 + c));
    columns.push_back(text.Finish());
  }
  log::CreateTableOptions create;
  create.schema = *schema;
  create.writer.parquet.row_group_max_rows = 1'000;
  log::CreateTable(fs_, root_, create, {Batch(schema, columns, 20'000)});
  log::ScanOptions options;
  options.bound = std::make_shared<log::ScanBound>("id", log::ScanPredicate::Op::kGreaterOrEqual, false, 3);
  ExecContext context;
  std::vector<int64_t> read = LongColumn(Collect(*Scan(options), context), 0);
  std::sort(read.begin(), read.end());
  EXPECT_EQ(read, (std::vector<int64_t>{19'997, 19'998, 19'999}));
  EXPECT_LE(context.counters->rows_scanned, 1'000);
}

TEST_F(DeltaScanTest, PartitionColumnsAloneTakeRowCountsFromTheFile) {
  CreatePartitionedTable();
  log::ScanOptions options;
  options.columns = {"part"};
  OperatorPtr scan = Scan(options);
  ExecContext context;
  std::vector<Batch> batches = Collect(*scan, context);
  EXPECT_EQ(CountRows(batches), 300);
  for (const Batch& batch : batches) EXPECT_EQ(batch.num_columns(), 1u);
}

TEST_F(DeltaScanTest, DestroyingBeforeExhaustionStopsTheWorkers) {
  CreateTableWithRowGroups(40'000, 500);
  ThreadPool pool(3);
  for (int attempt = 0; attempt < 5; ++attempt) {
    ExecContext context;
    context.pool = &pool;
    OperatorPtr scan = Scan();
    ASSERT_TRUE(scan->Next(context).has_value());
    scan.reset();  // must neither hang nor leave workers reading freed state
    EXPECT_LT(context.counters->rows_scanned, 40'000);
  }
  // An operator never pulled is destroyed as well.
  OperatorPtr unused = Scan();
}

TEST_F(DeltaScanTest, BusyPoolSlowsTheScanButCannotStallIt) {
  CreateTableWithRowGroups(3'000, 1'000);
  ThreadPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto blocker = pool.Submit([released] { released.wait(); });  // the only worker is taken
  ExecContext context;
  context.pool = &pool;
  OperatorPtr scan = Scan();
  EXPECT_EQ(CountRows(Collect(*scan, context)), 3'000);  // decoded by the consumer itself
  release.set_value();
  blocker.wait();
}

TEST_F(DeltaScanTest, ErrorInAWorkerSurfacesFromNext) {
  CreateTableWithRowGroups(4'000, 1'000);
  // Divides by zero in one row group, on a worker thread.
  expr::ExpressionPtr filter = DividesByZeroAt(2500);
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  OperatorPtr scan = Scan({}, filter);
  try {
    Collect(*scan, context);
    FAIL() << "expected DIVIDE_BY_ZERO";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DIVIDE_BY_ZERO");
  }
}

TEST_F(DeltaScanTest, MissingDataFileSurfacesAsPathNotFound) {
  CreatePartitionedTable();
  OperatorPtr scan = Scan();
  auto snapshot = log::Snapshot::Load(fs_, root_);
  for (const auto& file : snapshot->files()) fs_->Delete(snapshot->ResolvePath(file.path));
  ExecContext context;
  try {
    Collect(*scan, context);
    FAIL() << "expected PATH_NOT_FOUND";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PATH_NOT_FOUND");
  }
}

TEST_F(DeltaScanTest, EmptyTableHasNoBatches) {
  log::CreateTableOptions options;
  options.schema = *TableSchema();
  log::CreateTable(fs_, root_, options);
  OperatorPtr scan = Scan();
  ExecContext context;
  EXPECT_FALSE(scan->Next(context).has_value());
  EXPECT_EQ(context.counters->files_scanned, 0);
}

TEST_F(DeltaScanTest, UnknownColumnIsRejected) {
  CreatePartitionedTable();
  log::ScanOptions options;
  options.columns = {"nope"};
  try {
    Scan(options);
    FAIL() << "expected INVALID_ARGUMENT";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INVALID_ARGUMENT");
  }
}

std::string GoldenTable(const std::string& name) {
  const char* data = std::getenv("SILT_TEST_DATA_DIR");
  return data == nullptr ? std::string() : std::string(data) + "/golden/" + name + "/delta";
}

TEST(DeltaScanGoldenTest, DeletionVectorsRemoveRows) {
  std::string root = GoldenTable("delta-rs/table-with-dv-small");
  auto fs = io::MakeLocalFileSystem();
  if (root.empty() || !fs->Stat(root + "/_delta_log/00000000000000000000.json").has_value()) {
    GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  }
  DeltaScanSpec spec;
  spec.snapshot = log::Snapshot::Load(fs, root);
  spec.table_name = "dv";
  OperatorPtr scan = MakeDeltaScan(std::move(spec));
  ExecContext context;
  std::vector<Batch> batches = Collect(*scan, context);
  std::vector<std::string> values;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      values.push_back(batch.column(0)->ValueToString(row));
    }
  }
  EXPECT_THAT(values, UnorderedElementsAre("1", "2", "3", "4", "5", "6", "7", "8"));
}

TEST(DeltaScanGoldenTest, ManyDeletionVectorFilesWithCheckpoint) {
  std::string root = GoldenTable("delta-kernel-java/basic-dv-with-checkpoint");
  auto fs = io::MakeLocalFileSystem();
  if (root.empty() || !fs->Stat(root + "/_delta_log/00000000000000000000.json").has_value()) {
    GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  }
  DeltaScanSpec spec;
  spec.snapshot = log::Snapshot::Load(fs, root);
  OperatorPtr scan = MakeDeltaScan(std::move(spec));
  ExecContext context;
  EXPECT_EQ(CountRows(Collect(*scan, context)), 454);
}

// Partitioned by part = x % 10 and then 15 rows deleted through deletion vectors; with and
// without column mapping (name mode).
class DeltaScanDeletionVectorGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DeltaScanDeletionVectorGoldenTest, ReadsLiveRowsWithPartitionValues) {
  std::string root = GoldenTable("delta-golden/" + GetParam());
  auto fs = io::MakeLocalFileSystem();
  if (root.empty() || !fs->Stat(root + "/_delta_log/00000000000000000000.json").has_value()) {
    GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  }
  DeltaScanSpec spec;
  spec.snapshot = log::Snapshot::Load(fs, root);
  const Schema& schema = spec.snapshot->schema();
  int part = schema.FieldIndex("part");
  ASSERT_GE(part, 0);
  OperatorPtr scan = MakeDeltaScan(std::move(spec));
  ThreadPool pool(3);
  ExecContext context;
  context.pool = &pool;
  std::vector<Batch> batches = Collect(*scan, context);
  EXPECT_EQ(CountRows(batches), 35);
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      ASSERT_TRUE(batch.column(static_cast<size_t>(part))->IsValid(row));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, DeltaScanDeletionVectorGoldenTest,
                         ::testing::Values("dv-partitioned-with-checkpoint",
                                           "dv-with-columnmapping"));

std::vector<std::string> SortedRowTexts(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        text += batch.column(c)->ValueToString(row) + "|";
      }
      rows.push_back(std::move(text));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The streaming scan returns the rows TableScan::Read does (column mapping in name and id
// modes, partition values, nested types, deletion vectors).
class DeltaScanMatchesTableScanTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DeltaScanMatchesTableScanTest, SameRows) {
  std::string root = GoldenTable(GetParam());
  auto fs = io::MakeLocalFileSystem();
  if (root.empty() || !fs->Stat(root + "/_delta_log/00000000000000000000.json").has_value()) {
    GTEST_SKIP() << "golden tables not found under SILT_TEST_DATA_DIR";
  }
  auto snapshot = log::Snapshot::Load(fs, root);
  std::vector<Batch> expected = log::TableScan::Make(snapshot)->Read();
  DeltaScanSpec spec;
  spec.snapshot = snapshot;
  OperatorPtr scan = MakeDeltaScan(std::move(spec));
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::vector<std::string> rows = SortedRowTexts(Collect(*scan, context));
  EXPECT_FALSE(rows.empty());
  EXPECT_EQ(rows, SortedRowTexts(expected));
}

INSTANTIATE_TEST_SUITE_P(GoldenTables, DeltaScanMatchesTableScanTest,
                         ::testing::Values("delta-golden/data-reader-timestamp_ntz-id-mode",
                                           "delta-golden/data-reader-partition-values",
                                           "delta-golden/data-reader-nested-struct",
                                           "delta-golden/basic-decimal-table",
                                           "delta-golden/dv-with-columnmapping",
                                           "delta-kernel-java/basic-dv-with-checkpoint"));

class ParquetScanTest : public ::testing::Test {
 protected:
  ParquetScanTest() : fs_(io::MakeLocalFileSystem()) {}

  std::string WriteFile(const std::string& name, int64_t first, int64_t last) {
    std::string path = folder_.path() + "/" + name;
    parquet::WriterOptions options;
    options.row_group_max_rows = 100;
    auto writer = parquet::FileWriter::Open(fs_->OpenWrite(path), *TableSchema(), options);
    writer->Write(Rows(first, last, "p"));
    writer->Close();
    return path;
  }

  io::TestingTemporaryFolder folder_;
  std::shared_ptr<io::FileSystem> fs_;
};

TEST_F(ParquetScanTest, ReadsColumnsByNameAcrossFilesWithFilter) {
  ParquetScanSpec spec;
  spec.fs = fs_;
  spec.files = {WriteFile("a.parquet", 0, 250), WriteFile("b.parquet", 250, 500)};
  spec.schema = std::make_shared<const Schema>(std::vector<Field>{
      Field{"NAME", StringType(), true, {}}, Field{"id", LongType(), true, {}}});
  spec.filter = IdGreaterThan(449, /*id_column=*/1);
  spec.display_name = "`/data`";
  OperatorPtr scan = MakeParquetScan(std::move(spec));
  EXPECT_EQ(scan->Describe(), "Scan parquet `/data` [NAME, id] Filter: (id#1 > 449) (files 2)");
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::vector<Batch> batches = Collect(*scan, context);
  std::vector<int64_t> ids = LongColumn(batches, 1);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 50u);
  EXPECT_EQ(ids.front(), 450);
  EXPECT_EQ(context.counters->files_scanned, 2);
  EXPECT_EQ(context.counters->rows_scanned, 500);
}

TEST_F(ParquetScanTest, MissingColumnAndWrongTypeAreErrors) {
  std::string path = WriteFile("a.parquet", 0, 10);
  for (auto [field, expected] : {std::pair{Field{"missing", LongType(), true, {}},
                                           std::string("PARQUET_COLUMN_NOT_FOUND")},
                                 std::pair{Field{"id", StringType(), true, {}},
                                           std::string("PARQUET_SCHEMA_MISMATCH")}}) {
    ParquetScanSpec spec;
    spec.fs = fs_;
    spec.files = {path};
    spec.schema = std::make_shared<const Schema>(std::vector<Field>{field});
    OperatorPtr scan = MakeParquetScan(std::move(spec));
    ExecContext context;
    try {
      Collect(*scan, context);
      FAIL() << "expected " << expected;
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), expected);
    }
  }
}

}  // namespace
}  // namespace silt::exec

namespace silt::exec {
namespace {

TEST_F(DeltaScanTest, ProgressCountsTheFilesRowsAndBytesOfTheScan) {
  CreatePartitionedTable();
  int64_t table_bytes = 0;
  auto snapshot = log::Snapshot::Load(fs_, root_);  // kept alive: the loop reads its files
  for (const auto& file : snapshot->files()) table_bytes += file.size;
  Progress progress;
  progress.Start();
  ExecContext context;
  context.progress = &progress;
  OperatorPtr scan = Scan();
  EXPECT_EQ(CountRows(Collect(*scan, context)), 300);
  ProgressSnapshot done = progress.Read();
  EXPECT_TRUE(done.running);
  EXPECT_EQ(done.files_to_read, 3);
  EXPECT_EQ(done.files_read, 3);
  EXPECT_EQ(done.rows_read, 300);
  EXPECT_GT(table_bytes, 0);
  EXPECT_EQ(done.bytes_to_read, table_bytes);
  EXPECT_EQ(done.bytes_read, table_bytes);
  progress.Finish();
  EXPECT_FALSE(progress.Read().running);
}

TEST_F(DeltaScanTest, ACancelStopsTheScanBetweenBatches) {
  CreateTableWithRowGroups(/*rows=*/3000, /*group_rows=*/500);
  Cancellation cancellation;
  ExecContext context;
  context.cancellation = &cancellation;
  context.parallelism = 1;
  OperatorPtr scan = Scan();
  ASSERT_TRUE(scan->Next(context).has_value());
  cancellation.Cancel();
  EXPECT_EQ(ErrorClassOf([&] { scan->Next(context); }), "OPERATION_CANCELED");

  // A cancel requested before the first batch stops the scan before it reads anything.
  OperatorPtr fresh = Scan();
  EXPECT_EQ(ErrorClassOf([&] { Collect(*fresh, context); }), "OPERATION_CANCELED");
  cancellation.Reset();
  EXPECT_EQ(CountRows(Collect(*fresh, context)), 3000);
}

TEST(RangeTest, ReportsItsRowsAndStopsWhenCanceled) {
  Progress progress;
  progress.Start();
  Cancellation cancellation;
  ExecContext context;
  context.progress = &progress;
  context.cancellation = &cancellation;
  OperatorPtr range = MakeRange(0, 3 * kTargetBatchRows + 5, 1, "id");
  ASSERT_TRUE(range->Next(context).has_value());
  EXPECT_EQ(progress.Read().rows_to_read, 3 * kTargetBatchRows + 5);
  EXPECT_EQ(progress.Read().rows_read, kTargetBatchRows);
  cancellation.Cancel();
  EXPECT_EQ(ErrorClassOf([&] { range->Next(context); }), "OPERATION_CANCELED");
  EXPECT_EQ(progress.Read().rows_read, kTargetBatchRows);
}

}  // namespace
}  // namespace silt::exec
