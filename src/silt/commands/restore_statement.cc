// RESTORE [TABLE] t TO VERSION AS OF n | TIMESTAMP AS OF '...': resolves the table and the
// target of the time travel, and lets log::Restore commit the difference.

#include <charconv>
#include <string>
#include <string_view>

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/cast.h"
#include "silt/expr/scalar.h"
#include "silt/expr/type_coercion.h"
#include "silt/log/restore.h"
#include "silt/sql/expression_binder.h"

namespace silt::commands::internal {
namespace {

int64_t EvaluateVersion(const sql::Expression& value, const expr::EvalContext& context,
                        const std::string& statement = "RESTORE") {
  return sql::TimeTravelVersion(
      sql::EvaluateConstant(value, statement + " VERSION AS OF", context));
}

// Microseconds since the epoch; strings are read in the session time zone, as Spark does.
int64_t EvaluateTimestamp(const sql::Expression& value, const expr::EvalContext& context,
                          const std::string& statement = "RESTORE") {
  expr::Scalar scalar = sql::EvaluateConstant(value, statement + " TIMESTAMP AS OF", context);
  auto invalid = [](const std::string& message) {
    SILT_THROW(
        INVALID_PARAMETER_VALUE,
        {{"parameter", "`timestamp`"}, {"functionName", "TIMESTAMP AS OF"}, {"message", message}});
  };
  if (scalar.is_null()) invalid("the timestamp must not be NULL");
  switch (scalar.type()->id()) {
    case TypeId::kString: {
      std::string text(scalar.GetString());
      std::optional<int64_t> parsed = expr::ParseSparkTimestamp(text, true, context.Zone());
      if (!parsed) invalid("'" + text + "' is not a valid timestamp");
      return *parsed;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return scalar.GetInt();
    case TypeId::kDate:
      return scalar.GetInt() * 86'400'000'000LL;
    default:
      invalid("expects a timestamp, got " + scalar.type()->ToString());
  }
  return 0;  // Unreachable: `invalid` throws.
}

// Millisecond precision, rounded towards the past (a commit at that very instant is included).
int64_t FloorToMilliseconds(int64_t micros) {
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

StatementResult RestoreMetricsResult(const log::RestoreResult& restored) {
  std::vector<Field> fields;
  for (const char* name :
       {"table_size_after_restore", "num_of_files_after_restore", "num_removed_files",
        "num_restored_files", "removed_files_size", "restored_files_size"}) {
    fields.push_back(Field{name, LongType(), true, {}});
  }
  ResultBuilder result(std::move(fields));
  result.column(0).AppendInt(restored.table_size_after_restore);
  result.column(1).AppendInt(restored.num_of_files_after_restore);
  result.column(2).AppendInt(restored.num_removed_files);
  result.column(3).AppendInt(restored.num_restored_files);
  result.column(4).AppendInt(restored.removed_files_size);
  result.column(5).AppendInt(restored.restored_files_size);
  return result.Finish();
}

}  // namespace

log::SnapshotOptions TimeTravelOptions(const sql::TimeTravel& travel,
                                       const expr::EvalContext& context,
                                       const std::string& statement) {
  log::SnapshotOptions options;
  if (travel.kind == sql::TimeTravel::Kind::kVersion) {
    options.version = EvaluateVersion(*travel.value, context, statement);
  } else {
    options.timestamp_ms =
        FloorToMilliseconds(EvaluateTimestamp(*travel.value, context, statement));
  }
  return options;
}

StatementResult ExecuteRestore(sql::SessionState& session, const sql::Statement& statement) {
  SILT_CHECK(statement.time_travel.has_value(), "RESTORE without a version or timestamp");
  DeltaTarget target = ResolveDeltaTarget(session, statement.name, statement.position, "RESTORE");
  expr::EvalContext context = session.MakeEvalContext();

  log::RestoreOptions options;
  options.enforced_features = EnforcedFeatures();
  options.check_files_exist = !session.GetBoolConf("spark.sql.files.ignoreMissingFiles", false);
  const sql::TimeTravel& travel = *statement.time_travel;
  if (travel.kind == sql::TimeTravel::Kind::kVersion) {
    options.version = EvaluateVersion(*travel.value, context);
  } else {
    int64_t micros = EvaluateTimestamp(*travel.value, context);
    options.timestamp_ms = FloorToMilliseconds(micros);
    // Recorded and reported as the session shows timestamps.
    options.timestamp_text =
        expr::CastValueToString(*expr::Scalar::Timestamp(micros).vector(), 0, &context.Zone());
  }
  log::RestoreResult restored = log::Restore(session.fs(), target.location, options);
  return RestoreMetricsResult(restored);
}

}  // namespace silt::commands::internal
