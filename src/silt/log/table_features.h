#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "silt/log/actions.h"

namespace silt::log {

// Protocol versions and table features (protocol §12 "Table features").

/// The highest versions silt understands.
constexpr int32_t kMaxReaderVersion = 3;
constexpr int32_t kMaxWriterVersion = 7;

/// Column-mapping mode (`delta.columnMapping.mode`).
enum class ColumnMappingMode { kNone, kName, kId };

/// One known feature and what silt does with it.
struct TableFeatureInfo {
  std::string_view name;
  bool reader_writer;   ///< A reader-writer feature (else writer-only).
  int32_t legacy_min_reader;  ///< Legacy reader version implying it (0: never implied).
  int32_t legacy_min_writer;  ///< Legacy writer version implying it (0: never implied).
  bool read_supported;  ///< silt reads tables using it correctly.
  bool write_supported;  ///< silt's write path honours it.
};

/// The registry of features silt knows, or nullptr.
const TableFeatureInfo* FindTableFeature(std::string_view name);

/// The reader features in effect: `readerFeatures` at reader version 3, otherwise the features
/// implied by the legacy reader version (2 -> columnMapping).
std::vector<std::string> EffectiveReaderFeatures(const Protocol& protocol);

/// The writer features in effect: `writerFeatures` at writer version 7, otherwise the legacy set
/// implied by the version (2: appendOnly, invariants; 3: + checkConstraints; 4: + changeDataFeed,
/// generatedColumns; 5: + columnMapping; 6: + identityColumns).
std::vector<std::string> EffectiveWriterFeatures(const Protocol& protocol);

/// True when `feature` is in effect for readers or writers of `protocol`.
bool IsFeatureSupported(const Protocol& protocol, std::string_view feature);

/// Refuses to read a table silt cannot read correctly: throws DELTA_INVALID_PROTOCOL_VERSION when
/// minReaderVersion > 3 (or < 1), and DELTA_UNSUPPORTED_FEATURES_FOR_READ naming every reader
/// feature that is unknown or unsupported. `table` names the table in the message.
void CheckReadSupported(const Protocol& protocol, std::string_view table);

/// True when `feature` is in use by the table described by `metadata` (protocol §12 "active"):
/// e.g. invariants when a column has `delta.invariants`, changeDataFeed when
/// `delta.enableChangeDataFeed=true`. Features without a known condition count as active.
bool IsFeatureActive(std::string_view feature, const Metadata& metadata);

/// Refuses to write: the read check, then DELTA_INVALID_PROTOCOL_VERSION when minWriterVersion
/// > 7, and DELTA_UNSUPPORTED_FEATURES_FOR_WRITE naming every feature in effect (writer or
/// reader) that silt's commit path does not implement and that is active for `metadata`.
/// `enforced_by_writer` names features the calling writer enforces itself (the SQL statements
/// check CHECK constraints and compute generated columns), which are then writable.
void CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                         std::string_view table,
                         const std::vector<std::string>& enforced_by_writer = {});

/// The table's column-mapping mode from its configuration; an unknown value throws
/// DELTA_INVALID_LOG_ENTRY (it would make every column unresolvable).
ColumnMappingMode GetColumnMappingMode(const Metadata& metadata);

}  // namespace silt::log
