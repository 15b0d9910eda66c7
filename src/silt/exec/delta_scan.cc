#include <memory>
#include <mutex>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/operators.h"
#include "silt/exec/parquet_scan_stream.h"

namespace silt::exec {

namespace {

// A pruning conjunct as Spark prints pushed data source filters: "GreaterThan(id,5)".
std::string PredicateText(const log::ScanPredicate& predicate) {
  using Op = log::ScanPredicate::Op;
  switch (predicate.op) {
    case Op::kIsNull: return "IsNull(" + predicate.column + ")";
    case Op::kIsNotNull: return "IsNotNull(" + predicate.column + ")";
    case Op::kEqual: return "EqualTo(" + predicate.column + "," + predicate.value + ")";
    case Op::kLess: return "LessThan(" + predicate.column + "," + predicate.value + ")";
    case Op::kLessOrEqual:
      return "LessThanOrEqual(" + predicate.column + "," + predicate.value + ")";
    case Op::kGreater: return "GreaterThan(" + predicate.column + "," + predicate.value + ")";
    case Op::kGreaterOrEqual:
      return "GreaterThanOrEqual(" + predicate.column + "," + predicate.value + ")";
  }
  return predicate.column;
}

class DeltaScanOperator final : public Operator {
 public:
  DeltaScanOperator(DeltaScanSpec spec, std::unique_ptr<log::TableScan> scan)
      : Operator(scan->schema()), spec_(std::move(spec)), scan_(std::move(scan)) {
    const log::TableScan* table_scan = scan_.get();
    stream_ = std::make_unique<ScanStream>(
        table_scan->files().size(),
        [table_scan](size_t index) {
          std::shared_ptr<const log::TableScan::OpenedFile> opened =
              table_scan->OpenFile(*table_scan->files()[index]);
          ScanFile file;
          file.row_groups = opened->row_groups();
          file.read = [opened](int row_group) { return opened->ReadRowGroup(row_group); };
          file.size_bytes = table_scan->files()[index]->size;
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
    std::string text = "Scan delta " + spec_.table_name + " [" +
                       ColumnListText(*schema(), /*with_index=*/false) + "] PushedFilters: [";
    for (size_t i = 0; i < spec_.options.predicates.size(); ++i) {
      if (i > 0) text += ", ";
      text += PredicateText(spec_.options.predicates[i]);
    }
    text += "]";
    if (spec_.filter) text += " Filter: " + ExpressionText(*spec_.filter, *schema());
    text += " (files " + std::to_string(scan_->files().size()) + " of " +
            std::to_string(scan_->num_live_files()) + ")";
    for (size_t i = 0; i < spec_.options.join_filters.size(); ++i) {
      const log::JoinKeyFilter& filter = *spec_.options.join_filters[i];
      text += (i == 0 ? " runtime filter: " : ", ") + filter.column() + " from join #" +
              std::to_string(filter.join_id());
    }
    return text;
  }

 private:
  // The first pull, of either kind, reports the scan's files.
  void CountOnce(ExecContext& context) {
    std::call_once(counted_, [&] {
      context.counters->files_pruned.fetch_add(
          static_cast<int64_t>(scan_->num_live_files() - scan_->files().size()));
      if (context.progress != nullptr) {
        int64_t bytes = 0;
        for (const log::AddFile* file : scan_->files()) bytes += file->size;
        context.progress->AddInputTotals(static_cast<int64_t>(scan_->files().size()), bytes);
      }
    });
  }

  DeltaScanSpec spec_;
  std::unique_ptr<log::TableScan> scan_;
  std::once_flag counted_;  // the pruned files are counted by the first pull
  // Declared last: destroyed (its workers stopped) before the scan they read through.
  std::unique_ptr<ScanStream> stream_;
};

}  // namespace

OperatorPtr MakeDeltaScan(DeltaScanSpec spec) {
  SILT_CHECK(spec.snapshot != nullptr, "Delta scan without a snapshot");
  std::unique_ptr<log::TableScan> scan = log::TableScan::Make(spec.snapshot, spec.options);
  if (spec.filter) {
    SILT_CHECK(spec.filter->type()->id() == TypeId::kBoolean, "scan filter must be boolean");
  }
  return std::make_unique<DeltaScanOperator>(std::move(spec), std::move(scan));
}

}  // namespace silt::exec
