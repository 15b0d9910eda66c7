#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::tpch {

// A TPC-H data generator written from the specification's description of the data (clause 4.2):
// the eight tables with their keys, cardinalities per scale factor, value domains and the words
// the 22 queries look for, as Delta tables written through silt's log writer. Values come from a
// hash of (seed, table, row), so a seed gives the same tables on every machine and thread count.
// It is not TPC's dbgen: the comments are drawn from a text pool of its own, so the exact rows
// (and so the queries' exact answers) differ from dbgen's, while every query finds rows.

/// What to generate.
struct GenerateOptions {
  /// TPC-H's scale factor: 1 is about 1 GB of text (6,001,215-ish lineitem rows). Must be > 0.
  double scale_factor = 1.0;
  /// Different seeds give different (equally valid) tables.
  uint64_t seed = 0;
};

/// One table written.
struct GeneratedTable {
  std::string name;  ///< region, nation, supplier, part, partsupp, customer, orders, lineitem
  std::string path;  ///< The Delta table's root.
  int64_t rows = 0;
  int64_t files = 0;
};

/// The eight tables' names, in the order Generate writes them.
const std::vector<std::string>& TableNames();

/// Writes the eight tables as Delta tables `folder/<name>` (one commit each, data files written
/// in parallel on silt's thread pool) and returns what was written. Throws
/// INVALID_PARAMETER_VALUE for a scale factor that is not positive or so large that keys would
/// not fit, DELTA_TABLE_ALREADY_EXISTS when a table folder already holds a Delta log, and what
/// the file system and the Parquet writer throw.
std::vector<GeneratedTable> Generate(std::shared_ptr<io::FileSystem> fs, const std::string& folder,
                                     const GenerateOptions& options);

}  // namespace silt::tpch
