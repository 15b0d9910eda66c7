// The scheme router: which store serves a path, and that an unserved scheme never touches disk.

#include "silt/io/storage_file_system.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "silt/base/testing_error_class.h"
#include "silt/io/path.h"
#include "silt/io/storage_url.h"
#include "silt/io/testing_temporary_folder.h"

namespace silt::io {
namespace {

using ::testing::ElementsAre;

TEST(StorageUrlTest, SchemeIsLettersThenColonSlash) {
  EXPECT_EQ(UrlScheme("s3://bucket/t"), "s3");
  EXPECT_EQ(UrlScheme("S3A://bucket/t"), "s3a");
  EXPECT_EQ(UrlScheme("abfss://c@a.dfs.core.windows.net/t"), "abfss");
  EXPECT_EQ(UrlScheme("hdfs:/warehouse/t"), "hdfs");
  EXPECT_EQ(UrlScheme("file:/tmp/t"), "file");
  EXPECT_EQ(UrlScheme("/tmp/t"), std::nullopt);
  EXPECT_EQ(UrlScheme("relative/t"), std::nullopt);
  EXPECT_EQ(UrlScheme("name:with-colon"), std::nullopt);
  EXPECT_EQ(UrlScheme("3d://x"), std::nullopt);
}

TEST(StorageUrlTest, ParsesBucketAndKey) {
  ObjectUrl url = ParseObjectUrl("s3://bucket//tables/t/");
  EXPECT_EQ(url.scheme, "s3");
  EXPECT_EQ(url.authority, "bucket");
  EXPECT_EQ(url.key, "tables/t");
  EXPECT_EQ(url.ToString(), "s3://bucket/tables/t");
  EXPECT_EQ(ParseObjectUrl("s3://bucket").key, "");
  EXPECT_EQ(ErrorClassOf([] { ParseObjectUrl("s3:///key"); }), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([] { ParseObjectUrl("/local/path"); }), "INVALID_PARAMETER_VALUE");
}

TEST(StorageUrlTest, NormalizeKeepsTheSchemeSeparator) {
  EXPECT_EQ(NormalizePath("s3://bucket//t/./_delta_log/"), "s3://bucket/t/_delta_log");
  EXPECT_EQ(NormalizePath("file:///tmp//t"), "file:///tmp/t");
  EXPECT_EQ(NormalizePath("file:/tmp/t/"), "file:/tmp/t");
}

TEST(StorageFileSystemTest, UnservedSchemesAreRefusedForEveryOperation) {
  TestingTemporaryFolder folder;
  auto fs = MakeStorageFileSystem(std::make_shared<StorageOptions>(false));
  for (const std::string& url : {std::string("gs://bucket/t"), std::string("hdfs://nn:8020/t"),
                                 std::string("HDFS:/warehouse/t"), std::string("ftp://host/t")}) {
    std::string file = JoinPath(url, "_delta_log/00000000000000000000.json");
    EXPECT_EQ(ErrorClassOf([&] { fs->Stat(url); }), "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
    EXPECT_EQ(ErrorClassOf([&] { fs->List(url); }), "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
    EXPECT_EQ(ErrorClassOf([&] { fs->WriteFile(file, "x"); }), "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
    EXPECT_EQ(ErrorClassOf([&] { fs->PutIfAbsent(file, "x"); }),
              "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
    EXPECT_EQ(ErrorClassOf([&] { fs->OpenRead(file); }), "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
    EXPECT_EQ(ErrorClassOf([&] { fs->Delete(file); }), "FILE_SYSTEM_SCHEME_NOT_SUPPORTED");
  }
  // Nothing was written below the working folder under the URL's spelling.
  EXPECT_FALSE(MakeLocalFileSystem()->Stat("gs:").has_value());
  EXPECT_FALSE(MakeLocalFileSystem()->Stat("hdfs:").has_value());
}

TEST(StorageFileSystemTest, PlainPathsAndFileUrlsAreTheLocalDisk) {
  TestingTemporaryFolder folder;
  auto fs = MakeStorageFileSystem(std::make_shared<StorageOptions>(false));
  std::string plain = JoinPath(folder.path(), "t/a.txt");
  fs->WriteFile(plain, "plain");
  EXPECT_EQ(MakeLocalFileSystem()->ReadFile(plain), "plain");

  std::string url = "file://" + folder.path() + "/t";
  EXPECT_EQ(fs->ReadFile(url + "/a.txt"), "plain");
  EXPECT_EQ(fs->PutIfAbsent(url + "/b.txt", "b"), PutOutcome::kCreated);
  EXPECT_EQ(fs->PutIfAbsent(url + "/b.txt", "again"), PutOutcome::kAlreadyExists);
  // Listings keep the spelling of the folder they were asked for, start_after either way.
  std::vector<std::string> paths;
  for (const FileInfo& entry : fs->List(url)) paths.push_back(entry.path);
  EXPECT_THAT(paths, ElementsAre(url + "/a.txt", url + "/b.txt"));
  paths.clear();
  for (const FileInfo& entry : fs->List(url, url + "/a.txt")) paths.push_back(entry.path);
  EXPECT_THAT(paths, ElementsAre(url + "/b.txt"));
  std::optional<FileInfo> info = fs->Stat("file:" + folder.path() + "/t/b.txt");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->path, "file:" + folder.path() + "/t/b.txt");
  EXPECT_EQ(info->size, 1u);
}

}  // namespace
}  // namespace silt::io
