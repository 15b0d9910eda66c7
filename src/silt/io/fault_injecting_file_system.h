#pragma once

// FaultInjectingFileSystem wraps any FileSystem and makes chosen calls fail, so that tests can
// drive the commit path (and anything else that writes) through the failures real storage has.
// It is a test tool: production code never creates one. Unless a fault fires, every call is passed
// to the wrapped file system unchanged, so the wrapper also runs the conformance suite.
//
// Operations. Every call is counted under one FileOperation: the FileSystem methods (Stat, List,
// OpenRead, OpenWrite, PutIfAbsent, Delete, Rename, SetModificationTime), the OutputStream methods
// (Write, Sync, Close) and RandomAccessFile::ReadAt (kRead; ReadExactly and ReadAll read through
// it). WriteFile and ReadFile are made of those calls and count as them. Destroying a stream
// without Close closes it silently and is not counted.
//
// Modes. Each arming call below adds one single-shot fault with its own countdown: the fault
// fires on the n-th matching call from the moment it was armed (n = 1: the next one), then is
// gone. To fail the next three Writes, arm n = 1, 2 and 3. An optional `path_filter` restricts a
// fault to calls whose path contains it (an empty filter matches every call), e.g.
// "_delta_log/00000000000000000003.json". A failing call throws FAULT_INJECTED (category kIo),
// whose message names the operation and the path.
//
//   FailNthCall(operation, n)       The call throws without doing anything: nothing is created,
//                                   written, deleted or renamed. Models a request that never
//                                   reached storage.
//   FailNthCallOfAny(n)             The same, counting calls of every operation together.
//   FailAfterNthCall(operation, n)  The call takes full effect, then throws. Models the reply that
//                                   is lost after storage applied the request: a PutIfAbsent that
//                                   created the commit file but reports failure is the ambiguity
//                                   ("did my commit land?") a Delta writer must resolve by reading
//                                   the log. For OpenWrite the file is created (and truncated) and
//                                   the stream discarded; for reads the data is read and dropped.
//   TearNextWrite(path_filter)      The next matching OutputStream::Write passes only the first
//                                   half of its bytes (rounded down) to storage, then throws.
//                                   Models a process killed in the middle of a write. The stream
//                                   stays open; closing or destroying it publishes the torn bytes.
//   DropUnsyncedWrites()            Simulates a power loss. Every file written through the
//                                   wrapper since it was made (or since the last drop) keeps only
//                                   the bytes that were written before its last successful Sync; a
//                                   file never synced disappears (even one that existed before
//                                   OpenWrite truncated it). Streams still open are closed and
//                                   become dead: any later Write, Sync or Close on them throws
//                                   FAULT_INJECTED. PutIfAbsent content counts as synced, as its
//                                   contract promises durability when it returns kCreated; Delete
//                                   and Rename are treated as durable at once.
//
// Every armed fault counts every matching call. When several would fire on one call, a "before"
// fault wins, then a tear, then an "after" fault; the others stay armed and fire on the next
// matching call. The path a call is matched on is its file's path; for List it is `dir`, for
// Rename it is `from`. ClearFaults() disarms everything still pending. SetCallHook installs a
// function run at the start of every call (before faults are counted), e.g. to let a competing
// writer commit through the wrapped file system at a precise moment.
//
// Thread safety: the FileSystem methods and the arming and counting methods may be called from any
// thread. DropUnsyncedWrites must not race with calls on the wrapper's open streams (a real power
// loss stops every writer too).

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::io {

/// The calls FaultInjectingFileSystem counts and can fail.
enum class FileOperation : uint8_t {
  kStat,
  kList,
  kOpenRead,
  kRead,
  kOpenWrite,
  kWrite,
  kSync,
  kClose,
  kPutIfAbsent,
  kDelete,
  kRename,
  kSetModificationTime,
};

/// The number of FileOperation values.
inline constexpr size_t kFileOperationCount = 12;

/// The operation's name as used in FAULT_INJECTED messages ("PutIfAbsent", "Write", ...).
std::string_view FileOperationName(FileOperation operation);

class FaultInjectingFileSystem final
    : public FileSystem,
      public std::enable_shared_from_this<FaultInjectingFileSystem> {
  struct PrivateTag {};

 public:
  /// Wraps `inner`, which must not be null. The wrapper shares ownership of it.
  static std::shared_ptr<FaultInjectingFileSystem> Make(std::shared_ptr<FileSystem> inner);

  /// Use Make(); public only so that std::make_shared can reach it.
  FaultInjectingFileSystem(PrivateTag, std::shared_ptr<FileSystem> inner);
  FaultInjectingFileSystem(const FaultInjectingFileSystem&) = delete;
  FaultInjectingFileSystem& operator=(const FaultInjectingFileSystem&) = delete;

  /// The wrapped file system (calls on it bypass counting and faults).
  const std::shared_ptr<FileSystem>& inner() const { return inner_; }

  // ---- counting ----

  /// How many calls of `operation` were made since creation or ResetCallCounts, failed ones
  /// included.
  uint64_t CallCount(FileOperation operation) const;
  /// The sum of CallCount over every operation.
  uint64_t TotalCallCount() const;
  /// How many faults fired (thrown FAULT_INJECTED errors, dead-stream errors included).
  uint64_t InjectedFaultCount() const;
  /// Sets every call count and the injected-fault count back to zero; armed faults are kept.
  void ResetCallCounts();

  // ---- arming faults (see the file comment for the semantics) ----

  /// Fails the `n`-th matching call of `operation` from now (n >= 1) before it has any effect.
  void FailNthCall(FileOperation operation, uint64_t n, std::string path_filter = "");
  /// Fails the `n`-th matching call of any operation from now (n >= 1) before it has any effect.
  void FailNthCallOfAny(uint64_t n, std::string path_filter = "");
  /// Lets the `n`-th matching call of `operation` from now (n >= 1) take effect, then fails it.
  void FailAfterNthCall(FileOperation operation, uint64_t n, std::string path_filter = "");
  /// Makes the next Write whose path matches persist only half of its bytes, then fail.
  void TearNextWrite(std::string path_filter = "");
  /// Disarms every pending fault (counts are kept).
  void ClearFaults();
  /// The number of armed faults (tears included) that have not fired yet.
  size_t PendingFaultCount() const;

  /// Simulates a power loss; see the file comment.
  void DropUnsyncedWrites();

  /// Runs `hook(operation, path)` at the start of every call, on the calling thread and without
  /// the wrapper's lock held; an exception it throws propagates from the call (which then has no
  /// effect and is still counted). The hook must not call back into this wrapper (use inner()).
  /// Pass nullptr to remove it.
  void SetCallHook(std::function<void(FileOperation, const std::string&)> hook);

  // ---- FileSystem ----

  std::optional<FileInfo> Stat(const std::string& path) override;
  std::vector<FileInfo> List(const std::string& dir, const std::string& start_after = "",
                             bool recursive = false) override;
  std::unique_ptr<RandomAccessFile> OpenRead(const std::string& path) override;
  std::unique_ptr<OutputStream> OpenWrite(const std::string& path) override;
  PutOutcome PutIfAbsent(const std::string& path, std::string_view bytes) override;
  bool Delete(const std::string& path) override;
  bool DeleteEmptyFolder(const std::string& path) override;
  void Rename(const std::string& from, const std::string& to) override;
  void SetModificationTime(const std::string& path, int64_t modification_time_ms) override;
  Capabilities capabilities() const override;

  // ---- used by the wrapper's streams and files; not for tests ----

  /// What the wrapper decided for one call that did not fail before taking effect.
  struct CallDecision {
    bool fail_after = false;  ///< Take effect, then throw.
    bool tear = false;        ///< (Write only) pass half the bytes, then throw.
  };
  /// Counts a call, runs the hook and fires a "before" fault by throwing; otherwise returns what
  /// must happen after the call takes effect.
  CallDecision BeginCall(FileOperation operation, const std::string& path);
  /// Counts a fault that fires outside BeginCall (after-faults, tears, dead streams) and throws it.
  [[noreturn]] void ThrowFault(std::string operation_text, const std::string& path);

  /// What the wrapper knows about a file written through it, for DropUnsyncedWrites.
  struct WrittenFile {
    std::string path;                     ///< As given to OpenWrite.
    uint64_t synced_length = 0;           ///< Bytes made durable by the last successful Sync.
    bool ever_synced = false;             ///< False: the whole file is lost on power loss.
    OutputStream* open_stream = nullptr;  ///< The inner stream while it is open.
    bool dead = false;                    ///< Set by DropUnsyncedWrites on streams still open.
  };
  /// Records a successful Sync of the stream writing `file` at `length` bytes.
  void RecordSync(const std::shared_ptr<WrittenFile>& file, uint64_t length);
  /// Records that the stream writing `file` closed (or was destroyed).
  void RecordStreamClosed(const std::shared_ptr<WrittenFile>& file);
  /// True once DropUnsyncedWrites killed the stream writing `file`.
  bool IsDead(const std::shared_ptr<WrittenFile>& file) const;

 private:
  enum class FaultMode : uint8_t { kBefore, kAfter, kTear };
  struct Fault {
    std::optional<FileOperation> operation;  ///< nullopt: any operation.
    FaultMode mode;
    uint64_t remaining;  ///< Matching calls still to go; fires when it reaches zero.
    std::string path_filter;
  };

  void Arm(std::optional<FileOperation> operation, FaultMode mode, uint64_t n,
           std::string path_filter);
  void ForgetWrittenFileLocked(const std::string& path);

  std::shared_ptr<FileSystem> inner_;
  mutable std::mutex mutex_;
  std::array<uint64_t, kFileOperationCount> call_counts_{};
  uint64_t injected_fault_count_ = 0;
  std::vector<Fault> faults_;
  std::shared_ptr<const std::function<void(FileOperation, const std::string&)>> hook_;
  /// Files written through the wrapper since the last power loss, by normalised path.
  std::map<std::string, std::shared_ptr<WrittenFile>> written_files_;
};

}  // namespace silt::io
