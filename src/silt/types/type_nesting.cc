#include "silt/types/type_nesting.h"

#include <algorithm>
#include <string>

#include "silt/base/check.h"

namespace silt {
namespace {

int DepthUpTo(const DataType& type, int limit) {
  if (!type.is_nested()) return 0;
  if (limit <= 0) return 1;
  int deepest = 0;
  for (const Field& field : type.fields()) {
    deepest = std::max(deepest, DepthUpTo(*field.type, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

}  // namespace

int TypeNestingDepth(const DataType& type) { return DepthUpTo(type, kMaxTypeNestingDepth + 1); }

void CheckTypeNesting(const DataType& type) {
  if (TypeNestingDepth(type) > kMaxTypeNestingDepth) {
    // The walk stops counting past the limit, so the message cannot name the exact depth.
    std::string limit = std::to_string(kMaxTypeNestingDepth);
    SILT_THROW(DATATYPE_NESTING_TOO_DEEP, {{"depth", "more than " + limit}, {"limit", limit}});
  }
}

}  // namespace silt
