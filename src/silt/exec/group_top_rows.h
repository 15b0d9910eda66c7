#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/exec/operator.h"

namespace silt::exec {

/// The first `limit` rows of every partition under `order_by`, with their row number: what a
/// Window computing only `row_number() OVER (PARTITION BY partition_by ORDER BY order_by)`
/// followed by a filter `row_number <= limit` returns, without sorting the input.
///
/// Partitions group as GROUP BY does (NULL keys form one group, NaN equals NaN); rows compare as
/// CompareRows over `order_by` (an empty `partition_by` is one partition). Rows that tie on
/// every ORDER BY key are kept in arrival order (the child's batch order, then row order), which
/// is the order a stable sort would give them, also when several threads consume the input
/// (over a child that allows parallel pulls, batches are numbered as their pulls return).
///
/// Output: the child's columns then an INT column `row_number_name` (never NULL) holding 1 for
/// the first row of its partition, 2 for the second, ...; rows come out in no particular order.
/// Memory: the rows that are among the first `limit` of their partition when they arrive (copied
/// out of their batch), compacted as they are displaced; never the whole input. Uses
/// ExecContext::Parallelism() threads when the child allows parallel pulls (a scan), else half
/// of them (at least one), each pulling batches from the child and offering their rows to hash
/// tables sharded by partition key.
///
/// `limit` must be at least 1 and columns must exist and be orderable (the caller checked;
/// INTERNAL_ERROR / DATATYPE_MISMATCH otherwise).
OperatorPtr MakeGroupTopRows(OperatorPtr child, std::vector<int> partition_by,
                             std::vector<SortKey> order_by, int64_t limit,
                             std::string row_number_name);

}  // namespace silt::exec
