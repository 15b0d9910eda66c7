#include "silt/commands/statement_executor.h"

namespace silt::commands {

int64_t StatementResult::num_rows() const {
  int64_t rows = 0;
  for (const Batch& batch : batches) rows += batch.num_rows();
  return rows;
}

}  // namespace silt::commands
