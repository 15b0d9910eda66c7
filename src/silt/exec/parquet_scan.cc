#include <algorithm>
#include <memory>
#include <mutex>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/exec/parquet_scan_stream.h"
#include "silt/parquet/reader.h"

namespace silt::exec {

namespace {

// An opened Parquet file and where each output column comes from.
struct OpenedParquetFile {
  std::unique_ptr<parquet::FileReader> reader;
  parquet::ReadOptions read_options;  // the distinct stored columns, decoded on one thread
  std::vector<int> position;          // per output column: index among the read columns
  SchemaPtr schema;

  Batch ReadRowGroup(int row_group) const {
    if (read_options.columns.empty()) {
      int64_t rows = reader->metadata().row_groups[static_cast<size_t>(row_group)].num_rows;
      return Batch(schema, {}, rows);
    }
    Batch stored = reader->ReadRowGroup(row_group, read_options);
    std::vector<VectorPtr> columns;
    columns.reserve(position.size());
    for (int index : position) columns.push_back(stored.column(static_cast<size_t>(index)));
    return Batch(schema, std::move(columns), stored.num_rows());
  }
};

std::shared_ptr<const OpenedParquetFile> OpenParquetFile(io::FileSystem& fs,
                                                         const std::string& path,
                                                         const SchemaPtr& schema) {
  auto opened = std::make_shared<OpenedParquetFile>();
  opened->reader = parquet::FileReader::Open(fs, path);
  opened->schema = schema;
  opened->read_options.max_parallelism = 1;
  const Schema& stored = opened->reader->schema();
  for (const Field& field : schema->fields()) {
    int index = stored.FieldIndex(field.name, /*case_sensitive=*/true);
    if (index < 0) index = stored.FieldIndex(field.name, /*case_sensitive=*/false);
    SILT_USER_CHECK(index >= 0, PARQUET_COLUMN_NOT_FOUND, {{"column", field.name}, {"path", path}});
    const Field& stored_field = stored.field(static_cast<size_t>(index));
    SILT_USER_CHECK(stored_field.type->Equals(*field.type), PARQUET_SCHEMA_MISMATCH,
                    {{"column", field.name},
                     {"path", path},
                     {"actual", stored_field.type->ToString()},
                     {"expected", field.type->ToString()}});
    auto& columns = opened->read_options.columns;
    auto existing = std::find(columns.begin(), columns.end(), stored_field.name);
    opened->position.push_back(static_cast<int>(existing - columns.begin()));
    if (existing == columns.end()) columns.push_back(stored_field.name);
  }
  return opened;
}

class ParquetScanOperator final : public Operator {
 public:
  explicit ParquetScanOperator(ParquetScanSpec spec)
      : Operator(spec.schema), spec_(std::move(spec)) {
    stream_ = std::make_unique<ScanStream>(
        spec_.files.size(),
        [this](size_t index) {
          std::shared_ptr<const OpenedParquetFile> opened =
              OpenParquetFile(*spec_.fs, spec_.files[index], spec_.schema);
          ScanFile file;
          for (int group = 0; group < opened->reader->num_row_groups(); ++group) {
            file.row_groups.push_back(group);
          }
          file.read = [opened](int row_group) { return opened->ReadRowGroup(row_group); };
          return file;
        },
        spec_.filter);
  }

  std::optional<Batch> Next(ExecContext& context) override {
    CountOnce(context);
    return stream_->Next(context);
  }

  std::optional<SelectedBatch> NextSelected(ExecContext& context) override {
    CountOnce(context);
    return stream_->NextSelected(context);
  }

  bool EnableParallelNext() override {
    stream_->DecodeOnCallers();
    return true;
  }

  std::string Describe() const override {
    std::string text = "Scan parquet " + spec_.display_name + " [" +
                       ColumnListText(*schema(), /*with_index=*/false) + "]";
    if (spec_.filter) text += " Filter: " + ExpressionText(*spec_.filter, *schema());
    text += " (files " + std::to_string(spec_.files.size()) + ")";
    return text;
  }

 private:
  // The first pull, of either kind, reports the scan's files.
  void CountOnce(ExecContext& context) {
    std::call_once(counted_, [&] {
      if (context.progress != nullptr) {
        context.progress->AddInputTotals(static_cast<int64_t>(spec_.files.size()), 0);
      }
    });
  }

  ParquetScanSpec spec_;
  std::once_flag counted_;  // the files to read are announced by the first pull
  std::unique_ptr<ScanStream> stream_;  // last: stopped before spec_ goes away
};

}  // namespace

OperatorPtr MakeParquetScan(ParquetScanSpec spec) {
  SILT_CHECK(spec.fs != nullptr && spec.schema != nullptr, "Parquet scan needs a file system and a schema");
  if (spec.filter) {
    SILT_CHECK(spec.filter->type()->id() == TypeId::kBoolean, "scan filter must be boolean");
  }
  return std::make_unique<ParquetScanOperator>(std::move(spec));
}

}  // namespace silt::exec
