#include "silt/io/fault_injecting_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/base/error_class.h"
#include "silt/error.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"

namespace silt::io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

enum class InnerBackend { kMemory, kLocal };

// Runs `action`, expects a FAULT_INJECTED error and returns its message ("" when none was thrown).
std::string ExpectFault(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "FAULT_INJECTED") << error.what();
    EXPECT_EQ(error.category(), ErrorCategory::kIo);
    return error.message();
  }
  ADD_FAILURE() << "expected FAULT_INJECTED, nothing was thrown";
  return "";
}

class FaultInjectingFileSystemTest : public ::testing::TestWithParam<InnerBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == InnerBackend::kLocal) {
      folder_.emplace();
      root_ = folder_->path();
      inner_ = MakeLocalFileSystem();
    } else {
      root_ = "/memory-root";
      inner_ = MakeMemoryFileSystem();
    }
    file_system_ = FaultInjectingFileSystem::Make(inner_);
  }

  std::string At(std::string_view name) const { return JoinPath(root_, name); }

  bool Exists(std::string_view name) const { return inner_->Stat(At(name)).has_value(); }
  std::string Content(std::string_view name) const { return inner_->ReadFile(At(name)); }

  std::optional<TestingTemporaryFolder> folder_;
  std::string root_;
  std::shared_ptr<FileSystem> inner_;
  std::shared_ptr<FaultInjectingFileSystem> file_system_;
};

TEST_P(FaultInjectingFileSystemTest, CountsCallsPerOperation) {
  file_system_->WriteFile(At("a"), "abc");
  EXPECT_EQ(file_system_->CallCount(FileOperation::kOpenWrite), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kWrite), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kSync), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kClose), 1u);

  EXPECT_EQ(file_system_->ReadFile(At("a")), "abc");
  EXPECT_EQ(file_system_->CallCount(FileOperation::kOpenRead), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kRead), 1u);

  file_system_->Stat(At("a"));
  file_system_->Stat(At("b"));
  file_system_->List(root_);
  file_system_->PutIfAbsent(At("b"), "b");
  file_system_->SetModificationTime(At("b"), 1000);
  file_system_->Rename(At("b"), At("c"));
  file_system_->Delete(At("c"));
  EXPECT_EQ(file_system_->CallCount(FileOperation::kStat), 2u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kList), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kPutIfAbsent), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kSetModificationTime), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kRename), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kDelete), 1u);
  EXPECT_EQ(file_system_->TotalCallCount(), 13u);
  EXPECT_EQ(file_system_->InjectedFaultCount(), 0u);

  file_system_->ResetCallCounts();
  EXPECT_EQ(file_system_->TotalCallCount(), 0u);
}

TEST_P(FaultInjectingFileSystemTest, FailNthCallFailsBeforeTheCallHasAnyEffect) {
  file_system_->FailNthCall(FileOperation::kPutIfAbsent, 2);
  EXPECT_EQ(file_system_->PutIfAbsent(At("log/0"), "zero"), PutOutcome::kCreated);
  std::string message = ExpectFault([&] { file_system_->PutIfAbsent(At("log/1"), "one"); });
  EXPECT_THAT(message, HasSubstr("PutIfAbsent"));
  EXPECT_THAT(message, HasSubstr(At("log/1")));
  EXPECT_FALSE(Exists("log/1"));
  EXPECT_EQ(file_system_->InjectedFaultCount(), 1u);
  EXPECT_EQ(file_system_->CallCount(FileOperation::kPutIfAbsent), 2u);  // Failed calls count.
  // The fault was single-shot: a retry succeeds.
  EXPECT_EQ(file_system_->PutIfAbsent(At("log/1"), "one"), PutOutcome::kCreated);
  EXPECT_EQ(Content("log/1"), "one");
}

TEST_P(FaultInjectingFileSystemTest, FailedWriteLeavesOnlyTheOtherWrites) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
  file_system_->FailNthCall(FileOperation::kWrite, 2);
  stream->Write("one,");
  ExpectFault([&] { stream->Write("two,"); });
  stream->Write("three");
  EXPECT_EQ(stream->position(), 9u);
  stream->Close();
  EXPECT_EQ(Content("file"), "one,three");
}

TEST_P(FaultInjectingFileSystemTest, FailedDeleteRenameAndOpenWriteChangeNothing) {
  inner_->WriteFile(At("keep"), "original");
  file_system_->FailNthCall(FileOperation::kDelete, 1);
  file_system_->FailNthCall(FileOperation::kRename, 1);
  file_system_->FailNthCall(FileOperation::kOpenWrite, 1);
  file_system_->FailNthCall(FileOperation::kSetModificationTime, 1);
  ExpectFault([&] { file_system_->Delete(At("keep")); });
  ExpectFault([&] { file_system_->Rename(At("keep"), At("moved")); });
  ExpectFault([&] { file_system_->OpenWrite(At("keep")); });
  ExpectFault([&] { file_system_->SetModificationTime(At("keep"), 5); });
  EXPECT_EQ(Content("keep"), "original");
  EXPECT_FALSE(Exists("moved"));
  EXPECT_NE(inner_->Stat(At("keep"))->modification_time_ms, 5);
  EXPECT_EQ(file_system_->InjectedFaultCount(), 4u);
}

TEST_P(FaultInjectingFileSystemTest, FailedReadsAndListingsThrow) {
  inner_->WriteFile(At("data"), "payload");
  file_system_->FailNthCall(FileOperation::kRead, 1);
  ExpectFault([&] { file_system_->ReadFile(At("data")); });
  file_system_->FailNthCall(FileOperation::kOpenRead, 1);
  ExpectFault([&] { file_system_->OpenRead(At("data")); });
  file_system_->FailNthCall(FileOperation::kList, 1);
  ExpectFault([&] { file_system_->List(root_); });
  file_system_->FailNthCall(FileOperation::kStat, 1);
  ExpectFault([&] { file_system_->Stat(At("data")); });
  EXPECT_EQ(file_system_->ReadFile(At("data")), "payload");
}

TEST_P(FaultInjectingFileSystemTest, FailNthCallOfAnyCountsEveryOperation) {
  file_system_->FailNthCallOfAny(3);
  file_system_->Stat(At("x"));
  file_system_->List(root_);
  std::string message = ExpectFault([&] { file_system_->PutIfAbsent(At("x"), "x"); });
  EXPECT_THAT(message, HasSubstr("PutIfAbsent"));
  EXPECT_FALSE(Exists("x"));
  EXPECT_EQ(file_system_->PutIfAbsent(At("x"), "x"), PutOutcome::kCreated);
}

TEST_P(FaultInjectingFileSystemTest, PathFilterRestrictsAFaultToMatchingPaths) {
  file_system_->FailNthCall(FileOperation::kPutIfAbsent, 1, "00000000000000000002.json");
  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000000.json"), "0"),
            PutOutcome::kCreated);
  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000001.json"), "1"),
            PutOutcome::kCreated);
  ExpectFault([&] { file_system_->PutIfAbsent(At("_delta_log/00000000000000000002.json"), "2"); });
  EXPECT_FALSE(Exists("_delta_log/00000000000000000002.json"));
  EXPECT_EQ(file_system_->PendingFaultCount(), 0u);
}

TEST_P(FaultInjectingFileSystemTest, FailAfterPutIfAbsentLeavesTheCommitInPlace) {
  file_system_->FailAfterNthCall(FileOperation::kPutIfAbsent, 1);
  std::string message = ExpectFault(
      [&] { file_system_->PutIfAbsent(At("_delta_log/00000000000000000005.json"), "mine"); });
  EXPECT_THAT(message, HasSubstr("after it took effect"));
  // The writer does not know whether it won; the log does: the file is there, with its content.
  EXPECT_EQ(Content("_delta_log/00000000000000000005.json"), "mine");
  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000005.json"), "mine"),
            PutOutcome::kAlreadyExists);
}

TEST_P(FaultInjectingFileSystemTest, FailAfterLetsMutationsTakeEffect) {
  inner_->WriteFile(At("to-delete"), "x");
  inner_->WriteFile(At("to-rename"), "y");
  file_system_->FailAfterNthCall(FileOperation::kDelete, 1);
  file_system_->FailAfterNthCall(FileOperation::kRename, 1);
  file_system_->FailAfterNthCall(FileOperation::kSetModificationTime, 1);
  ExpectFault([&] { file_system_->Delete(At("to-delete")); });
  ExpectFault([&] { file_system_->Rename(At("to-rename"), At("renamed")); });
  ExpectFault([&] { file_system_->SetModificationTime(At("renamed"), 123000); });
  EXPECT_FALSE(Exists("to-delete"));
  EXPECT_FALSE(Exists("to-rename"));
  EXPECT_EQ(Content("renamed"), "y");
  EXPECT_EQ(inner_->Stat(At("renamed"))->modification_time_ms, 123000);
}

TEST_P(FaultInjectingFileSystemTest, FailAfterOnStreamsLetsTheCallTakeEffect) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
  file_system_->FailAfterNthCall(FileOperation::kWrite, 1);
  file_system_->FailAfterNthCall(FileOperation::kSync, 1);
  file_system_->FailAfterNthCall(FileOperation::kClose, 1);
  ExpectFault([&] { stream->Write("written"); });
  EXPECT_EQ(stream->position(), 7u);
  ExpectFault([&] { stream->Sync(); });
  ExpectFault([&] { stream->Close(); });
  EXPECT_EQ(Content("file"), "written");
  // The Sync took effect, so a power loss keeps the bytes.
  file_system_->DropUnsyncedWrites();
  EXPECT_EQ(Content("file"), "written");
}

TEST_P(FaultInjectingFileSystemTest, FailAfterOpenWriteLeavesAnEmptyFile) {
  inner_->WriteFile(At("file"), "old content");
  file_system_->FailAfterNthCall(FileOperation::kOpenWrite, 1);
  ExpectFault([&] { file_system_->OpenWrite(At("file")); });
  EXPECT_EQ(Content("file"), "");
}

TEST_P(FaultInjectingFileSystemTest, FailAfterReadsStillReadButThrow) {
  inner_->WriteFile(At("data"), "payload");
  file_system_->FailAfterNthCall(FileOperation::kStat, 1);
  file_system_->FailAfterNthCall(FileOperation::kList, 1);
  file_system_->FailAfterNthCall(FileOperation::kOpenRead, 1);
  file_system_->FailAfterNthCall(FileOperation::kRead, 1);
  ExpectFault([&] { file_system_->Stat(At("data")); });
  ExpectFault([&] { file_system_->List(root_); });
  ExpectFault([&] { file_system_->OpenRead(At("data")); });
  ExpectFault([&] { file_system_->ReadFile(At("data")); });
  EXPECT_EQ(file_system_->InjectedFaultCount(), 4u);
}

TEST_P(FaultInjectingFileSystemTest, SeveralArmedFaultsFireOnConsecutiveCalls) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
  for (uint64_t n = 1; n <= 3; ++n) file_system_->FailNthCall(FileOperation::kWrite, n);
  EXPECT_EQ(file_system_->PendingFaultCount(), 3u);
  for (int attempt = 0; attempt < 3; ++attempt) ExpectFault([&] { stream->Write("lost"); });
  EXPECT_EQ(file_system_->PendingFaultCount(), 0u);
  stream->Write("kept");
  stream->Close();
  EXPECT_EQ(Content("file"), "kept");
}

TEST_P(FaultInjectingFileSystemTest, BeforeFaultWinsAndTheOtherFiresOnTheNextCall) {
  file_system_->FailAfterNthCall(FileOperation::kPutIfAbsent, 1);
  file_system_->FailNthCall(FileOperation::kPutIfAbsent, 1);
  std::string first = ExpectFault([&] { file_system_->PutIfAbsent(At("a"), "a"); });
  EXPECT_THAT(first, ::testing::Not(HasSubstr("after")));
  EXPECT_FALSE(Exists("a"));
  std::string second = ExpectFault([&] { file_system_->PutIfAbsent(At("a"), "a"); });
  EXPECT_THAT(second, HasSubstr("after it took effect"));
  EXPECT_EQ(Content("a"), "a");
}

TEST_P(FaultInjectingFileSystemTest, ClearFaultsDisarmsEverything) {
  file_system_->FailNthCallOfAny(1);
  file_system_->FailAfterNthCall(FileOperation::kStat, 1);
  file_system_->TearNextWrite();
  file_system_->ClearFaults();
  EXPECT_EQ(file_system_->PendingFaultCount(), 0u);
  file_system_->WriteFile(At("file"), "whole");
  EXPECT_FALSE(file_system_->Stat(At("missing")).has_value());
  EXPECT_EQ(Content("file"), "whole");
}

TEST_P(FaultInjectingFileSystemTest, TornWritePersistsTheFirstHalfThenThrows) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("_delta_log/x.json"));
  stream->Write("head:");
  file_system_->TearNextWrite();
  std::string message = ExpectFault([&] { stream->Write("abcdefgh"); });
  EXPECT_THAT(message, HasSubstr("torn: 4 of 8 bytes"));
  EXPECT_EQ(stream->position(), 9u);
  stream.reset();  // The killed writer's stream is closed when it is destroyed.
  EXPECT_EQ(Content("_delta_log/x.json"), "head:abcd");
  // Only the next Write was torn.
  file_system_->WriteFile(At("after"), "abcdefgh");
  EXPECT_EQ(Content("after"), "abcdefgh");
}

TEST_P(FaultInjectingFileSystemTest, TearNextWriteWithPathFilterWaitsForThatPath) {
  file_system_->TearNextWrite("checkpoint");
  file_system_->WriteFile(At("data.parquet"), "0123456789");
  EXPECT_EQ(Content("data.parquet"), "0123456789");
  ExpectFault(
      [&] { file_system_->WriteFile(At("_delta_log/1.checkpoint.parquet"), "0123456789"); });
  EXPECT_EQ(Content("_delta_log/1.checkpoint.parquet"), "01234");
}

TEST_P(FaultInjectingFileSystemTest, DropUnsyncedWritesKeepsOnlySyncedBytes) {
  inner_->WriteFile(At("untouched"), "written before the wrapper saw anything");

  file_system_->WriteFile(At("synced"), "fully synced");  // WriteFile syncs before closing.

  std::unique_ptr<OutputStream> partly = file_system_->OpenWrite(At("partly"));
  partly->Write("durable|");
  partly->Sync();
  partly->Write("lost");
  partly->Close();

  std::unique_ptr<OutputStream> never = file_system_->OpenWrite(At("dir/never-synced"));
  never->Write("gone");
  never->Close();

  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000000.json"), "commit"),
            PutOutcome::kCreated);

  std::unique_ptr<OutputStream> open = file_system_->OpenWrite(At("open"));
  open->Write("synced while open|");
  open->Sync();
  open->Write("not synced");

  file_system_->DropUnsyncedWrites();

  EXPECT_EQ(Content("untouched"), "written before the wrapper saw anything");
  EXPECT_EQ(Content("synced"), "fully synced");
  EXPECT_EQ(Content("partly"), "durable|");
  EXPECT_FALSE(Exists("dir/never-synced"));
  EXPECT_EQ(Content("_delta_log/00000000000000000000.json"), "commit");
  EXPECT_EQ(Content("open"), "synced while open|");

  // The writer died with the power: its stream refuses further work.
  EXPECT_THAT(ExpectFault([&] { open->Write("zombie"); }), HasSubstr("power loss"));
  ExpectFault([&] { open->Sync(); });
  ExpectFault([&] { open->Close(); });
  open.reset();
  EXPECT_EQ(Content("open"), "synced while open|");
}

TEST_P(FaultInjectingFileSystemTest, DropUnsyncedWritesFollowsRenamesAndForgetsDeletes) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("tmp/part"));
  stream->Write("synced,");
  stream->Sync();
  stream->Write("unsynced");
  stream->Close();
  file_system_->Rename(At("tmp/part"), At("final/part"));

  file_system_->WriteFile(At("deleted"), "x");
  file_system_->Delete(At("deleted"));
  inner_->WriteFile(At("deleted"), "rewritten by someone else");

  file_system_->DropUnsyncedWrites();
  EXPECT_EQ(Content("final/part"), "synced,");
  EXPECT_FALSE(Exists("tmp/part"));
  EXPECT_EQ(Content("deleted"), "rewritten by someone else");
}

TEST_P(FaultInjectingFileSystemTest, WritesAfterAPowerLossAreTrackedAgain) {
  file_system_->DropUnsyncedWrites();  // Nothing written yet: no effect.
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
  stream->Write("new");
  stream->Close();
  file_system_->DropUnsyncedWrites();
  EXPECT_FALSE(Exists("file"));
  file_system_->WriteFile(At("file"), "synced");
  file_system_->DropUnsyncedWrites();
  EXPECT_EQ(Content("file"), "synced");
}

TEST_P(FaultInjectingFileSystemTest, CallHookCanLetACompetingWriterWinTheRace) {
  std::vector<std::string> seen;
  std::string commit = At("_delta_log/00000000000000000001.json");
  file_system_->SetCallHook([&](FileOperation operation, const std::string& path) {
    seen.push_back(std::string(FileOperationName(operation)) + " " + path);
    if (operation == FileOperation::kPutIfAbsent && path == commit) {
      file_system_->inner()->PutIfAbsent(path, "competitor");
    }
  });
  EXPECT_EQ(file_system_->PutIfAbsent(commit, "mine"), PutOutcome::kAlreadyExists);
  EXPECT_EQ(Content("_delta_log/00000000000000000001.json"), "competitor");
  file_system_->Stat(At("x"));
  EXPECT_THAT(seen, ElementsAre("PutIfAbsent " + commit, "Stat " + At("x")));

  file_system_->SetCallHook(nullptr);
  file_system_->Stat(At("y"));
  EXPECT_EQ(seen.size(), 2u);
}

TEST_P(FaultInjectingFileSystemTest, HookExceptionsPropagateWithoutEffect) {
  file_system_->SetCallHook([](FileOperation operation, const std::string& path) {
    if (operation == FileOperation::kPutIfAbsent) {
      throw MakeError(ErrorClass::IO_ERROR, {{"path", path}, {"message", "simulated outage"}});
    }
  });
  EXPECT_THROW(file_system_->PutIfAbsent(At("a"), "a"), Error);
  EXPECT_FALSE(Exists("a"));
  EXPECT_EQ(file_system_->CallCount(FileOperation::kPutIfAbsent), 1u);
}

TEST_P(FaultInjectingFileSystemTest, ForwardsCapabilities) {
  Capabilities capabilities = file_system_->capabilities();
  EXPECT_EQ(capabilities.atomic_put_if_absent, inner_->capabilities().atomic_put_if_absent);
  EXPECT_EQ(capabilities.ordered_listing, inner_->capabilities().ordered_listing);
}

TEST_P(FaultInjectingFileSystemTest, RejectsInvalidArming) {
  try {
    file_system_->FailNthCall(FileOperation::kWrite, 0);
    ADD_FAILURE() << "n = 0 was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INVALID_ARGUMENT");
  }
  EXPECT_THROW(FaultInjectingFileSystem::Make(nullptr), Error);
}

INSTANTIATE_TEST_SUITE_P(InnerBackends, FaultInjectingFileSystemTest,
                         ::testing::Values(InnerBackend::kMemory, InnerBackend::kLocal),
                         [](const ::testing::TestParamInfo<InnerBackend>& info) {
                           return info.param == InnerBackend::kMemory ? "Memory" : "Local";
                         });

TEST(FileOperationNameTest, NamesEveryOperation) {
  std::vector<std::string> names;
  for (size_t index = 0; index < kFileOperationCount; ++index) {
    names.emplace_back(FileOperationName(static_cast<FileOperation>(index)));
  }
  EXPECT_THAT(names,
              ElementsAre("Stat", "List", "OpenRead", "Read", "OpenWrite", "Write", "Sync", "Close",
                          "PutIfAbsent", "Delete", "Rename", "SetModificationTime"));
}

}  // namespace
}  // namespace silt::io
