#include "silt/io/read_ahead.h"

#include <algorithm>
#include <utility>

namespace silt::io {

void WillNeed(RandomAccessFile& file, const std::vector<ByteRange>& ranges) {
  if (auto* read_ahead = dynamic_cast<ReadAhead*>(&file)) read_ahead->WillNeed(ranges);
}

ReadAheadScope::ReadAheadScope(RandomAccessFile& file, std::vector<ByteRange> ranges)
    : file_(dynamic_cast<ReadAhead*>(&file)), ranges_(std::move(ranges)) {
  if (file_ != nullptr) file_->WillNeed(ranges_);
}

ReadAheadScope::~ReadAheadScope() {
  if (file_ != nullptr) file_->Forget(ranges_);
}

std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges, uint64_t max_gap,
                                      uint64_t max_request) {
  std::erase_if(ranges, [](const ByteRange& range) { return range.length == 0; });
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) {
    return a.offset < b.offset || (a.offset == b.offset && a.length > b.length);
  });
  std::vector<ByteRange> groups;
  for (const ByteRange& range : ranges) {
    if (!groups.empty()) {
      ByteRange& last = groups.back();
      uint64_t end = std::max(last.end(), range.end());
      bool near = range.offset <= last.end() || range.offset - last.end() < max_gap;
      if (near && end - last.offset <= max_request) {
        last.length = end - last.offset;
        continue;
      }
      if (range.end() <= last.end()) continue;  // inside a group that is already too big
    }
    groups.push_back(range);
  }
  return groups;
}

}  // namespace silt::io
