#include "silt/log/deletion_vector.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include "silt/base/check.h"
#include "silt/io/path.h"

namespace silt::log {

namespace {

constexpr char kZ85Alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr uint32_t kPortableMagic = 1681511377;
constexpr uint32_t kNativeMagic = 1681511376;
constexpr int kUuidCharacters = 20;

[[noreturn]] void FailDv(std::string_view descriptor, std::string message) {
  SILT_THROW(DELTA_INVALID_DELETION_VECTOR,
             {{"descriptor", std::string(descriptor)}, {"message", std::move(message)}});
}

const std::array<int8_t, 256>& Z85Values() {
  static const std::array<int8_t, 256> table = [] {
    std::array<int8_t, 256> values{};
    values.fill(-1);
    for (int i = 0; i < 85; ++i) values[static_cast<unsigned char>(kZ85Alphabet[i])] = int8_t(i);
    return values;
  }();
  return table;
}

uint32_t ReadLittle32(const char* bytes) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

uint64_t ReadLittle64(const char* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

uint32_t ReadBig32(const char* bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

void AppendLittle(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void AppendBig32(std::string& out, uint32_t value) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

std::string Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) FailDv(text, "Z85 text length is not a multiple of 5");
  const auto& values = Z85Values();
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t group = 0; group < text.size(); group += 5) {
    // The Rust z85 crate writes a short final group as its value right-aligned, with each missing
    // leading byte's digit replaced by '#'. A standard group never starts with '#' (84 * 85^4
    // exceeds 2^32), so the two forms cannot be confused.
    int missing = 0;
    while (missing < 4 && text[group + missing] == '#') ++missing;
    if (missing > 0 && group + 5 != text.size()) {
      FailDv(text, "Z85 short group before the end of the text");
    }
    if (missing == 4) FailDv(text, "Z85 group without data");
    uint64_t value = 0;
    for (int i = 0; i < 5; ++i) {
      char c = text[group + i];
      int digit = i < missing ? 0 : values[static_cast<unsigned char>(c)];
      if (digit < 0) FailDv(text, std::string("invalid Z85 character '") + c + "'");
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    if (value > 0xffffffffull) FailDv(text, "Z85 group exceeds 32 bits");
    for (int i = 3 - missing; i >= 0; --i) {
      // Emit the low (4 - missing) bytes, most significant first.
      out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
    }
  }
  return out;
}

std::string Z85Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 3) / 4 * 5);
  for (size_t group = 0; group < bytes.size(); group += 4) {
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) {
      unsigned char byte = group + i < bytes.size() ? static_cast<unsigned char>(bytes[group + i]) : 0;
      value = (value << 8) | byte;
    }
    char digits[5];
    for (int i = 4; i >= 0; --i) {
      digits[i] = kZ85Alphabet[value % 85];
      value /= 85;
    }
    out.append(digits, 5);
  }
  return out;
}

std::string FormatUuid(std::string_view bytes16) {
  SILT_CHECK(bytes16.size() == 16, "a UUID has 16 bytes");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    auto byte = static_cast<unsigned char>(bytes16[i]);
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 15]);
  }
  return out;
}

std::string DeletionVectorPath(const DeletionVectorDescriptor& descriptor,
                               std::string_view table_root) {
  const std::string& text = descriptor.path_or_inline_dv;
  if (descriptor.storage_type == 'p') {
    std::string path = DecodeLogPath(text);
    if (path.rfind("file://", 0) == 0) path.erase(0, 7);
    if (path.rfind("file:", 0) == 0) path.erase(0, 5);
    return path;
  }
  if (descriptor.storage_type != 'u') FailDv(text, "an inline deletion vector has no file");
  if (text.size() < kUuidCharacters) FailDv(text, "too short for a Z85-encoded UUID");
  std::string_view prefix(text.data(), text.size() - kUuidCharacters);
  std::string uuid_bytes = Z85Decode(std::string_view(text).substr(prefix.size()));
  if (uuid_bytes.size() != 16) FailDv(text, "the UUID does not decode to 16 bytes");
  std::string name = "deletion_vector_" + FormatUuid(uuid_bytes) + ".bin";
  std::string folder = prefix.empty() ? std::string(table_root) : io::JoinPath(table_root, prefix);
  return io::JoinPath(folder, name);
}

// ---- DeletedRows ----

struct DeletedRows::Impl {
  // High 32 bits of the row index -> bitmap of the low 32 bits; keys ascending.
  std::map<uint32_t, roaring_bitmap_t*> buckets;

  ~Impl() {
    for (auto& [key, bitmap] : buckets) roaring_bitmap_free(bitmap);
  }
  roaring_bitmap_t* Bucket(uint32_t key) {
    auto [it, inserted] = buckets.emplace(key, nullptr);
    if (inserted) it->second = roaring_bitmap_create();
    return it->second;
  }
};

DeletedRows::DeletedRows() : impl_(std::make_unique<Impl>()) {}
DeletedRows::~DeletedRows() = default;
DeletedRows::DeletedRows(DeletedRows&&) noexcept = default;
DeletedRows& DeletedRows::operator=(DeletedRows&&) noexcept = default;

DeletedRows DeletedRows::FromIndexes(const std::vector<uint64_t>& indexes) {
  DeletedRows rows;
  for (uint64_t index : indexes) {
    if (index >> 63) FailDv("FromIndexes", "row index " + std::to_string(index) + " is too large");
    roaring_bitmap_add(rows.impl_->Bucket(static_cast<uint32_t>(index >> 32)),
                       static_cast<uint32_t>(index));
  }
  return rows;
}

DeletedRows DeletedRows::WithIndexes(const std::vector<uint64_t>& indexes) const {
  DeletedRows rows;
  for (const auto& [key, bitmap] : impl_->buckets) {
    rows.impl_->buckets.emplace(key, roaring_bitmap_copy(bitmap));
  }
  for (uint64_t index : indexes) {
    if (index >> 63) FailDv("WithIndexes", "row index " + std::to_string(index) + " is too large");
    roaring_bitmap_add(rows.impl_->Bucket(static_cast<uint32_t>(index >> 32)),
                       static_cast<uint32_t>(index));
  }
  return rows;
}

DeletedRows DeletedRows::Deserialize(std::string_view bytes, std::string_view source) {
  if (bytes.size() < 12) FailDv(source, "bitmap shorter than its 12-byte header");
  uint32_t magic = ReadLittle32(bytes.data());
  if (magic == kNativeMagic) {
    FailDv(source, "the 'native' RoaringBitmapArray format is not used by Delta");
  }
  if (magic != kPortableMagic) FailDv(source, "bad bitmap magic " + std::to_string(magic));
  uint64_t num_buckets = ReadLittle64(bytes.data() + 4);
  size_t position = 12;
  DeletedRows rows;
  int64_t previous_key = -1;
  for (uint64_t i = 0; i < num_buckets; ++i) {
    if (bytes.size() - position < 4) FailDv(source, "truncated bitmap bucket");
    uint32_t key = ReadLittle32(bytes.data() + position);
    position += 4;
    if (static_cast<int64_t>(key) <= previous_key || key > 0x7fffffffu) {
      FailDv(source, "bitmap bucket keys are not ascending or exceed 2^31");
    }
    previous_key = key;
    size_t remaining = bytes.size() - position;
    size_t length = roaring_bitmap_portable_deserialize_size(bytes.data() + position, remaining);
    if (length == 0 || length > remaining) FailDv(source, "malformed Roaring bitmap");
    roaring_bitmap_t* bitmap =
        roaring_bitmap_portable_deserialize_safe(bytes.data() + position, length);
    if (bitmap == nullptr) FailDv(source, "malformed Roaring bitmap");
    position += length;
    if (roaring_bitmap_is_empty(bitmap)) {
      roaring_bitmap_free(bitmap);
      continue;
    }
    rows.impl_->buckets.emplace(key, bitmap);
  }
  if (position != bytes.size()) FailDv(source, "trailing bytes after the bitmap");
  return rows;
}

std::string DeletedRows::Serialize() const {
  std::string out;
  AppendLittle(out, kPortableMagic, 4);
  uint64_t num_buckets = impl_->buckets.empty() ? 0 : uint64_t(impl_->buckets.rbegin()->first) + 1;
  AppendLittle(out, num_buckets, 8);
  roaring_bitmap_t* empty = roaring_bitmap_create();
  for (uint64_t key = 0; key < num_buckets; ++key) {
    AppendLittle(out, key, 4);
    auto it = impl_->buckets.find(static_cast<uint32_t>(key));
    roaring_bitmap_t* bitmap = it == impl_->buckets.end() ? empty : it->second;
    roaring_bitmap_run_optimize(bitmap);
    size_t size = roaring_bitmap_portable_size_in_bytes(bitmap);
    size_t start = out.size();
    out.resize(start + size);
    roaring_bitmap_portable_serialize(bitmap, out.data() + start);
  }
  roaring_bitmap_free(empty);
  return out;
}

bool DeletedRows::Contains(uint64_t row_index) const {
  auto it = impl_->buckets.find(static_cast<uint32_t>(row_index >> 32));
  return it != impl_->buckets.end() &&
         roaring_bitmap_contains(it->second, static_cast<uint32_t>(row_index));
}

uint64_t DeletedRows::Cardinality() const {
  uint64_t total = 0;
  for (const auto& [key, bitmap] : impl_->buckets) total += roaring_bitmap_get_cardinality(bitmap);
  return total;
}

std::optional<uint64_t> DeletedRows::Maximum() const {
  for (auto it = impl_->buckets.rbegin(); it != impl_->buckets.rend(); ++it) {
    if (!roaring_bitmap_is_empty(it->second)) {
      return (uint64_t(it->first) << 32) | roaring_bitmap_maximum(it->second);
    }
  }
  return std::nullopt;
}

std::vector<uint64_t> DeletedRows::ToVector() const {
  std::vector<uint64_t> result;
  result.reserve(Cardinality());
  for (const auto& [key, bitmap] : impl_->buckets) {
    std::vector<uint32_t> low(roaring_bitmap_get_cardinality(bitmap));
    roaring_bitmap_to_uint32_array(bitmap, low.data());
    for (uint32_t value : low) result.push_back((uint64_t(key) << 32) | value);
  }
  return result;
}

void DeletedRows::FillKeepMask(uint64_t first, uint64_t count, std::vector<bool>& keep) const {
  keep.assign(count, true);
  if (count == 0) return;
  uint64_t last = first + count - 1;
  for (const auto& [key, bitmap] : impl_->buckets) {
    uint64_t base = uint64_t(key) << 32;
    if (base > last || base + 0xffffffffull < first) continue;
    roaring_uint32_iterator_t* it = roaring_create_iterator(bitmap);
    uint32_t low_start = first > base ? static_cast<uint32_t>(first - base) : 0;
    if (roaring_move_uint32_iterator_equalorlarger(it, low_start)) {
      while (it->has_value) {
        uint64_t row = base + it->current_value;
        if (row > last) break;
        keep[row - first] = false;
        roaring_advance_uint32_iterator(it);
      }
    }
    roaring_free_uint32_iterator(it);
  }
}

DeletedRows LoadDeletionVector(io::FileSystem& fs, std::string_view table_root,
                               const DeletionVectorDescriptor& descriptor) {
  std::string description = descriptor.UniqueId();
  // The log parsers refuse these; a descriptor built elsewhere must not wrap the bounds below.
  if (descriptor.size_in_bytes < 0 || (descriptor.offset && *descriptor.offset < 0)) {
    FailDv(description, "has a negative offset or size");
  }
  DeletedRows rows;
  if (descriptor.storage_type == 'i') {
    std::string bytes = Z85Decode(descriptor.path_or_inline_dv);
    if (bytes.size() < static_cast<size_t>(descriptor.size_in_bytes)) {
      SILT_THROW(DELTA_DELETION_VECTOR_SIZE_MISMATCH,
                 {{"path", description},
                  {"expected", std::to_string(descriptor.size_in_bytes)},
                  {"actual", std::to_string(bytes.size())}});
    }
    // Spark pads the last Z85 group with zero bytes; sizeInBytes says where the bitmap ends.
    bytes.resize(static_cast<size_t>(descriptor.size_in_bytes));
    rows = DeletedRows::Deserialize(bytes, description);
  } else {
    std::string path = DeletionVectorPath(descriptor, table_root);
    auto file = fs.OpenRead(path);
    // A record can never start at 0 (the version byte is there), so an absent offset means the
    // first record.
    uint64_t offset = descriptor.offset.value_or(1);
    char version = 0;
    file->ReadExactly(0, 1, &version);
    if (version != 1) FailDv(path, "unsupported DV file version " + std::to_string(int(version)));
    if (offset + 4 + uint64_t(descriptor.size_in_bytes) + 4 > file->Size()) {
      SILT_THROW(DELTA_DELETION_VECTOR_SIZE_MISMATCH,
                 {{"path", path},
                  {"expected", std::to_string(offset + 8 + descriptor.size_in_bytes)},
                  {"actual", std::to_string(file->Size())}});
    }
    std::string record(static_cast<size_t>(descriptor.size_in_bytes) + 8, '\0');
    file->ReadExactly(offset, record.size(), record.data());
    uint32_t stored_size = ReadBig32(record.data());
    if (stored_size != static_cast<uint32_t>(descriptor.size_in_bytes)) {
      SILT_THROW(DELTA_DELETION_VECTOR_SIZE_MISMATCH,
                 {{"path", path},
                  {"expected", std::to_string(descriptor.size_in_bytes)},
                  {"actual", std::to_string(stored_size)}});
    }
    std::string_view bitmap(record.data() + 4, stored_size);
    uint32_t stored_crc = ReadBig32(record.data() + 4 + stored_size);
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(bitmap.data()), static_cast<uInt>(bitmap.size())));
    if (crc != stored_crc) SILT_THROW(DELTA_DELETION_VECTOR_CHECKSUM_MISMATCH, {{"path", path}});
    rows = DeletedRows::Deserialize(bitmap, path);
  }
  uint64_t cardinality = rows.Cardinality();
  if (cardinality != static_cast<uint64_t>(descriptor.cardinality)) {
    SILT_THROW(DELTA_DELETION_VECTOR_CARDINALITY_MISMATCH,
               {{"path", description},
                {"expected", std::to_string(descriptor.cardinality)},
                {"actual", std::to_string(cardinality)}});
  }
  return rows;
}

std::string MakeDeletionVectorRecord(std::string_view bitmap) {
  std::string out;
  out.reserve(bitmap.size() + 8);
  AppendBig32(out, static_cast<uint32_t>(bitmap.size()));
  out += bitmap;
  AppendBig32(out, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bitmap.data()),
                                               static_cast<uInt>(bitmap.size()))));
  return out;
}

std::string MakeDeletionVectorFile(const DeletedRows& rows) {
  std::string out(1, '\x01');
  out += MakeDeletionVectorRecord(rows.Serialize());
  return out;
}

}  // namespace silt::log
