#include "silt/commands/statement_internal.h"

#include <charconv>

#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"

namespace silt::commands::internal {

namespace {

constexpr const char* kAppIdKey = "spark.databricks.delta.write.txnAppId";
constexpr const char* kVersionKey = "spark.databricks.delta.write.txnVersion";
constexpr const char* kAutoResetKey = "spark.databricks.delta.write.txnVersion.autoReset.enabled";

// The write a statement of this thread is committing, for CommitOptionsFor.
thread_local const log::SetTransaction* running_write = nullptr;

// The table a write statement commits to, or nullopt when it names no Delta table yet (a CTAS
// of a new table has nothing to have applied).
std::optional<std::string> WriteTargetLocation(sql::SessionState& session,
                                               const sql::Statement& statement) {
  const sql::QualifiedName* name = nullptr;
  sql::SourcePosition position = statement.position;
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kCreateTable:
      name = &statement.name;
      break;
    case sql::StatementKind::kMerge:
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
      if (statement.target) {
        name = &statement.target->name;
        position = statement.target->position;
      }
      break;
    default:
      break;
  }
  if (name == nullptr || name->empty()) return std::nullopt;
  if (statement.kind == sql::StatementKind::kCreateTable) {
    // CREATE TABLE of a table that does not exist yet: nothing to compare with.
    try {
      return ResolveDeltaTarget(session, *name, position, "CREATE TABLE").location;
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  return ResolveDeltaTarget(session, *name, position, "WRITE").location;
}

}  // namespace

bool IsIdempotentWriteStatement(const sql::Statement& statement) {
  switch (statement.kind) {
    case sql::StatementKind::kInsert:
    case sql::StatementKind::kMerge:
    case sql::StatementKind::kUpdate:
    case sql::StatementKind::kDelete:
      return true;
    case sql::StatementKind::kCreateTable:
      return statement.query != nullptr;
    default:
      return false;
  }
}

std::optional<log::SetTransaction> IdempotentWriteOf(const sql::SessionState& session) {
  std::optional<std::string> app_id = session.GetConf(kAppIdKey);
  std::optional<std::string> version_text = session.GetConf(kVersionKey);
  if (!app_id && !version_text) return std::nullopt;
  if (!app_id || !version_text) {
    SILT_THROW(INVALID_CONFIGURATION,
               {{"value", app_id ? *app_id : *version_text},
                {"key", app_id ? kAppIdKey : kVersionKey},
                {"reason", std::string("both ") + kAppIdKey + " and " + kVersionKey +
                               " must be set for idempotent Delta writes"}});
  }
  int64_t version = 0;
  const char* end = version_text->data() + version_text->size();
  auto [ptr, error] = std::from_chars(version_text->data(), end, version);
  if (error != std::errc() || ptr != end || version < 0) {
    SILT_THROW(INVALID_CONFIGURATION,
               {{"value", *version_text},
                {"key", kVersionKey},
                {"reason", "the transaction version must be a non-negative integer"}});
  }
  return log::SetTransaction{*app_id, version, std::nullopt};
}

bool IdempotentWriteApplied(sql::SessionState& session, const sql::Statement& statement,
                            const log::SetTransaction& write) {
  std::optional<std::string> location = WriteTargetLocation(session, statement);
  if (!location || session.fs()->List(io::JoinPath(*location, "_delta_log")).empty()) return false;
  auto snapshot = log::Snapshot::Load(session.fs(), *location);
  std::optional<int64_t> done = snapshot->TransactionVersion(write.app_id);
  return done && *done >= write.version;
}

void AfterIdempotentWrite(sql::SessionState& session) {
  if (session.GetBoolConf(kAutoResetKey, false)) session.UnsetConf(kVersionKey);
}

IdempotentWriteScope::IdempotentWriteScope(const log::SetTransaction* write)
    : previous_(running_write) {
  running_write = write;
}

IdempotentWriteScope::~IdempotentWriteScope() { running_write = previous_; }

const log::SetTransaction* RunningIdempotentWrite() { return running_write; }

}  // namespace silt::commands::internal
