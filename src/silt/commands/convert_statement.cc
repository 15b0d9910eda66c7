// CONVERT TO DELTA: not built yet.

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"

namespace silt::commands::internal {

StatementResult ExecuteConvertToDelta(sql::SessionState&, const sql::Statement&) {
  SILT_THROW(NOT_IMPLEMENTED, {{"feature", "CONVERT TO DELTA"}});
}

}  // namespace silt::commands::internal
