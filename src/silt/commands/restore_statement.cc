// RESTORE: not built yet.

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"

namespace silt::commands::internal {

StatementResult ExecuteRestore(sql::SessionState&, const sql::Statement&) {
  SILT_THROW(NOT_IMPLEMENTED, {{"feature", "RESTORE"}});
}

}  // namespace silt::commands::internal
