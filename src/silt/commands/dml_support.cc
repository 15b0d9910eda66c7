#include "silt/commands/dml_support.h"

#include <algorithm>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/base/json_writer.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/io/path.h"
#include "silt/expr/evaluator.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/partition_values.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"
#include "silt/parquet/reader.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/optimizer.h"
#include "silt/sql/query_binder.h"
#include "silt/types/schema_json.h"

namespace silt::commands::dml {

std::string_view ChangeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kInsert: return "insert";
    case ChangeType::kDelete: return "delete";
    case ChangeType::kUpdatePreimage: return "update_preimage";
    case ChangeType::kUpdatePostimage: return "update_postimage";
  }
  return "insert";
}

bool DmlTable::IsPartitionColumn(size_t column) const {
  const std::string& name = schema->field(column).name;
  for (const std::string& partition : metadata().partition_columns) {
    if (internal::Lower(partition) == internal::Lower(name)) return true;
  }
  return false;
}

DmlTable LoadDmlTable(sql::SessionState& session, const sql::TableReference& reference,
                      const std::string& operation) {
  SILT_CHECK(reference.kind == sql::TableReferenceKind::kTable, "DML target is not a table");
  if (reference.time_travel) {
    SILT_THROW(UNSUPPORTED_FEATURE, {{"message", operation + " on a time-travelled table"}});
  }
  DmlTable table;
  table.target = internal::ResolveDeltaTarget(session, reference.name, reference.position, operation);
  table.snapshot = log::Snapshot::Load(session.fs(), table.target.location);
  table.schema = std::make_shared<Schema>(table.snapshot->schema());
  table.change_data_feed = log::IsFeatureActive("changeDataFeed", table.metadata());
  table.deletion_vectors = log::IsFeatureActive("deletionVectors", table.metadata());
  table.row_tracking = log::IsRowTrackingEnabled(table.snapshot->protocol(), table.metadata());
  if (table.row_tracking) {
    const std::string* row_id = log::FindValue(table.metadata().configuration,
                                               log::kMaterializedRowIdColumnKey);
    const std::string* commit_version = log::FindValue(table.metadata().configuration,
                                                       log::kMaterializedRowCommitVersionColumnKey);
    // Without the names (a writer that enabled tracking without them) ids are not preserved.
    table.row_tracking = row_id != nullptr && commit_version != nullptr;
    if (table.row_tracking) {
      table.materialized_row_id_column = *row_id;
      table.materialized_row_commit_version_column = *commit_version;
    }
  }
  table.max_rows_per_file = session.MaxRecordsPerFile();
  return table;
}

std::vector<std::string> TableQualifier(const DmlTable& table, const std::string& alias) {
  // The table can be named by its alias, or else by its name as written (`t`, `db.t`).
  std::vector<std::string> qualifier;
  if (!alias.empty()) {
    qualifier = {alias};
  } else if (!table.target.identifier.empty()) {
    qualifier = {"spark_catalog"};
    for (const std::string& part : table.target.identifier) qualifier.push_back(part);
  }
  return qualifier;
}

namespace {

// The columns of a DML target where Delta refuses subqueries in the condition of `operation`
// (PreprocessTableDelete / PreprocessTableUpdate): DELTA_UNSUPPORTED_SUBQUERY, naming the whole
// condition.
// With `exists` (DELETE under spark.databricks.delta.delete.allowExistsSubquery), [NOT] EXISTS
// subqueries run through it instead, as Delta then runs them; any other kind is still refused.
class ConditionScope : public sql::SchemaScope {
 public:
  ConditionScope(SchemaPtr schema, std::vector<std::string> qualifier, const sql::Expression& condition,
                 std::string operation, sql::QueryBinder* exists)
      : SchemaScope(schema, qualifier), condition_(condition), operation_(std::move(operation)), exists_(exists) {
    if (exists_ == nullptr) return;
    for (const Field& field : schema->fields()) {
      columns_.push_back(sql::MakeLogicalColumn(field.name, field.type, field.nullable, qualifier));
    }
  }

  expr::ExpressionPtr BindSubquery(const sql::Expression& node, sql::ExpressionBinder&) override {
    if (exists_ != nullptr && node.kind == sql::ExpressionKind::kExists) {
      return exists_->BindExistsAsMembership(node, columns_);
    }
    SILT_THROW(DELTA_UNSUPPORTED_SUBQUERY, {{"operation", operation_}, {"cond", ConditionSql(condition_)}});
  }

 private:
  const sql::Expression& condition_;
  std::string operation_;
  sql::QueryBinder* exists_;
  std::vector<sql::LogicalColumn> columns_;
};

}  // namespace

expr::ExpressionPtr BindTablePredicate(const DmlTable& table, const sql::Expression& predicate,
                                       const std::string& alias, const std::string& clause,
                                       const std::string& operation, sql::QueryBinder* exists) {
  if (!operation.empty()) {
    ConditionScope scope(table.schema, TableQualifier(table, alias), predicate, operation, exists);
    sql::ExpressionBinder binder(scope);
    return binder.BindPredicate(predicate, clause);
  }
  sql::SchemaScope scope(table.schema, TableQualifier(table, alias));
  sql::ExpressionBinder binder(scope);
  return binder.BindPredicate(predicate, clause);
}

namespace {

// The columns of a DML target for an assignment's value, where an uncorrelated subquery runs
// once and stands for its value, as Spark evaluates it in an UPDATE's projection.
class ValueScope : public sql::SchemaScope {
 public:
  ValueScope(SchemaPtr schema, std::vector<std::string> qualifier, sql::QueryBinder& subqueries)
      : SchemaScope(schema, qualifier), subqueries_(subqueries) {
    for (const Field& field : schema->fields()) {
      columns_.push_back(sql::MakeLogicalColumn(field.name, field.type, field.nullable, qualifier));
    }
  }

  expr::ExpressionPtr BindSubquery(const sql::Expression& node, sql::ExpressionBinder&) override {
    return subqueries_.BindUncorrelatedSubquery(node, columns_, *this);
  }

 private:
  sql::QueryBinder& subqueries_;
  std::vector<sql::LogicalColumn> columns_;
};

}  // namespace

expr::ExpressionPtr BindTableValue(const DmlTable& table, const sql::Expression& value,
                                   const std::string& alias, sql::QueryBinder* subqueries) {
  if (subqueries != nullptr) {
    ValueScope scope(table.schema, TableQualifier(table, alias), *subqueries);
    sql::ExpressionBinder binder(scope);
    return binder.Bind(value);
  }
  sql::SchemaScope scope(table.schema, TableQualifier(table, alias));
  sql::ExpressionBinder binder(scope);
  return binder.Bind(value);
}

bool IsPartitionOnlyPredicate(const DmlTable& table, const expr::ExpressionPtr& predicate) {
  if (!predicate->deterministic()) return false;
  for (int column : expr::ReferencedColumns(*predicate)) {
    if (!table.IsPartitionColumn(static_cast<size_t>(column))) return false;
  }
  return true;
}

CandidateFiles ChooseCandidateFiles(const DmlTable& table, const expr::ExpressionPtr& predicate,
                                    ThreadPool* pool) {
  CandidateFiles candidates;
  if (predicate) candidates.predicates = sql::DeriveScanPredicates(predicate, *table.schema);
  log::ScanOptions options;
  options.predicates = candidates.predicates;
  options.pool = pool;
  auto scan = log::TableScan::Make(table.snapshot, options);
  candidates.files = scan->files();
  candidates.num_files_before_skipping = scan->num_live_files();
  return candidates;
}

std::optional<bool> EvaluateOnPartitionValues(const DmlTable& table,
                                              const expr::ExpressionPtr& predicate,
                                              const log::AddFile& file,
                                              const expr::EvalContext& context) {
  // A one-row batch holding the file's partition values; the predicate reads nothing else.
  std::vector<VectorPtr> columns;
  for (size_t i = 0; i < table.schema->num_fields(); ++i) {
    const Field& field = table.schema->field(i);
    if (!table.IsPartitionColumn(i)) {
      columns.push_back(Vector::MakeAllNull(field.type, 1));
      continue;
    }
    const std::optional<std::string>* text = nullptr;
    for (const auto& [name, value] : file.partition_values) {
      if (internal::Lower(name) == internal::Lower(field.name)) text = &value;
    }
    if (text == nullptr) return std::nullopt;
    columns.push_back(log::MakeConstantVector(
        field.type, log::ParsePartitionValue(*field.type, *text, field.name), 1));
  }
  Batch row(table.schema, std::move(columns), 1);
  expr::EvalContext evaluation = context;
  std::vector<uint8_t> matches = expr::EvaluateFilter(*predicate, row, evaluation);
  evaluation.ThrowIfError();
  return matches[0] != 0;
}

namespace {

// Whether every value in [min, max] satisfies `value op literal`.
bool BoundsSatisfy(expr::ComparisonOperator op, const log::Scalar& min, const log::Scalar& max,
                   const log::Scalar& literal) {
  switch (op) {
    case expr::ComparisonOperator::kEqual:
    case expr::ComparisonOperator::kNullSafeEqual:
      return log::CompareScalars(min, literal) == 0 && log::CompareScalars(max, literal) == 0;
    case expr::ComparisonOperator::kLess: return log::CompareScalars(max, literal) < 0;
    case expr::ComparisonOperator::kLessOrEqual: return log::CompareScalars(max, literal) <= 0;
    case expr::ComparisonOperator::kGreater: return log::CompareScalars(min, literal) > 0;
    case expr::ComparisonOperator::kGreaterOrEqual: return log::CompareScalars(min, literal) >= 0;
    default: return false;
  }
}

expr::ComparisonOperator Flip(expr::ComparisonOperator op) {
  switch (op) {
    case expr::ComparisonOperator::kLess: return expr::ComparisonOperator::kGreater;
    case expr::ComparisonOperator::kLessOrEqual: return expr::ComparisonOperator::kGreaterOrEqual;
    case expr::ComparisonOperator::kGreater: return expr::ComparisonOperator::kLess;
    case expr::ComparisonOperator::kGreaterOrEqual: return expr::ComparisonOperator::kLessOrEqual;
    default: return op;
  }
}

// Numbers and dates only: their statistics are exact values, while string statistics may be
// truncated prefixes and timestamps are truncated to milliseconds.
bool ExactStatsType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kDecimal: return true;
    default: return false;
  }
}

}  // namespace

bool StatsProveAllRowsMatch(const DmlTable& table, const expr::ExpressionPtr& predicate,
                            const log::AddFile& file) {
  if (!file.stats || !predicate->deterministic()) return false;
  log::FileStats stats = log::FileStats::Parse(*file.stats, file.path);
  for (const expr::ExpressionPtr& conjunct : expr::SplitConjunction(predicate)) {
    if (conjunct->kind() != expr::ExpressionKind::kComparison) return false;
    int column_side = conjunct->child(0)->kind() == expr::ExpressionKind::kColumn ? 0 : 1;
    const expr::ExpressionPtr& column = conjunct->child(column_side);
    const expr::ExpressionPtr& literal = conjunct->child(1 - column_side);
    if (column->kind() != expr::ExpressionKind::kColumn ||
        literal->kind() != expr::ExpressionKind::kLiteral || literal->literal().is_null() ||
        !column->type()->Equals(*literal->type()) || !ExactStatsType(*column->type())) {
      return false;
    }
    const Field& field = table.schema->field(static_cast<size_t>(column->column_index()));
    if (table.IsPartitionColumn(static_cast<size_t>(column->column_index()))) return false;
    std::optional<log::Scalar> value =
        log::ParsePartitionValue(*field.type, literal->literal().ToString(), field.name);
    std::optional<log::Scalar> min = stats.Min({field.name}, *field.type);
    std::optional<log::Scalar> max = stats.Max({field.name}, *field.type);
    std::optional<int64_t> nulls = stats.NullCount({field.name});
    if (!value || !min || !max || !nulls || *nulls != 0) return false;
    expr::ComparisonOperator op = conjunct->comparison();
    if (column_side == 1) op = Flip(op);
    if (!BoundsSatisfy(op, *min, *max, *value)) return false;
  }
  return true;
}

int64_t LiveRowCount(const DmlTable& table, io::FileSystem& fs, const log::AddFile& file) {
  std::optional<int64_t> records;
  if (file.stats) records = log::FileStats::Parse(*file.stats, file.path).num_records();
  if (!records) {
    records = parquet::FileReader::Open(fs, table.snapshot->ResolvePath(file.path))->num_rows();
  }
  return *records - (file.deletion_vector ? file.deletion_vector->cardinality : 0);
}

TargetFileReader::TargetFileReader(const DmlTable& table, std::shared_ptr<io::FileSystem> fs,
                                   ThreadPool* pool, std::vector<bool> read_columns,
                                   const log::Metadata* as_metadata)
    : table_(table), fs_(std::move(fs)) {
  log::ScanOptions options;
  options.pool = pool;
  // Under row tracking the scan also returns each row's stable id and commit version, last.
  options.file_metadata = table.row_tracking;
  if (as_metadata != nullptr) {
    SILT_CHECK(read_columns.empty(), "a column subset read as another schema");
    scan_ = log::TableScan::MakeForMetadata(fs_, table.snapshot->table_root(), *as_metadata, options);
    std::vector<Field> fields = scan_->schema()->fields();
    if (table.row_tracking) {
      metadata_column_ = static_cast<int>(fields.size()) - 1;
      fields.pop_back();
    }
    schema_ = std::make_shared<const Schema>(std::move(fields));
    for (size_t i = 0; i < schema_->num_fields(); ++i) scan_column_.push_back(static_cast<int>(i));
    return;
  }
  schema_ = table.schema;
  const size_t width = table.schema->num_fields();
  bool all = read_columns.empty();
  for (size_t i = 0; i < width; ++i) {
    if (all || (i < read_columns.size() && read_columns[i])) {
      scan_column_.push_back(static_cast<int>(options.columns.size()));
      options.columns.push_back(table.schema->field(i).name);
    } else {
      scan_column_.push_back(-1);
    }
  }
  if (all) options.columns.clear();
  scan_ = log::TableScan::Make(table.snapshot, options);
  if (table.row_tracking) metadata_column_ = static_cast<int>(scan_->schema()->num_fields()) - 1;
}

TargetFileReader::OpenedTarget::OpenedTarget(const TargetFileReader& reader,
                                             std::unique_ptr<log::TableScan::OpenedFile> file)
    : reader_(reader), file_(std::move(file)) {}

TargetFileReader::OpenedTarget::~OpenedTarget() = default;

std::unique_ptr<TargetFileReader::OpenedTarget> TargetFileReader::Open(
    const log::AddFile& file) const {
  return std::make_unique<OpenedTarget>(*this, scan_->OpenFile(file));
}

PositionedBatch TargetFileReader::OpenedTarget::ReadPiece(size_t piece) const {
  // Row positions are the physical row indexes of the Parquet file (each row group starts where
  // the previous ones end, and a deletion vector's rows are gaps in the sequence), as the scan
  // reports them for the rows it returns.
  PositionedBatch positioned;
  Batch batch = file_->ReadRowGroup(file_->row_groups()[piece], &positioned.positions);
  SILT_CHECK(positioned.positions.size() == static_cast<size_t>(batch.num_rows()),
             "a position for every row read");
  const TargetFileReader& reader = reader_;
  std::vector<VectorPtr> columns;
  columns.reserve(reader.scan_column_.size());
  for (size_t i = 0; i < reader.scan_column_.size(); ++i) {
    if (reader.scan_column_[i] >= 0) {
      columns.push_back(batch.column(static_cast<size_t>(reader.scan_column_[i])));
      continue;
    }
    std::lock_guard<std::mutex> lock(reader.null_columns_mutex_);
    if (reader.null_columns_.size() < reader.scan_column_.size()) {
      reader.null_columns_.resize(reader.scan_column_.size());
    }
    VectorPtr& nulls = reader.null_columns_[i];
    if (nulls == nullptr || nulls->length() != batch.num_rows()) {
      nulls = Vector::MakeAllNull(reader.schema_->field(i).type, batch.num_rows());
    }
    columns.push_back(nulls);
  }
  positioned.rows = Batch(reader.schema_, std::move(columns), batch.num_rows());
  if (reader.metadata_column_ >= 0 && batch.num_rows() > 0) {
    // `_metadata` ends with row_id and row_commit_version (log::FileMetadataType).
    const VectorPtr& metadata = batch.column(static_cast<size_t>(reader.metadata_column_));
    size_t fields = metadata->type()->fields().size();
    positioned.row_ids = metadata->child(fields - 2);
    positioned.row_commit_versions = metadata->child(fields - 1);
  }
  return positioned;
}

void TargetFileReader::Read(const log::AddFile& file,
                            const std::function<void(PositionedBatch&&)>& consume) const {
  std::unique_ptr<OpenedTarget> opened = Open(file);
  for (size_t piece = 0; piece < opened->num_pieces(); ++piece) {
    PositionedBatch positioned = opened->ReadPiece(piece);
    if (positioned.rows.num_rows() > 0) consume(std::move(positioned));
  }
}

std::vector<PositionedBatch> TargetFileReader::ReadAll(const log::AddFile& file) const {
  std::vector<PositionedBatch> batches;
  Read(file, [&](PositionedBatch&& batch) { batches.push_back(std::move(batch)); });
  return batches;
}

void KeepUnmatchedRows(const PositionedBatch& batch, const std::vector<uint8_t>& matches,
                       int64_t matched, bool by_deletion_vector, std::vector<uint64_t>& removed,
                       PieceOutput& output) {
  if (by_deletion_vector) {
    for (size_t i = 0; i < matches.size(); ++i) {
      if (matches[i]) removed.push_back(batch.positions[i]);
    }
    return;
  }
  if (matched == batch.rows.num_rows()) return;
  std::vector<uint8_t> others(matches.size());
  for (size_t i = 0; i < matches.size(); ++i) others[i] = matches[i] == 0;
  output.copied.push_back({SelectRows(batch.rows, others), SelectValues(batch.row_ids, others),
                           SelectValues(batch.row_commit_versions, others)});
}

Batch SelectRows(const Batch& batch, const std::vector<uint8_t>& keep) {
  SILT_CHECK(keep.size() == static_cast<size_t>(batch.num_rows()), "selection of the wrong size");
  int64_t kept = 0;
  for (uint8_t k : keep) kept += k != 0;
  if (kept == batch.num_rows()) return batch;
  std::vector<VectorPtr> columns;
  for (const VectorPtr& column : batch.columns()) {
    VectorBuilder builder(column->type(), kept);
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      if (keep[static_cast<size_t>(row)]) builder.AppendFrom(*column, row);
    }
    columns.push_back(builder.Finish());
  }
  return Batch(batch.schema(), std::move(columns), kept);
}

VectorPtr SelectValues(const VectorPtr& vector, const std::vector<uint8_t>& keep) {
  if (vector == nullptr) return nullptr;
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field{"v", vector->type(), true, {}}});
  return SelectRows(Batch(schema, {vector}, vector->length()), keep).column(0);
}

DmlWriter::DmlWriter(const DmlTable& table, std::shared_ptr<io::FileSystem> fs,
                     const log::Metadata* metadata, SchemaPtr schema,
                     io::BackgroundSync* background_sync)
    : table_(table),
      fs_(std::move(fs)),
      metadata_(metadata != nullptr ? *metadata : table.metadata()),
      schema_(schema != nullptr ? std::move(schema) : table.schema),
      background_sync_(background_sync) {}

DmlWriter::~DmlWriter() = default;

void DmlWriter::WriteData(const Batch& rows, const VectorPtr& row_ids,
                          const VectorPtr& row_commit_versions) {
  if (rows.num_rows() == 0) return;
  if (!data_writer_) {
    log::DataFileWriterOptions options;
    options.max_rows_per_file = table_.max_rows_per_file;
    options.background_sync = background_sync_;
    if (table_.row_tracking) {
      options.hidden_columns = {Field{table_.materialized_row_id_column, LongType(), true, {}},
                                Field{table_.materialized_row_commit_version_column, LongType(),
                                      true, {}}};
      std::vector<Field> fields = schema_->fields();
      fields.insert(fields.end(), options.hidden_columns.begin(), options.hidden_columns.end());
      tracked_schema_ = std::make_shared<const Schema>(std::move(fields));
    }
    data_writer_ = log::DataFileWriter::Make(fs_, table_.target.location, metadata_, options);
  }
  if (!table_.row_tracking) {
    data_writer_->Write(Batch(schema_, rows.columns(), rows.num_rows()));
  } else {
    std::vector<VectorPtr> columns = rows.columns();
    for (const VectorPtr& values : {row_ids, row_commit_versions}) {
      SILT_CHECK(values == nullptr || values->length() == rows.num_rows(),
                 "a row tracking value for every row");
      columns.push_back(values != nullptr ? values : Vector::MakeAllNull(LongType(), rows.num_rows()));
    }
    data_writer_->Write(Batch(tracked_schema_, std::move(columns), rows.num_rows()));
  }
  data_rows_ += rows.num_rows();
}

void DmlWriter::WriteChanges(const Batch& rows, ChangeType type) {
  if (!table_.change_data_feed || rows.num_rows() == 0) return;
  if (!change_writer_) {
    // Change files hold the table's columns plus `_change_type`, partitioned like the table
    // under `_change_data/`: a table of their own as far as the file writer is concerned.
    std::vector<Field> fields = schema_->fields();
    fields.push_back(Field{std::string(kChangeTypeColumn), StringType(), true, {}});
    change_schema_ = std::make_shared<Schema>(fields);
    log::Metadata metadata = metadata_;
    metadata.schema_string = ToDeltaSchemaJson(*change_schema_);
    log::DataFileWriterOptions options;
    options.background_sync = background_sync_;
    change_writer_ = log::DataFileWriter::Make(
        fs_, io::JoinPath(table_.target.location, kChangeDataFolder), metadata, options);
  }
  VectorBuilder change_type(StringType(), rows.num_rows());
  for (int64_t row = 0; row < rows.num_rows(); ++row) change_type.AppendString(ChangeTypeName(type));
  std::vector<VectorPtr> columns = rows.columns();
  columns.push_back(change_type.Finish());
  change_writer_->Write(Batch(change_schema_, std::move(columns), rows.num_rows()));
  change_rows_ += rows.num_rows();
}

bool DmlWriter::UsesDeletionVector(const log::AddFile& file) const {
  return log::DeletionVectorsWritable(table_.snapshot->protocol(), table_.metadata()) &&
         log::CanHaveDeletionVector(file);
}

uint64_t DmlWriter::DeleteRows(const log::AddFile& file, const std::vector<uint64_t>& positions) {
  if (!deletion_vector_writer_) {
    deletion_vector_writer_ = log::DeletionVectorWriter::Open(
        fs_, table_.target.location, table_.snapshot->protocol(), table_.metadata());
  }
  std::optional<log::DeletionVectorUpdate> update =
      deletion_vector_writer_->DeleteRows(file, positions);
  if (!update) return 0;
  uint64_t deleted = update->num_deleted_rows;
  deletion_vectors_.push_back(std::move(*update));
  return deleted;
}

void AppendWritten(WrittenOutput& into, WrittenOutput&& from) {
  for (auto& add : from.adds) into.adds.push_back(std::move(add));
  for (auto& cdc : from.change_files) into.change_files.push_back(std::move(cdc));
  for (auto& update : from.deletion_vectors) into.deletion_vectors.push_back(std::move(update));
  into.data_rows += from.data_rows;
  into.data_bytes += from.data_bytes;
  into.change_rows += from.change_rows;
  into.change_bytes += from.change_bytes;
}

int64_t PieceOutput::num_rows() const {
  int64_t rows = 0;
  for (const RowsToWrite& part : changed) rows += part.rows.num_rows();
  for (const RowsToWrite& part : copied) rows += part.rows.num_rows();
  return rows;
}

WrittenOutput WriteRewrite(const DmlTable& table, const std::shared_ptr<io::FileSystem>& fs,
                           std::vector<PieceOutput>& pieces, ThreadPool& pool,
                           const log::Metadata* metadata, SchemaPtr schema,
                           io::BackgroundSync* background_sync) {
  // Parts are contiguous runs of pieces cut where the running row count passes each part's
  // share, so every thread encodes about as many rows.
  size_t parts = std::max<size_t>(
      1, std::min(pool.num_threads(), pieces.size() / kMinPiecesPerRewritePart));
  std::vector<int64_t> rows(pieces.size());
  int64_t total = 0;
  for (size_t i = 0; i < pieces.size(); ++i) total += rows[i] = pieces[i].num_rows();
  std::vector<size_t> bounds = {0};
  int64_t running = 0;
  for (size_t i = 0; i < pieces.size() && bounds.size() < parts; ++i) {
    running += rows[i];
    // Each part keeps at least its minimum of pieces, and so does what is left after it.
    size_t taken = i + 1 - bounds.back();
    size_t left = pieces.size() - (i + 1);
    size_t parts_after = parts - bounds.size();
    if (taken >= kMinPiecesPerRewritePart && left >= parts_after * kMinPiecesPerRewritePart &&
        running * static_cast<int64_t>(parts) >= total * static_cast<int64_t>(bounds.size())) {
      bounds.push_back(i + 1);
    }
  }
  bounds.push_back(pieces.size());
  std::vector<WrittenOutput> outputs(bounds.size() - 1);
  pool.ParallelFor(outputs.size(), [&](size_t part) {
    DmlWriter writer(table, fs, metadata, schema, background_sync);
    for (size_t i = bounds[part]; i < bounds[part + 1]; ++i) {
      for (RowsToWrite& write : pieces[i].changed) {
        writer.WriteData(write.rows, write.row_ids, write.row_commit_versions);
        write = RowsToWrite{};
      }
    }
    for (size_t i = bounds[part]; i < bounds[part + 1]; ++i) {
      for (RowsToWrite& write : pieces[i].copied) {
        writer.WriteData(write.rows, write.row_ids, write.row_commit_versions);
        write = RowsToWrite{};
      }
      for (auto& [batch, type] : pieces[i].changes) {
        writer.WriteChanges(batch, type);
        batch = Batch();
      }
    }
    outputs[part] = writer.Finish();
  });
  WrittenOutput written;
  for (WrittenOutput& output : outputs) AppendWritten(written, std::move(output));
  return written;
}

DeletionVectorCounts CountDeletionVectors(const std::vector<log::DeletionVectorUpdate>& updates) {
  DeletionVectorCounts counts;
  for (const log::DeletionVectorUpdate& update : updates) {
    if (update.add && !update.had_deletion_vector) ++counts.added;
    if (update.add && update.had_deletion_vector) ++counts.updated;
    if (!update.add && update.had_deletion_vector) ++counts.removed;
    if (!update.add) {
      ++counts.removed_files;
      counts.removed_bytes += update.remove.size.value_or(0);
    }
  }
  counts.added += counts.updated;
  counts.removed += counts.updated;
  return counts;
}

log::StringMap RewriteMetrics(const DmlCommit& commit, const RewriteCounts& counts) {
  DeletionVectorCounts dv = CountDeletionVectors(commit.written.deletion_vectors);
  return {
      {"numRemovedFiles", std::to_string(static_cast<int64_t>(commit.removed.size()) + dv.removed_files)},
      {"numAddedFiles", std::to_string(commit.written.adds.size())},
      {counts.rows_metric, std::to_string(counts.rows)},
      {"numCopiedRows", std::to_string(counts.copied_rows)},
      {"numAddedChangeFiles", std::to_string(commit.written.change_files.size())},
      {"numRemovedBytes", std::to_string(counts.removed_bytes + dv.removed_bytes)},
      {"numAddedBytes", std::to_string(commit.written.data_bytes)},
      {"executionTimeMs", std::to_string(counts.execution_ms)},
      {"scanTimeMs", std::to_string(counts.scan_ms)},
      {"rewriteTimeMs", std::to_string(counts.rewrite_ms)},
      {"numDeletionVectorsAdded", std::to_string(dv.added)},
      {"numDeletionVectorsRemoved", std::to_string(dv.removed)},
      {"numDeletionVectorsUpdated", std::to_string(dv.updated)},
  };
}

StatementResult AffectedRowsResult(int64_t rows) {
  internal::ResultBuilder result({Field{"num_affected_rows", LongType(), false, {}}});
  result.column(0).AppendInt(rows);
  return result.Finish();
}

WrittenOutput DmlWriter::Finish() {
  WrittenOutput output;
  if (deletion_vector_writer_) deletion_vector_writer_->Finish();
  output.deletion_vectors = std::move(deletion_vectors_);
  if (data_writer_) {
    output.adds = data_writer_->Finish();
    for (const auto& add : output.adds) output.data_bytes += add.size;
  }
  output.data_rows = data_rows_;
  if (change_writer_) {
    for (log::AddFile& add : change_writer_->Finish()) {
      log::AddCdcFile cdc;
      cdc.path = std::string(kChangeDataFolder) + "/" + add.path;
      cdc.partition_values = std::move(add.partition_values);
      cdc.size = add.size;
      cdc.data_change = false;
      output.change_bytes += add.size;
      output.change_files.push_back(std::move(cdc));
    }
  }
  output.change_rows = change_rows_;
  return output;
}

std::unique_ptr<log::Transaction> StartDmlTransaction(const DmlTable& table) {
  return log::Transaction::Start(table.snapshot, internal::EnforcedFeatures());
}

void RecordReads(log::Transaction& txn, const CandidateFiles& candidates) {
  txn.RecordReadPredicate(log::ReadPredicate{candidates.predicates});
  for (const log::AddFile* file : candidates.files) txn.RecordReadFile(*file);
}

log::CommitResult CommitDml(log::Transaction& txn, DmlCommit commit,
                            const log::CommitOptions& options) {
  for (const log::AddFile* file : commit.removed) txn.RemoveLiveFile(*file);
  for (log::AddFile& add : commit.written.adds) txn.Add(std::move(add));
  for (log::AddCdcFile& cdc : commit.written.change_files) txn.AddChangeDataFile(std::move(cdc));
  for (log::DeletionVectorUpdate& update : commit.written.deletion_vectors) {
    txn.Remove(std::move(update.remove));
    if (update.add) txn.Add(std::move(*update.add));
  }
  txn.SetOperation(std::move(commit.operation), std::move(commit.parameters),
                   std::move(commit.metrics));
  return txn.Commit(options);
}

std::string PredicateParameter(const std::vector<std::string>& conditions_sql) {
  JsonWriter json;
  json.BeginArray();
  for (const std::string& condition : conditions_sql) json.String(condition);
  json.EndArray();
  return internal::QuotedJson(json.Release());
}

namespace {

// A copy of `node` whose string literals carry their quotes: ExpressionSql prints literals as
// Spark names columns (`a`), while a recorded condition prints them as Spark's SQL does ('a').
// The condition as commitInfo shows it: string literals quoted, and columns with the qualifier
// they were written with (`t.id = s.id`, as Delta prints the resolved condition), which select-list
// naming drops.
sql::ExpressionPtr WithQuotedStrings(const sql::Expression& node) {
  auto copy = std::make_shared<sql::Expression>(node);
  if (copy->kind == sql::ExpressionKind::kColumn && copy->name.size() > 1) {
    std::string joined;
    for (const std::string& part : copy->name) joined += (joined.empty() ? "" : ".") + part;
    copy->name = {joined};
  }
  if (copy->kind == sql::ExpressionKind::kLiteral &&
      copy->literal_kind == sql::LiteralKind::kString) {
    std::string quoted = "'";
    for (char c : node.text) {
      if (c == '\\' || c == '\'') quoted += '\\';
      quoted += c;
    }
    copy->text = quoted + "'";
  }
  auto rewrite = [](sql::ExpressionPtr& child) {
    if (child) child = WithQuotedStrings(*child);
  };
  for (auto& child : copy->children) rewrite(child);
  rewrite(copy->case_operand);
  for (auto& [when, then] : copy->when_clauses) {
    rewrite(when);
    rewrite(then);
  }
  rewrite(copy->else_result);
  return copy;
}

}  // namespace

std::string ConditionSql(const sql::Expression& condition) {
  return sql::ExpressionSql(*WithQuotedStrings(condition));
}

std::string ConditionErrorText(const sql::Expression& condition) {
  return "(condition = " + ConditionSql(condition) + ").";
}

void CheckDeterministicCondition(const expr::ExpressionPtr& bound, const sql::Expression& condition,
                                 const std::string& operation) {
  if (bound == nullptr || bound->deterministic()) return;
  SILT_THROW(DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED,
             {{"operation", operation}, {"expression", ConditionErrorText(condition)}});
}

}  // namespace silt::commands::dml
