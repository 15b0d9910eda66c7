#include "silt/session.h"

namespace silt {

int64_t StatementOutput::num_rows() const {
  int64_t rows = 0;
  for (const Batch& batch : batches_) rows += batch.num_rows();
  return rows;
}

}  // namespace silt
