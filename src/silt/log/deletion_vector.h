#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"

namespace silt::log {

// Deletion vectors (protocol §14; docs/format/delta-log.md "Deletion vectors").

/// Decodes Z85 text. Accepts Spark's form (a multiple of 5 characters, zero-padded data) and the
/// Rust z85 crate's short last group (k leading '#' characters mean k bytes are missing).
/// Throws DELTA_INVALID_DELETION_VECTOR on a character outside the alphabet or a bad length.
std::string Z85Decode(std::string_view text);

/// Encodes `bytes` as Z85, zero-padding the last group to 4 bytes as Spark does.
std::string Z85Encode(std::string_view bytes);

/// Formats 16 bytes (most-significant first) as a canonical lower-case 8-4-4-4-12 UUID.
std::string FormatUuid(std::string_view bytes16);

/// The file of a storage-type 'u' or 'p' descriptor: for 'u', `<table_root>/<prefix>/
/// deletion_vector_<uuid>.bin` (no prefix: the table root); for 'p', the decoded absolute URI
/// (a "file:" scheme is stripped). Throws DELTA_INVALID_DELETION_VECTOR for inline descriptors or
/// a malformed path.
std::string DeletionVectorPath(const DeletionVectorDescriptor& descriptor,
                               std::string_view table_root);

/// The set of deleted row indexes of one data file (0-based physical positions). Move-only;
/// immutable after construction, so const methods are safe from several threads.
class DeletedRows {
 public:
  DeletedRows();
  ~DeletedRows();
  DeletedRows(DeletedRows&&) noexcept;
  DeletedRows& operator=(DeletedRows&&) noexcept;
  DeletedRows(const DeletedRows&) = delete;
  DeletedRows& operator=(const DeletedRows&) = delete;

  /// Builds the set from row indexes (any order, duplicates allowed). Throws
  /// DELTA_INVALID_DELETION_VECTOR for an index of 2^63 or more.
  static DeletedRows FromIndexes(const std::vector<uint64_t>& indexes);

  /// Returns the union of this set and `indexes` (any order, duplicates allowed); this set is
  /// unchanged. Throws DELTA_INVALID_DELETION_VECTOR for an index of 2^63 or more.
  DeletedRows WithIndexes(const std::vector<uint64_t>& indexes) const;

  /// Parses a serialised RoaringBitmapArray: the "portable" format (magic 1681511377, 64-bit
  /// bucket count, then per bucket a 32-bit key and a standard portable 32-bit Roaring bitmap).
  /// The whole input must be consumed. Throws DELTA_INVALID_DELETION_VECTOR naming `source`.
  static DeletedRows Deserialize(std::string_view bytes, std::string_view source);

  /// Serialises in the portable format, writing every bucket from 0 to the highest key (empty
  /// ones included) as Spark does.
  std::string Serialize() const;

  bool Contains(uint64_t row_index) const;
  uint64_t Cardinality() const;
  /// The highest deleted index; nullopt for an empty set.
  std::optional<uint64_t> Maximum() const;
  /// The deleted indexes in ascending order.
  std::vector<uint64_t> ToVector() const;
  /// Marks rows [first, first + count) that are deleted: keep[i] is false for deleted row
  /// first + i, true otherwise.
  void FillKeepMask(uint64_t first, uint64_t count, std::vector<bool>& keep) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Loads the deleted rows of `descriptor`: decodes an inline bitmap, or reads the record at
/// `offset` (absent: 1) of the DV file, verifying the big-endian size prefix against
/// sizeInBytes, the CRC-32 that follows the bitmap, and finally the cardinality. Throws
/// DELTA_DELETION_VECTOR_SIZE_MISMATCH / _CHECKSUM_MISMATCH / _CARDINALITY_MISMATCH,
/// DELTA_INVALID_DELETION_VECTOR for malformed bytes, PATH_NOT_FOUND when the file is missing.
DeletedRows LoadDeletionVector(io::FileSystem& fs, std::string_view table_root,
                               const DeletionVectorDescriptor& descriptor);

/// Builds one record of a DV file for the serialised bitmap `bitmap`: its big-endian size, the
/// bytes, and their big-endian CRC-32 (zlib/IEEE). The record's offset in the file is what a
/// descriptor's `offset` names.
std::string MakeDeletionVectorRecord(std::string_view bitmap);

/// Builds the bytes of a DV file holding one record (version byte, size, bitmap, CRC) for
/// `rows`; the record starts at offset 1. For writers and tests.
std::string MakeDeletionVectorFile(const DeletedRows& rows);

}  // namespace silt::log
