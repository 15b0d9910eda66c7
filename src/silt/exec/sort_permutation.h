#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/vector/batch.h"
#include "silt/vector/take.h"
#include "silt/vector/vector.h"

/// Sorting by index: the row order of sort keys, and gathering rows in that order.
namespace silt::exec {

/// Returns the row numbers [0, num_rows) ordered by `keys` over `columns` (each of num_rows
/// rows; keys refer to them by index), Spark's order as CompareRows, ties kept in row order
/// (stable). Keys of fixed-width types are encoded into normalised 64-bit words so that most
/// sorts compare plain integers; other keys fall back to CompareValues. With `limit`, only the
/// first `limit` rows of the order are returned (a partial sort). Uses up to
/// context.Parallelism() threads for large inputs; `context` may be null (one thread).
std::vector<int64_t> SortPermutation(const std::vector<VectorPtr>& columns, int64_t num_rows,
                                     const std::vector<SortKey>& keys, const ExecContext* context,
                                     std::optional<int64_t> limit = std::nullopt);

/// A row of input kept as the batches it arrived in: the batch's index and the row within it.
struct PieceRow {
  uint32_t piece = 0;
  uint32_t row = 0;
};

/// Row numbers counted across `batches` in order (as if concatenated), as (batch, row) pairs.
/// Uses up to context->Parallelism() threads for many rows; `context` may be null.
std::vector<PieceRow> LocateRows(const std::vector<Batch>& batches, const int64_t* rows,
                                 int64_t count, const ExecContext* context = nullptr);

/// Column `column` of `batches` at `rows` (from LocateRows), without concatenating the batches.
VectorPtr GatherPieceRows(const std::vector<Batch>& batches, size_t column, const PieceRow* rows,
                          int64_t count);

/// The given columns of `batches`, each concatenated into one vector (a column per task).
std::vector<VectorPtr> ConcatenateColumns(const std::vector<Batch>& batches,
                                          const std::vector<int>& columns, ExecContext& context);

/// ConcatenateBatches with one column per task on up to context.Parallelism() threads. `batches`
/// must share a schema and not be empty.
Batch ConcatenateInParallel(const std::vector<Batch>& batches, ExecContext& context);

}  // namespace silt::exec
