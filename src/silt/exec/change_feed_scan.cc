#include "silt/exec/change_feed_scan.h"

#include <mutex>

#include "silt/base/check.h"
#include "silt/exec/filter_internal.h"
#include "silt/exec/parquet_scan_stream.h"

namespace silt::exec {

namespace {

class ChangeFeedScanOperator final : public Operator {
 public:
  ChangeFeedScanOperator(ChangeFeedScanSpec spec, std::unique_ptr<log::ChangeFeedReader> reader)
      : Operator(reader->schema()), spec_(std::move(spec)), reader_(std::move(reader)) {
    const log::ChangeFeedReader* feed_reader = reader_.get();
    stream_ = std::make_unique<ScanStream>(
        feed_reader->num_files(),
        [feed_reader](size_t index) {
          std::shared_ptr<const log::TableScan::OpenedFile> opened = feed_reader->OpenFile(index);
          ScanFile file;
          file.row_groups = opened->row_groups();
          file.read = [opened](int row_group) { return opened->ReadRowGroup(row_group); };
          return file;
        },
        spec_.filter);
  }

  std::optional<Batch> Next(ExecContext& context) override {
    std::call_once(counted_, [&] {
      context.counters->files_pruned.fetch_add(static_cast<int64_t>(reader_->num_pruned_files()));
    });
    return stream_->Next(context);
  }

  bool EnableParallelNext() override {
    stream_->DecodeOnCallers();
    return true;
  }

  std::string Describe() const override {
    const log::ChangeFeed& feed = *spec_.feed;
    std::string text = "Scan " + spec_.table_name + " [" +
                       ColumnListText(*schema(), /*with_index=*/false) + "] versions " +
                       std::to_string(feed.start_version()) + " to " +
                       std::to_string(feed.end_version());
    if (spec_.filter) text += " Filter: " + ExpressionText(*spec_.filter, *schema());
    text += " (change files " + std::to_string(reader_->num_files()) + " of " +
            std::to_string(feed.files().size()) + ")";
    return text;
  }

 private:
  ChangeFeedScanSpec spec_;
  std::unique_ptr<log::ChangeFeedReader> reader_;
  std::once_flag counted_;  // the pruned files are counted by the first Next()
  // Declared last: destroyed (its workers stopped) before the reader they read through.
  std::unique_ptr<ScanStream> stream_;
};

}  // namespace

OperatorPtr MakeChangeFeedScan(ChangeFeedScanSpec spec) {
  SILT_CHECK(spec.feed != nullptr, "change feed scan without a feed");
  if (spec.filter) {
    SILT_CHECK(spec.filter->type()->id() == TypeId::kBoolean, "scan filter must be boolean");
  }
  std::unique_ptr<log::ChangeFeedReader> reader =
      spec.feed->MakeReader(spec.columns, nullptr, spec.predicates);
  return std::make_unique<ChangeFeedScanOperator>(std::move(spec), std::move(reader));
}

}  // namespace silt::exec
