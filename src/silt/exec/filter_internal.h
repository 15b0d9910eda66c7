#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/expr/expression.h"
#include "silt/vector/batch.h"
#include "silt/vector/take.h"

// Row selection and plan text shared by the row operators and scans.
namespace silt::exec {

/// Rows `rows` of every column of `batch`, relabelled with `schema` (same types).
Batch GatherBatchRows(const Batch& batch, const std::vector<int64_t>& rows, SchemaPtr schema);

/// The rows of `batch` whose `keep` byte is non-zero; the batch itself when all are kept.
Batch SelectRows(const Batch& batch, const std::vector<uint8_t>& keep);

/// The rows of `batch` for which `predicate` is TRUE, with the rows and errors of evaluating the
/// whole predicate. A chain of ANDs goes one conjunct at a time: each sees only the rows that no
/// earlier conjunct made FALSE (compacted when few remain), so a selective first conjunct spares
/// the work of the rest.
///
/// With `selection`, a batch of which at least half the rows pass is not compacted: the batch
/// (after any compaction between conjuncts) comes back with its passing rows marked in
/// `*selection` (see SelectedBatch); `*selection` is left empty otherwise.
Batch FilterBatch(const expr::Expression& predicate, const Batch& batch, expr::EvalContext& eval,
                  std::vector<uint8_t>* selection = nullptr);

/// Whether `expression` may be computed for the rows a selection drops without changing what
/// the kept rows see: deterministic, and without function calls (whose kernels need not all
/// confine their errors to the rows of a mask).
bool EvaluableUnderSelection(const expr::Expression& expression);

/// `expression` as plan text with its columns named after `schema`: "(a#0 > 1)".
std::string ExpressionText(const expr::Expression& expression, const Schema& schema);

/// "a#0, b#1" for the fields of `schema` (or just "a, b" when `with_index` is false).
std::string ColumnListText(const Schema& schema, bool with_index);

}  // namespace silt::exec
