// Azure Blob Storage beyond the conformance suite, against Azurite (tools/azurite-test-server):
// the emulator's connection string as is, Shared Key signatures Azurite checks, block uploads,
// and conditional creates racing from several threads.

#include "silt/io/azure_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/io/aws_signing.h"
#include "silt/io/batch_delete.h"
#include "silt/io/http_client.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/io/storage_statistics.h"
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

std::string Base64(std::string_view bytes, bool decode) {
  std::string out(bytes.size() * 2 + 4, '\0');
  int length = decode ? EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(bytes.data()),
                                        static_cast<int>(bytes.size()))
                      : EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                        reinterpret_cast<const unsigned char*>(bytes.data()),
                                        static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(length));
  if (decode) {  // EVP_DecodeBlock counts the padding as bytes
    if (bytes.size() >= 1 && bytes.back() == '=') out.pop_back();
    if (bytes.size() >= 2 && bytes[bytes.size() - 2] == '=') out.pop_back();
  }
  return out;
}

// An account SAS for the Blob service, signed with the development account's key as Azure
// defines it (version 2021-12-02: account, permissions, services, resource types, start,
// expiry, IP, protocol, version and encryption scope, one per line).
std::string AccountSas(const std::string& permissions) {
  const std::string account = "devstoreaccount1";
  const std::string key =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  const std::string version = "2021-12-02";
  const std::string expiry = "2099-01-01T00:00:00Z";
  std::string to_sign = account + "\n" + permissions + "\nb\nsco\n\n" + expiry +
                        "\n\nhttps,http\n" + version + "\n\n";
  std::string signature = Base64(HmacSha256(Base64(key, true), to_sign), false);
  return "sv=" + version + "&ss=b&srt=sco&sp=" + permissions + "&se=" + UriEncode(expiry, false) +
         "&spr=https,http&sig=" + UriEncode(signature, false);
}

TEST_F(AzureFileSystemTest, SharedAccessSignaturesAuthorizeWhatTheyGrant) {
  std::string endpoint = server_->ConnectionString();
  endpoint = endpoint.substr(endpoint.find("BlobEndpoint=") + 13);
  endpoint = endpoint.substr(0, endpoint.find(';'));
  auto sas = std::make_shared<StorageOptions>(false);
  sas->Set("AZURE_STORAGE_ACCOUNT_NAME", "devstoreaccount1");
  sas->Set("AZURE_STORAGE_ENDPOINT", endpoint);
  sas->Set("AZURE_STORAGE_SAS_TOKEN", "?" + AccountSas("rwdlac"));
  auto fs = MakeStorageFileSystem(sas);
  fs->WriteFile(At("by-sas"), "granted");
  EXPECT_EQ(fs->ReadFile(At("by-sas")), "granted");
  EXPECT_EQ(fs->PutIfAbsent(At("by-sas"), "again"), PutOutcome::kAlreadyExists);
  EXPECT_THAT(Paths(fs->List(root_)), ElementsAre(At("by-sas")));
  // A read-only signature reads but cannot write.
  sas->Set("AZURE_STORAGE_SAS_TOKEN", AccountSas("rl"));
  auto reader = MakeStorageFileSystem(sas);
  EXPECT_EQ(reader->ReadFile(At("by-sas")), "granted");
  EXPECT_EQ(ErrorClassOf([&] { reader->WriteFile(At("denied"), "x"); }), "STORAGE_ACCESS_DENIED");
  // Widening the permissions of a signed token breaks its signature.
  std::string forged = AccountSas("rl");
  forged.replace(forged.find("sp=rl"), 5, "sp=rwdlac");
  sas->Set("AZURE_STORAGE_SAS_TOKEN", forged);
  EXPECT_EQ(ErrorClassOf([&] { MakeStorageFileSystem(sas)->WriteFile(At("forged"), "x"); }),
            "STORAGE_ACCESS_DENIED");
}

TEST_F(AzureFileSystemTest, RenameCopiesThenDeletes) {
  auto fs = Open();
  fs->WriteFile(At("from"), "content");
  fs->Rename(At("from"), At("to/inside"));
  EXPECT_FALSE(fs->Stat(At("from")).has_value());
  EXPECT_EQ(fs->ReadFile(At("to/inside")), "content");
  EXPECT_THAT(Paths(fs->List(root_, "", true)), ElementsAre(At("to/inside")));
}

TEST_F(AzureFileSystemTest, ManyFilesAreDeletedAFileARequestAndCounted) {
  auto fs = Open();
  std::vector<std::string> paths;
  for (int i = 0; i < 20; ++i) {
    paths.push_back(At("part-" + std::to_string(i) + ".parquet"));
    fs->WriteFile(paths.back(), "x");
  }
  paths.push_back(At("never-written.parquet"));
  ResetStorageStatistics(*fs);
  EXPECT_EQ(DeleteFiles(*fs, paths), 20u);
  EXPECT_EQ(StorageStatisticsOf(*fs).deletes, 21u);
  EXPECT_TRUE(fs->List(root_).empty());
}

}  // namespace
}  // namespace silt::io
