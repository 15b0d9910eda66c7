#include "silt/cdc/postgres_connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "silt/base/error_class.h"

namespace silt::cdc {

PostgresResult::~PostgresResult() {
  if (result_ != nullptr) PQclear(result_);
}
int PostgresResult::rows() const { return PQntuples(result_); }
int PostgresResult::columns() const { return PQnfields(result_); }
bool PostgresResult::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
std::string_view PostgresResult::Value(int row, int column) const {
  return std::string_view(PQgetvalue(result_, row, column),
                          static_cast<size_t>(PQgetlength(result_, row, column)));
}

namespace {

std::string TrimmedMessage(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::unique_ptr<PostgresConnection> PostgresConnection::Open(const std::string& connection,
                                                             bool replication) {
  // expand_dbname: `dbname` is the whole connection string or URI; the keys after it add to it.
  std::vector<const char*> keys = {"dbname", "options", "application_name", "connect_timeout"};
  std::vector<const char*> values = {connection.c_str(),
                                     "-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3 "
                                     "-c IntervalStyle=postgres -c bytea_output=hex",
                                     "silt", "10"};
  if (replication) {
    keys.push_back("replication");
    values.push_back("database");
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  pg_conn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  std::string description;
  if (conn != nullptr) {
    const char* host = PQhost(conn);
    const char* port = PQport(conn);
    const char* db = PQdb(conn);
    description = std::string(host ? host : "") + ":" + (port ? port : "") + "/" + (db ? db : "");
  }
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message = conn == nullptr ? "out of memory" : TrimmedMessage(PQerrorMessage(conn));
    if (conn != nullptr) PQfinish(conn);
    throw MakeError(ErrorClass::CDC_SOURCE_CONNECTION_FAILED,
                    {{"source", "PostgreSQL " + description}, {"message", message}});
  }
  return std::unique_ptr<PostgresConnection>(new PostgresConnection(conn, std::move(description)));
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

bool PostgresConnection::IsAlive() const { return PQstatus(conn_) == CONNECTION_OK; }

void PostgresConnection::ThrowFailure(const std::string& what) {
  throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                  {{"source", "PostgreSQL " + description_},
                   {"message", what + ": " + TrimmedMessage(PQerrorMessage(conn_))}});
}

PostgresResult PostgresConnection::Execute(const std::string& statement) {
  return Execute(statement, {});
}

PostgresResult PostgresConnection::Execute(const std::string& statement,
                                           const std::vector<std::string>& parameters) {
  pg_result* result;
  if (parameters.empty()) {
    result = PQexec(conn_, statement.c_str());
  } else {
    std::vector<const char*> values;
    for (const std::string& parameter : parameters) values.push_back(parameter.c_str());
    result = PQexecParams(conn_, statement.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0);
  }
  PostgresResult owned(result);
  ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    std::string first_line = statement.substr(0, statement.find('\n'));
    if (first_line.size() > 80) first_line = first_line.substr(0, 80) + "...";
    throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                    {{"source", "PostgreSQL " + description_},
                     {"message", first_line + ": " + TrimmedMessage(PQresultErrorMessage(result))}});
  }
  return owned;
}

std::string PostgresConnection::QuoteIdentifier(std::string_view name) {
  char* quoted = PQescapeIdentifier(conn_, name.data(), name.size());
  if (quoted == nullptr) ThrowFailure("quoting an identifier");
  std::string text = quoted;
  PQfreemem(quoted);
  return text;
}

std::string PostgresConnection::QuoteLiteral(std::string_view value) {
  char* quoted = PQescapeLiteral(conn_, value.data(), value.size());
  if (quoted == nullptr) ThrowFailure("quoting a literal");
  std::string text = quoted;
  PQfreemem(quoted);
  return text;
}

void PostgresConnection::StartCopyBoth(const std::string& command) {
  pg_result* result = PQexec(conn_, command.c_str());
  PostgresResult owned(result);
  if (PQresultStatus(result) != PGRES_COPY_BOTH) {
    throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                    {{"source", "PostgreSQL " + description_},
                     {"message", "START_REPLICATION: " + TrimmedMessage(PQresultErrorMessage(result))}});
  }
}

std::optional<std::string> PostgresConnection::ReadCopyData(int timeout_ms) {
  for (bool waited = false;; waited = true) {
    char* buffer = nullptr;
    int length = PQgetCopyData(conn_, &buffer, /*async=*/1);
    if (length > 0) {
      std::string frame(buffer, static_cast<size_t>(length));
      PQfreemem(buffer);
      return frame;
    }
    if (length == -1) {
      // The server ended the stream: fetch its reason.
      pg_result* result = PQgetResult(conn_);
      std::string message = result != nullptr ? TrimmedMessage(PQresultErrorMessage(result)) : "";
      if (result != nullptr) PQclear(result);
      throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                      {{"source", "PostgreSQL " + description_},
                       {"message", "the replication stream ended" + (message.empty() ? std::string() : ": " + message)}});
    }
    if (length == -2) ThrowFailure("reading the replication stream");
    if (waited) return std::nullopt;
    pollfd descriptor{PQsocket(conn_), POLLIN, 0};
    int ready = poll(&descriptor, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) ThrowFailure("waiting for the replication stream");
    if (ready == 0) return std::nullopt;
    if (PQconsumeInput(conn_) == 0) ThrowFailure("reading the replication stream");
  }
}

void PostgresConnection::WriteCopyData(std::string_view data) {
  if (PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1 || PQflush(conn_) != 0) {
    ThrowFailure("writing to the replication stream");
  }
}

}  // namespace silt::cdc
