// Mutated logs, DV bitmaps and Z85 text must fail with a silt::Error, never crash or throw
// anything else (a small deterministic fuzz loop; libFuzzer targets can reuse the same entry
// points).

#include <gtest/gtest.h>

#include <random>

#include "silt/error.h"
#include "silt/log/actions.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"

namespace silt::log {
namespace {

constexpr char kCommit[] =
    R"({"commitInfo":{"timestamp":1,"operation":"WRITE","operationParameters":{"mode":"Append"}}})"
    "\n"
    R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}})"
    "\n"
    R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[],"configuration":{}}})"
    "\n"
    R"({"add":{"path":"a%20b","partitionValues":{"p":null},"size":1,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":1,\"minValues\":{\"a\":1}}","deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L","sizeInBytes":40,"cardinality":6}}})"
    "\n"
    R"({"remove":{"path":"c","deletionTimestamp":5,"dataChange":true}})"
    "\n"
    R"({"txn":{"appId":"a","version":1}})"
    "\n";

std::string Mutate(std::string text, std::mt19937& random) {
  std::uniform_int_distribution<int> kind(0, 3);
  int edits = 1 + static_cast<int>(random() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t position = random() % text.size();
    switch (kind(random)) {
      case 0: text[position] = static_cast<char>(random() % 256); break;
      case 1: text.erase(position, 1 + random() % 8); break;
      case 2: text.insert(position, 1, "{}[]\",:0n-\\"[random() % 11]); break;
      default: text.resize(position); break;
    }
  }
  return text;
}

TEST(LogRobustnessTest, MutatedCommitsFailCleanly) {
  std::mt19937 random(20261129);
  int errors = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = Mutate(kCommit, random);
    auto fs = io::MakeMemoryFileSystem();
    fs->WriteFile("t/_delta_log/" + FormatVersion(0) + ".json", text);
    try {
      auto actions = ParseActions(text, "f");
      for (const auto& action : actions) SerializeAction(action);
      auto snapshot = Snapshot::Load(fs, "t");
      for (const auto& add : snapshot->files()) {
        if (add.stats) FileStats::Parse(*add.stats, add.path);
        if (add.deletion_vector) LoadDeletionVector(*fs, "t", *add.deletion_vector);
      }
    } catch (const Error&) {
      ++errors;
    }
  }
  // Most mutations break something; all of them must have surfaced as silt::Error.
  EXPECT_GT(errors, 100);
}

TEST(LogRobustnessTest, RandomBitmapsAndZ85FailCleanly) {
  std::mt19937 random(7);
  std::string valid = DeletedRows::FromIndexes({1, 2, 70000, (1ull << 32) + 5}).Serialize();
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = Mutate(valid, random);
    try {
      DeletedRows::Deserialize(bytes, "fuzz");
    } catch (const Error&) {
    }
    std::string z85 = Mutate("HelloWorld##093", random);
    try {
      Z85Decode(z85);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace silt::log
