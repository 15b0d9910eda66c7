#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace silt::cdc {

/// A query result (libpq's PGresult), freed on destruction.
class PostgresResult {
 public:
  explicit PostgresResult(pg_result* result) : result_(result) {}
  ~PostgresResult();
  PostgresResult(PostgresResult&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  PostgresResult& operator=(PostgresResult&&) = delete;
  PostgresResult(const PostgresResult&) = delete;

  int rows() const;
  int columns() const;
  bool IsNull(int row, int column) const;
  std::string_view Value(int row, int column) const;

 private:
  pg_result* result_;
};

/// One libpq connection, closed on destruction. Every failure throws CDC_SOURCE_CONNECTION_FAILED
/// (connecting) or CDC_SOURCE_FAILED (a statement), with the server's message and the source
/// described without its password.
class PostgresConnection {
 public:
  /// `connection` is a libpq connection string or URI ("postgresql://user@host:5432/db").
  /// `replication` opens a logical replication connection (replication=database). The session
  /// runs with TimeZone UTC, DateStyle ISO and full float precision, the forms the value parser
  /// reads.
  static std::unique_ptr<PostgresConnection> Open(const std::string& connection, bool replication);
  ~PostgresConnection();
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  /// Runs a statement (or replication command) that returns rows or nothing.
  PostgresResult Execute(const std::string& statement);
  /// Runs a statement with text parameters $1, $2, ...
  PostgresResult Execute(const std::string& statement, const std::vector<std::string>& parameters);
  std::string QuoteIdentifier(std::string_view name);
  std::string QuoteLiteral(std::string_view value);

  // The COPY BOTH stream of START_REPLICATION.
  /// Starts streaming (`command` is a START_REPLICATION command).
  void StartCopyBoth(const std::string& command);
  /// The next frame of the stream, waiting at most `timeout_ms` for one; nullopt on timeout.
  std::optional<std::string> ReadCopyData(int timeout_ms);
  void WriteCopyData(std::string_view data);

  /// False once the connection to the server is lost.
  bool IsAlive() const;

  /// For messages: the server without credentials, "host:port/db".
  const std::string& description() const { return description_; }

 private:
  PostgresConnection(pg_conn* conn, std::string description)
      : conn_(conn), description_(std::move(description)) {}
  [[noreturn]] void ThrowFailure(const std::string& what);

  pg_conn* conn_;
  std::string description_;
};

}  // namespace silt::cdc
