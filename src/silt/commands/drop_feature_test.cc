// ALTER TABLE ... DROP FEATURE of reader-writer features: the commits of Delta 4's flow with
// barrier checkpoints and checkpointProtection, the legacy TRUNCATE HISTORY flow once the history
// has aged, and Delta's protocol normalisation.

#include "silt/commands/drop_feature.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "silt/commands/dml_testing.h"
#include "silt/log/table_features.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;

class DropFeatureTest : public DmlTest {
 protected:
  std::string Operation(const std::string& table, int64_t version) const {
    auto infos = Of<log::CommitInfo>(Commit(table, version));
    return infos.empty() ? "<none>" : infos[0].operation.value_or("<none>");
  }

  bool CheckpointAt(const std::string& table, int64_t version) const {
    return std::filesystem::exists(Location(table) + "/_delta_log/" + log::FormatVersion(version) +
                                   ".checkpoint.parquet");
  }

  bool IsFeatureSupportedNow(const std::string& table, std::string_view feature) const {
    return log::IsFeatureSupported(Latest(table)->protocol(), feature);
  }

  // Moves every log file `days` into the past, as if the table's history had aged.
  void AgeLog(const std::string& table, int days) const {
    auto then = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * days);
    for (const auto& entry : std::filesystem::directory_iterator(Location(table) + "/_delta_log")) {
      if (entry.is_regular_file()) std::filesystem::last_write_time(entry.path(), then);
    }
  }
};

TEST_F(DropFeatureTest, DeletionVectorsGoBehindBarrierCheckpoints) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta "
      "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("DELETE FROM t WHERE id = 2");
  ASSERT_TRUE(Latest("t")->files()[0].deletion_vector.has_value());
  ASSERT_EQ(Latest("t")->version(), 2);

  Sql("ALTER TABLE t DROP FEATURE deletionVectors");

  // 3: the property unset; 4: the files purged; 5: a tombstone for the purged file's deletion
  // vector; 6-8: empty commits, each checkpointed; 9: the protocol downgrade, checkpointed.
  EXPECT_EQ(Operation("t", 3), "UNSET TBLPROPERTIES");
  EXPECT_EQ(Operation("t", 4), "REORG");
  EXPECT_EQ(Operation("t", 5), "Deletion Vector Tombstones");
  for (int64_t version : {6, 7, 8}) {
    EXPECT_EQ(Operation("t", version), "Empty Commit");
    EXPECT_TRUE(CheckpointAt("t", version)) << version;
  }
  EXPECT_EQ(Operation("t", 9), "DROP FEATURE");
  EXPECT_TRUE(CheckpointAt("t", 9));

  auto reorg = Commit("t", 4);
  ASSERT_EQ(Of<log::RemoveFile>(reorg).size(), 1u);
  EXPECT_TRUE(Of<log::RemoveFile>(reorg)[0].deletion_vector.has_value());
  ASSERT_EQ(Of<log::AddFile>(reorg).size(), 1u);
  EXPECT_FALSE(Of<log::AddFile>(reorg)[0].deletion_vector.has_value());
  EXPECT_FALSE(Of<log::AddFile>(reorg)[0].data_change);

  auto tombstones = Of<log::RemoveFile>(Commit("t", 5));
  ASSERT_EQ(tombstones.size(), 1u);
  EXPECT_TRUE(tombstones[0].path.find("deletion_vector_") != std::string::npos)
      << tombstones[0].path;
  EXPECT_FALSE(tombstones[0].data_change);

  auto snapshot = Latest("t");
  EXPECT_EQ(snapshot->protocol(),
            (log::Protocol{
                1, 7, std::nullopt,
                std::vector<std::string>{"appendOnly", "checkpointProtection", "invariants"}}));
  ASSERT_NE(snapshot->Property("delta.requireCheckpointProtectionBeforeVersion"), nullptr);
  EXPECT_EQ(*snapshot->Property("delta.requireCheckpointProtectionBeforeVersion"), "9");
  EXPECT_EQ(snapshot->Property("delta.enableDeletionVectors"), nullptr);
  for (const log::AddFile& file : snapshot->files()) EXPECT_FALSE(file.deletion_vector.has_value());
  auto params = Of<log::CommitInfo>(Commit("t", 9))[0];
  EXPECT_EQ(Parameter(params, "featureName"), "\"deletionVectors\"");
  EXPECT_EQ(Parameter(params, "truncateHistory"), "\"false\"");

  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("1,a", "3,c"));
  // The table stays writable under checkpointProtection, and deletes rewrite files again.
  Sql("INSERT INTO t VALUES (4, 'd')");
  Sql("DELETE FROM t WHERE id = 1");
  for (const log::AddFile& file : Latest("t")->files())
    EXPECT_FALSE(file.deletion_vector.has_value());
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("3", "4"));
}

TEST_F(DropFeatureTest, TruncateHistoryWaitsForTheHistoryToAge) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
  Sql("INSERT INTO t VALUES (1), (2), (3)");
  Sql("DELETE FROM t WHERE id = 1");

  // The first run removes the traces and asks to wait; the second finds them in the history.
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t DROP FEATURE deletionVectors TRUNCATE HISTORY"),
            "DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t DROP FEATURE deletionVectors TRUNCATE HISTORY"),
            "DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST");
  EXPECT_TRUE(IsFeatureSupportedNow("t", "deletionVectors"));

  // Once the history is older than delta.dropFeatureTruncateHistory.retentionDuration (24 hours)
  // it goes, and the protocol drops the feature without checkpointProtection.
  AgeLog("t", 2);
  int64_t before = Latest("t")->version();
  Sql("ALTER TABLE t DROP FEATURE deletionVectors TRUNCATE HISTORY");
  auto snapshot = Latest("t");
  EXPECT_EQ(snapshot->protocol(), (log::Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(snapshot->Property("delta.requireCheckpointProtectionBeforeVersion"), nullptr);
  EXPECT_GT(log::EarliestReconstructableVersion(*fs_, Location("t")), 0);
  EXPECT_EQ(snapshot->version(), before + 2);  // an empty commit, then the downgrade
  auto params = Of<log::CommitInfo>(Commit("t"))[0];
  EXPECT_EQ(Parameter(params, "truncateHistory"), "\"true\"");
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("2", "3"));
}

TEST_F(DropFeatureTest, CheckpointProtectionGoesOnlyWithTheHistoryBeforeIt) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES ('delta.enableTypeWidening' = 'true')");
  Sql("INSERT INTO t VALUES (1)");
  Sql("ALTER TABLE t DROP FEATURE typeWidening");
  ASSERT_TRUE(IsFeatureSupportedNow("t", "checkpointProtection"));

  EXPECT_EQ(ErrorClassOf("ALTER TABLE t DROP FEATURE checkpointProtection"),
            "DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t DROP FEATURE checkpointProtection TRUNCATE HISTORY"),
            "DELTA_FEATURE_DROP_CHECKPOINT_PROTECTION_WAIT_FOR_RETENTION_PERIOD");

  AgeLog("t", 2);
  Sql("ALTER TABLE t DROP FEATURE checkpointProtection TRUNCATE HISTORY");
  auto snapshot = Latest("t");
  EXPECT_EQ(snapshot->protocol(), (log::Protocol{1, 2, std::nullopt, std::nullopt}));
  EXPECT_EQ(snapshot->Property("delta.requireCheckpointProtectionBeforeVersion"), nullptr);
  EXPECT_THAT(Query("SELECT id FROM t"), ElementsAre("1"));
}

TEST_F(DropFeatureTest, ProtocolsNormaliseAsDeltaDoes) {
  using internal::DenormalizedProtocol;
  using internal::NormalizedProtocol;
  using Names = std::vector<std::string>;
  // (1, 7, AppendOnly, Invariants, CheckConstraints) -> (1, 3).
  EXPECT_EQ(NormalizedProtocol(
                {1, 7, std::nullopt, Names{"appendOnly", "checkConstraints", "invariants"}}),
            (log::Protocol{1, 3, std::nullopt, std::nullopt}));
  // (3, 7, RowTracking) -> (1, 7, RowTracking).
  EXPECT_EQ(NormalizedProtocol({3, 7, Names{}, Names{"rowTracking"}}),
            (log::Protocol{1, 7, std::nullopt, Names{"rowTracking"}}));
  // Column mapping alone with writer version 5's features is (2, 5).
  EXPECT_EQ(NormalizedProtocol(DenormalizedProtocol({2, 5, std::nullopt, std::nullopt})),
            (log::Protocol{2, 5, std::nullopt, std::nullopt}));
  // (2, 5) lists what it implies, with reader version 2 and no reader features.
  EXPECT_EQ(DenormalizedProtocol({2, 5, std::nullopt, std::nullopt}),
            (log::Protocol{2, 7, std::nullopt,
                           Names{"appendOnly", "changeDataFeed", "checkConstraints",
                                 "columnMapping", "generatedColumns", "invariants"}}));
  // Deletion vectors keep reader version 3 with their reader feature.
  EXPECT_EQ(
      NormalizedProtocol({3, 7, Names{"deletionVectors"}, Names{"appendOnly", "deletionVectors"}}),
      (log::Protocol{3, 7, Names{"deletionVectors"}, Names{"appendOnly", "deletionVectors"}}));
  EXPECT_EQ(NormalizedProtocol({3, 7, Names{}, Names{}}),
            (log::Protocol{1, 1, std::nullopt, std::nullopt}));
}

}  // namespace
}  // namespace silt::commands
