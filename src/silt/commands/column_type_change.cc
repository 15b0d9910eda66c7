#include "silt/commands/column_type_change.h"

#include <string>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/error.h"
#include "silt/log/type_widening.h"
#include "silt/sql/expression_binder.h"

namespace silt::commands::internal {

namespace {

// A multi-part name as Spark's UnresolvedAttribute prints it: parts joined by dots, a part that
// holds a dot back-quoted.
std::string DottedName(const sql::QualifiedName& parts, size_t count) {
  std::string name;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) name += ".";
    const std::string& part = parts[i];
    name += part.find('.') == std::string::npos ? part : "`" + part + "`";
  }
  return name;
}

std::string FieldSql(const DataType& type, bool nullable) {
  return sql::DataTypeSql(type) + (nullable ? "" : " NOT NULL");
}

class TypeChanger {
 public:
  TypeChanger(const sql::QualifiedName& path, const DataTypePtr& new_type, bool widening_enabled)
      : path_(path), new_type_(new_type), widening_enabled_(widening_enabled) {}

  // `field` is the struct field named by path_[depth - 1].
  Field ChangeField(const Field& field, size_t depth) {
    Field changed = field;
    if (depth == path_.size()) {
      result_.changed = field;
      result_.changed.name = DottedName(path_, path_.size());
      result_.changed.type = new_type_;
      if (Allow(*field.type, field.nullable)) log::RecordTypeChange(changed, *field.type, *new_type_, "");
      changed.type = new_type_;
      return changed;
    }
    changed.type = ChangeInside(field.type, depth, "", changed);
    return changed;
  }

  ColumnTypeChange& result() { return result_; }

 private:
  // Changes the type at path_[depth..] inside `type`, which belongs to struct field `owner`;
  // `inner_path` is the path from `owner` to `type` through map keys/values and array elements.
  DataTypePtr ChangeInside(const DataTypePtr& type, size_t depth, const std::string& inner_path,
                           Field& owner) {
    const std::string& part = path_[depth];
    if (type->id() == TypeId::kStruct) {
      std::vector<Field> fields = type->fields();
      for (Field& child : fields) {
        if (EqualsIgnoreCase(child.name, part)) {
          path_[depth] = child.name;
          child = ChangeField(child, depth + 1);
          return StructType(std::move(fields));
        }
      }
      Unresolved(depth, *type);
    }
    bool map_key = type->id() == TypeId::kMap && EqualsIgnoreCase(part, "key");
    bool map_value = type->id() == TypeId::kMap && EqualsIgnoreCase(part, "value");
    bool element = type->id() == TypeId::kList && EqualsIgnoreCase(part, "element");
    if (!map_key && !map_value && !element) Unresolved(depth, *type);
    const Field& member = type->fields()[map_value ? 1 : 0];
    std::string member_path = inner_path + (inner_path.empty() ? "" : ".") + AsciiLower(part);
    DataTypePtr changed;
    if (depth + 1 == path_.size()) {
      result_.changed = member;
      result_.changed.name = DottedName(path_, path_.size());
      result_.changed.type = new_type_;
      if (Allow(*member.type, member.nullable)) {
        log::RecordTypeChange(owner, *member.type, *new_type_, member_path);
      }
      changed = new_type_;
    } else {
      changed = ChangeInside(member.type, depth + 1, member_path, owner);
    }
    if (element) return ListType(changed, type->contains_null());
    if (map_key) return MapType(changed, type->value_type(), type->value_contains_null());
    return MapType(type->key_type(), changed, type->value_contains_null());
  }

  // Whether changing `from` to the new type is allowed; true when a change is to be recorded.
  bool Allow(const DataType& from, bool nullable) {
    if (from.Equals(*new_type_)) return false;
    result_.type_changed = true;
    // A void column holds no values, so any type fits it (no widening recorded).
    if (from.id() == TypeId::kNull) return false;
    if (widening_enabled_ && log::IsTypeChangeSupported(from, *new_type_)) return true;
    SILT_THROW(DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP,
               {{"fieldPath", DottedName(path_, path_.size())},
                {"oldField", FieldSql(from, nullable)},
                {"newField", FieldSql(*new_type_, nullable)}});
  }

  [[noreturn]] void Unresolved(size_t depth, const DataType& type) {
    std::string proposal;
    if (type.id() == TypeId::kStruct) {
      for (const Field& field : type.fields()) {
        sql::QualifiedName candidate(path_.begin(), path_.begin() + static_cast<long>(depth));
        candidate.push_back(field.name);
        proposal += (proposal.empty() ? "`" : ", `") + DottedName(candidate, candidate.size()) + "`";
      }
    }
    SILT_THROW(UNRESOLVED_COLUMN,
               {{"objectName", "`" + DottedName(path_, path_.size()) + "`"}, {"proposal", proposal}});
  }

  sql::QualifiedName path_;
  DataTypePtr new_type_;
  bool widening_enabled_;
  ColumnTypeChange result_;
};

}  // namespace

ColumnTypeChange ChangeColumnType(const Schema& schema, const sql::QualifiedName& path,
                                  const DataTypePtr& new_type, bool widening_enabled) {
  SILT_CHECK(!path.empty(), "ALTER COLUMN without a column");
  int index = schema.FieldIndex(path[0], /*case_sensitive=*/false);
  if (index < 0) {
    std::string proposal;
    for (const Field& field : schema.fields()) {
      proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
    }
    SILT_THROW(UNRESOLVED_COLUMN,
               {{"objectName", "`" + DottedName(path, path.size()) + "`"}, {"proposal", proposal}});
  }
  std::vector<Field> fields = schema.fields();
  size_t column = static_cast<size_t>(index);
  sql::QualifiedName resolved = path;
  resolved[0] = fields[column].name;
  TypeChanger changer(resolved, new_type, widening_enabled);
  fields[column] = changer.ChangeField(fields[column], 1);
  ColumnTypeChange& result = changer.result();
  result.fields = std::move(fields);
  result.top_level_column = column;
  return std::move(result);
}

}  // namespace silt::commands::internal
