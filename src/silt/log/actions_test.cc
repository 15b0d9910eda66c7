#include "silt/log/actions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

template <typename T>
const T& As(const Action& action) {
  return std::get<T>(action);
}

TEST(ActionsTest, ParsesSparkCommit) {
  std::string commit =
      R"({"commitInfo":{"timestamp":1697064953062,"operation":"WRITE","operationParameters":{"mode":"Append","partitionBy":"[]"},"readVersion":3,"isolationLevel":"Serializable","isBlindAppend":true,"operationMetrics":{"numFiles":"1"},"engineInfo":"Apache-Spark/3.5.0 Delta-Lake/3.0.0","txnId":"fc23"}})"
      "\n"
      R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors","appendOnly"]}})"
      "\n"
      R"({"metaData":{"id":"testId","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":["p"],"configuration":{"delta.enableDeletionVectors":"true"},"createdTime":1}})"
      "\n"
      R"({"add":{"path":"p=a%20b/part-0.parquet","partitionValues":{"p":"a b","q":null},"size":10,"modificationTime":5,"dataChange":true,"stats":"{\"numRecords\":3}","tags":{"INSERTION_TIME":"1"},"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":34,"cardinality":2}}})"
      "\n\n";
  auto actions = ParseActions(commit, "00.json");
  ASSERT_EQ(actions.size(), 4u);
  const auto& info = As<CommitInfo>(actions[0]);
  EXPECT_EQ(info.timestamp, 1697064953062);
  EXPECT_EQ(info.operation, "WRITE");
  EXPECT_EQ(info.read_version, 3);
  EXPECT_EQ(info.is_blind_append, true);
  EXPECT_EQ(info.txn_id, "fc23");
  EXPECT_THAT(info.operation_parameters,
              ElementsAre(Pair("mode", "\"Append\""), Pair("partitionBy", "\"[]\"")));
  EXPECT_THAT(info.operation_metrics, ElementsAre(Pair("numFiles", "1")));

  const auto& protocol = As<Protocol>(actions[1]);
  EXPECT_EQ(protocol.min_reader_version, 3);
  EXPECT_THAT(*protocol.writer_features, ElementsAre("deletionVectors", "appendOnly"));

  const auto& metadata = As<Metadata>(actions[2]);
  EXPECT_EQ(metadata.id, "testId");
  EXPECT_THAT(metadata.partition_columns, ElementsAre("p"));
  EXPECT_EQ(*FindValue(metadata.configuration, "delta.enableDeletionVectors"), "true");
  EXPECT_EQ(metadata.created_time, 1);

  const auto& add = As<AddFile>(actions[3]);
  EXPECT_EQ(add.path, "p=a%20b/part-0.parquet");
  EXPECT_EQ(DecodeLogPath(add.path), "p=a b/part-0.parquet");
  ASSERT_EQ(add.partition_values.size(), 2u);
  EXPECT_EQ(add.partition_values[0].second, "a b");
  EXPECT_EQ(add.partition_values[1].second, std::nullopt);
  EXPECT_EQ(add.stats, "{\"numRecords\":3}");
  ASSERT_TRUE(add.deletion_vector.has_value());
  EXPECT_EQ(add.deletion_vector->UniqueId(), "uab^-aqEH.-t@S}K{vb[*k^@1");
  EXPECT_EQ(add.deletion_vector->cardinality, 2);
}

TEST(ActionsTest, IgnoresUnknownActionsAndFields) {
  auto actions = ParseActions(
      R"({"someFutureAction":{"x":1}})"
      "\n"
      R"({"txn":{"appId":"app","version":7,"lastUpdated":9,"extra":[1,2]}})",
      "f");
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(As<SetTransaction>(actions[0]).app_id, "app");
  EXPECT_EQ(As<SetTransaction>(actions[0]).version, 7);
}

TEST(ActionsTest, ToleratesNonStringOperationParameters) {
  auto actions = ParseActions(
      R"({"commitInfo":{"operation":"OPTIMIZE","operationParameters":{"predicate":["a"],"zOrderBy":["id"],"auto":false,"clusterBy":null,"n":3}}})",
      "f");
  const auto& info = As<CommitInfo>(actions[0]);
  EXPECT_THAT(info.operation_parameters,
              ElementsAre(Pair("predicate", "[\"a\"]"), Pair("zOrderBy", "[\"id\"]"),
                          Pair("auto", "false"), Pair("clusterBy", "null"), Pair("n", "3")));
}

TEST(ActionsTest, ExplicitNullDeletionVectorOffset) {
  auto actions = ParseActions(
      R"({"remove":{"path":"a","dataChange":true,"deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L","offset":null,"sizeInBytes":40,"cardinality":6}}})",
      "f");
  const auto& remove = As<RemoveFile>(actions[0]);
  ASSERT_TRUE(remove.deletion_vector.has_value());
  EXPECT_FALSE(remove.deletion_vector->offset.has_value());
  EXPECT_EQ(remove.deletion_vector->storage_type, 'i');
}

TEST(ActionsTest, MalformedInputIsCorruption) {
  EXPECT_EQ(ErrorClassOf([] { ParseActions("{\"add\":{\"path\":", "f"); }),
            "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] { ParseActions("[1,2]", "f"); }), "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] { ParseActions(R"({"add":{"size":1}})", "f"); }),
            "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] { ParseActions(R"({"add":{"path":"a","size":"big"}})", "f"); }),
            "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] { ParseActions(R"({"protocol":5})", "f"); }),
            "DELTA_INVALID_LOG_ENTRY");
  // Without partitionColumns a partitioned table would read NULL partition values.
  EXPECT_EQ(ErrorClassOf([] {
              ParseActions(R"({"metaData":{"id":"x","schemaString":"{}","configuration":{}}})", "f");
            }),
            "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] {
              ParseActions(R"({"add":{"path":"a","size":1,"deletionVector":{"storageType":"x","pathOrInlineDv":"","sizeInBytes":1,"cardinality":1}}})",
                           "f");
            }),
            "DELTA_INVALID_LOG_ENTRY");
  try {
    ParseActions("{\"add\":{\"path\":", "_delta_log/00000000000000000007.json");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::kCorruption);
    EXPECT_NE(error.message().find("00000000000000000007.json"), std::string::npos);
  }
}

TEST(ActionsTest, SerializesInSparkOrderAndRoundTrips) {
  AddFile add;
  add.path = "p=1/f.parquet";
  add.partition_values = {{"p", "1"}, {"q", std::nullopt}};
  add.size = 100;
  add.modification_time = 7;
  add.data_change = true;
  add.stats = "{\"numRecords\":1}";
  EXPECT_EQ(SerializeAction(add),
            R"({"add":{"path":"p=1/f.parquet","partitionValues":{"p":"1","q":null},"size":100,"modificationTime":7,"dataChange":true,"stats":"{\"numRecords\":1}"}})");

  Protocol protocol{3, 7, std::vector<std::string>{"deletionVectors"},
                    std::vector<std::string>{"deletionVectors"}};
  Metadata metadata;
  metadata.id = "id-1";
  metadata.schema_string = R"({"type":"struct","fields":[]})";
  metadata.configuration = {{"k", "v\"q"}};
  RemoveFile remove;
  remove.path = "a b";
  remove.deletion_timestamp = 5;
  remove.extended_file_metadata = true;
  remove.partition_values = PartitionValueMap{};
  remove.size = 3;
  remove.deletion_vector = DeletionVectorDescriptor{'u', "abc", 1, 10, 2, std::nullopt};
  SetTransaction txn{"app", 3, 4};
  DomainMetadata domain{"delta.rowTracking", "{\"rowIdHighWaterMark\":4}", false};
  AddCdcFile cdc{"_change_data/c.parquet", {}, 9, false, std::nullopt};
  CheckpointMetadata checkpoint_metadata{4, StringMap{{"t", "1"}}};
  Sidecar sidecar{"s.parquet", 10, 11, std::nullopt};
  std::vector<Action> actions = {add, protocol, metadata, remove, txn, domain, cdc,
                                 checkpoint_metadata, sidecar};
  std::string text = SerializeActions(actions);
  auto parsed = ParseActions(text, "roundtrip");
  ASSERT_EQ(parsed.size(), actions.size());
  for (size_t i = 0; i < actions.size(); ++i) {
    EXPECT_EQ(parsed[i], actions[i]) << SerializeAction(actions[i]);
  }
  EXPECT_EQ(SerializeAction(metadata),
            R"({"metaData":{"id":"id-1","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[],"configuration":{"k":"v\"q"}}})");
}

TEST(ActionsTest, CommitInfoKeepsRawJson) {
  auto actions = ParseActions(R"({"commitInfo":{"timestamp":1,"custom":{"a":[1,2]}}})", "f");
  EXPECT_EQ(SerializeAction(actions[0]), R"({"commitInfo":{"timestamp":1,"custom":{"a":[1,2]}}})");
}

TEST(ActionsTest, LogPathCoding) {
  EXPECT_EQ(DecodeLogPath("_2=bar+%252521/part-0.parquet"), "_2=bar+%2521/part-0.parquet");
  EXPECT_EQ(DecodeLogPath("a%F0%9F%98%80"), "a\xF0\x9F\x98\x80");
  EXPECT_EQ(EncodeLogPath("ts=2024-01-01 10%3A00/f"), "ts=2024-01-01%2010%253A00/f");
  EXPECT_EQ(DecodeLogPath(EncodeLogPath("x y%z#")), "x y%z#");
  EXPECT_EQ(ErrorClassOf([] { DecodeLogPath("bad%2"); }), "DELTA_INVALID_LOG_ENTRY");
  EXPECT_EQ(ErrorClassOf([] { DecodeLogPath("bad%zz"); }), "DELTA_INVALID_LOG_ENTRY");
}

}  // namespace
}  // namespace silt::log
