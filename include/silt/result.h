#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace silt {

namespace api {
struct Access;
}

/// One column of a result or a DataFrame.
struct ColumnInfo {
  /// The name as Spark shows it: the alias, the column name, or the expression text.
  std::string name;
  /// Spark's simple type name: "bigint", "int", "string", "decimal(10,2)", "date", "timestamp",
  /// "timestamp_ntz", "array<int>", "struct<a:int,b:string>", "map<string,int>".
  std::string type;
  bool nullable = true;

  bool operator==(const ColumnInfo& other) const {
    return name == other.name && type == other.type && nullable == other.nullable;
  }
  bool operator!=(const ColumnInfo& other) const { return !(*this == other); }
};

class Row;

/// The rows one statement returned, all in memory. Statements that return nothing (CREATE TABLE,
/// SET key=value, ...) give a result without columns and rows. Immutable; copies share the rows;
/// thread-safe for reads.
class Result {
 public:
  /// A result without columns or rows.
  Result();

  /// False for statements that return nothing, true for every query (even one of zero rows).
  bool has_columns() const;
  const std::vector<ColumnInfo>& columns() const;
  /// The index of the first column named `name` (compared case-insensitively, as Spark resolves
  /// names). Throws UNRESOLVED_COLUMN when there is none.
  size_t ColumnIndex(std::string_view name) const;

  int64_t num_rows() const;
  /// Row `index` (0-based). Throws INVALID_ARGUMENT when it is not below num_rows().
  Row row(int64_t index) const;

  /// The rows as Spark's show(max_rows, truncate) prints them: a table with +---+ borders, cells
  /// cut to `truncate` characters (0: never), at most `max_rows` rows, then the line
  /// "only showing top N rows" when some were left out. Empty for a result without columns.
  std::string Show(int64_t max_rows = 20, int truncate = 20) const;

  /// The statement's source text (empty for a default-constructed result).
  const std::string& statement_text() const;

  /// Iterates the rows in order: `for (const silt::Row& row : result)`.
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  friend class Row;
  friend struct api::Access;
  struct Impl;
  explicit Result(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<const Impl> impl_;
};

/// The rows of one query as the engine produces them: made by Session::ExecuteStream and
/// DataFrame::Stream. The query is planned when the stream is made (analysis errors throw
/// then) and runs on a thread of its own, at most a few batches ahead of the reader, so the
/// first rows arrive before the last are produced and memory stays bounded whatever the size of
/// the result. The stream holds what the query needs (its plan, the table versions it reads,
/// the session's state), so it may outlive the Session and DataFrame it came from.
///
/// Dropping the stream before its end stops the query: its threads have ended, its memory and
/// spill files are released when the destructor returns. Movable, not copyable. One thread at a
/// time calls Next and Close; Cancel may be called from any thread.
class ResultStream {
 public:
  ResultStream(ResultStream&& other) noexcept;
  ResultStream& operator=(ResultStream&& other) noexcept;
  ResultStream(const ResultStream&) = delete;
  ResultStream& operator=(const ResultStream&) = delete;
  /// Stops the query when it has not ended (as Close does).
  ~ResultStream();

  /// False for statements that return nothing, true for every query (even one of zero rows).
  bool has_columns() const;
  const std::vector<ColumnInfo>& columns() const;
  /// The statement's source text.
  const std::string& statement_text() const;

  /// Waits for the next rows the query produces and returns them (one batch of the engine's, at
  /// least one row) as a Result of their own; nullopt once every row was returned, and after
  /// Close. Throws the query's error with its class (DIVIDE_BY_ZERO, EXEC_MEMORY_LIMIT_EXCEEDED,
  /// ...) once the rows produced before it were returned, and OPERATION_CANCELED after Cancel or
  /// Session::Cancel; the stream has ended then.
  std::optional<Result> Next();

  /// Asks the query to stop; the next Next throws OPERATION_CANCELED. Safe from any thread.
  void Cancel() noexcept;

  /// Stops the query if it is still running and waits until its threads have ended and its
  /// memory and spill files are released. Next then returns nullopt. Safe to call twice.
  void Close();

 private:
  friend struct api::Access;
  struct Impl;
  explicit ResultStream(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

/// One row of a Result: a cheap handle that keeps the result's rows alive. Columns are numbered
/// from 0 in the order of Result::columns().
///
/// The typed getters read a value of the matching type and throw silt::Error with class
/// INVALID_ARGUMENT when the column does not exist, holds another type, or is NULL in this row
/// (check IsNull first). ToString reads any value. Thread-safe for reads.
class Row {
 public:
  /// The number of columns.
  size_t size() const;

  bool IsNull(size_t column) const;
  /// tinyint, smallint, int or bigint.
  int64_t GetInt64(size_t column) const;
  /// float or double.
  double GetDouble(size_t column) const;
  /// string (UTF-8) or binary (the raw bytes).
  std::string GetString(size_t column) const;
  /// boolean.
  bool GetBool(size_t column) const;
  /// date: days since 1970-01-01.
  int32_t GetDate(size_t column) const;
  /// timestamp: microseconds since 1970-01-01 00:00:00 UTC (the instant, whatever the session
  /// time zone); timestamp_ntz: microseconds since 1970-01-01 00:00:00 of the wall clock.
  int64_t GetTimestamp(size_t column) const;
  /// The value as Spark's show() prints it: "NULL", "true", "1.50" for decimal(3,2),
  /// "2024-01-31", timestamps as wall-clock time of the session time zone in effect when the
  /// statement ran ("2024-01-31 12:00:00.5"), doubles as Java prints them ("1.0E-4"), binary as
  /// "[01 FF]", arrays "[1, 2]", structs "{1, a}", maps "{a -> 1}". Decimals are exact here.
  std::string ToString(size_t column) const;

 private:
  friend class Result;
  friend class Result::Iterator;
  Row(std::shared_ptr<const Result::Impl> impl, size_t batch, int64_t row)
      : impl_(std::move(impl)), batch_(batch), row_(row) {}

  std::shared_ptr<const Result::Impl> impl_;
  size_t batch_ = 0;  // which batch of the result
  int64_t row_ = 0;   // the row within that batch
};

class Result::Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Row;
  using difference_type = std::ptrdiff_t;
  using pointer = const Row*;
  using reference = const Row&;

  const Row& operator*() const { return row_; }
  const Row* operator->() const { return &row_; }
  Iterator& operator++();
  Iterator operator++(int) {
    Iterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const Iterator& other) const {
    return row_.batch_ == other.row_.batch_ && row_.row_ == other.row_.row_;
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  friend class Result;
  explicit Iterator(Row row) : row_(std::move(row)) {}
  Row row_;
};

}  // namespace silt
