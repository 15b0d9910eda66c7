#include "silt/log/table_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/error_class.h"
#include "silt/error.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Error CaptureError(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "expected an error";
  return MakeError(ErrorClass::INTERNAL_ERROR, {{"message", "none"}});
}

TEST(TableFeaturesTest, LegacyWriterVersionsImplyFeatures) {
  Protocol protocol{1, 2, std::nullopt, std::nullopt};
  EXPECT_THAT(EffectiveWriterFeatures(protocol), ElementsAre("appendOnly", "invariants"));
  protocol.min_writer_version = 4;
  EXPECT_THAT(EffectiveWriterFeatures(protocol),
              ElementsAre("appendOnly", "invariants", "checkConstraints", "changeDataFeed",
                          "generatedColumns"));
  protocol = {2, 6, std::nullopt, std::nullopt};
  EXPECT_THAT(EffectiveReaderFeatures(protocol), ElementsAre("columnMapping"));
  EXPECT_TRUE(IsFeatureSupported(protocol, "identityColumns"));
  EXPECT_FALSE(IsFeatureSupported(protocol, "deletionVectors"));
  protocol = {3, 7, std::vector<std::string>{"deletionVectors"},
              std::vector<std::string>{"deletionVectors", "appendOnly"}};
  EXPECT_TRUE(IsFeatureSupported(protocol, "deletionVectors"));
  EXPECT_FALSE(IsFeatureSupported(protocol, "invariants"));
}

TEST(TableFeaturesTest, ReadCheckAcceptsKnownFeatures) {
  CheckReadSupported({1, 2, std::nullopt, std::nullopt}, "t");
  CheckReadSupported({2, 5, std::nullopt, std::nullopt}, "t");
  CheckReadSupported({3, 7, std::vector<std::string>{"vacuumProtocolCheck", "columnMapping",
                                                     "deletionVectors", "timestampNtz",
                                                     "v2Checkpoint", "typeWidening"},
                      std::vector<std::string>{"appendOnly", "invariants", "vacuumProtocolCheck",
                                               "domainMetadata", "rowTracking"}},
                     "t");
}

TEST(TableFeaturesTest, ReadCheckRefusesUnknownReaderFeature) {
  Error error = CaptureError([] {
    CheckReadSupported({3, 7, std::vector<std::string>{"deletionVectors", "blahabl"},
                        std::vector<std::string>{"deletionVectors", "blahabl"}},
                       "tbl");
  });
  EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_READ");
  EXPECT_EQ(error.category(), ErrorCategory::kUnsupported);
  EXPECT_THAT(error.message(), HasSubstr("blahabl"));
  EXPECT_THAT(error.message(), ::testing::Not(HasSubstr("deletionVectors")));
  // An unknown writer-only feature does not stop readers.
  CheckReadSupported({1, 7, std::nullopt, std::vector<std::string>{"someFutureWriterThing"}}, "t");
  EXPECT_EQ(CaptureError([] {
              CheckReadSupported({3, 7, std::vector<std::string>{"variantType"},
                                  std::vector<std::string>{"variantType"}},
                                 "t");
            }).error_class(),
            "DELTA_UNSUPPORTED_FEATURES_FOR_READ");
}

TEST(TableFeaturesTest, ReadCheckRefusesFutureProtocolVersion) {
  Error error = CaptureError(
      [] { CheckReadSupported({99, 7, std::vector<std::string>{}, std::vector<std::string>{}}, "t"); });
  EXPECT_EQ(error.error_class(), "DELTA_INVALID_PROTOCOL_VERSION");
  EXPECT_THAT(error.message(), HasSubstr("reader version 99"));
}

TEST(TableFeaturesTest, WriteCheckRefusesActiveUnimplementedFeatures) {
  Metadata plain;
  plain.schema_string = R"({"type":"struct","fields":[]})";
  // (1, 2) implies appendOnly and invariants; neither blocks a plain table.
  CheckWriteSupported({1, 2, std::nullopt, std::nullopt}, plain, "t");
  Metadata with_invariant = plain;
  with_invariant.schema_string =
      R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{"delta.invariants":"{\"expression\":{\"expression\":\"a > 3\"}}"}}]})";
  Error error = CaptureError(
      [&] { CheckWriteSupported({1, 2, std::nullopt, std::nullopt}, with_invariant, "t"); });
  EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  EXPECT_THAT(error.message(), HasSubstr("invariants"));

  Metadata cdf = plain;
  cdf.configuration = {{"delta.enableChangeDataFeed", "true"}};
  EXPECT_EQ(CaptureError([&] { CheckWriteSupported({1, 4, std::nullopt, std::nullopt}, cdf, "t"); })
                .error_class(),
            "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  CheckWriteSupported({1, 4, std::nullopt, std::nullopt}, plain, "t");

  error = CaptureError([&] {
    CheckWriteSupported({1, 7, std::nullopt, std::vector<std::string>{"appendOnly", "unknownThing"}},
                        plain, "t");
  });
  EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  EXPECT_THAT(error.message(), HasSubstr("unknownThing"));
  EXPECT_EQ(CaptureError([&] {
              CheckWriteSupported({1, 7, std::nullopt, std::vector<std::string>{"icebergCompatV2", "columnMapping"}},
                                  plain, "t");
            }).error_class(),
            "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE");
  CheckWriteSupported({3, 7, std::vector<std::string>{"deletionVectors"},
                       std::vector<std::string>{"deletionVectors", "domainMetadata"}},
                      plain, "t");
  EXPECT_EQ(CaptureError([&] { CheckWriteSupported({1, 8, std::nullopt, std::nullopt}, plain, "t"); })
                .error_class(),
            "DELTA_INVALID_PROTOCOL_VERSION");
}

TEST(TableFeaturesTest, ColumnMappingMode) {
  Metadata metadata;
  EXPECT_EQ(GetColumnMappingMode(metadata), ColumnMappingMode::kNone);
  metadata.configuration = {{"delta.columnMapping.mode", "name"}};
  EXPECT_EQ(GetColumnMappingMode(metadata), ColumnMappingMode::kName);
  metadata.configuration = {{"delta.columnMapping.mode", "id"}};
  EXPECT_EQ(GetColumnMappingMode(metadata), ColumnMappingMode::kId);
  metadata.configuration = {{"delta.columnMapping.mode", "Name"}};
  EXPECT_EQ(GetColumnMappingMode(metadata), ColumnMappingMode::kName);
  metadata.configuration = {{"delta.columnMapping.mode", "weird"}};
  EXPECT_EQ(CaptureError([&] { GetColumnMappingMode(metadata); }).error_class(),
            "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE");
}

}  // namespace
}  // namespace silt::log
