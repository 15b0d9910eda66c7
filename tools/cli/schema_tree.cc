#include "schema_tree.h"

namespace silt::cli {
namespace {

void AppendType(const DataType& type, const std::string& prefix, std::string* out);

void AppendLine(const std::string& prefix, const std::string& name, const DataType& type,
                const std::string& nullability, std::string* out) {
  *out += prefix + " |-- " + name + ": " + type.DeltaName();
  if (!nullability.empty()) *out += " (" + nullability + ")";
  *out += "\n";
  AppendType(type, prefix + " |   ", out);
}

std::string Flag(const char* name, bool value) {
  return std::string(name) + " = " + (value ? "true" : "false");
}

// Writes the children of nested `type`, one level deeper than `prefix`.
void AppendType(const DataType& type, const std::string& prefix, std::string* out) {
  switch (type.id()) {
    case TypeId::kStruct:
      for (const Field& field : type.fields()) {
        AppendLine(prefix, field.name, *field.type, Flag("nullable", field.nullable), out);
      }
      break;
    case TypeId::kList:
      AppendLine(prefix, "element", *type.element_type(), Flag("containsNull", type.contains_null()),
                 out);
      break;
    case TypeId::kMap:
      AppendLine(prefix, "key", *type.key_type(), "", out);
      AppendLine(prefix, "value", *type.value_type(),
                 Flag("valueContainsNull", type.value_contains_null()), out);
      break;
    default:
      break;
  }
}

}  // namespace

std::string FormatSchemaTree(const Schema& schema) {
  std::string out = "root\n";
  for (const Field& field : schema.fields()) {
    AppendLine("", field.name, *field.type, Flag("nullable", field.nullable), &out);
  }
  return out;
}

}  // namespace silt::cli
