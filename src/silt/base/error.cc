#include "silt/error.h"

#include <array>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/base/shortened_text.h"

namespace silt {
namespace {

// No parameter of a message is longer than this: a longer one is an echo of some input (a
// name, a literal, a file's bytes) that would bury the message.
constexpr size_t kParameterEchoLimit = 4096;

constexpr std::array<ErrorClassInfo, static_cast<size_t>(ErrorClass::kCount)> kRegistry = {{
#define SILT_ERROR_CLASS(name, sqlstate, category, message) \
  {#name, sqlstate, ErrorCategory::category, message},
#include "silt/base/error_classes.def"
#undef SILT_ERROR_CLASS
}};

}  // namespace

std::string_view ErrorCategoryName(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::kUser: return "user";
    case ErrorCategory::kConcurrentModification: return "concurrent_modification";
    case ErrorCategory::kIo: return "io";
    case ErrorCategory::kCorruption: return "corruption";
    case ErrorCategory::kUnsupported: return "unsupported";
    case ErrorCategory::kInternal: return "internal";
  }
  return "internal";
}

const ErrorClassInfo& GetErrorClassInfo(ErrorClassId id) {
  if (id >= kRegistry.size()) return kRegistry[static_cast<size_t>(ErrorClass::INTERNAL_ERROR)];
  return kRegistry[id];
}

ErrorClass FindErrorClass(std::string_view name) {
  for (size_t i = 0; i < kRegistry.size(); ++i) {
    if (kRegistry[i].name == name) return static_cast<ErrorClass>(i);
  }
  return ErrorClass::kCount;
}

namespace {

// Spark's sub-class of an error that silt raises under the parent class, decided by the
// parameters (empty when there is none): UNRESOLVED_COLUMN is WITH_SUGGESTION when it proposes
// columns and WITHOUT_SUGGESTION otherwise; DATATYPE_MISMATCH and INVALID_SQL_SYNTAX name theirs at
// the start of their <message> ("NON_FOLDABLE_INPUT: the input ..."), which then leaves the
// message as Spark's.
std::string SubClassOf(ErrorClassId id, std::vector<ErrorParam>& params) {
  if (id == static_cast<ErrorClassId>(ErrorClass::UNRESOLVED_COLUMN)) {
    for (const ErrorParam& param : params) {
      if (param.name == "proposal") return param.value.empty() ? "WITHOUT_SUGGESTION" : "WITH_SUGGESTION";
    }
    return "WITHOUT_SUGGESTION";
  }
  if (id == static_cast<ErrorClassId>(ErrorClass::DATATYPE_MISMATCH) ||
      id == static_cast<ErrorClassId>(ErrorClass::INVALID_SQL_SYNTAX)) {
    for (ErrorParam& param : params) {
      if (param.name != "message") continue;
      const std::string& text = param.value;
      size_t end = 0;
      while (end < text.size() && ((text[end] >= 'A' && text[end] <= 'Z') || text[end] == '_' ||
                                   (end > 0 && text[end] >= '0' && text[end] <= '9'))) {
        ++end;
      }
      if (end < 2 || text.compare(end, 2, ": ") != 0) return {};
      std::string sub_class = text.substr(0, end);
      param.value = text.substr(end + 2);
      return sub_class;
    }
  }
  return {};
}

// The class as what() prints it between brackets, CLASS or CLASS.SUB_CLASS: kept at the front
// of the rendered text, so that a copy with more context prints it too.
std::string_view PrintedClass(const std::string& full, std::string_view error_class) {
  if (full.size() > error_class.size() + 2 && full[0] == '[' &&
      std::string_view(full).substr(1, error_class.size()) == error_class && full[error_class.size() + 1] == '.') {
    size_t close = full.find(']');
    if (close != std::string::npos) return std::string_view(full).substr(1, close - 1);
  }
  return error_class;
}

}  // namespace

Error::Error(ErrorClassId id, std::initializer_list<ErrorParam> params) : id_(id) {
  Render(params.begin(), params.size());
}

Error::Error(ErrorClassId id, const std::vector<ErrorParam>& params) : id_(id) {
  Render(params.data(), params.size());
}

void Error::Render(const ErrorParam* given, size_t count) {
  std::vector<ErrorParam> adjusted(given, given + count);
  const std::string sub_class = SubClassOf(id_, adjusted);
  const ErrorParam* params = adjusted.data();
  std::string_view tmpl = GetErrorClassInfo(id_).message_template;
  message_.reserve(tmpl.size() + 32);
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '<') {
      size_t close = tmpl.find('>', i + 1);
      if (close != std::string_view::npos) {
        std::string_view name = tmpl.substr(i + 1, close - i - 1);
        const ErrorParam* found = nullptr;
        for (size_t p = 0; p < count; ++p) {
          if (params[p].name == name) found = &params[p];
        }
        if (found != nullptr) {
          if (found->value.size() > kParameterEchoLimit) {
            message_ += ShortenedForMessage(found->value, kParameterEchoLimit);
          } else {
            message_ += found->value;
          }
          i = close + 1;
          continue;
        }
      }
    }
    message_ += tmpl[i++];
  }
  if (!sub_class.empty()) {
    // Spark's WITHOUT_SUGGESTION message stops before the (empty) list of proposals.
    if (sub_class == "WITHOUT_SUGGESTION") {
      size_t suggestion = message_.find(" Did you mean one of the following?");
      if (suggestion != std::string::npos) message_.resize(suggestion);
    }
    full_ = "[" + std::string(error_class()) + "." + sub_class + "]";
  }
  RebuildFull();
}

void Error::RebuildFull() {
  const std::string printed(PrintedClass(full_, error_class()));
  full_.clear();
  full_ += '[';
  full_ += printed;
  full_ += "] ";
  full_ += message_;
  if (!context_.empty()) {
    full_ += " (";
    full_ += context_;
    full_ += ')';
  }
}

std::string_view Error::error_class() const { return GetErrorClassInfo(id_).name; }
std::string_view Error::sqlstate() const { return GetErrorClassInfo(id_).sqlstate; }
ErrorCategory Error::category() const { return GetErrorClassInfo(id_).category; }

Error Error::WithContext(std::string_view more) const {
  Error copy = *this;
  if (!copy.context_.empty()) copy.context_ += "; ";
  copy.context_ += more;
  copy.RebuildFull();
  return copy;
}

namespace internal {
void ThrowCheckFailure(const char* condition, const char* file, int line,
                       const std::string& message) {
  std::string text = std::string(message) + " (check '" + condition + "' failed at " + file + ":" +
                     std::to_string(line) + ")";
  throw MakeError(ErrorClass::INTERNAL_ERROR, {{"message", text}});
}
}  // namespace internal

}  // namespace silt
