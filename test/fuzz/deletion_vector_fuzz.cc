// Feeds arbitrary bytes to the deletion-vector parsers: the serialised bitmap (RoaringBitmapArray),
// inline descriptors (Z85 text) and DV files read through a descriptor whose offset, size and
// cardinality come from the input too. Only silt::Error may escape, and never an internal error;
// a crash, a sanitizer report, another exception type, a hang or an out-of-memory is a finding.
//
// Input layout: byte 0 picks the mode; modes 1 and 2 then take a 4-byte offset, a 4-byte size
// and a 2-byte cardinality (little-endian, signed), and the rest is the payload.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/log/deletion_vector.h"

namespace {

void Exercise(const silt::log::DeletedRows& rows) {
  rows.Cardinality();
  rows.Maximum();
  std::vector<bool> keep;
  rows.FillKeepMask(0, 4096, keep);
  rows.Contains(uint64_t{1} << 33);
}

template <typename T>
T Take(std::string_view& input) {
  T value{};
  size_t count = input.size() < sizeof(T) ? input.size() : sizeof(T);
  std::memcpy(&value, input.data(), count);
  input.remove_prefix(count);
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        Exercise(silt::log::DeletedRows::Deserialize(input, "fuzz"));
        break;
      case 1:
      case 2: {
        silt::log::DeletionVectorDescriptor descriptor;
        descriptor.offset = Take<int32_t>(input);
        descriptor.size_in_bytes = Take<int32_t>(input);
        descriptor.cardinality = Take<int16_t>(input);
        auto fs = silt::io::MakeMemoryFileSystem();
        if (data[0] % 3 == 1) {
          descriptor.storage_type = 'i';
          descriptor.offset.reset();
          descriptor.path_or_inline_dv = std::string(input);
        } else {
          descriptor.storage_type = 'p';
          descriptor.path_or_inline_dv = "t/dv.bin";
          fs->WriteFile("t/dv.bin", input);
        }
        Exercise(silt::log::LoadDeletionVector(*fs, "t", descriptor));
        break;
      }
    }
  } catch (const silt::Error& error) {
    if (error.error_class() == "INTERNAL_ERROR") {
      std::fprintf(stderr, "%s\n", error.what());
      std::abort();
    }
  }
  return 0;
}
