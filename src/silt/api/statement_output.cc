#include "silt/api/session_internal.h"
#include "silt/vector/local_time.h"

namespace silt {

int64_t StatementOutput::num_rows() const {
  int64_t rows = 0;
  for (const Batch& batch : batches_) rows += batch.num_rows();
  return rows;
}

std::vector<Batch> StatementOutput::DisplayBatches() const {
  if (!time_zone_) return batches_;
  return TimestampsAsLocalTime(batches_, *time_zone_);
}

}  // namespace silt
