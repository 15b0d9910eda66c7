#pragma once

// Z-order (Morton order) of table rows over several columns, as OPTIMIZE ZORDER BY uses it: each
// column's values are replaced by their rank among the column's distinct values (NULLs first),
// the ranks are scaled to the same number of bits, and the bits of all columns are interleaved,
// most significant first. Rows close in every column end up close in the order, so the min/max
// ranges of each column per output file stay narrow.

#include <cstdint>
#include <vector>

#include "silt/vector/vector.h"

namespace silt::log {

/// Interleaves the low `bits_per_value` bits of each of `values` (at most 64 bits in all),
/// most significant bit first, the first value's bit leading within each bit position.
uint64_t InterleaveBits(const std::vector<uint64_t>& values, int bits_per_value);

/// The Z-order key of each row of `columns` (equally long, at least one). Types: boolean,
/// integers, float/double (NaN above everything, -0.0 = 0.0), decimal, date, timestamp[_ntz],
/// string and binary (byte order); anything else throws UNSUPPORTED_DATA_TYPE.
std::vector<uint64_t> ZOrderKeys(const std::vector<VectorPtr>& columns);

/// The row order that sorts rows by their Z-order key (ties keep their input order).
std::vector<int64_t> ZOrderPermutation(const std::vector<VectorPtr>& columns);

/// The position along the Hilbert curve of the point with coordinates `values` (each below
/// 2^bits_per_value; `bits_per_value` times the number of values at most 64). Consecutive
/// positions are neighbouring points, which keeps each stretch of the curve compact in every
/// dimension, unlike Z-order's jumps.
uint64_t HilbertIndex(std::vector<uint64_t> values, int bits_per_value);

/// The Hilbert key of each row of `columns` (two or more, equally long): ranks scaled as for
/// Z-order, then HilbertIndex. Types as for ZOrderKeys.
std::vector<uint64_t> HilbertKeys(const std::vector<VectorPtr>& columns);

/// The row order liquid clustering writes, as Delta chooses its curve: by value for one column,
/// along the Hilbert curve for two or more (ties keep their input order).
std::vector<int64_t> ClusteringPermutation(const std::vector<VectorPtr>& columns);

}  // namespace silt::log
