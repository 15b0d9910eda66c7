#include "silt/result.h"

#include <algorithm>
#include <initializer_list>
#include <mutex>
#include <string>

#include "silt/api/session_internal.h"
#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/vector/local_time.h"

namespace silt {

struct Result::Impl {
  StatementOutput output;
  std::vector<ColumnInfo> columns;
  /// Row number of the first row of each batch, then the total.
  std::vector<int64_t> batch_starts = {0};

  /// The batches with timestamps as wall-clock time of the statement's zone, for ToString and
  /// Show: made at the first use (a copy of the timestamp columns that most callers never need),
  /// once even when several threads read.
  const std::vector<Batch>& display() const {
    std::call_once(display_made_, [this] { display_ = output.DisplayBatches(); });
    return display_;
  }

 private:
  mutable std::once_flag display_made_;
  mutable std::vector<Batch> display_;
};

namespace {

[[noreturn]] void ThrowInvalidArgument(std::string message) {
  SILT_THROW(INVALID_ARGUMENT, {{"message", std::move(message)}});
}

std::string ColumnDescription(const ColumnInfo& column, size_t index) {
  return "column " + std::to_string(index) + " (" + column.name + ", " + column.type + ")";
}

// Moves (batch, row) past batches that have no row left.
void SkipExhaustedBatches(const std::vector<Batch>& batches, size_t& batch, int64_t& row) {
  while (batch < batches.size() && row >= batches[batch].num_rows()) {
    ++batch;
    row = 0;
  }
}

}  // namespace

// ---- Result ----

Result::Result() : impl_(std::make_shared<const Impl>()) {}

bool Result::has_columns() const { return impl_->output.has_rows(); }

const std::vector<ColumnInfo>& Result::columns() const { return impl_->columns; }

size_t Result::ColumnIndex(std::string_view name) const {
  const std::vector<ColumnInfo>& columns = impl_->columns;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (EqualsIgnoreCase(columns[i].name, name)) return i;
  }
  std::string proposal;
  for (const ColumnInfo& column : columns) {
    if (!proposal.empty()) proposal += ", ";
    proposal += "`" + column.name + "`";
  }
  SILT_THROW(UNRESOLVED_COLUMN,
             {{"objectName", "`" + std::string(name) + "`"}, {"proposal", proposal}});
}

int64_t Result::num_rows() const { return impl_->batch_starts.back(); }

Row Result::row(int64_t index) const {
  const std::vector<int64_t>& starts = impl_->batch_starts;
  if (index < 0 || index >= starts.back()) {
    ThrowInvalidArgument("row " + std::to_string(index) + " does not exist; the result has " +
                         std::to_string(starts.back()) + " rows");
  }
  // The last batch whose first row is at or before `index` (batches are never empty).
  size_t batch = std::upper_bound(starts.begin(), starts.end(), index) - starts.begin() - 1;
  return Row(impl_, batch, index - starts[batch]);
}

std::string Result::Show(int64_t max_rows, int truncate) const {
  if (!has_columns()) return "";
  if (max_rows < 0) ThrowInvalidArgument("Show needs a non-negative number of rows");
  if (truncate < 0) ThrowInvalidArgument("Show needs a non-negative truncate width");
  std::vector<Batch> batches = impl_->display();
  if (batches.empty()) {
    // The formatter takes the header from the first batch; an empty result still has one.
    const SchemaPtr& schema = impl_->output.schema();
    std::vector<VectorPtr> columns;
    for (const Field& field : schema->fields())
      columns.push_back(VectorBuilder(field.type).Finish());
    batches.emplace_back(schema, std::move(columns), 0);
  }
  ShowOptions options;
  options.max_rows = max_rows;
  options.truncate = truncate;
  return FormatShow(batches, options);
}

const std::string& Result::statement_text() const { return impl_->output.statement_text(); }

Result::Iterator Result::begin() const {
  size_t batch = 0;
  int64_t row = 0;
  SkipExhaustedBatches(impl_->output.batches(), batch, row);
  return Iterator(Row(impl_, batch, row));
}

Result::Iterator Result::end() const {
  return Iterator(Row(impl_, impl_->output.batches().size(), 0));
}

Result::Iterator& Result::Iterator::operator++() {
  ++row_.row_;
  SkipExhaustedBatches(row_.impl_->output.batches(), row_.batch_, row_.row_);
  return *this;
}

// ---- Row ----

namespace {

// The vector holding `column` of the row's batch, after checking the column exists and, when
// `allowed` is given, that its type is one of them and the value is not NULL.
const Vector& CheckedColumn(const std::vector<Batch>& batches,
                            const std::vector<ColumnInfo>& columns, size_t batch, int64_t row,
                            size_t column, std::string_view getter,
                            std::initializer_list<TypeId> allowed, std::string_view wanted) {
  if (column >= columns.size()) {
    ThrowInvalidArgument(std::string(getter) + " of column " + std::to_string(column) +
                         ": the row has " + std::to_string(columns.size()) + " columns");
  }
  const Vector& vector = *batches[batch].column(column);
  if (allowed.size() == 0) return vector;
  if (std::find(allowed.begin(), allowed.end(), vector.type_id()) == allowed.end()) {
    ThrowInvalidArgument(std::string(getter) + " reads " + std::string(wanted) + ", but " +
                         ColumnDescription(columns[column], column) + " is not; use ToString");
  }
  if (vector.IsNull(row)) {
    ThrowInvalidArgument(std::string(getter) + " of " + ColumnDescription(columns[column], column) +
                         ": the value is NULL; check IsNull first");
  }
  return vector;
}

}  // namespace

size_t Row::size() const { return impl_->columns.size(); }

bool Row::IsNull(size_t column) const {
  return CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "IsNull", {},
                       "")
      .IsNull(row_);
}

int64_t Row::GetInt64(size_t column) const {
  const Vector& vector =
      CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "GetInt64",
                    {TypeId::kByte, TypeId::kShort, TypeId::kInteger, TypeId::kLong},
                    "tinyint, smallint, int or bigint");
  switch (vector.type_id()) {
    case TypeId::kByte:
      return vector.values<int8_t>()[row_];
    case TypeId::kShort:
      return vector.values<int16_t>()[row_];
    case TypeId::kInteger:
      return vector.values<int32_t>()[row_];
    default:
      return vector.values<int64_t>()[row_];
  }
}

double Row::GetDouble(size_t column) const {
  const Vector& vector =
      CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "GetDouble",
                    {TypeId::kFloat, TypeId::kDouble}, "float or double");
  if (vector.type_id() == TypeId::kFloat) return vector.values<float>()[row_];
  return vector.values<double>()[row_];
}

std::string Row::GetString(size_t column) const {
  const Vector& vector =
      CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "GetString",
                    {TypeId::kString, TypeId::kBinary}, "string or binary");
  return std::string(vector.GetString(row_));
}

bool Row::GetBool(size_t column) const {
  return CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "GetBool",
                       {TypeId::kBoolean}, "boolean")
      .GetBool(row_);
}

int32_t Row::GetDate(size_t column) const {
  return CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column, "GetDate",
                       {TypeId::kDate}, "date")
      .values<int32_t>()[row_];
}

int64_t Row::GetTimestamp(size_t column) const {
  return CheckedColumn(impl_->output.batches(), impl_->columns, batch_, row_, column,
                       "GetTimestamp", {TypeId::kTimestamp, TypeId::kTimestampNtz},
                       "timestamp or timestamp_ntz")
      .values<int64_t>()[row_];
}

std::string Row::ToString(size_t column) const {
  return CheckedColumn(impl_->display(), impl_->columns, batch_, row_, column, "ToString", {}, "")
      .ValueToString(row_);
}

// ---- ResultStream ----

struct ResultStream::Impl {
  std::unique_ptr<api::StatementStream> stream;
  std::vector<ColumnInfo> columns;
};

ResultStream::ResultStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultStream::ResultStream(ResultStream&& other) noexcept = default;
ResultStream& ResultStream::operator=(ResultStream&& other) noexcept = default;
ResultStream::~ResultStream() = default;

bool ResultStream::has_columns() const { return impl_->stream->has_rows(); }

const std::vector<ColumnInfo>& ResultStream::columns() const { return impl_->columns; }

const std::string& ResultStream::statement_text() const { return impl_->stream->statement_text(); }

std::optional<Result> ResultStream::Next() {
  api::StatementStream& stream = *impl_->stream;
  std::optional<Batch> batch = stream.Next();
  if (!batch) return std::nullopt;
  std::vector<Batch> batches;
  batches.push_back(std::move(*batch));
  return api::Access::Make(StatementOutput(stream.schema(), std::move(batches),
                                           stream.statement_text(), stream.time_zone()));
}

void ResultStream::Cancel() noexcept { impl_->stream->Cancel(); }

void ResultStream::Close() { impl_->stream->Close(); }

// ---- internal access ----

ResultStream api::Access::MakeStream(std::unique_ptr<StatementStream> stream) {
  auto impl = std::make_unique<ResultStream::Impl>();
  if (stream->has_rows()) {
    for (const Field& field : stream->schema()->fields()) {
      impl->columns.push_back(ColumnInfo{field.name, field.type->ToString(), field.nullable});
    }
  }
  impl->stream = std::move(stream);
  return ResultStream(std::move(impl));
}

const StatementOutput& api::Access::Output(const Result& result) { return result.impl_->output; }

Result api::Access::Make(StatementOutput output) {
  auto impl = std::make_shared<Result::Impl>();
  if (output.schema()) {
    for (const Field& field : output.schema()->fields()) {
      impl->columns.push_back(ColumnInfo{field.name, field.type->ToString(), field.nullable});
    }
  }
  // Row lookups and iteration step over batches by their rows; a batch without rows would stand
  // for no row at all, so it is left out.
  std::vector<Batch> batches;
  for (const Batch& batch : output.batches()) {
    if (batch.num_rows() == 0) continue;
    batches.push_back(batch);
    impl->batch_starts.push_back(impl->batch_starts.back() + batch.num_rows());
  }
  if (batches.size() != output.batches().size()) {
    output = StatementOutput(output.schema(), std::move(batches), output.statement_text(),
                             output.time_zone());
  }
  impl->output = std::move(output);
  return Result(std::move(impl));
}

const StatementOutput& api::OutputOf(const Result& result) { return Access::Output(result); }

Result api::MakeResult(StatementOutput output) { return Access::Make(std::move(output)); }

}  // namespace silt
