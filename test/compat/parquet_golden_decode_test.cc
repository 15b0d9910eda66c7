// Every Parquet file of the golden tables (data files, _change_data, checkpoints and expected
// results) decodes with silt's reader to the footer's row count; a sample is compared value by
// value with DuckDB's reading of the same file.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compat/parquet_canonical_text.h"
#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"
#include "support/duckdb_peer.h"

namespace silt::parquet {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> GoldenParquetFiles() {
  auto fs = io::MakeLocalFileSystem();
  std::vector<std::string> paths;
  for (const io::FileInfo& file : fs->List(test::TestDataDir() + "/golden", "", true)) {
    if (!file.is_directory && EndsWith(file.path, ".parquet")) paths.push_back(file.path);
  }
  return paths;
}

TEST(ParquetGoldenDecodeTest, EveryGoldenFileDecodesToItsRowCount) {
  std::vector<std::string> paths = GoldenParquetFiles();
  ASSERT_GT(paths.size(), 100u);
  auto fs = io::MakeLocalFileSystem();
  size_t failures = 0;
  for (const std::string& path : paths) {
    try {
      auto reader = FileReader::Open(*fs, path);
      int64_t rows = 0;
      for (const Batch& batch : reader->Read()) rows += batch.num_rows();
      EXPECT_EQ(rows, reader->num_rows()) << path;
    } catch (const Error& error) {
      if (++failures <= 20) ADD_FAILURE() << path << ": " << error.what();
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(ParquetGoldenDecodeTest, SampledGoldenFilesMatchDuckDb) {
  std::vector<std::string> paths = GoldenParquetFiles();
  auto fs = io::MakeLocalFileSystem();
  // Every seventh file: a spread over writers and features that keeps the peer runs short.
  size_t compared = 0;
  for (size_t i = 0; i < paths.size(); i += 7) {
    const std::string& path = paths[i];
    SCOPED_TRACE(path);
    std::unique_ptr<FileReader> reader;
    std::vector<Batch> batches;
    try {
      reader = FileReader::Open(*fs, path);
      batches = reader->Read();
    } catch (const Error& error) {
      ADD_FAILURE() << error.what();
      continue;
    }
    std::vector<std::string> theirs;
    try {
      theirs = test::PeerCanonicalRows({path}, reader->schema());
    } catch (const std::exception& error) {
      // A file DuckDB cannot read (or a type it maps differently) is not a silt failure.
      std::cerr << "skipped (peer): " << path << ": " << std::string(error.what()).substr(0, 200)
                << "\n";
      continue;
    }
    std::vector<std::string> ours = test::CanonicalRows(batches);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t r = 0; r < ours.size(); ++r) {
      ASSERT_EQ(ours[r], theirs[r]) << "row " << r;
    }
    ++compared;
  }
  EXPECT_GT(compared, 50u);
}

}  // namespace
}  // namespace silt::parquet
