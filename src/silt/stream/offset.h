#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace silt::stream {

/// The Delta source's position in its table, as Delta writes it in a checkpoint's offsets file:
/// `{"sourceVersion":1,"reservoirId":"<table id>","reservoirVersion":N,"index":I,
/// "isStartingVersion":B}`. Persisted; never change the field names or their meaning.
///
/// It names the last file a batch read: every file of the versions before `reservoir_version`
/// and the files of `reservoir_version` with an index up to `index` have been read. `index` is
/// kBaseIndex when none of that version has. With `is_starting_version` the version is the
/// initial snapshot (its files indexed in Delta's order: modification time, then path);
/// otherwise it is the commit of that version (its `add` actions with `dataChange` indexed from
/// 0 in log order, excluded files included, as Delta's DeltaSource counts them). A batch that
/// reads a version to its end names the next version at kBaseIndex, not the version's last
/// index, as Delta bumps its END_INDEX.
///
/// Delta (3.x and later) keeps in memory a base index of -100 and indexes -20 / -19 for a
/// metadata change at the start of a version (schema tracking), which it writes with
/// `sourceVersion` 3; all three name a position before the version's first file, so Parse reads
/// them as kBaseIndex, and ToJson always writes Delta's serialised base index -1 with
/// `sourceVersion` 1, as Delta does. A checkpoint therefore moves between silt and Delta.
struct DeltaSourceOffset {
  static constexpr int64_t kSourceVersion = 1;
  static constexpr int64_t kMetadataChangeSourceVersion = 3;
  static constexpr int64_t kBaseIndex = -1;
  static constexpr int64_t kBaseIndexV3 = -100;
  static constexpr int64_t kMetadataChangeIndex = -20;
  static constexpr int64_t kPostMetadataChangeIndex = -19;

  std::string reservoir_id;
  int64_t reservoir_version = 0;
  int64_t index = kBaseIndex;
  bool is_starting_version = false;

  /// The JSON text, fields in Delta's order.
  std::string ToJson() const;
  /// Parses the JSON text. Throws DELTA_INVALID_SOURCE_OFFSET_FORMAT for text that is not such
  /// an object and DELTA_INVALID_SOURCE_VERSION for a sourceVersion other than 1 and 3.
  static DeltaSourceOffset Parse(std::string_view json);

  bool operator==(const DeltaSourceOffset&) const = default;
};

}  // namespace silt::stream
