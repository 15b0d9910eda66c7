#include "silt/cdc/postgres_connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "silt/base/error_class.h"
#include "silt/base/shared_library.h"
#include "silt/cdc/pq_api.h"

namespace silt::cdc {

const PqApi& Pq() {
  static const auto* loaded = new LoadedLibrary<PqApi>(  // never unloaded
      "libpq.so.5", [](SharedLibrary& library, PqApi& api) {
        library.Bind(api.clear, "PQclear");
        library.Bind(api.connectdb_params, "PQconnectdbParams");
        library.Bind(api.consume_input, "PQconsumeInput");
        library.Bind(api.db, "PQdb");
        library.Bind(api.error_message, "PQerrorMessage");
        library.Bind(api.escape_identifier, "PQescapeIdentifier");
        library.Bind(api.escape_literal, "PQescapeLiteral");
        library.Bind(api.exec, "PQexec");
        library.Bind(api.exec_params, "PQexecParams");
        library.Bind(api.finish, "PQfinish");
        library.Bind(api.flush, "PQflush");
        library.Bind(api.freemem, "PQfreemem");
        library.Bind(api.get_copy_data, "PQgetCopyData");
        library.Bind(api.get_result, "PQgetResult");
        library.Bind(api.get_is_null, "PQgetisnull");
        library.Bind(api.get_length, "PQgetlength");
        library.Bind(api.get_value, "PQgetvalue");
        library.Bind(api.host, "PQhost");
        library.Bind(api.nfields, "PQnfields");
        library.Bind(api.ntuples, "PQntuples");
        library.Bind(api.port, "PQport");
        library.Bind(api.put_copy_data, "PQputCopyData");
        library.Bind(api.result_error_message, "PQresultErrorMessage");
        library.Bind(api.result_status, "PQresultStatus");
        library.Bind(api.socket, "PQsocket");
        library.Bind(api.status, "PQstatus");
      });
  const PqApi* api = loaded->api();
  if (api == nullptr) {
    throw MakeError(
        ErrorClass::CDC_SOURCE_CONNECTION_FAILED,
        {{"source", "PostgreSQL"},
         {"message", loaded->error() + " (Debian installs it with the package libpq5)"}});
  }
  return *api;
}

PostgresResult::~PostgresResult() {
  if (result_ != nullptr) Pq().clear(result_);
}
int PostgresResult::rows() const { return Pq().ntuples(result_); }
int PostgresResult::columns() const { return Pq().nfields(result_); }
bool PostgresResult::IsNull(int row, int column) const {
  return Pq().get_is_null(result_, row, column) != 0;
}
std::string_view PostgresResult::Value(int row, int column) const {
  return std::string_view(Pq().get_value(result_, row, column),
                          static_cast<size_t>(Pq().get_length(result_, row, column)));
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
  pg_conn* conn = Pq().connectdb_params(keys.data(), values.data(), /*expand_dbname=*/1);
  std::string description;
  if (conn != nullptr) {
    const char* host = Pq().host(conn);
    const char* port = Pq().port(conn);
    const char* db = Pq().db(conn);
    description = std::string(host ? host : "") + ":" + (port ? port : "") + "/" + (db ? db : "");
  }
  if (conn == nullptr || Pq().status(conn) != CONNECTION_OK) {
    std::string message =
        conn == nullptr ? "out of memory" : TrimmedMessage(Pq().error_message(conn));
    if (conn != nullptr) Pq().finish(conn);
    throw MakeError(ErrorClass::CDC_SOURCE_CONNECTION_FAILED,
                    {{"source", "PostgreSQL " + description}, {"message", message}});
  }
  return std::unique_ptr<PostgresConnection>(new PostgresConnection(conn, std::move(description)));
}

PostgresConnection::~PostgresConnection() { Pq().finish(conn_); }

bool PostgresConnection::IsAlive() const { return Pq().status(conn_) == CONNECTION_OK; }

void PostgresConnection::ThrowFailure(const std::string& what) {
  throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                  {{"source", "PostgreSQL " + description_},
                   {"message", what + ": " + TrimmedMessage(Pq().error_message(conn_))}});
}

PostgresResult PostgresConnection::Execute(const std::string& statement) {
  return Execute(statement, {});
}

PostgresResult PostgresConnection::Execute(const std::string& statement,
                                           const std::vector<std::string>& parameters) {
  pg_result* result;
  if (parameters.empty()) {
    result = Pq().exec(conn_, statement.c_str());
  } else {
    std::vector<const char*> values;
    for (const std::string& parameter : parameters) values.push_back(parameter.c_str());
    result = Pq().exec_params(conn_, statement.c_str(), static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, 0);
  }
  PostgresResult owned(result);
  ExecStatusType status = Pq().result_status(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    std::string first_line = statement.substr(0, statement.find('\n'));
    if (first_line.size() > 80) first_line = first_line.substr(0, 80) + "...";
    throw MakeError(
        ErrorClass::CDC_SOURCE_FAILED,
        {{"source", "PostgreSQL " + description_},
         {"message", first_line + ": " + TrimmedMessage(Pq().result_error_message(result))}});
  }
  return owned;
}

std::string PostgresConnection::QuoteIdentifier(std::string_view name) {
  char* quoted = Pq().escape_identifier(conn_, name.data(), name.size());
  if (quoted == nullptr) ThrowFailure("quoting an identifier");
  std::string text = quoted;
  Pq().freemem(quoted);
  return text;
}

std::string PostgresConnection::QuoteLiteral(std::string_view value) {
  char* quoted = Pq().escape_literal(conn_, value.data(), value.size());
  if (quoted == nullptr) ThrowFailure("quoting a literal");
  std::string text = quoted;
  Pq().freemem(quoted);
  return text;
}

void PostgresConnection::StartCopyBoth(const std::string& command) {
  pg_result* result = Pq().exec(conn_, command.c_str());
  PostgresResult owned(result);
  if (Pq().result_status(result) != PGRES_COPY_BOTH) {
    throw MakeError(
        ErrorClass::CDC_SOURCE_FAILED,
        {{"source", "PostgreSQL " + description_},
         {"message", "START_REPLICATION: " + TrimmedMessage(Pq().result_error_message(result))}});
  }
}

std::optional<std::string> PostgresConnection::ReadCopyData(int timeout_ms) {
  for (bool waited = false;; waited = true) {
    char* buffer = nullptr;
    int length = Pq().get_copy_data(conn_, &buffer, /*async=*/1);
    if (length > 0) {
      std::string frame(buffer, static_cast<size_t>(length));
      Pq().freemem(buffer);
      return frame;
    }
    if (length == -1) {
      // The server ended the stream: fetch its reason.
      pg_result* result = Pq().get_result(conn_);
      std::string message =
          result != nullptr ? TrimmedMessage(Pq().result_error_message(result)) : "";
      if (result != nullptr) Pq().clear(result);
      throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                      {{"source", "PostgreSQL " + description_},
                       {"message", "the replication stream ended" +
                                       (message.empty() ? std::string() : ": " + message)}});
    }
    if (length == -2) ThrowFailure("reading the replication stream");
    if (waited) return std::nullopt;
    pollfd descriptor{Pq().socket(conn_), POLLIN, 0};
    int ready = poll(&descriptor, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) ThrowFailure("waiting for the replication stream");
    if (ready == 0) return std::nullopt;
    if (Pq().consume_input(conn_) == 0) ThrowFailure("reading the replication stream");
  }
}

void PostgresConnection::WriteCopyData(std::string_view data) {
  if (Pq().put_copy_data(conn_, data.data(), static_cast<int>(data.size())) != 1 ||
      Pq().flush(conn_) != 0) {
    ThrowFailure("writing to the replication stream");
  }
}

}  // namespace silt::cdc
