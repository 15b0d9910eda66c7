#pragma once

#include "silt/types/data_type.h"

namespace silt {

/// The most levels of STRUCT, ARRAY and MAP one column type may nest. A table's schema is
/// stored as Delta's schema JSON, where each STRUCT level costs three JSON levels and ARRAY or
/// MAP one, and silt reads schema JSON at most 256 levels deep (deeper is a corrupt log):
/// 3 (the table's struct) + 3 * 64 leaves room for field metadata.
inline constexpr int kMaxTypeNestingDepth = 64;

/// The levels of STRUCT, ARRAY and MAP in `type`: 0 for a primitive type, 1 for array<int>.
/// Stops counting past kMaxTypeNestingDepth + 1, so the walk stays short on any type.
int TypeNestingDepth(const DataType& type);

/// Throws DATATYPE_NESTING_TOO_DEEP (a user error) when `type` nests deeper than
/// kMaxTypeNestingDepth.
void CheckTypeNesting(const DataType& type);

}  // namespace silt
