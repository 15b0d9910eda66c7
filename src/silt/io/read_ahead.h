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
};

/// Tells `file` that `ranges` will be read soon, when it is a ReadAhead; otherwise does nothing
/// (the local disk reads each range when asked, as fast).
void WillNeed(RandomAccessFile& file, const std::vector<ByteRange>& ranges);

/// Groups `ranges` into the requests that fetch them: sorted by offset, a range joins the
/// previous group when the gap between them is below `max_gap` and the group then spans at most
/// `max_request` bytes (a single larger range is a group of its own). Empty ranges are dropped.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, uint64_t max_gap,
                                      uint64_t max_request);

}  // namespace silt::io
