// VACUUM t [RETAIN n HOURS] [DRY RUN]: resolves the table and the session's settings, and lets
// log::Vacuum delete what no version within the retention needs.

#include <cmath>
#include <limits>
#include <string>

#include "silt/base/check.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/scalar.h"
#include "silt/log/snapshot.h"
#include "silt/log/vacuum.h"
#include "silt/sql/expression_binder.h"

namespace silt::commands::internal {
namespace {

constexpr const char* kRetentionCheckConf = "spark.databricks.delta.retentionDurationCheck.enabled";
constexpr const char* kLoggingConf = "spark.databricks.delta.vacuum.logging.enabled";

// RETAIN n HOURS in milliseconds. As Delta, fractional hours are rounded to whole hours.
int64_t RetentionMs(const sql::Expression& hours, const expr::EvalContext& context) {
  expr::Scalar scalar = sql::EvaluateConstant(hours, "VACUUM RETAIN", context);
  std::string text = scalar.ToString();
  double value = 0;
  try {
    value = std::stod(text);
  } catch (const std::exception&) {
    value = std::numeric_limits<double>::infinity();
  }
  // Beyond a hundred million years the milliseconds would overflow.
  if (!std::isfinite(value) || std::fabs(value) > 1e12) {
    SILT_THROW(INVALID_ARGUMENT, {{"message", "RETAIN " + text + " HOURS is out of range."}});
  }
  return static_cast<int64_t>(std::llround(value)) * 3'600'000;
}

StatementResult PathResult(const std::vector<std::string>& paths) {
  ResultBuilder result({Field{"path", StringType(), true, {}}});
  for (const std::string& path : paths) result.column(0).AppendString(path);
  return result.Finish();
}

}  // namespace

StatementResult ExecuteVacuum(sql::SessionState& session, const sql::Statement& statement) {
  DeltaTarget target = ResolveDeltaTarget(session, statement.name, statement.position, "VACUUM");
  log::VacuumOptions options;
  if (statement.retain_hours) {
    options.retention_ms = RetentionMs(*statement.retain_hours, session.MakeEvalContext());
  }
  options.retention_check_enabled = session.GetBoolConf(kRetentionCheckConf, true);
  options.log_operation = session.GetBoolConf(kLoggingConf, true);
  options.dry_run = statement.dry_run;
  options.enforced_features = EnforcedFeatures();
  options.cancellation = &session.cancellation();
  log::VacuumResult vacuumed =
      log::Vacuum(log::Snapshot::Load(session.fs(), target.location), options);
  // Delta lists the files a dry run would delete, and otherwise names the vacuumed table.
  if (statement.dry_run) return PathResult(vacuumed.files);
  return PathResult({target.location});
}

}  // namespace silt::commands::internal
