#include "silt/log/optimize.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/base/thread_pool.h"
#include "silt/log/clustering.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/file_stats.h"
#include "silt/log/random_uuid.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_properties.h"
#include "silt/log/zorder.h"
#include "silt/types/schema_json.h"
#include "silt/vector/batch.h"

namespace silt::log {
namespace {

bool ContainsIgnoringCase(const std::vector<std::string>& names, std::string_view name) {
  std::string wanted = AsciiLower(name);
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return AsciiLower(n) == wanted; });
}

// Leaf columns a statistic can be kept for: a struct contributes its fields, anything else one.
int64_t CountLeaves(const DataType& type) {
  if (type.id() != TypeId::kStruct) return 1;
  int64_t leaves = 0;
  for (const Field& field : type.fields()) leaves += CountLeaves(*field.type);
  return leaves;
}

// Groups files by their partition values; the key orders partitions deterministically.
std::string PartitionKey(const AddFile& file) {
  std::vector<std::pair<std::string, std::optional<std::string>>> values(
      file.partition_values.begin(), file.partition_values.end());
  std::sort(values.begin(), values.end());
  std::string key;
  for (const auto& [name, value] : values) {
    key += name;
    key.push_back('\0');
    key += value ? "v" + *value : "n";
    key.push_back('\0');
  }
  return key;
}

// The share of a file's rows its deletion vector removes; nullopt without statistics.
std::optional<double> DeletedRowsRatio(const AddFile& file) {
  if (!file.deletion_vector || !file.stats) return std::nullopt;
  std::optional<int64_t> records = FileStats::Parse(*file.stats, file.path).num_records();
  if (!records || *records <= 0) return std::nullopt;
  return static_cast<double>(file.deletion_vector->cardinality) / static_cast<double>(*records);
}

bool ShouldCompact(const AddFile& file, const OptimizeOptions& options) {
  if (file.size < options.min_file_size) return true;
  if (!file.deletion_vector) return false;
  // A file with a deletion vector but no row count is rewritten so that it gets statistics.
  std::optional<double> ratio = DeletedRowsRatio(file);
  return !ratio || *ratio > options.max_deleted_rows_ratio;
}

FileSizeMetrics SizeMetrics(const std::vector<int64_t>& sizes) {
  FileSizeMetrics metrics;
  if (sizes.empty()) return metrics;
  metrics.min = *std::min_element(sizes.begin(), sizes.end());
  metrics.max = *std::max_element(sizes.begin(), sizes.end());
  for (int64_t size : sizes) metrics.total_size += size;
  metrics.total_files = static_cast<int64_t>(sizes.size());
  metrics.avg = static_cast<double>(metrics.total_size) / static_cast<double>(sizes.size());
  return metrics;
}

std::string JsonStringArray(const std::vector<std::string>& values) {
  JsonWriter json;
  json.BeginArray();
  for (const std::string& value : values) json.String(value);
  json.EndArray();
  return json.Release();
}

// A JSON string holding `text` (operationParameters hold JSON values).
std::string JsonStringValue(std::string_view text) {
  JsonWriter json;
  json.String(text);
  return json.Release();
}

void ValidateZOrderColumns(const Metadata& metadata, const Schema& schema,
                           const OptimizeOptions& options) {
  std::vector<std::string> stats_columns = StatsColumns(metadata);
  std::vector<std::string> without_stats;
  for (const std::string& column : options.zorder_columns) {
    if (options.check_zorder_column_stats && !ContainsIgnoringCase(stats_columns, column)) {
      without_stats.push_back(column);
    }
    if (ContainsIgnoringCase(metadata.partition_columns, column)) {
      SILT_THROW(DELTA_ZORDERING_ON_PARTITION_COLUMN, {{"colName", column}});
    }
    if (schema.FieldIndex(column, /*case_sensitive=*/false) < 0) {
      SILT_THROW(DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST, {{"columnName", column}});
    }
  }
  if (!without_stats.empty()) {
    std::string list = "[";
    for (size_t i = 0; i < without_stats.size(); ++i) list += (i ? ", " : "") + without_stats[i];
    SILT_THROW(
        DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS,
        {{"cols", list + "]"}, {"zorderColStatKey", std::string(kOptimizeZOrderStatsCheckKey)}});
  }
}

// One unit of work: files of one partition rewritten together.
struct Bin {
  std::string partition;
  std::vector<const AddFile*> files;
  int64_t bytes = 0;
};

// Splits the selected files of each partition into bins, as Delta does: files by increasing
// size, a new bin whenever the next file would push the current one past `max_bin_size`.
std::vector<Bin> GroupIntoBins(const std::vector<const AddFile*>& files, bool zorder,
                               int64_t max_bin_size, bool purge) {
  std::map<std::string, std::vector<const AddFile*>> by_partition;
  for (const AddFile* file : files) by_partition[PartitionKey(*file)].push_back(file);
  std::vector<Bin> bins;
  for (auto& [partition, partition_files] : by_partition) {
    std::stable_sort(partition_files.begin(), partition_files.end(),
                     [](const AddFile* a, const AddFile* b) { return a->size < b->size; });
    std::vector<Bin> partition_bins;
    Bin current{partition, {}, 0};
    for (const AddFile* file : partition_files) {
      // Z-order reads a partition as a whole: its files form one bin.
      if (!zorder && !current.files.empty() && current.bytes + file->size > max_bin_size) {
        partition_bins.push_back(std::move(current));
        current = Bin{partition, {}, 0};
      }
      current.files.push_back(file);
      current.bytes += file->size;
    }
    if (!current.files.empty()) partition_bins.push_back(std::move(current));
    for (Bin& bin : partition_bins) {
      // Rewriting a lone file only helps when it purges deleted rows or dropped columns, or
      // orders the data.
      bool worth = bin.files.size() > 1 || zorder || purge ||
                   bin.files[0]->deletion_vector.has_value();
      if (worth) bins.push_back(std::move(bin));
    }
  }
  return bins;
}

// ---- liquid clustering ----

const std::string* FindTag(const AddFile& file, std::string_view key) {
  return file.tags ? FindValue(*file.tags, key) : nullptr;
}

// The ZCube a file belongs to when its tags name one (both ZCUBE_ID and ZCUBE_ZORDER_BY).
struct ZCube {
  std::string id;
  std::string zorder_by;  // the JSON array of the clustering columns it was clustered by
};

std::optional<ZCube> ZCubeOf(const AddFile& file) {
  const std::string* id = FindTag(file, kZCubeIdTag);
  const std::string* zorder_by = FindTag(file, kZCubeZOrderByTag);
  if (id == nullptr || zorder_by == nullptr) return std::nullopt;
  return ZCube{*id, *zorder_by};
}

// The files incremental clustering rewrites, in the order they are grouped (Delta's
// ClusteringStrategy): files without a ZCube first, then by ZCube id. Candidates are files of
// this provider (or none) not clustered by other columns; of those, ZCubes at least
// `clustering_min_cube_size` large are stable and stay. Candidates that are one ZCube alone are
// already clustered; under FULL, files clustered by other columns are rewritten too.
std::vector<const AddFile*> SelectClusteringFiles(const std::vector<const AddFile*>& considered,
                                                  const OptimizeOptions& options,
                                                  const std::string& zorder_by,
                                                  OptimizeMetrics& metrics) {
  std::vector<const AddFile*> files = considered;
  std::stable_sort(files.begin(), files.end(), [](const AddFile* a, const AddFile* b) {
    std::optional<ZCube> left = ZCubeOf(*a);
    std::optional<ZCube> right = ZCubeOf(*b);
    if (!left || !right) return !left && right.has_value();
    return left->id < right->id;
  });
  std::vector<const AddFile*> candidates;
  std::vector<const AddFile*> skipped;
  std::string last_cube;
  for (const AddFile* file : files) {
    std::optional<ZCube> cube = ZCubeOf(*file);
    if (cube && (options.full || cube->zorder_by == zorder_by)) {
      if (cube->id != last_cube) ++metrics.clustering_input_cubes;
      last_cube = cube->id;
      ++metrics.clustering_input_cube_files;
      metrics.clustering_input_cube_bytes += file->size;
    } else {
      ++metrics.clustering_input_other_files;
      metrics.clustering_input_other_bytes += file->size;
    }
    bool same_provider =
        !file->clustering_provider || *file->clustering_provider == kLiquidClusteringProvider;
    bool other_columns = cube && cube->zorder_by != zorder_by;
    (same_provider && !other_columns ? candidates : skipped).push_back(file);
  }
  // Drops the ZCubes that reached the minimum size: candidates come as unclustered files, then
  // runs of files of one ZCube.
  std::vector<const AddFile*> small;
  size_t run = 0;
  while (run < candidates.size()) {
    std::optional<ZCube> cube = ZCubeOf(*candidates[run]);
    if (!cube) {
      small.push_back(candidates[run++]);
      continue;
    }
    size_t end = run;
    int64_t bytes = 0;
    while (end < candidates.size()) {
      std::optional<ZCube> next = ZCubeOf(*candidates[end]);
      if (!next || next->id != cube->id) break;
      bytes += candidates[end++]->size;
    }
    if (bytes < options.clustering_min_cube_size) {
      small.insert(small.end(), candidates.begin() + static_cast<long>(run),
                   candidates.begin() + static_cast<long>(end));
    }
    run = end;
  }
  std::vector<const AddFile*> selected;
  if (options.full && !skipped.empty()) {
    selected = small;
    selected.insert(selected.end(), skipped.begin(), skipped.end());
  } else {
    std::set<std::string> cubes;
    bool unclustered = false;
    for (const AddFile* file : small) {
      std::optional<ZCube> cube = ZCubeOf(*file);
      if (cube) {
        cubes.insert(cube->id);
      } else {
        unclustered = true;
      }
    }
    if (unclustered || cubes.size() > 1) selected = small;
  }
  for (const AddFile* file : selected) {
    ++metrics.clustering_merged_files;
    metrics.clustering_merged_bytes += file->size;
  }
  return selected;
}

// Groups clustering's files, in their order, into new ZCubes of at most `max_cube_size` bytes;
// every ZCube is rewritten, even of one file, since rewriting orders its rows.
std::vector<Bin> GroupIntoCubes(const std::vector<const AddFile*>& files, int64_t max_cube_size) {
  std::vector<Bin> bins;
  Bin current{"", {}, 0};
  for (const AddFile* file : files) {
    if (!current.files.empty() && current.bytes + file->size > max_cube_size) {
      bins.push_back(std::move(current));
      current = Bin{"", {}, 0};
    }
    current.files.push_back(file);
    current.bytes += file->size;
  }
  if (!current.files.empty()) bins.push_back(std::move(current));
  return bins;
}

// The JSON array of clustering column names Delta keeps in ZCUBE_ZORDER_BY.
std::string ClusteringColumnsJson(const std::vector<std::vector<std::string>>& columns) {
  JsonWriter json;
  json.BeginArray();
  for (const auto& column : columns) json.String(ColumnPathName(column));
  json.EndArray();
  return json.Release();
}

class BinRewriter {
 public:
  BinRewriter(std::shared_ptr<const Snapshot> snapshot, const OptimizeOptions& options)
      : snapshot_(std::move(snapshot)), options_(options) {
    ScanOptions scan_options;
    scan_options.pool = options.pool;
    schema_ = std::make_shared<Schema>(snapshot_->schema());
    writer_schema_ = schema_;
    // Under row tracking the rewritten rows keep their stable row ids and commit versions,
    // materialized in the new files' hidden columns.
    const Metadata& metadata = snapshot_->metadata();
    const std::string* row_id = FindValue(metadata.configuration, kMaterializedRowIdColumnKey);
    const std::string* commit_version =
        FindValue(metadata.configuration, kMaterializedRowCommitVersionColumnKey);
    if (IsRowTrackingEnabled(snapshot_->protocol(), metadata) && row_id != nullptr &&
        commit_version != nullptr) {
      scan_options.file_metadata = true;
      hidden_columns_ = {Field{*row_id, LongType(), true, {}},
                         Field{*commit_version, LongType(), true, {}}};
      std::vector<Field> fields = schema_->fields();
      fields.insert(fields.end(), hidden_columns_.begin(), hidden_columns_.end());
      writer_schema_ = std::make_shared<Schema>(std::move(fields));
    }
    scan_ = TableScan::Make(snapshot_, scan_options);
    for (const std::string& column : options.zorder_columns) {
      zorder_indexes_.push_back(static_cast<size_t>(schema_->FieldIndex(column, false)));
    }
    // Each clustering column as the field indexes leading to it through structs.
    for (const std::vector<std::string>& column : options.clustering_columns) {
      std::vector<size_t> indexes;
      const std::vector<Field>* fields = &schema_->fields();
      for (const std::string& name : column) {
        size_t index = 0;
        while (index < fields->size() && !EqualsIgnoreCase((*fields)[index].name, name)) ++index;
        SILT_CHECK(index < fields->size(), "clustering column " + name + " not in the schema");
        indexes.push_back(index);
        fields = &(*fields)[index].type->fields();
      }
      clustering_indexes_.push_back(std::move(indexes));
    }
  }

  // Reports `file` read and its live rows rewritten.
  void CountFile(const AddFile& file, int64_t rows) const {
    if (options_.progress == nullptr) return;
    options_.progress->AddRead(1, rows, file.size);
    options_.progress->AddWritten(0, rows, 0);
  }

  // Writes the live rows of `bin` to new files and returns their adds.
  std::vector<AddFile> Rewrite(const Bin& bin) const {
    DataFileWriterOptions writer_options;
    writer_options.data_change = false;
    writer_options.parquet.pool = options_.pool;
    writer_options.hidden_columns = hidden_columns_;
    ThreadPool& pool = options_.pool != nullptr ? *options_.pool : ThreadPool::Default();
    // Files are opened, and their row groups decoded, a window at a time on every thread; the
    // decoded row groups then go to the writer in file order (whose encoding is parallel too).
    const size_t window = 2 * pool.num_threads();
    if (zorder_indexes_.empty() && clustering_indexes_.empty()) {
      // Compaction: the bin becomes one file, streamed a window of row groups at a time.
      auto writer = MakeWriter(writer_options);
      for (size_t first = 0; first < bin.files.size(); first += window) {
        size_t count = std::min(window, bin.files.size() - first);
        std::vector<std::unique_ptr<TableScan::OpenedFile>> opened(count);
        pool.ParallelFor(count, [&](size_t i) {
          ThrowIfCanceled(options_.commit.cancellation);
          opened[i] = scan_->OpenFile(*bin.files[first + i]);
        });
        std::vector<std::pair<size_t, int>> pieces;  // (opened file, row group)
        for (size_t i = 0; i < count; ++i) {
          for (int row_group : opened[i]->row_groups()) pieces.emplace_back(i, row_group);
        }
        std::vector<int64_t> rows(count, 0);
        for (size_t start = 0; start < pieces.size(); start += window) {
          std::vector<Batch> batches(std::min(window, pieces.size() - start));
          pool.ParallelFor(batches.size(), [&](size_t i) {
            ThrowIfCanceled(options_.commit.cancellation);
            const auto& [file, row_group] = pieces[start + i];
            batches[i] = opened[file]->ReadRowGroup(row_group);
          });
          for (size_t i = 0; i < batches.size(); ++i) {
            rows[pieces[start + i].first] += batches[i].num_rows();
            if (batches[i].num_rows() > 0) writer->Write(InTableSchema(batches[i]));
            batches[i] = Batch();
          }
        }
        for (size_t i = 0; i < count; ++i) CountFile(*bin.files[first + i], rows[i]);
      }
      return writer->Finish();
    }
    std::vector<std::vector<Batch>> file_batches(bin.files.size());
    pool.ParallelFor(bin.files.size(), [&](size_t i) {
      ThrowIfCanceled(options_.commit.cancellation);
      file_batches[i] = scan_->ReadFile(*bin.files[i]);
      int64_t rows = 0;
      for (const Batch& batch : file_batches[i]) rows += batch.num_rows();
      CountFile(*bin.files[i], rows);
    });
    std::vector<Batch> batches;
    for (std::vector<Batch>& file : file_batches) {
      for (Batch& batch : file) {
        if (batch.num_rows() > 0) batches.push_back(InTableSchema(batch));
      }
    }
    file_batches.clear();
    if (batches.empty()) return {};
    Batch rows = ConcatenateBatches(batches);
    batches.clear();
    std::vector<VectorPtr> keys;
    for (size_t index : zorder_indexes_) keys.push_back(rows.column(index));
    for (const std::vector<size_t>& indexes : clustering_indexes_) {
      VectorPtr key = rows.column(indexes[0]);
      for (size_t level = 1; level < indexes.size(); ++level) {
        key = key->StructField(indexes[level]);
      }
      keys.push_back(std::move(key));
    }
    std::vector<int64_t> order =
        clustering_indexes_.empty() ? ZOrderPermutation(keys) : ClusteringPermutation(keys);
    std::vector<VectorPtr> sorted;
    for (const VectorPtr& column : rows.columns()) {
      VectorBuilder builder(column->type(), rows.num_rows());
      for (int64_t row : order) builder.AppendFrom(*column, row);
      sorted.push_back(builder.Finish());
    }
    // Delta range-partitions a Z-ordered partition into max(1, bytes / maxFileSize) files.
    int64_t num_files =
        std::max<int64_t>(1, bin.bytes / std::max<int64_t>(options_.max_file_size, 1));
    writer_options.max_rows_per_file = (rows.num_rows() + num_files - 1) / num_files;
    auto writer = MakeWriter(writer_options);
    writer->Write(Batch(writer_schema_, std::move(sorted), rows.num_rows()));
    return writer->Finish();
  }

 private:
  std::unique_ptr<DataFileWriter> MakeWriter(DataFileWriterOptions options) const {
    return DataFileWriter::Make(snapshot_->file_system(), snapshot_->table_root(),
                                snapshot_->metadata(), std::move(options));
  }

  // A scanned batch as the writer takes it: the table's columns, then (row tracking) each row's
  // stable id and commit version from the scan's `_metadata`, its last two fields.
  Batch InTableSchema(const Batch& batch) const {
    if (hidden_columns_.empty()) return Batch(schema_, batch.columns(), batch.num_rows());
    std::vector<VectorPtr> columns(batch.columns().begin(),
                                   batch.columns().begin() + static_cast<long>(schema_->num_fields()));
    const VectorPtr& metadata = batch.columns().back();
    size_t fields = metadata->type()->fields().size();
    columns.push_back(metadata->child(fields - 2));
    columns.push_back(metadata->child(fields - 1));
    return Batch(writer_schema_, std::move(columns), batch.num_rows());
  }

  std::shared_ptr<const Snapshot> snapshot_;
  const OptimizeOptions& options_;
  std::unique_ptr<TableScan> scan_;
  SchemaPtr schema_;
  SchemaPtr writer_schema_;            // schema_, plus the materialized row tracking columns
  std::vector<Field> hidden_columns_;  // those columns, under row tracking
  std::vector<size_t> zorder_indexes_;
  std::vector<std::vector<size_t>> clustering_indexes_;
};

// The operationMetrics of the commit, in the order Delta writes them.
StringMap OperationMetrics(const std::vector<int64_t>& added_sizes, int64_t removed_files,
                           int64_t removed_bytes, int64_t deletion_vectors_removed) {
  std::vector<int64_t> sorted = added_sizes;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](size_t index) { return sorted.empty() ? int64_t{0} : sorted[index]; };
  size_t count = sorted.size();
  int64_t added_bytes = 0;
  for (int64_t size : sorted) added_bytes += size;
  return {
      {"numRemovedFiles", std::to_string(removed_files)},
      {"numRemovedBytes", std::to_string(removed_bytes)},
      {"p25FileSize", std::to_string(at(count / 4))},
      {"numDeletionVectorsRemoved", std::to_string(deletion_vectors_removed)},
      {"minFileSize", std::to_string(at(0))},
      {"numAddedFiles", std::to_string(count)},
      {"maxFileSize", std::to_string(count == 0 ? 0 : sorted.back())},
      {"p75FileSize", std::to_string(at(count * 3 / 4))},
      {"p50FileSize", std::to_string(at(count / 2))},
      {"numAddedBytes", std::to_string(added_bytes)},
  };
}

}  // namespace

std::vector<std::string> StatsColumns(const Metadata& metadata) {
  Schema schema = ParseDeltaSchema(metadata.schema_string);
  std::vector<std::string> columns;
  if (const std::string* listed =
          FindValue(metadata.configuration, "delta.dataSkippingStatsColumns")) {
    // Comma-separated column names, possibly nested (`a.b`) and back-quoted.
    size_t start = 0;
    while (start <= listed->size()) {
      size_t end = listed->find(',', start);
      if (end == std::string::npos) end = listed->size();
      std::string name = listed->substr(start, end - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (!name.empty() && name[0] == '`') {
        size_t close = name.find('`', 1);
        name = name.substr(1, close == std::string::npos ? std::string::npos : close - 1);
      } else {
        name = name.substr(0, name.find('.'));
      }
      if (!name.empty() && !ContainsIgnoringCase(metadata.partition_columns, name) &&
          schema.FieldIndex(name, false) >= 0) {
        columns.push_back(schema.field(static_cast<size_t>(schema.FieldIndex(name, false))).name);
      }
      start = end + 1;
    }
    return columns;
  }
  int64_t indexed = NumIndexedColumns(metadata);
  int64_t leaf = 0;
  for (const Field& field : schema.fields()) {
    if (ContainsIgnoringCase(metadata.partition_columns, field.name)) continue;
    if (indexed < 0 || leaf < indexed) columns.push_back(field.name);
    leaf += CountLeaves(*field.type);
  }
  return columns;
}

OptimizeResult Optimize(std::shared_ptr<const Snapshot> snapshot, const OptimizeOptions& options) {
  SILT_CHECK(snapshot != nullptr, "OPTIMIZE without a snapshot");
  OptimizeResult result;
  OptimizeMetrics& metrics = result.metrics;
  metrics.start_time_ms = SystemNowMs();
  const Metadata& metadata = snapshot->metadata();
  const Schema& schema = snapshot->schema();
  bool zorder = !options.zorder_columns.empty();
  if (zorder) ValidateZOrderColumns(metadata, schema, options);
  bool clustering = !options.clustering_columns.empty() && !options.purge;
  std::string clustering_json = clustering ? ClusteringColumnsJson(options.clustering_columns) : "";

  std::unique_ptr<Transaction> txn = Transaction::Start(snapshot, options.enforced_features);
  std::vector<const AddFile*> considered;
  for (const AddFile& file : snapshot->files()) {
    if (!options.partition_filter || options.partition_filter(file)) considered.push_back(&file);
  }
  // Every file the predicate selected is read as far as conflicts go: a concurrent delete of any
  // of them makes the rewrite stale.
  txn->RecordReadPredicate(ReadPredicate{options.read_predicates});
  for (const AddFile* file : considered) txn->RecordReadFile(*file);

  std::vector<Bin> bins;
  if (clustering) {
    metrics.clustering = true;
    std::vector<const AddFile*> selected =
        SelectClusteringFiles(considered, options, clustering_json, metrics);
    bins = GroupIntoCubes(
        selected, std::max(options.clustering_target_cube_size, options.clustering_min_cube_size));
  } else {
    std::vector<const AddFile*> selected;
    for (const AddFile* file : considered) {
      bool chosen = options.purge ? file->deletion_vector.has_value() ||
                                        options.purge_paths.contains(file->path)
                                  : zorder || ShouldCompact(*file, options);
      if (chosen) selected.push_back(file);
    }
    bins = GroupIntoBins(selected, zorder, options.max_file_size, options.purge);
  }
  if (options.progress != nullptr) {
    int64_t files = 0;
    int64_t bytes = 0;
    for (const Bin& bin : bins) {
      files += static_cast<int64_t>(bin.files.size());
      for (const AddFile* file : bin.files) bytes += file->size;
    }
    options.progress->AddInputTotals(files, bytes);
  }

  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
  BinRewriter rewriter(snapshot, options);
  std::vector<std::vector<AddFile>> written(bins.size());
  pool.ParallelFor(bins.size(), [&](size_t i) {
    ThrowIfCanceled(options.commit.cancellation);
    written[i] = rewriter.Rewrite(bins[i]);
  });

  std::vector<int64_t> added_sizes;
  std::vector<int64_t> removed_sizes;
  std::set<std::string> partitions;
  for (size_t i = 0; i < bins.size(); ++i) {
    partitions.insert(bins[i].partition);
    for (const AddFile* file : bins[i].files) {
      removed_sizes.push_back(file->size);
      if (file->deletion_vector) {
        ++metrics.num_deletion_vectors_removed;
        metrics.num_deletion_vector_rows_removed += file->deletion_vector->cardinality;
      }
      txn->RemoveLiveFile(*file, /*data_change=*/false);
    }
    // Each new ZCube's files carry the clustering provider and the ZCube's id and columns.
    std::string cube_id = clustering ? RandomUuid() : "";
    for (AddFile& add : written[i]) {
      added_sizes.push_back(add.size);
      if (clustering) {
        add.clustering_provider = std::string(kLiquidClusteringProvider);
        StringMap tags = add.tags.value_or(StringMap{});
        tags.emplace_back(std::string(kZCubeIdTag), cube_id);
        tags.emplace_back(std::string(kZCubeZOrderByTag), clustering_json);
        add.tags = std::move(tags);
      }
      txn->Add(std::move(add));
    }
  }

  metrics.num_files_added = static_cast<int64_t>(added_sizes.size());
  metrics.num_files_removed = static_cast<int64_t>(removed_sizes.size());
  metrics.files_added = SizeMetrics(added_sizes);
  metrics.files_removed = SizeMetrics(removed_sizes);
  metrics.partitions_optimized = static_cast<int64_t>(partitions.size());
  metrics.num_bins = static_cast<int64_t>(bins.size());
  metrics.num_batches = static_cast<int64_t>(bins.size());
  metrics.total_considered_files = static_cast<int64_t>(considered.size());
  metrics.total_files_skipped = metrics.total_considered_files - metrics.num_files_removed;
  metrics.total_cluster_parallelism = static_cast<int64_t>(pool.num_threads());
  metrics.num_table_columns = static_cast<int64_t>(schema.num_fields());
  int64_t indexed = NumIndexedColumns(metadata);
  metrics.num_table_columns_with_stats =
      indexed < 0 ? metrics.num_table_columns : std::min(indexed, metrics.num_table_columns);
  if (clustering) metrics.clustering_output_cubes = static_cast<int64_t>(bins.size());
  if (zorder) {
    metrics.zorder = true;
    metrics.zorder_merged_files = metrics.num_files_removed;
    metrics.zorder_merged_bytes = metrics.files_removed.total_size;
    metrics.zorder_output_cubes = static_cast<int64_t>(bins.size());
  }
  result.operation_metrics =
      OperationMetrics(added_sizes, metrics.num_files_removed, metrics.files_removed.total_size,
                       metrics.num_deletion_vectors_removed);

  if (!bins.empty()) {
    std::vector<std::pair<std::string, std::string>> parameters = {
        {"predicate", JsonStringValue(JsonStringArray(options.predicate_sql))},
        {"zOrderBy", JsonStringValue(JsonStringArray(options.zorder_columns))},
        {"clusterBy", JsonStringValue(clustering ? clustering_json : "[]")},
        {"auto", "false"},
    };
    // Delta records FULL for clustered tables only.
    if (clustering) parameters.emplace_back("isFull", options.full ? "true" : "false");
    if (options.purge) {
      parameters = {{"predicate", JsonStringValue(JsonStringArray(options.predicate_sql))},
                    {"applyPurge", "true"}};
    }
    txn->SetOperation(options.purge ? "REORG" : "OPTIMIZE", std::move(parameters),
                      result.operation_metrics);
    result.commit = txn->Commit(options.commit);
  }
  metrics.end_time_ms = SystemNowMs();
  return result;
}

}  // namespace silt::log
