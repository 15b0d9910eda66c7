// The Parquet file writer: buffers batches into row groups, encodes the leaf columns of each row
// group in parallel, and writes "PAR1" + column chunks + footer + footer length + "PAR1"
// (apache/parquet-format README "File Format").

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/parquet/column_writer.h"
#include "silt/parquet/schema_to_parquet.h"
#include "silt/parquet/writer.h"

namespace silt::parquet {
namespace {

constexpr char kMagic[] = "PAR1";

// Uncompressed bytes of rows [begin, begin + count) of `vector`, roughly as PLAIN would store
// them; used to size row groups.
int64_t EstimateBytes(const Vector& vector, int64_t begin, int64_t count) {
  if (count <= 0) return 0;
  switch (vector.type_id()) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBoolean:
      return (count + 7) / 8;
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
      return offsets[begin + count] - offsets[begin] + 4 * count;
    }
    case TypeId::kStruct: {
      int64_t total = 0;
      for (const VectorPtr& child : vector.children()) {
        total += EstimateBytes(*child, vector.offset() + begin, count);
      }
      return total;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      int32_t start = vector.ListStart(begin);
      int32_t end = vector.ListStart(begin + count);
      const Vector& child = *vector.child(0);
      return 4 * count + EstimateBytes(child, start, end - start);
    }
    default:
      return vector.type()->FixedWidth() * count;
  }
}

class ParquetFileWriter final : public FileWriter {
 public:
  ParquetFileWriter(std::unique_ptr<io::OutputStream> out, Schema schema, WriterOptions options)
      : out_(std::move(out)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        parquet_schema_(SchemaToParquet(schema_, options_.write_field_ids)) {
    SILT_USER_CHECK(
        options_.row_group_max_rows > 0 && options_.row_group_bytes > 0 && options_.page_bytes > 0,
        INVALID_ARGUMENT, {{"message", "Parquet row group and page sizes must be positive"}});
    column_options_.codec = options_.codec;
    column_options_.compression_level = options_.compression_level;
    column_options_.page_bytes = options_.page_bytes;
    column_options_.dictionary = options_.dictionary;
    column_options_.dictionary_page_bytes = options_.dictionary_page_bytes;
    column_options_.statistics_truncate_bytes = options_.statistics_truncate_bytes;
    Append(kMagic, 4);
  }

  ~ParquetFileWriter() override {
    // Pool tasks may still be encoding into this writer's buffers: wait for them.
    if (in_flight_) {
      RunLeaves(*in_flight_);
      std::unique_lock<std::mutex> lock(in_flight_->mutex);
      in_flight_->all_done.wait(lock, [&] { return in_flight_->done == in_flight_->count; });
    }
  }

  void Write(const Batch& batch) override {
    SILT_USER_CHECK(!closed_, PARQUET_WRITE_ERROR,
                    {{"path", "<output>"}, {"message", "Write after Close"}});
    SILT_USER_CHECK(
        batch.schema() != nullptr && batch.schema()->Equals(schema_), PARQUET_WRITE_ERROR,
        {{"path", "<output>"}, {"message", "the batch's schema differs from the file's schema"}});
    if (batch.num_rows() == 0) return;
    int64_t bytes = 0;
    for (const VectorPtr& column : batch.columns()) {
      bytes += EstimateBytes(*column, 0, batch.num_rows());
    }
    pending_.push_back(batch);
    pending_rows_ += batch.num_rows();
    pending_bytes_ += bytes;
    while (pending_rows_ >= options_.row_group_max_rows ||
           pending_bytes_ >= options_.row_group_bytes) {
      FlushRowGroup(RowsForNextGroup());
    }
  }

  FileMetaData Close() override {
    SILT_USER_CHECK(!closed_, PARQUET_WRITE_ERROR,
                    {{"path", "<output>"}, {"message", "Close called twice"}});
    while (pending_rows_ > 0) FlushRowGroup(RowsForNextGroup());
    if (in_flight_) FinishRowGroup();
    closed_ = true;
    FileMetaData metadata;
    metadata.version = 1;
    metadata.schema = parquet_schema_.elements;
    metadata.num_rows = num_rows_;
    metadata.row_groups = std::move(row_groups_);
    metadata.key_value_metadata = options_.key_value_metadata;
    metadata.created_by = std::string("silt version ") + SILT_VERSION;
    metadata.column_orders.assign(parquet_schema_.leaves.size(), true);
    std::string footer;
    EncodeFileMetaData(metadata, &footer);
    auto footer_length = static_cast<uint32_t>(footer.size());
    footer.append(reinterpret_cast<const char*>(&footer_length), 4);
    footer.append(kMagic, 4);
    Append(footer.data(), footer.size());
    out_->Close();
    return metadata;
  }

  uint64_t bytes_written() const override { return position_; }

 private:
  void Append(const void* data, size_t size) {
    out_->Write(data, size);
    position_ += size;
  }

  int64_t RowsForNextGroup() const {
    int64_t rows = std::min(pending_rows_, options_.row_group_max_rows);
    if (pending_bytes_ > options_.row_group_bytes) {
      int64_t bytes_per_row = std::max<int64_t>(1, pending_bytes_ / pending_rows_);
      rows = std::min(rows, std::max<int64_t>(1, options_.row_group_bytes / bytes_per_row));
    }
    return rows;
  }

  // One row group being encoded: pool tasks (and the waiting caller) take leaves from `next`.
  struct RowGroupJob {
    std::vector<std::vector<VectorPtr>> pieces;  // keeps the rows alive while encoding
    int64_t rows = 0;
    std::vector<EncodedColumnChunk>* chunks = nullptr;
    std::vector<ColumnWriterScratch>* scratch = nullptr;
    const std::vector<WriterLeafColumn>* leaves = nullptr;
    const ColumnWriterOptions* options = nullptr;
    size_t count = 0;  // leaves; a copy, as late tasks must not touch the writer
    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::condition_variable all_done;
    size_t done = 0;
    std::exception_ptr error;
  };

  // Encodes leaves of `job` until none is left. A task that starts after the job finished finds
  // no leaf and touches nothing else, so it may outlive the writer.
  static void RunLeaves(RowGroupJob& job) {
    while (true) {
      size_t i = job.next.fetch_add(1);
      if (i >= job.count) return;
      std::exception_ptr error;
      try {
        const WriterLeafColumn& leaf = (*job.leaves)[i];
        WriteColumnChunk(leaf, job.pieces[leaf.top_level_field], *job.options, &(*job.scratch)[i],
                         &(*job.chunks)[i]);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(job.mutex);
      if (error && !job.error) job.error = error;
      if (++job.done == job.count) job.all_done.notify_all();
    }
  }

  // Takes the first `rows` pending rows as a row group and starts encoding its leaves on the
  // pool; the previous row group (if any) is then finished and written while this one encodes.
  void FlushRowGroup(int64_t rows) {
    auto job = std::make_shared<RowGroupJob>();
    job->pieces.resize(schema_.num_fields());
    int64_t remaining = rows;
    size_t consumed_batches = 0;
    while (remaining > 0) {
      const Batch& batch = pending_[consumed_batches];
      int64_t take = std::min(remaining, batch.num_rows());
      for (size_t column = 0; column < batch.num_columns(); ++column) {
        job->pieces[column].push_back(
            take == batch.num_rows() ? batch.column(column) : batch.column(column)->Slice(0, take));
      }
      remaining -= take;
      if (take == batch.num_rows()) {
        ++consumed_batches;
      } else {
        pending_[consumed_batches] = batch.Slice(take, batch.num_rows() - take);
      }
    }
    pending_.erase(pending_.begin(),
                   pending_.begin() + static_cast<std::ptrdiff_t>(consumed_batches));
    pending_rows_ -= rows;
    pending_bytes_ = 0;
    for (const Batch& batch : pending_) {
      for (const VectorPtr& column : batch.columns()) {
        pending_bytes_ += EstimateBytes(*column, 0, batch.num_rows());
      }
    }

    // Two sets of chunks and scratch buffers alternate between consecutive row groups: one is
    // being encoded while the other is written. Both live as long as the writer and are reused.
    const std::vector<WriterLeafColumn>& leaves = parquet_schema_.leaves;
    size_t set = row_groups_started_++ % 2;
    chunks_[set].resize(leaves.size());
    scratch_[set].resize(leaves.size());
    job->rows = rows;
    job->chunks = &chunks_[set];
    job->scratch = &scratch_[set];
    job->leaves = &leaves;
    job->options = &column_options_;
    job->count = leaves.size();
    ThreadPool& pool = options_.pool != nullptr ? *options_.pool : ThreadPool::Default();
    size_t tasks =
        std::min(leaves.size(),
                 options_.max_parallelism == 0 ? pool.num_threads() : options_.max_parallelism);
    for (size_t t = 0; t < tasks; ++t) {
      pool.Submit([job] { RunLeaves(*job); });
    }
    if (in_flight_) FinishRowGroup();
    in_flight_ = std::move(job);
  }

  // Waits for the row group in flight (encoding what no pool thread has taken yet, so that a
  // caller running on a busy pool cannot deadlock) and appends its chunks to the file.
  void FinishRowGroup() {
    std::shared_ptr<RowGroupJob> job = std::move(in_flight_);
    in_flight_.reset();
    RunLeaves(*job);
    {
      std::unique_lock<std::mutex> lock(job->mutex);
      job->all_done.wait(lock, [&] { return job->done == job->count; });
    }
    if (job->error) std::rethrow_exception(job->error);

    RowGroup row_group;
    row_group.num_rows = job->rows;
    row_group.file_offset = static_cast<int64_t>(position_);
    row_group.ordinal = static_cast<int16_t>(row_groups_.size());
    int64_t total_compressed = 0;
    for (EncodedColumnChunk& chunk : *job->chunks) {
      auto start = static_cast<int64_t>(position_);
      Append(chunk.dictionary_page.data(), chunk.dictionary_page.size());
      Append(chunk.data_pages.data(), chunk.data_pages.size());
      ColumnChunk column;
      column.file_offset = start;
      column.meta_data = std::move(chunk.metadata);
      column.meta_data->data_page_offset += start;
      if (column.meta_data->dictionary_page_offset) {
        *column.meta_data->dictionary_page_offset += start;
      }
      row_group.total_byte_size += column.meta_data->total_uncompressed_size;
      total_compressed += column.meta_data->total_compressed_size;
      row_group.columns.push_back(std::move(column));
    }
    row_group.total_compressed_size = total_compressed;
    row_groups_.push_back(std::move(row_group));
    num_rows_ += job->rows;
  }

  std::unique_ptr<io::OutputStream> out_;
  Schema schema_;
  WriterOptions options_;
  WriterSchema parquet_schema_;
  ColumnWriterOptions column_options_;
  std::vector<EncodedColumnChunk> chunks_[2];
  std::vector<ColumnWriterScratch> scratch_[2];
  std::shared_ptr<RowGroupJob> in_flight_;
  size_t row_groups_started_ = 0;
  std::vector<Batch> pending_;
  int64_t pending_rows_ = 0;
  int64_t pending_bytes_ = 0;
  std::vector<RowGroup> row_groups_;
  int64_t num_rows_ = 0;
  uint64_t position_ = 0;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<FileWriter> FileWriter::Open(std::unique_ptr<io::OutputStream> out, Schema schema,
                                             WriterOptions options) {
  SILT_USER_CHECK(out != nullptr, INVALID_ARGUMENT, {{"message", "no output stream"}});
  return std::make_unique<ParquetFileWriter>(std::move(out), std::move(schema), std::move(options));
}

}  // namespace silt::parquet
