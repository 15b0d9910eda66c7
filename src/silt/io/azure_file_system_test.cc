// Azure Blob Storage beyond the conformance suite, against Azurite (tools/azurite-test-server):
// the emulator's connection string as is, Shared Key signatures Azurite checks, block uploads,
// and conditional creates racing from several threads.

#include "silt/io/azure_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "support/azurite_test_server.h"

namespace silt::io {
namespace {

using ::testing::ElementsAre;

class AzureFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    server_ = test::AzuriteTestServer::Shared(&why_not);
    if (server_ == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
    options_ = server_->Options();
    root_ = server_->NewFolder("azfs");
  }

  std::shared_ptr<FileSystem> Open() { return MakeStorageFileSystem(options_); }
  std::string At(std::string_view name) const { return JoinPath(root_, name); }

  test::AzuriteTestServer* server_ = nullptr;
  std::shared_ptr<StorageOptions> options_;
  std::string root_;
};

std::vector<std::string> Paths(const std::vector<FileInfo>& entries) {
  std::vector<std::string> paths;
  for (const FileInfo& entry : entries) paths.push_back(entry.path);
  return paths;
}

TEST_F(AzureFileSystemTest, LargeFilesGoUpInBlocks) {
  auto fs = Open();
  std::string content;
  for (size_t i = 0; i < (17u << 20); ++i) content.push_back(static_cast<char>((i * 131) >> 9));
  {
    std::unique_ptr<OutputStream> stream = fs->OpenWrite(At("big.bin"));
    for (size_t offset = 0; offset < content.size(); offset += 3 << 20) {
      stream->Write(std::string_view(content).substr(offset, 3 << 20));
    }
    stream->Close();
  }
  EXPECT_EQ(fs->Stat(At("big.bin"))->size, content.size());
  std::unique_ptr<RandomAccessFile> file = fs->OpenRead(At("big.bin"));
  std::string middle(64, '\0');
  file->ReadExactly((8u << 20) - 32, 64, middle.data());  // across the first block boundary
  EXPECT_EQ(middle, content.substr((8u << 20) - 32, 64));
  EXPECT_EQ(file->ReadAll(), content);
}

TEST_F(AzureFileSystemTest, EverySpellingOfTheContainerNamesTheSameBlobs) {
  auto fs = Open();
  fs->WriteFile(At("x"), "same");
  std::string key = At("x").substr(At("x").find(".net/") + 5);
  for (const std::string& url : {"abfs://silt-test@devstoreaccount1.dfs.core.windows.net/" + key,
                                 "wasbs://silt-test@devstoreaccount1.blob.core.windows.net/" + key,
                                 "az://silt-test/" + key}) {
    EXPECT_EQ(fs->ReadFile(url), "same") << url;
  }
}

TEST_F(AzureFileSystemTest, AWrongKeyIsDenied) {
  options_->Set("AZURE_STORAGE_ACCOUNT_KEY",
                "Zm9yZ2VkIGtleSBmb3IgYSB0ZXN0IG9mIHRoZSBzaWduYXR1cmUgY2hlY2sgISEhISE=");
  EXPECT_EQ(ErrorClassOf([&] { Open()->Stat(At("x")); }), "STORAGE_ACCESS_DENIED");
}

TEST_F(AzureFileSystemTest, NoCredentialsIsAClearError) {
  auto bare = std::make_shared<StorageOptions>(false);
  bare->Set("AZURE_STORAGE_ACCOUNT_NAME", "someaccount");
  EXPECT_EQ(ErrorClassOf([&] {
              MakeStorageFileSystem(bare)->Stat("abfss://c@someaccount.dfs.core.windows.net/t");
            }),
            "STORAGE_CREDENTIALS_NOT_FOUND");
}

TEST_F(AzureFileSystemTest, ConcurrentConditionalCreatesHaveOneWinner) {
  auto fs = Open();
  constexpr int kWriters = 8;
  constexpr int kVersions = 5;
  std::atomic<int> winners[kVersions] = {};
  std::vector<std::thread> threads;
  for (int writer = 0; writer < kWriters; ++writer) {
    threads.emplace_back([&, writer] {
      for (int version = 0; version < kVersions; ++version) {
        char name[64];
        std::snprintf(name, sizeof(name), "_delta_log/%020d.json", version);
        if (fs->PutIfAbsent(At(name), "writer " + std::to_string(writer)) == PutOutcome::kCreated) {
          winners[version].fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int version = 0; version < kVersions; ++version) EXPECT_EQ(winners[version].load(), 1);
  EXPECT_EQ(fs->List(At("_delta_log")).size(), static_cast<size_t>(kVersions));
}

TEST_F(AzureFileSystemTest, RenameCopiesThenDeletes) {
  auto fs = Open();
  fs->WriteFile(At("from"), "content");
  fs->Rename(At("from"), At("to/inside"));
  EXPECT_FALSE(fs->Stat(At("from")).has_value());
  EXPECT_EQ(fs->ReadFile(At("to/inside")), "content");
  EXPECT_THAT(Paths(fs->List(root_, "", true)), ElementsAre(At("to/inside")));
}

}  // namespace
}  // namespace silt::io
