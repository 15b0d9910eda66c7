#include "silt/expr/value_size.h"

#include <string>

#include "silt/base/check.h"

namespace silt::expr {

void CheckValueSize(std::string_view what, uint64_t bytes, uint64_t limit) {
  if (bytes <= limit) [[likely]] {
    return;
  }
  SILT_THROW(VALUE_SIZE_LIMIT_EXCEEDED, {{"what", std::string(what)},
                                         {"size", std::to_string(bytes)},
                                         {"limit", std::to_string(limit)}});
}

}  // namespace silt::expr
