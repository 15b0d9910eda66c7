#pragma once

#include <cstdint>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::io {

/// A span of a file's bytes.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool operator==(const ByteRange&) const = default;
};

/// A file on a store where each request costs far more than the bytes it carries (an object
/// store): told which ranges a reader is about to read, it fetches them at once, nearby ranges in
/// one request and the requests in parallel, and serves the ReadAt calls that follow from memory.
/// A RandomAccessFile that is one also derives from this.
class ReadAhead {
 public:
  virtual ~ReadAhead() = default;
  /// Fetches `ranges` (in any order, possibly overlapping) now. Each range is then served from
  /// memory by the first ReadAt calls that read it, and its bytes are let go once every range
  /// fetched with it has been read. Thread-safe; throws as ReadAt would.
  virtual void WillNeed(const std::vector<ByteRange>& ranges) = 0;
  /// Lets go of what was fetched ahead for `ranges` (as given to WillNeed) and not read yet: the
  /// reader no longer needs it (a filter left no row to decode). Thread-safe.
  virtual void Forget(const std::vector<ByteRange>& ranges) = 0;
};

/// Tells `file` that `ranges` will be read soon, when it is a ReadAhead; otherwise does nothing
/// (the local disk reads each range when asked, as fast).
void WillNeed(RandomAccessFile& file, const std::vector<ByteRange>& ranges);

/// Calls WillNeed(file, ranges) when made and the file's Forget(ranges) when it goes: what a read
/// of a row group fetched ahead lives no longer than the read.
class ReadAheadScope {
 public:
  ReadAheadScope(RandomAccessFile& file, std::vector<ByteRange> ranges);
  ~ReadAheadScope();
  ReadAheadScope(const ReadAheadScope&) = delete;
  ReadAheadScope& operator=(const ReadAheadScope&) = delete;

 private:
  ReadAhead* file_;  // nullptr when the file reads each range when asked
  std::vector<ByteRange> ranges_;
};

/// Groups `ranges` into the requests that fetch them: sorted by offset, a range joins the
/// previous group when the gap between them is below `max_gap` and the group then spans at most
/// `max_request` bytes (a single larger range is a group of its own). Empty ranges are dropped.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, uint64_t max_gap,
                                      uint64_t max_request);

}  // namespace silt::io
