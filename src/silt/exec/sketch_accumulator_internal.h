#pragma once

#include <memory>

#include "silt/exec/accumulator.h"

/// Accumulators of the sketch aggregates, whose state and result follow Spark's algorithms to
/// the bit: histogram_numeric and count_min_sketch.
namespace silt::exec {

/// histogram_numeric(value, nb): Ben-Haim and Tom-Tov's streaming histogram of at most nb bins
/// per group, as Spark's NumericHistogram builds it (ties between equally close bins broken by
/// java.util.Random seeded 31183). The result is ARRAY<STRUCT<x, y>>, NULL for a group without
/// values; `call.arguments[1]` must be a literal (PrepareAggregateArguments).
std::unique_ptr<Accumulator> MakeHistogramNumericAccumulator(const AggregateCall& call, const DataTypePtr& value_type);

/// count_min_sketch(value, eps, confidence, seed): Spark's CountMinSketchImpl (version 1), its
/// depth and width from eps and confidence, its hash coefficients from java.util.Random(seed),
/// integers hashed linearly modulo 2^31-1 and strings and binaries by Spark's Murmur3_x86_32;
/// the result is the sketch's serialized bytes (big-endian), also for a group without values.
std::unique_ptr<Accumulator> MakeCountMinSketchAccumulator(const AggregateCall& call, const DataTypePtr& value_type);

}  // namespace silt::exec
