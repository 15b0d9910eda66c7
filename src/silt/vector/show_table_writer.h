#pragma once

#include <string>
#include <vector>

#include "silt/vector/batch.h"

namespace silt {

/// FormatShow's table in parts, for rows that arrive over time (the shell's output of a big
/// result): the column widths are fixed by the rows given first, and a later cell wider than its
/// column is written whole, widening only its own line. Header() + Rows(each batch) + Footer()
/// of every batch at once is FormatShow's text with every row.
class ShowTableWriter {
 public:
  /// Widths for the rows of `first` (its first batch gives the schema), cells cut to `truncate`
  /// characters (0: never).
  ShowTableWriter(const std::vector<Batch>& first, int truncate);
  /// The top border, the column names and the border under them.
  std::string Header() const;
  /// One line per row of `batch`.
  std::string Rows(const Batch& batch) const;
  /// The bottom border.
  std::string Footer() const;

 private:
  int truncate_;
  std::vector<std::string> header_;
  std::vector<size_t> widths_;
};

}  // namespace silt
