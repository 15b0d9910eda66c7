// Functions that name the session's catalog, database and user: current_catalog,
// current_database and current_schema (the database USE chose), version (silt's), and
// current_user, user and session_user (the same name, found as Spark finds it: SPARK_USER, HADOOP_USER_NAME, then
// the process's login user).

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

std::string CurrentUserName() {
  for (const char* variable : {"SPARK_USER", "HADOOP_USER_NAME"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return value;
  }
  if (const passwd* entry = getpwuid(geteuid()); entry != nullptr && entry->pw_name != nullptr) return entry->pw_name;
  const char* user = std::getenv("USER");
  return user != nullptr ? user : "";
}

}  // namespace

void RegisterSessionInfoFunctions(FunctionRegistry& registry) {
  registry.Register("current_catalog", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("current_catalog", arguments, 0, 0);
    // silt has one catalog, which Spark calls spark_catalog.
    return Literal(Scalar::String("spark_catalog"));
  });
  for (std::string_view name : {"current_database", "current_schema"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 0, 0);
      return MakeCall(name, StringType(), {},
                      [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                        return Scalar::String(context.current_database).ToVector(num_rows);
                      });
    });
  }
  registry.Register("version", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("version", arguments, 0, 0);
    // Spark's is "<version> <git revision>"; silt names itself.
    return Literal(Scalar::String(std::string("silt ") + SILT_VERSION));
  });
  for (std::string_view name : {"current_user", "user", "session_user"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 0, 0);
      return Literal(Scalar::String(CurrentUserName()));
    });
  }
}

}  // namespace silt::expr::internal
