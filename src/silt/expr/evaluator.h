#pragma once

#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/expr/expression.h"
#include "silt/vector/batch.h"

namespace silt::expr {

/// Evaluates `expression` over every row of `batch` and returns a vector of batch.num_rows()
/// values of expression.type(). Work is done a column at a time with typed loops; CASE, IF,
/// AND, OR and COALESCE only let rows they select raise errors (Spark's short-circuit
/// semantics). Row errors are collected in `context` and the first is thrown once the batch is
/// done (ANSI mode), as silt::Error of its class (DIVIDE_BY_ZERO, CAST_INVALID_INPUT, ...).
/// Column references must match the batch (INTERNAL_ERROR otherwise). Thread-safe for distinct
/// contexts; expressions are immutable.
VectorPtr Evaluate(const Expression& expression, const Batch& batch, EvalContext& context);

/// As Evaluate, but errors are recorded (not thrown) and only for rows in `mask`. For kernels
/// and operators that evaluate sub-expressions on a subset of rows.
VectorPtr EvaluateMasked(const Expression& expression, const Batch& batch, EvalContext& context,
                         RowMask mask);

/// Evaluates a boolean predicate and returns, per row, whether it is TRUE (NULL and FALSE both
/// give 0), as a filter needs.
std::vector<uint8_t> EvaluateFilter(const Expression& predicate, const Batch& batch,
                                    EvalContext& context);

/// Builds a boolean vector from one byte per row (`values`) and optional validity bytes
/// (`valid`, null = all valid). For kernels.
VectorPtr MakeBooleanVector(const uint8_t* values, const uint8_t* valid, int64_t num_rows);

/// Compares two vectors of one type row by row with `op`'s semantics (floating NaN equals NaN
/// and sorts above every number, as in Spark) and returns a boolean vector. For IN and kernels.
VectorPtr CompareVectors(ComparisonOperator op, const Vector& left, const Vector& right);

}  // namespace silt::expr
