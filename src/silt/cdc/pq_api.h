#pragma once

// The libpq functions the PostgreSQL change data source calls, from libpq opened at the first
// connection (see base/shared_library.h for why it is not linked).

#include <libpq-fe.h>

namespace silt::cdc {

struct PqApi {
  decltype(&PQclear) clear;
  decltype(&PQconnectdbParams) connectdb_params;
  decltype(&PQconsumeInput) consume_input;
  decltype(&PQdb) db;
  decltype(&PQerrorMessage) error_message;
  decltype(&PQescapeIdentifier) escape_identifier;
  decltype(&PQescapeLiteral) escape_literal;
  decltype(&PQexec) exec;
  decltype(&PQexecParams) exec_params;
  decltype(&PQfinish) finish;
  decltype(&PQflush) flush;
  decltype(&PQfreemem) freemem;
  decltype(&PQgetCopyData) get_copy_data;
  decltype(&PQgetResult) get_result;
  decltype(&PQgetisnull) get_is_null;
  decltype(&PQgetlength) get_length;
  decltype(&PQgetvalue) get_value;
  decltype(&PQhost) host;
  decltype(&PQnfields) nfields;
  decltype(&PQntuples) ntuples;
  decltype(&PQport) port;
  decltype(&PQputCopyData) put_copy_data;
  decltype(&PQresultErrorMessage) result_error_message;
  decltype(&PQresultStatus) result_status;
  decltype(&PQsocket) socket;
  decltype(&PQstatus) status;
};

/// libpq, loaded once per process. Throws CDC_SOURCE_CONNECTION_FAILED when it cannot be
/// loaded.
const PqApi& Pq();

}  // namespace silt::cdc
