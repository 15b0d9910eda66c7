// One suite, run on every backend: whatever passes here behaves the same for the layers above.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/io/fault_injecting_file_system.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/io/testing_temporary_folder.h"
#include "support/azurite_test_server.h"
#include "support/s3_test_server.h"

namespace silt::io {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

enum class Backend { kLocal, kMemory, kFaultInjectingMemory, kFaultInjectingLocal, kS3, kAzure };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::kLocal:
      return "Local";
    case Backend::kMemory:
      return "Memory";
    case Backend::kFaultInjectingMemory:
      return "FaultInjectingMemory";
    case Backend::kFaultInjectingLocal:
      return "FaultInjectingLocal";
    case Backend::kS3:
      return "S3";
    case Backend::kAzure:
      return "Azure";
  }
  return "Unknown";
}

int64_t NowMilliseconds() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Runs `action` and returns the class of the silt::Error it throws ("" when it does not throw).
std::vector<std::string> Paths(const std::vector<FileInfo>& entries) {
  std::vector<std::string> paths;
  for (const FileInfo& entry : entries) paths.push_back(entry.path);
  return paths;
}

class FileSystemConformanceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    switch (GetParam()) {
      case Backend::kLocal:
        folder_.emplace();
        file_system_ = MakeLocalFileSystem();
        root_ = folder_->path();
        break;
      case Backend::kMemory:
        file_system_ = MakeMemoryFileSystem();
        root_ = "/memory-root";
        break;
      case Backend::kFaultInjectingMemory:
        file_system_ = FaultInjectingFileSystem::Make(MakeMemoryFileSystem());
        root_ = "/memory-root";
        break;
      case Backend::kFaultInjectingLocal:
        folder_.emplace();
        file_system_ = FaultInjectingFileSystem::Make(MakeLocalFileSystem());
        root_ = folder_->path();
        break;
      case Backend::kS3: {
        // Through the scheme router, as sessions reach S3.
        std::string why_not;
        test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
        if (server == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
        file_system_ = MakeStorageFileSystem(server->Options());
        root_ = server->NewFolder("conformance");
        break;
      }
      case Backend::kAzure: {
        std::string why_not;
        test::AzuriteTestServer* server = test::AzuriteTestServer::Shared(&why_not);
        if (server == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
        file_system_ = MakeStorageFileSystem(server->Options());
        root_ = server->NewFolder("conformance");
        break;
      }
    }
  }

  // An object store has no folders and keeps the time an object was written.
  bool IsObjectStore() const {
    return GetParam() == Backend::kS3 || GetParam() == Backend::kAzure;
  }

  std::string At(std::string_view name) const { return JoinPath(root_, name); }

  std::optional<TestingTemporaryFolder> folder_;
  std::shared_ptr<FileSystem> file_system_;
  std::string root_;
};

TEST_P(FileSystemConformanceTest, CapabilitiesPromiseAtomicPutAndOrderedListing) {
  Capabilities capabilities = file_system_->capabilities();
  EXPECT_TRUE(capabilities.atomic_put_if_absent);
  EXPECT_TRUE(capabilities.ordered_listing);
}

TEST_P(FileSystemConformanceTest, StatOfMissingPathIsEmpty) {
  EXPECT_FALSE(file_system_->Stat(At("missing")).has_value());
  EXPECT_FALSE(file_system_->Stat(At("missing/below")).has_value());
  file_system_->WriteFile(At("file"), "x");
  // Below a file there is nothing (locally ENOTDIR, which is not an error for Stat).
  EXPECT_FALSE(file_system_->Stat(At("file/below")).has_value());
}

TEST_P(FileSystemConformanceTest, StatReportsFilesAndFolders) {
  int64_t before = NowMilliseconds();
  file_system_->WriteFile(At("folder/file.bin"), "hello");
  int64_t after = NowMilliseconds();

  std::optional<FileInfo> file = file_system_->Stat(At("folder/file.bin"));
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->path, At("folder/file.bin"));
  EXPECT_EQ(file->size, 5u);
  EXPECT_FALSE(file->is_directory);
  // File times may be truncated to the file system's granularity; allow a little slack.
  EXPECT_GE(file->modification_time_ms, before - 2000);
  EXPECT_LE(file->modification_time_ms, after + 2000);

  std::optional<FileInfo> folder = file_system_->Stat(At("folder"));
  ASSERT_TRUE(folder.has_value());
  EXPECT_TRUE(folder->is_directory);
  EXPECT_EQ(folder->size, 0u);
}

TEST_P(FileSystemConformanceTest, ParentFoldersAreCreatedImplicitly) {
  file_system_->WriteFile(At("a/b/c/d.txt"), "deep");
  for (std::string_view folder : {"a", "a/b", "a/b/c"}) {
    std::optional<FileInfo> info = file_system_->Stat(At(folder));
    ASSERT_TRUE(info.has_value()) << folder;
    EXPECT_TRUE(info->is_directory) << folder;
  }
  EXPECT_EQ(file_system_->ReadFile(At("a/b/c/d.txt")), "deep");
}

TEST_P(FileSystemConformanceTest, ReadAtReadsAtOffsetsAndShortAtEnd) {
  file_system_->WriteFile(At("data"), "0123456789");
  std::unique_ptr<RandomAccessFile> file = file_system_->OpenRead(At("data"));
  EXPECT_EQ(file->Size(), 10u);
  EXPECT_EQ(file->path(), At("data"));

  char buffer[16] = {};
  EXPECT_EQ(file->ReadAt(3, 4, buffer), 4u);
  EXPECT_EQ(std::string(buffer, 4), "3456");
  EXPECT_EQ(file->ReadAt(0, 1, buffer), 1u);
  EXPECT_EQ(buffer[0], '0');
  EXPECT_EQ(file->ReadAt(7, 10, buffer), 3u);  // Short only because the file ends.
  EXPECT_EQ(std::string(buffer, 3), "789");
  EXPECT_EQ(file->ReadAt(10, 4, buffer), 0u);
  EXPECT_EQ(file->ReadAt(1000, 4, buffer), 0u);
  EXPECT_EQ(file->ReadAt(2, 0, buffer), 0u);

  file->ReadExactly(5, 5, buffer);
  EXPECT_EQ(std::string(buffer, 5), "56789");
  EXPECT_EQ(ErrorClassOf([&] { file->ReadExactly(8, 3, buffer); }), "IO_ERROR");
  try {
    file->ReadExactly(8, 3, buffer);
  } catch (const Error& error) {
    EXPECT_EQ(error.category(), ErrorCategory::kIo);
    EXPECT_NE(error.message().find(At("data")), std::string::npos) << error.what();
  }
  EXPECT_EQ(file->ReadAll(), "0123456789");
}

TEST_P(FileSystemConformanceTest, EmptyFileReadsAsEmpty) {
  file_system_->WriteFile(At("empty"), "");
  EXPECT_EQ(file_system_->Stat(At("empty"))->size, 0u);
  EXPECT_EQ(file_system_->ReadFile(At("empty")), "");
}

TEST_P(FileSystemConformanceTest, OpenReadOfMissingFileThrowsPathNotFound) {
  EXPECT_EQ(ErrorClassOf([&] { file_system_->OpenRead(At("missing")); }), "PATH_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf([&] { file_system_->ReadFile(At("missing/deeper")); }), "PATH_NOT_FOUND");
}

TEST_P(FileSystemConformanceTest, OpenReadOfFolderThrowsIoError) {
  file_system_->WriteFile(At("folder/file"), "x");
  EXPECT_EQ(ErrorClassOf([&] { file_system_->OpenRead(At("folder")); }), "IO_ERROR");
}

TEST_P(FileSystemConformanceTest, OverwriteReplacesTheWholeContent) {
  file_system_->WriteFile(At("file"), "a long first content");
  file_system_->WriteFile(At("file"), "short");
  EXPECT_EQ(file_system_->ReadFile(At("file")), "short");
  EXPECT_EQ(file_system_->Stat(At("file"))->size, 5u);
}

TEST_P(FileSystemConformanceTest, StreamsWriteManyPiecesOfAnySize) {
  std::string expected;
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("pieces"));
  // Piece sizes straddle typical buffer sizes: tiny, page-sized and larger than 64 KiB.
  for (size_t size : {1, 7, 4096, 65535, 3, 70000, 65536, 12, 200000}) {
    std::string piece(size, static_cast<char>('a' + expected.size() % 26));
    stream->Write(piece);
    expected += piece;
    EXPECT_EQ(stream->position(), expected.size());
  }
  stream->Sync();
  stream->Close();
  EXPECT_EQ(stream->position(), expected.size());
  EXPECT_EQ(file_system_->ReadFile(At("pieces")), expected);
}

TEST_P(FileSystemConformanceTest, WriteAfterCloseThrowsAndCloseTwiceIsHarmless) {
  std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
  stream->Write("abc");
  stream->Close();
  stream->Close();
  EXPECT_EQ(ErrorClassOf([&] { stream->Write("more"); }), "IO_ERROR");
  EXPECT_EQ(ErrorClassOf([&] { stream->Sync(); }), "IO_ERROR");
  EXPECT_EQ(file_system_->ReadFile(At("file")), "abc");
}

TEST_P(FileSystemConformanceTest, DestroyingAnOpenStreamClosesIt) {
  {
    std::unique_ptr<OutputStream> stream = file_system_->OpenWrite(At("file"));
    stream->Write("kept");
  }
  EXPECT_EQ(file_system_->ReadFile(At("file")), "kept");
}

TEST_P(FileSystemConformanceTest, OpenWriteBelowAFileThrowsIoError) {
  if (IsObjectStore()) {
    GTEST_SKIP() << "a key may extend another key: object stores have no folders to refuse it";
  }
  file_system_->WriteFile(At("file"), "x");
  EXPECT_EQ(ErrorClassOf([&] { file_system_->WriteFile(At("file/child"), "y"); }), "IO_ERROR");
  EXPECT_EQ(file_system_->ReadFile(At("file")), "x");
}

TEST_P(FileSystemConformanceTest, ListIsInByteOrderOfFullPaths) {
  // '.' (0x2E) < '/' (0x2F) < '0' (0x30) < 'B' (0x42) < 'a' (0x61): a recursive listing must not
  // be a depth-first walk in name order, which would put "a/x" before "a.b".
  for (std::string_view name : {"a0", "a.b", "a/x", "a/y/z", "B", "00000000000000000010.json",
                                "00000000000000000009.json"}) {
    file_system_->WriteFile(At(name), std::string(name));
  }
  EXPECT_THAT(Paths(file_system_->List(root_)),
              ElementsAre(At("00000000000000000009.json"), At("00000000000000000010.json"), At("B"),
                          At("a"), At("a.b"), At("a0")));
  EXPECT_THAT(Paths(file_system_->List(root_, "", /*recursive=*/true)),
              ElementsAre(At("00000000000000000009.json"), At("00000000000000000010.json"), At("B"),
                          At("a.b"), At("a/x"), At("a/y/z"), At("a0")));
  EXPECT_THAT(Paths(file_system_->List(At("a"))), ElementsAre(At("a/x"), At("a/y")));
}

TEST_P(FileSystemConformanceTest, ListReportsSizesAndFolderFlags) {
  file_system_->WriteFile(At("dir/file"), "12345");
  file_system_->WriteFile(At("dir/sub/inner"), "1");
  std::vector<FileInfo> entries = file_system_->List(At("dir"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, At("dir/file"));
  EXPECT_EQ(entries[0].size, 5u);
  EXPECT_FALSE(entries[0].is_directory);
  EXPECT_EQ(entries[0], *file_system_->Stat(At("dir/file")));
  EXPECT_EQ(entries[1].path, At("dir/sub"));
  EXPECT_TRUE(entries[1].is_directory);
  EXPECT_EQ(entries[1].size, 0u);
}

TEST_P(FileSystemConformanceTest, ListWithTrailingSeparatorReportsTheSamePaths) {
  file_system_->WriteFile(At("log/1"), "");
  file_system_->WriteFile(At("log/2"), "");
  EXPECT_THAT(Paths(file_system_->List(At("log/"))), ElementsAre(At("log/1"), At("log/2")));
}

TEST_P(FileSystemConformanceTest, ListStartsAfterTheGivenPath) {
  std::string log = At("_delta_log");
  for (int version = 0; version < 12; ++version) {
    char name[32];
    std::snprintf(name, sizeof(name), "%020d.json", version);
    file_system_->WriteFile(JoinPath(log, name), "{}");
  }
  file_system_->WriteFile(JoinPath(log, "00000000000000000010.checkpoint.parquet"), "PAR1");

  std::vector<std::string> expected = {JoinPath(log, "00000000000000000010.checkpoint.parquet"),
                                       JoinPath(log, "00000000000000000010.json"),
                                       JoinPath(log, "00000000000000000011.json")};
  // As a full path and relative to the folder: the same bound.
  EXPECT_EQ(Paths(file_system_->List(log, JoinPath(log, "00000000000000000009.json"))), expected);
  EXPECT_EQ(Paths(file_system_->List(log, "00000000000000000009.json")), expected);
  // A bound that is not an entry works too: everything after "...0010" in byte order.
  EXPECT_EQ(Paths(file_system_->List(log, "00000000000000000010")), expected);
  EXPECT_THAT(file_system_->List(log, JoinPath(log, "00000000000000000011.json")), IsEmpty());
  EXPECT_EQ(file_system_->List(log, "").size(), 13u);
}

TEST_P(FileSystemConformanceTest, RecursiveListStartsAfterTheGivenPath) {
  for (std::string_view name : {"p=1/f1", "p=1/f2", "p=2/f1", "p=2/sub/f3", "top"}) {
    file_system_->WriteFile(At(name), "");
  }
  EXPECT_THAT(Paths(file_system_->List(root_, At("p=1/f2"), /*recursive=*/true)),
              ElementsAre(At("p=2/f1"), At("p=2/sub/f3"), At("top")));
  EXPECT_THAT(Paths(file_system_->List(root_, "p=2/f1", /*recursive=*/true)),
              ElementsAre(At("p=2/sub/f3"), At("top")));
}

TEST_P(FileSystemConformanceTest, ListOfMissingFolderOrFileIsEmpty) {
  EXPECT_THAT(file_system_->List(At("missing")), IsEmpty());
  EXPECT_THAT(file_system_->List(At("missing"), "", /*recursive=*/true), IsEmpty());
  file_system_->WriteFile(At("file"), "x");
  EXPECT_THAT(file_system_->List(At("file")), IsEmpty());
}

TEST_P(FileSystemConformanceTest, PutIfAbsentCreatesOnceAndKeepsTheWinnersContent) {
  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000000.json"), "winner"),
            PutOutcome::kCreated);
  EXPECT_EQ(file_system_->PutIfAbsent(At("_delta_log/00000000000000000000.json"), "loser!!"),
            PutOutcome::kAlreadyExists);
  EXPECT_EQ(file_system_->ReadFile(At("_delta_log/00000000000000000000.json")), "winner");
  // Nothing else is left in the folder (no temporary files).
  EXPECT_THAT(Paths(file_system_->List(At("_delta_log"))),
              ElementsAre(At("_delta_log/00000000000000000000.json")));
}

TEST_P(FileSystemConformanceTest, PutIfAbsentDoesNotReplaceAFileWrittenOtherwise) {
  file_system_->WriteFile(At("existing"), "old");
  EXPECT_EQ(file_system_->PutIfAbsent(At("existing"), "new"), PutOutcome::kAlreadyExists);
  EXPECT_EQ(file_system_->ReadFile(At("existing")), "old");
  EXPECT_EQ(file_system_->PutIfAbsent(At("empty-content"), ""), PutOutcome::kCreated);
  EXPECT_EQ(file_system_->Stat(At("empty-content"))->size, 0u);
}

TEST_P(FileSystemConformanceTest, DeleteReportsWhetherAFileWasThere) {
  file_system_->WriteFile(At("dir/file"), "x");
  EXPECT_TRUE(file_system_->Delete(At("dir/file")));
  EXPECT_FALSE(file_system_->Stat(At("dir/file")).has_value());
  EXPECT_FALSE(file_system_->Delete(At("dir/file")));
  EXPECT_FALSE(file_system_->Delete(At("never/existed")));
  // The freed name can be created again.
  EXPECT_EQ(file_system_->PutIfAbsent(At("dir/file"), "y"), PutOutcome::kCreated);
}

TEST_P(FileSystemConformanceTest, DeleteEmptyFolderLeavesEverythingElseAlone) {
  file_system_->WriteFile(At("a/b/file"), "x");
  EXPECT_FALSE(file_system_->DeleteEmptyFolder(At("a/b")));       // holds a file
  EXPECT_FALSE(file_system_->DeleteEmptyFolder(At("a/b/file")));  // a file
  EXPECT_FALSE(file_system_->DeleteEmptyFolder(At("nothing")));
  EXPECT_EQ(file_system_->ReadFile(At("a/b/file")), "x");
  EXPECT_TRUE(file_system_->Delete(At("a/b/file")));
  // Where folders are real, the emptied ones go (inner first); elsewhere there is nothing left.
  bool removed = file_system_->DeleteEmptyFolder(At("a/b"));
  if (removed) EXPECT_TRUE(file_system_->DeleteEmptyFolder(At("a")));
  EXPECT_FALSE(file_system_->Stat(At("a/b")).has_value());
  file_system_->WriteFile(At("a/b/again"), "y");
  EXPECT_EQ(file_system_->ReadFile(At("a/b/again")), "y");
}

TEST_P(FileSystemConformanceTest, RenameMovesAFileAndCreatesTargetFolders) {
  if (IsObjectStore()) {
    GTEST_SKIP() << "an object's time is when it was written; the stores' own tests cover rename";
  }
  file_system_->WriteFile(At("from"), "content");
  file_system_->SetModificationTime(At("from"), 1'600'000'000'123);
  file_system_->Rename(At("from"), At("new/folder/to"));
  EXPECT_FALSE(file_system_->Stat(At("from")).has_value());
  EXPECT_EQ(file_system_->ReadFile(At("new/folder/to")), "content");
  EXPECT_EQ(file_system_->Stat(At("new/folder/to"))->modification_time_ms, 1'600'000'000'123);
}

TEST_P(FileSystemConformanceTest, RenameReplacesAnExistingTarget) {
  file_system_->WriteFile(At("from"), "new content");
  file_system_->WriteFile(At("to"), "old");
  file_system_->Rename(At("from"), At("to"));
  EXPECT_EQ(file_system_->ReadFile(At("to")), "new content");
  EXPECT_THAT(Paths(file_system_->List(root_)), ElementsAre(At("to")));
}

TEST_P(FileSystemConformanceTest, RenameOfMissingSourceThrowsPathNotFound) {
  file_system_->WriteFile(At("to"), "kept");
  EXPECT_EQ(ErrorClassOf([&] { file_system_->Rename(At("missing"), At("to")); }), "PATH_NOT_FOUND");
  EXPECT_EQ(file_system_->ReadFile(At("to")), "kept");
}

TEST_P(FileSystemConformanceTest, SetModificationTimeIsReportedByStatAndList) {
  if (IsObjectStore()) GTEST_SKIP() << "an object's time is when it was written";
  file_system_->WriteFile(At("dir/00000000000000000000.json"), "{}");
  const int64_t commit_time = 1'700'000'000'456;  // Milliseconds survive the round trip.
  file_system_->SetModificationTime(At("dir/00000000000000000000.json"), commit_time);
  EXPECT_EQ(file_system_->Stat(At("dir/00000000000000000000.json"))->modification_time_ms,
            commit_time);
  EXPECT_EQ(file_system_->List(At("dir"))[0].modification_time_ms, commit_time);

  file_system_->SetModificationTime(At("dir/00000000000000000000.json"), 0);
  EXPECT_EQ(file_system_->Stat(At("dir/00000000000000000000.json"))->modification_time_ms, 0);
  EXPECT_EQ(ErrorClassOf([&] { file_system_->SetModificationTime(At("missing"), 1); }),
            "PATH_NOT_FOUND");
}

TEST_P(FileSystemConformanceTest, ConcurrentReadersShareOneFile) {
  std::string content;
  for (int index = 0; index < 100000; ++index) content.push_back(static_cast<char>(index * 7));
  file_system_->WriteFile(At("shared"), content);
  std::shared_ptr<RandomAccessFile> file = file_system_->OpenRead(At("shared"));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> readers;
  for (int thread_index = 0; thread_index < 4; ++thread_index) {
    readers.emplace_back([&, thread_index] {
      std::string buffer(1000, '\0');
      for (uint64_t offset = static_cast<uint64_t>(thread_index) * 13; offset < content.size();
           offset += 997) {
        size_t got = file->ReadAt(offset, buffer.size(), buffer.data());
        if (buffer.compare(0, got, content, offset, got) != 0) ++mismatches;
      }
    });
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_P(FileSystemConformanceTest, ThreadsRacingPutIfAbsentCreateExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr int kNames = 25;
  std::atomic<int> created[kNames] = {};
  std::atomic<int> ready{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> writers;
  for (int writer = 0; writer < kThreads; ++writer) {
    writers.emplace_back([&, writer] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // Start together.
      for (int name = 0; name < kNames; ++name) {
        char file_name[32];
        std::snprintf(file_name, sizeof(file_name), "%020d.json", name);
        try {
          std::string content = "writer " + std::to_string(writer);
          if (file_system_->PutIfAbsent(At(JoinPath("_delta_log", file_name)), content) ==
              PutOutcome::kCreated) {
            created[name].fetch_add(1);
          }
        } catch (const Error&) {
          errors.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(errors.load(), 0);
  for (int name = 0; name < kNames; ++name) EXPECT_EQ(created[name].load(), 1) << name;
  std::vector<FileInfo> entries = file_system_->List(At("_delta_log"));
  EXPECT_EQ(entries.size(), static_cast<size_t>(kNames));  // No temporary file left behind.
  for (const FileInfo& entry : entries) {
    EXPECT_THAT(file_system_->ReadFile(entry.path), ::testing::StartsWith("writer "));
  }
}

// Backend-specific behaviour the contract leaves open, pinned down so that it does not drift.

TEST(MemoryFileSystemTest, ContentBecomesVisibleAtClose) {
  std::shared_ptr<FileSystem> file_system = MakeMemoryFileSystem();
  file_system->WriteFile("/f", "old");
  std::unique_ptr<OutputStream> stream = file_system->OpenWrite("/f");
  stream->Write("new content");
  stream->Sync();
  EXPECT_EQ(file_system->ReadFile("/f"), "old");
  EXPECT_FALSE(file_system->Stat("/g").has_value());
  int64_t before_close = NowMilliseconds();
  stream->Close();
  int64_t after_close = NowMilliseconds();
  EXPECT_EQ(file_system->ReadFile("/f"), "new content");
  std::optional<FileInfo> info = file_system->Stat("/f");
  ASSERT_TRUE(info.has_value());
  EXPECT_GE(info->modification_time_ms, before_close);
  EXPECT_LE(info->modification_time_ms, after_close);
}

TEST(MemoryFileSystemTest, OpenReaderKeepsTheContentItOpened) {
  std::shared_ptr<FileSystem> file_system = MakeMemoryFileSystem();
  file_system->WriteFile("/f", "first");
  std::unique_ptr<RandomAccessFile> reader = file_system->OpenRead("/f");
  file_system->WriteFile("/f", "second version");
  file_system->Delete("/f");
  EXPECT_EQ(reader->Size(), 5u);
  EXPECT_EQ(reader->ReadAll(), "first");
}

TEST(MemoryFileSystemTest, EquivalentSpellingsOfAPathNameOneFile) {
  std::shared_ptr<FileSystem> file_system = MakeMemoryFileSystem();
  file_system->WriteFile("/a//b/./c", "x");
  EXPECT_EQ(file_system->ReadFile("/a/b/c"), "x");
  EXPECT_EQ(file_system->PutIfAbsent("/a/b//c", "y"), PutOutcome::kAlreadyExists);
  EXPECT_THAT(Paths(file_system->List("/a/b/")), ElementsAre("/a/b/c"));
}

TEST(MemoryFileSystemTest, RenameMovesAWholeFolder) {
  std::shared_ptr<FileSystem> file_system = MakeMemoryFileSystem();
  file_system->WriteFile("/from/x", "1");
  file_system->WriteFile("/from/sub/y", "2");
  file_system->Rename("/from", "/to");
  EXPECT_FALSE(file_system->Stat("/from").has_value());
  EXPECT_THAT(Paths(file_system->List("/to", "", /*recursive=*/true)),
              ElementsAre("/to/sub/y", "/to/x"));
  EXPECT_EQ(ErrorClassOf([&] { file_system->Rename("/to", "/to/inside"); }), "IO_ERROR");
}

TEST(LocalFileSystemTest, IoErrorsNameThePathAndTheSystemError) {
  TestingTemporaryFolder folder;
  std::shared_ptr<FileSystem> file_system = MakeLocalFileSystem();
  std::string file = JoinPath(folder.path(), "file");
  file_system->WriteFile(file, "x");
  try {
    file_system->WriteFile(JoinPath(file, "child"), "y");
    ADD_FAILURE() << "writing below a file succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "IO_ERROR");
    EXPECT_EQ(error.category(), ErrorCategory::kIo);
    EXPECT_THAT(error.message(), ::testing::HasSubstr(file));
    EXPECT_THAT(error.message(), ::testing::HasSubstr("Not a directory"));
  }
  EXPECT_EQ(ErrorClassOf([&] { file_system->Delete(folder.path()); }), "IO_ERROR");
}

TEST(LocalFileSystemTest, ModificationTimesBeforeTheEpochRoundTrip) {
  TestingTemporaryFolder folder;
  std::shared_ptr<FileSystem> file_system = MakeLocalFileSystem();
  std::string file = JoinPath(folder.path(), "old");
  file_system->WriteFile(file, "x");
  file_system->SetModificationTime(file, -1500);
  EXPECT_EQ(file_system->Stat(file)->modification_time_ms, -1500);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, FileSystemConformanceTest,
                         ::testing::Values(Backend::kLocal, Backend::kMemory,
                                           Backend::kFaultInjectingMemory,
                                           Backend::kFaultInjectingLocal, Backend::kS3,
                                           Backend::kAzure),
                         BackendName);

}  // namespace
}  // namespace silt::io
