#pragma once

// A small synthetic Delta table the streaming and change-feed benchmarks share: (id, name,
// amount) rows, committed one data file per version through the log layer, so that setting up
// thousands of commits costs little next to what is timed.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_columns.h"
#include "silt/io/file_system.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/transaction.h"
#include "silt/types/schema_json.h"
#include "silt/vector/batch.h"

namespace silt::bench {

inline double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

inline SchemaPtr IdNameAmountSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), true, {}},
      {"name", StringType(), true, {}},
      {"amount", LongType(), true, {}},
  });
}

// Rows `start` .. `start + count - 1`: the id, ten hex digits derived from it, an amount below
// 100,000.
inline Batch IdNameAmountRows(const SchemaPtr& schema, int64_t start, int64_t count) {
  std::vector<VectorPtr> columns;
  columns.push_back(LongVector(count, [&](int64_t i) { return start + i; }));
  columns.push_back(StringVector(count, [&](int64_t i, char* scratch) {
    static const char kDigits[] = "0123456789abcdef";
    uint64_t hash = Hash(static_cast<uint64_t>(start + i));
    for (int d = 0; d < 10; ++d) scratch[d] = kDigits[(hash >> (4 * d)) & 15];
    return std::string_view(scratch, 10);
  }));
  columns.push_back(LongVector(count, [&](int64_t i) {
    return static_cast<int64_t>(Hash(static_cast<uint64_t>(start + i) ^ 0xA11) % 100000);
  }));
  return Batch(schema, std::move(columns), count);
}

// Creates the Delta table `root` (version 0, table id `id`, with the change data feed on when
// `change_data_feed`) and appends `commits` versions of one data file of `rows_per_commit` rows
// each. Returns the data file paths by version (index v - 1 for version v).
inline std::vector<std::string> WriteIdNameAmountTable(const std::shared_ptr<io::FileSystem>& fs,
                                                       const std::string& root,
                                                       const std::string& id, int64_t commits,
                                                       int64_t rows_per_commit,
                                                       bool change_data_feed = false) {
  SchemaPtr schema = IdNameAmountSchema();
  std::vector<std::string> features;
  if (change_data_feed) features.push_back("changeDataFeed");
  auto create = log::Transaction::StartCreate(fs, root, features);
  log::Metadata metadata;
  metadata.id = id;
  metadata.schema_string = ToDeltaSchemaJson(*schema);
  if (change_data_feed) metadata.configuration = {{"delta.enableChangeDataFeed", "true"}};
  create->UpdateMetadata(metadata);
  create->Commit();
  std::vector<std::string> files;
  for (int64_t version = 1; version <= commits; ++version) {
    auto transaction = log::Transaction::StartLatest(fs, root, features);
    log::DataFileWriterOptions options;
    options.parquet.codec = parquet::CompressionCodec::kSnappy;
    auto writer = log::DataFileWriter::Make(fs, root, transaction->metadata(), options);
    writer->Write(IdNameAmountRows(schema, (version - 1) * rows_per_commit, rows_per_commit));
    for (log::AddFile& add : writer->Finish()) {
      files.push_back(root + "/" + add.path);
      transaction->Add(std::move(add));
    }
    transaction->Commit();
  }
  return files;
}

}  // namespace silt::bench
