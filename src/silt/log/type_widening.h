#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "silt/log/actions.h"
#include "silt/types/data_type.h"

namespace silt::log {

// Type widening (protocol "Type Widening"): a column's type may change to a wider one; data files
// keep the type they were written with and readers widen their values. Each change is recorded in
// the `delta.typeChanges` metadata of the nearest struct field.

/// The field metadata key holding a field's type change history.
inline constexpr std::string_view kTypeChangesKey = "delta.typeChanges";

/// True when Delta's type widening allows changing an atomic type `from` to `to`: byte -> short ->
/// int -> long, float -> double, byte/short/int -> double, date -> timestamp_ntz, decimal(p, s) ->
/// decimal(p + k1, s + k2) with k1 >= k2 >= 0, byte/short/int -> decimal with at least 10 integer
/// digits and long -> decimal with at least 20. Equal types count as supported; nested types never
/// are (their members change one by one).
bool IsTypeChangeSupported(const DataType& from, const DataType& to);

/// The subset of IsTypeChangeSupported that schema evolution applies by itself (MERGE with
/// schema evolution writing a wider source type): integer widening, float -> double, decimal
/// widening and date -> timestamp_ntz, as Delta's TypeWidening.isTypeChangeSupportedForSchemaEvolution.
bool IsTypeChangeSupportedForSchemaEvolution(const DataType& from, const DataType& to);

/// `updated` (a new version of `old`'s schema) with each atomic type change from `old`, at any
/// depth (fields matched by name case-insensitively; map keys/values and array elements by
/// position), recorded in `delta.typeChanges` as RecordTypeChange does.
Schema WithTypeChangesRecorded(const Schema& old, const Schema& updated);

/// True when the protocol supports the typeWidening (or typeWidening-preview) feature.
bool IsTypeWideningSupported(const Protocol& protocol);

/// True when the table allows type changes: the feature is supported and
/// `delta.enableTypeWidening` is true.
bool IsTypeWideningEnabled(const Protocol& protocol, const Metadata& metadata);

/// Appends the change `from` -> `to` to the `delta.typeChanges` history of `field`. `field_path`
/// is empty for the field itself, or the path to a map key/value or array element below it
/// ("key", "value", "element", "element.value", ...).
void RecordTypeChange(Field& field, const DataType& from, const DataType& to,
                      std::string_view field_path);

/// True when a field of `schema`, at any depth, records type changes.
bool HasTypeChanges(const Schema& schema);

/// `schema` with every `delta.typeChanges` entry removed, at any depth.
Schema WithoutTypeChanges(const Schema& schema);

/// Refuses a schema recording a type change that is not a supported widening (a non-compliant
/// writer made it, and silt cannot widen old files' values): DELTA_UNSUPPORTED_TYPE_CHANGE_IN_SCHEMA
/// naming the field. Changes between string types are accepted, as Delta accepts them. A history
/// that is not a list of {fromType, toType} objects, or names a type silt does not know, is
/// refused with the same class, quoting what it found.
void CheckTypeChangesReadable(const Schema& schema);

}  // namespace silt::log
