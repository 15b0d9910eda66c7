#pragma once

// Delta identity columns (protocol "Identity Columns"): a BIGINT column whose metadata holds
// `delta.identity.start`, `delta.identity.step`, `delta.identity.allowExplicitInsert` and, once
// a write generated values, `delta.identity.highWaterMark`. Every write that generates values
// moves the high water mark in its own commit's metaData action, so two writers that generate
// from the same mark conflict (DELTA_METADATA_CHANGED) instead of writing duplicates.
// Private to src/silt/commands.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "silt/log/actions.h"
#include "silt/sql/ast.h"
#include "silt/vector/batch.h"

namespace silt::commands::internal {

/// The column metadata keys of an identity column.
inline constexpr std::string_view kIdentityStartKey = "delta.identity.start";
inline constexpr std::string_view kIdentityStepKey = "delta.identity.step";
inline constexpr std::string_view kIdentityHighWaterMarkKey = "delta.identity.highWaterMark";
inline constexpr std::string_view kIdentityAllowExplicitInsertKey =
    "delta.identity.allowExplicitInsert";

/// True when `field` carries identity metadata.
bool IsIdentityColumn(const Field& field);

/// The identity metadata of a new column declared `spec`: refuses a type other than BIGINT
/// (DELTA_IDENTITY_COLUMNS_UNSUPPORTED_DATA_TYPE) and a step of 0
/// (DELTA_IDENTITY_COLUMNS_ILLEGAL_STEP).
void AddIdentityMetadata(Field& field, const sql::IdentitySpec& spec);

/// Refuses a write that gives values for identity column `field` when it is GENERATED ALWAYS:
/// DELTA_IDENTITY_COLUMNS_EXPLICIT_INSERT_NOT_SUPPORTED.
void CheckExplicitIdentityInsert(const Field& field);

/// Refuses UPDATE / MERGE UPDATE of identity column `field`:
/// DELTA_IDENTITY_COLUMNS_UPDATE_NOT_SUPPORTED.
void CheckIdentityNotUpdated(const Field& field);

/// Generates identity values for one write. Thread-safe: MERGE inserts from several workers.
class IdentityValueGenerator {
 public:
  /// Reads the start, step and high water mark of every identity column of `schema`.
  explicit IdentityValueGenerator(const Schema& schema);

  IdentityValueGenerator(const IdentityValueGenerator&) = delete;
  IdentityValueGenerator& operator=(const IdentityValueGenerator&) = delete;

  /// True when table column `column` is an identity column.
  bool IsIdentity(size_t column) const;

  /// `num_rows` new BIGINT values for identity column `column`, each beyond the high water mark
  /// (start when there is none), `step` apart. Throws ARITHMETIC_OVERFLOW past the BIGINT range.
  VectorPtr Generate(size_t column, int64_t num_rows);

  /// `source` with generated values appended for every identity column whose `mapping` entry is
  /// -1; those entries then point at the appended columns (see RowAssembler::Assemble).
  Batch WithGeneratedColumns(const Batch& source, std::vector<int>& mapping);

  /// True when Generate produced at least one value.
  bool generated_any() const;

  /// Writes the new high water marks into `metadata`'s schema. Returns false (and leaves the
  /// metadata alone) when no value was generated.
  bool UpdateHighWaterMarks(log::Metadata& metadata) const;

 private:
  struct Column {
    size_t index = 0;
    std::string name;
    int64_t start = 1;
    int64_t step = 1;
    std::optional<int64_t> high_water_mark;
    bool generated = false;
  };
  Column* Find(size_t column);

  mutable std::mutex mutex_;
  std::vector<Column> columns_;
};

}  // namespace silt::commands::internal
