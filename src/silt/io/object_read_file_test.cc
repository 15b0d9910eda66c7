// Reads from an object store as the Parquet reader makes them: ranges coalesced into few
// requests, the requests in parallel, and the tails and checkpoints a session keeps.

#include "silt/io/object_read_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "silt/io/read_ahead.h"

namespace silt::io {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// An object in memory that records each ranged GET made of it.
class FakeObject {
 public:
  explicit FakeObject(size_t size) {
    for (size_t i = 0; i < size; ++i) bytes_.push_back(static_cast<char>((i * 7919) >> 5));
  }

  RangeFetch Fetch() {
    return [this](uint64_t offset, uint64_t length) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(ByteRange{offset, length});
      return bytes_.substr(offset, length);
    };
  }

  std::vector<ByteRange> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::mutex mutex_;
  std::vector<ByteRange> requests_;
};

std::string Read(RandomAccessFile& file, uint64_t offset, size_t length) {
  std::string out(length, '\0');
  out.resize(file.ReadAt(offset, length, out.data()));
  return out;
}

TEST(CoalesceRangesTest, MergesNearbyRangesUpToTheRequestCap) {
  // Gaps below 100 bytes merge; a group spans at most 1000 bytes.
  EXPECT_THAT(CoalesceRanges({{500, 10}, {0, 10}, {50, 10}, {200, 10}}, 100, 1000),
              ElementsAre(ByteRange{0, 60}, ByteRange{200, 10}, ByteRange{500, 10}));
  EXPECT_THAT(CoalesceRanges({{0, 600}, {650, 600}, {1300, 10}}, 100, 1000),
              ElementsAre(ByteRange{0, 600}, ByteRange{650, 660}));
  // Overlapping and contained ranges are fetched once; empty ones not at all.
  EXPECT_THAT(CoalesceRanges({{0, 100}, {20, 30}, {90, 20}, {300, 0}}, 1, 1000),
              ElementsAre(ByteRange{0, 110}));
  // A range larger than the cap is a request of its own, and holds what lies inside it.
  EXPECT_THAT(CoalesceRanges({{0, 5000}, {100, 10}, {5010, 10}}, 100, 1000),
              ElementsAre(ByteRange{0, 5000}, ByteRange{5010, 10}));
}

TEST(ImmutableFileCacheTest, KeepsTheLongestSuffixAndEvictsTheLeastRecentlyUsed) {
  ImmutableFileCache cache(100);
  cache.Insert("a", 60, std::string(40, 'a'));  // the last 40 bytes of a 100-byte file
  char out[40];
  EXPECT_TRUE(cache.Read("a", 70, 30, out));
  EXPECT_FALSE(cache.Read("a", 50, 20, out));
  cache.Insert("a", 70, std::string(30, 'x'));  // shorter: the longer suffix stays
  ASSERT_TRUE(cache.Read("a", 60, 1, out));
  EXPECT_EQ(out[0], 'a');
  cache.Insert("b", 0, std::string(50, 'b'));
  EXPECT_EQ(cache.bytes_held(), 90u);
  EXPECT_TRUE(cache.Read("a", 60, 1, out));    // a is now the most recent
  cache.Insert("c", 0, std::string(30, 'c'));  // 120 bytes: b goes
  EXPECT_FALSE(cache.Holds("b", 0, 1));
  EXPECT_TRUE(cache.Holds("a", 60, 40));
  EXPECT_TRUE(cache.Holds("c", 0, 30));
  cache.Insert("d", 0, std::string(101, 'd'));  // larger than the whole cache: not kept
  EXPECT_FALSE(cache.Holds("d", 0, 1));
  cache.SetCapacity(0);
  EXPECT_EQ(cache.bytes_held(), 0u);
}

TEST(ObjectReadFileTest, WillNeedFetchesNearbyRangesTogetherAndServesTheReadsFromMemory) {
  FakeObject object(4 << 20);
  auto session = std::make_shared<ObjectStoreSession>();
  ObjectReadFile file("s3://b/t/part-0.parquet", object.bytes().size(), "\"etag\"", object.Fetch(),
                      session);
  // Two chunks 100 bytes apart, and one 3 MiB further: two requests, sent together.
  std::vector<ByteRange> chunks = {{1000, 500}, {1600, 400}, {3u << 20, 1000}};
  file.WillNeed(chunks);
  EXPECT_THAT(object.requests(),
              UnorderedElementsAre(ByteRange{1000, 1000}, ByteRange{3u << 20, 1000}));
  for (const ByteRange& chunk : chunks) {
    EXPECT_EQ(Read(file, chunk.offset, chunk.length),
              object.bytes().substr(chunk.offset, chunk.length));
  }
  EXPECT_EQ(object.requests().size(), 2u);
  // Once read, the bytes are let go: a second read of a chunk is a request again.
  EXPECT_EQ(Read(file, 1000, 500), object.bytes().substr(1000, 500));
  EXPECT_EQ(object.requests().size(), 3u);
  EXPECT_EQ(session->cache.bytes_held(), 0u);  // data is not what the cache keeps
}

TEST(ObjectReadFileTest, WhatWasFetchedAheadGoesWithItsScopeReadOrNot) {
  FakeObject object(4 << 20);
  auto session = std::make_shared<ObjectStoreSession>();
  ObjectReadFile file("s3://b/t/part-0.parquet", object.bytes().size(), "v", object.Fetch(),
                      session);
  {
    // A row group's read: the filter column is read, the other left unread (no row passed).
    ReadAheadScope scope(file, {{1000, 500}, {1600, 400}});
    EXPECT_EQ(object.requests().size(), 1u);
    EXPECT_EQ(Read(file, 1000, 500), object.bytes().substr(1000, 500));
    EXPECT_EQ(object.requests().size(), 1u);
  }
  // The unread chunk was let go with the scope: reading it now is a request.
  EXPECT_EQ(Read(file, 1600, 400), object.bytes().substr(1600, 400));
  EXPECT_EQ(object.requests().size(), 2u);
}

TEST(ObjectReadFileTest, TheTailOfAFileIsReadOncePerSessionAndVersion) {
  FakeObject object(1 << 20);
  auto session = std::make_shared<ObjectStoreSession>();
  uint64_t size = object.bytes().size();
  std::string tail = object.bytes().substr(size - (64 << 10));
  {
    ObjectReadFile file("s3://b/t/part-0.parquet", size, "v1", object.Fetch(), session);
    EXPECT_EQ(Read(file, size - tail.size(), tail.size()), tail);
  }
  {
    // The next statement opens the file again: its footer comes from the cache...
    ObjectReadFile file("s3://b/t/part-0.parquet", size, "v1", object.Fetch(), session);
    EXPECT_EQ(Read(file, size - 8, 8), tail.substr(tail.size() - 8));
    EXPECT_EQ(Read(file, size - tail.size(), tail.size()), tail);
    EXPECT_EQ(object.requests().size(), 1u);
    EXPECT_EQ(session->counters.Snapshot().cache_hits, 2u);
    // ...but not the rest of it.
    EXPECT_EQ(Read(file, 0, 100), object.bytes().substr(0, 100));
    EXPECT_EQ(object.requests().size(), 2u);
  }
  {
    // Rewritten (another ETag): fetched again.
    ObjectReadFile file("s3://b/t/part-0.parquet", size, "v2", object.Fetch(), session);
    EXPECT_EQ(Read(file, size - 8, 8), tail.substr(tail.size() - 8));
    EXPECT_EQ(object.requests().size(), 3u);
  }
}

TEST(ObjectReadFileTest, ACheckpointIsFetchedWholeOnceAndThenServedFromTheCache) {
  FakeObject object(300 << 10);
  auto session = std::make_shared<ObjectStoreSession>();
  uint64_t size = object.bytes().size();
  const std::string path = "s3://b/t/_delta_log/00000000000000000010.checkpoint.parquet";
  for (int statement = 0; statement < 2; ++statement) {
    ObjectReadFile file(path, size, "v1", object.Fetch(), session);
    EXPECT_EQ(Read(file, size - 100, 100), object.bytes().substr(size - 100));
    file.WillNeed({{4, 1000}, {200 << 10, 5000}});
    EXPECT_EQ(Read(file, 4, 1000), object.bytes().substr(4, 1000));
    EXPECT_EQ(Read(file, 200 << 10, 5000), object.bytes().substr(200 << 10, 5000));
  }
  EXPECT_THAT(object.requests(), ElementsAre(ByteRange{0, size}));

  // Without room in the cache it is read by ranges.
  session->cache.SetCapacity(0);
  ObjectReadFile file("s3://b/t/_delta_log/00000000000000000020.checkpoint.parquet", size, "v1",
                      object.Fetch(), session);
  EXPECT_EQ(Read(file, 10, 10), object.bytes().substr(10, 10));
  EXPECT_EQ(object.requests().back(), (ByteRange{10, 10}));
}

TEST(ObjectReadFileTest, AFailedFetchAheadIsThrownByWillNeed) {
  auto session = std::make_shared<ObjectStoreSession>();
  ObjectReadFile file(
      "s3://b/f", 10 << 20, "v",
      [](uint64_t offset, uint64_t) -> std::string {
        if (offset > 0) throw std::runtime_error("connection reset");
        return std::string(10, 'x');
      },
      session);
  EXPECT_THROW(file.WillNeed({{0, 10}, {5 << 20, 10}}), std::runtime_error);
}

}  // namespace
}  // namespace silt::io
