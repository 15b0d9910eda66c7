#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace silt {

/// What kind of failure an error is; decides retries, CLI exit codes and Python exception types.
/// Persisted in user scripts through exit codes; never renumber.
enum class ErrorCategory : uint8_t {
  kUser = 0,                    ///< Bad SQL, bad input, violated constraint.
  kConcurrentModification = 1,  ///< Lost a commit race; the operation may be retried.
  kIo = 2,                      ///< The storage failed; may succeed when retried.
  kCorruption = 3,              ///< A log, checkpoint or data file is invalid.
  kUnsupported = 4,             ///< A protocol feature or construct silt does not implement.
  kInternal = 5,                ///< A bug in silt.
};

/// Returns "user", "concurrent_modification", "io", "corruption", "unsupported" or "internal".
std::string_view ErrorCategoryName(ErrorCategory category);

/// Identifies one entry of the error-class registry (src/silt/base/error_classes.def).
/// The numeric value is not stable across releases; the name is.
using ErrorClassId = uint16_t;

/// One named parameter of an error message template: `<name>` in the template becomes `value`.
struct ErrorParam {
  std::string_view name;
  std::string value;
};

/// The one exception type silt throws. It carries a stable error class (Delta Spark's name where
/// the condition is the same), the SQLSTATE, a category, and the rendered message. `what()`
/// returns `[CLASS] message`.
class Error : public std::exception {
 public:
  /// Builds the error for registry entry `id`, filling the template's `<name>` placeholders from
  /// `params`; placeholders without a parameter are left as written.
  Error(ErrorClassId id, std::initializer_list<ErrorParam> params);
  Error(ErrorClassId id, const std::vector<ErrorParam>& params);

  /// The stable UPPER_SNAKE name, e.g. "DELTA_CONCURRENT_APPEND".
  std::string_view error_class() const;
  /// The five-character SQLSTATE, e.g. "2D521".
  std::string_view sqlstate() const;
  ErrorCategory category() const;
  ErrorClassId id() const { return id_; }
  /// The rendered message without the class prefix and context.
  const std::string& message() const { return message_; }
  /// Extra context appended to what(): a file, table path, version or SQL position.
  const std::string& context() const { return context_; }
  /// Returns a copy whose context has `more` appended ("; "-separated).
  Error WithContext(std::string_view more) const;

  /// `[CLASS] message` followed by ` (context)` when there is context.
  const char* what() const noexcept override { return full_.c_str(); }

 private:
  void Render(const ErrorParam* params, size_t count);
  void RebuildFull();

  ErrorClassId id_;
  std::string message_;
  std::string context_;
  std::string full_;
};

}  // namespace silt
