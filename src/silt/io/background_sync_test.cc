#include "silt/io/background_sync.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "silt/io/fault_injecting_file_system.h"

namespace silt::io {
namespace {

// What a stream saw: its calls in order and the thread that made them.
struct Calls {
  std::mutex mutex;
  std::vector<std::string> calls;
  std::vector<std::thread::id> threads;
  void Add(const std::string& call) {
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back(call);
    threads.push_back(std::this_thread::get_id());
  }
};

class RecordingStream final : public OutputStream {
 public:
  RecordingStream(Calls& calls, std::string name, bool fail_sync = false)
      : calls_(calls), name_(std::move(name)), fail_sync_(fail_sync) {}
  void Write(const void*, size_t length) override { position_ += length; }
  void Sync() override {
    calls_.Add(name_ + " sync");
    if (fail_sync_) throw std::runtime_error(name_ + " sync failed");
  }
  void Close() override { calls_.Add(name_ + " close"); }
  uint64_t position() const override { return position_; }

 private:
  Calls& calls_;
  std::string name_;
  bool fail_sync_;
  uint64_t position_ = 0;
};

TEST(BackgroundSyncTest, SyncsThenClosesEveryStreamOnItsOwnThreadBeforeWaitReturns) {
  Calls calls;
  BackgroundSync sync;
  for (int i = 0; i < 5; ++i) {
    sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "f" + std::to_string(i)));
  }
  sync.Wait();
  std::lock_guard<std::mutex> lock(calls.mutex);
  ASSERT_EQ(calls.calls.size(), 10u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(calls.calls[2 * i], "f" + std::to_string(i) + " sync");
    EXPECT_EQ(calls.calls[2 * i + 1], "f" + std::to_string(i) + " close");
  }
  for (const std::thread::id& thread : calls.threads) EXPECT_NE(thread, std::this_thread::get_id());
}

TEST(BackgroundSyncTest, WaitRethrowsTheFirstFailureOnceAndEveryStreamIsClosed) {
  Calls calls;
  BackgroundSync sync(/*num_threads=*/1, /*max_pending=*/1);
  sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "a"));
  sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "b", /*fail_sync=*/true));
  sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "c"));
  EXPECT_THROW(sync.Wait(), std::runtime_error);
  {
    std::lock_guard<std::mutex> lock(calls.mutex);
    int closes = 0;
    for (const std::string& call : calls.calls) closes += call.ends_with(" close") ? 1 : 0;
    EXPECT_EQ(closes, 3);
  }
  // Reported once; what is handed over later is synced again.
  sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "d"));
  EXPECT_NO_THROW(sync.Wait());
  std::lock_guard<std::mutex> lock(calls.mutex);
  EXPECT_EQ(calls.calls.back(), "d close");
  EXPECT_EQ(calls.calls[calls.calls.size() - 2], "d sync");
}

TEST(BackgroundSyncTest, SeveralThreadsSyncThenCloseEachStreamOnce) {
  Calls calls;
  BackgroundSync sync(/*num_threads=*/3, /*max_pending=*/2);
  for (int i = 0; i < 40; ++i) {
    sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "f" + std::to_string(i)));
  }
  sync.Wait();
  std::lock_guard<std::mutex> lock(calls.mutex);
  ASSERT_EQ(calls.calls.size(), 80u);
  for (int i = 0; i < 40; ++i) {
    const std::string name = "f" + std::to_string(i);
    auto sync_call = std::find(calls.calls.begin(), calls.calls.end(), name + " sync");
    auto close_call = std::find(calls.calls.begin(), calls.calls.end(), name + " close");
    ASSERT_NE(sync_call, calls.calls.end());
    ASSERT_NE(close_call, calls.calls.end());
    EXPECT_LT(sync_call, close_call);
    EXPECT_EQ(std::count(calls.calls.begin(), calls.calls.end(), name + " close"), 1);
  }
}

TEST(BackgroundSyncTest, DestructionSyncsWhatIsStillWaiting) {
  Calls calls;
  {
    BackgroundSync sync;
    for (int i = 0; i < 3; ++i) {
      sync.SyncAndClose(std::make_unique<RecordingStream>(calls, "f" + std::to_string(i)));
    }
  }
  std::lock_guard<std::mutex> lock(calls.mutex);
  EXPECT_EQ(calls.calls.size(), 6u);
}

// Files synced in the background survive a power loss once Wait has returned.
TEST(BackgroundSyncTest, FilesAreDurableWhenWaitReturns) {
  std::shared_ptr<FaultInjectingFileSystem> fs = FaultInjectingFileSystem::Make(MakeMemoryFileSystem());
  BackgroundSync sync;
  for (int i = 0; i < 8; ++i) {
    std::unique_ptr<OutputStream> stream = fs->OpenWrite("data/f" + std::to_string(i));
    stream->Write(std::string(1000 + i, 'x'));
    sync.SyncAndClose(std::move(stream));
  }
  sync.Wait();
  fs->DropUnsyncedWrites();
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(fs->ReadFile("data/f" + std::to_string(i)).size(), static_cast<size_t>(1000 + i));
  }
}

}  // namespace
}  // namespace silt::io
