// The commit race across processes: Delta writers on one machine are often separate processes, so
// PutIfAbsent's "exactly one winner, never a partial file" must hold between processes, not only
// between threads. The test forks before any thread exists in this process (fork copies only the
// calling thread), and children leave with _exit so that no test-framework state runs twice.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "silt/base/testing_threads.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"

namespace silt::io {
namespace {

constexpr int kWriters = 8;
constexpr int kVersions = 200;
// Large enough that a non-atomic create (open, write, write, ...) would be caught half-written.
constexpr size_t kPayloadSize = size_t{64} * 1024;
constexpr int kChildTimeoutSeconds = 300;

// What a writer reports through the results pipe; 8 bytes, so each write(2) is atomic.
struct WinRecord {
  int32_t writer;
  int32_t version;
};

std::string VersionFileName(int version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020d.json", version);
  return name;
}

// Delta's commit-file pattern; PutIfAbsent's hidden temporaries never match it.
std::optional<int> VersionOfFileName(std::string_view name) {
  if (name.size() != 25 || !name.ends_with(".json")) return std::nullopt;
  int version = 0;
  for (char digit : name.substr(0, 20)) {
    if (digit < '0' || digit > '9') return std::nullopt;
    version = version * 10 + (digit - '0');
  }
  return version;
}

// The content writer `writer` commits as `version`: a header naming both, a payload that depends
// on both, and a trailer, so any prefix or mix of two writers' bytes is detected.
std::string CommitContent(int writer, int version) {
  std::string content =
      "{\"writer\":" + std::to_string(writer) + ",\"version\":" + std::to_string(version) + "}\n";
  content.reserve(content.size() + kPayloadSize + 64);
  for (size_t index = 0; index < kPayloadSize; ++index) {
    content.push_back(static_cast<char>('a' + (writer * 31 + version * 7 + index) % 26));
  }
  content +=
      "\nend of writer " + std::to_string(writer) + " version " + std::to_string(version) + "\n";
  return content;
}

// Returns the writer whose complete content `content` is, or nullopt when it is anything else.
std::optional<int> WriterOf(const std::string& content, int version) {
  int writer = -1;
  int parsed_version = -1;
  if (std::sscanf(content.c_str(), "{\"writer\":%d,\"version\":%d}", &writer, &parsed_version) !=
      2) {
    return std::nullopt;
  }
  if (parsed_version != version || writer < 0 || writer >= kWriters) return std::nullopt;
  if (content != CommitContent(writer, version)) return std::nullopt;
  return writer;
}

void WaitForStart(int start_descriptor) {
  char byte;
  // The parent never writes; closing its end (EOF) releases every child at once.
  while (::read(start_descriptor, &byte, 1) < 0 && errno == EINTR) {
  }
}

[[noreturn]] void ChildFail(int code, const std::string& message) {
  std::string line = "[child " + std::to_string(::getpid()) + "] " + message + "\n";
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(code);
}

[[noreturn]] void RunWriter(int writer, const std::string& log_folder, int start_descriptor,
                            int results_descriptor) {
  ::alarm(kChildTimeoutSeconds);
  WaitForStart(start_descriptor);
  try {
    std::shared_ptr<FileSystem> file_system = MakeLocalFileSystem();
    for (int version = 0; version < kVersions; ++version) {
      std::string path = JoinPath(log_folder, VersionFileName(version));
      if (file_system->PutIfAbsent(path, CommitContent(writer, version)) == PutOutcome::kCreated) {
        WinRecord record{writer, version};
        if (::write(results_descriptor, &record, sizeof(record)) != sizeof(record)) {
          ChildFail(2, "cannot report a win: " + std::string(std::strerror(errno)));
        }
        continue;
      }
      // A loser reads the winner's commit at once: it must already be complete.
      if (!WriterOf(file_system->ReadFile(path), version).has_value()) {
        ChildFail(3, "lost version " + std::to_string(version) + " but its file is not complete");
      }
    }
  } catch (const std::exception& error) {
    ChildFail(4, std::string("writer failed: ") + error.what());
  }
  ::_exit(0);
}

[[noreturn]] void RunReader(const std::string& log_folder, int start_descriptor,
                            int results_descriptor) {
  ::alarm(kChildTimeoutSeconds);
  WaitForStart(start_descriptor);
  try {
    std::shared_ptr<FileSystem> file_system = MakeLocalFileSystem();
    int64_t reads = 0;
    while (true) {
      std::vector<FileInfo> entries = file_system->List(log_folder);
      int complete = 0;
      for (size_t index = 0; index < entries.size(); ++index) {
        if (index > 0 && !(entries[index - 1].path < entries[index].path)) {
          ChildFail(5, "listing out of order at " + entries[index].path);
        }
        std::optional<int> version = VersionOfFileName(BaseName(entries[index].path));
        if (!version.has_value()) continue;  // A writer's temporary file.
        std::string content = file_system->ReadFile(entries[index].path);
        ++reads;
        if (!WriterOf(content, *version).has_value()) {
          ChildFail(6, "saw partial or mixed content (" + std::to_string(content.size()) +
                           " bytes) in " + entries[index].path);
        }
        ++complete;
      }
      if (complete == kVersions) break;
    }
    // Reported as a record with writer -1 so the parent can check the reader did real work.
    WinRecord record{-1, static_cast<int32_t>(reads)};
    if (::write(results_descriptor, &record, sizeof(record)) != sizeof(record)) {
      ChildFail(2, "cannot report the read count");
    }
  } catch (const std::exception& error) {
    ChildFail(7, std::string("reader failed: ") + error.what());
  }
  ::_exit(0);
}

TEST(PutIfAbsentRaceTest, ProcessesRacingForEveryVersionCreateEachExactlyOnce) {
  // fork() copies only the calling thread; a lock held by another thread would stay locked forever
  // in the child. Earlier tests join their threads, so this process must be single-threaded here.
  ASSERT_EQ(WaitForThreadCount(1), 1);

  TestingTemporaryFolder folder;
  std::string log_folder = JoinPath(folder.path(), "_delta_log");

  int start_pipe[2];
  int results_pipe[2];
  ASSERT_EQ(::pipe2(start_pipe, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(results_pipe, O_CLOEXEC), 0);

  std::vector<pid_t> children;
  for (int child = 0; child <= kWriters; ++child) {  // kWriters writers, then one reader.
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << std::strerror(errno);
    if (pid == 0) {
      ::close(start_pipe[1]);
      ::close(results_pipe[0]);
      if (child < kWriters) RunWriter(child, log_folder, start_pipe[0], results_pipe[1]);
      RunReader(log_folder, start_pipe[0], results_pipe[1]);
    }
    children.push_back(pid);
  }
  ::close(start_pipe[0]);
  ::close(results_pipe[1]);
  ::close(start_pipe[1]);  // Go.

  std::vector<WinRecord> records;
  while (true) {
    WinRecord record{};
    ssize_t got = ::read(results_pipe[0], &record, sizeof(record));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: every child has exited.
    ASSERT_EQ(got, static_cast<ssize_t>(sizeof(record)));
    records.push_back(record);
  }
  ::close(results_pipe[0]);

  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << pid << " ended with status " << status;
  }

  std::map<int, int> winner_of_version;
  int reader_reports = 0;
  for (const WinRecord& record : records) {
    if (record.writer == -1) {
      ++reader_reports;
      EXPECT_GE(record.version, kVersions) << "the reader read too little to prove anything";
      continue;
    }
    EXPECT_TRUE(winner_of_version.emplace(record.version, record.writer).second)
        << "version " << record.version << " was won twice";
  }
  EXPECT_EQ(reader_reports, 1);
  EXPECT_EQ(records.size() - static_cast<size_t>(reader_reports), static_cast<size_t>(kVersions));
  EXPECT_EQ(winner_of_version.size(), static_cast<size_t>(kVersions));

  // The log holds every version exactly once, each one writer's complete content (the winner's),
  // and no temporary file survived.
  std::shared_ptr<FileSystem> file_system = MakeLocalFileSystem();
  std::vector<FileInfo> entries = file_system->List(log_folder);
  ASSERT_EQ(entries.size(), static_cast<size_t>(kVersions));
  for (int version = 0; version < kVersions; ++version) {
    const FileInfo& entry = entries[static_cast<size_t>(version)];
    ASSERT_EQ(entry.path, JoinPath(log_folder, VersionFileName(version)));
    std::optional<int> writer = WriterOf(file_system->ReadFile(entry.path), version);
    ASSERT_TRUE(writer.has_value()) << entry.path;
    EXPECT_EQ(*writer, winner_of_version[version]) << entry.path;
  }
}

}  // namespace
}  // namespace silt::io
