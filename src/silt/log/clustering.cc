#include "silt/log/clustering.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/log/table_features.h"
#include "silt/log/stats_collector.h"
#include "silt/log/table_properties.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

constexpr std::string_view kPhysicalNameKey = "delta.columnMapping.physicalName";

// The field's physical name: its column-mapping physical name (a JSON string), else its name.
std::string PhysicalName(const Field& field) {
  const std::string* raw = field.FindMetadata(kPhysicalNameKey);
  if (raw == nullptr || raw->size() < 2 || raw->front() != '"' || raw->back() != '"') {
    return field.name;
  }
  return raw->substr(1, raw->size() - 2);
}

// The type as Spark's `DataType.sql` spells it (INT, ARRAY<INT>, STRUCT<b: INT>).
std::string TypeSql(const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < type.fields().size(); ++i) {
        if (i > 0) out += ", ";
        out += ColumnPathName({type.fields()[i].name}) + ": " + TypeSql(*type.fields()[i].type);
      }
      return out + ">";
    }
    case TypeId::kList:
      return "ARRAY<" + TypeSql(*type.element_type()) + ">";
    case TypeId::kMap:
      return "MAP<" + TypeSql(*type.key_type()) + ", " + TypeSql(*type.value_type()) + ">";
    default: {
      std::string name = type.ToString();
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return name;
    }
  }
}

// The part of `fields` statistics are collected for: depth first, the first `remaining` leaf
// columns (structs contribute their fields; any other type is one leaf). Negative: all.
std::vector<Field> StatsFields(const std::vector<Field>& fields, int64_t& remaining) {
  std::vector<Field> kept;
  for (const Field& field : fields) {
    if (remaining == 0) break;
    if (field.type->id() == TypeId::kStruct) {
      std::vector<Field> children = StatsFields(field.type->fields(), remaining);
      if (!children.empty()) {
        kept.push_back(Field{field.name, StructType(children), field.nullable, {}});
      }
    } else {
      kept.push_back(field);
      if (remaining > 0) --remaining;
    }
  }
  return kept;
}

// Spark's StructType.treeString of `fields`.
void AppendTree(const std::vector<Field>& fields, const std::string& prefix, std::string& out) {
  for (const Field& field : fields) {
    std::string type_name =
        field.type->id() == TypeId::kStruct ? "struct" : field.type->DeltaName();
    out += prefix + "|-- " + field.name + ": " + type_name +
           " (nullable = " + (field.nullable ? "true" : "false") + ")\n";
    if (field.type->id() == TypeId::kStruct) {
      AppendTree(field.type->fields(), prefix + "|    ", out);
    }
  }
}

// The field `path` names among `fields`, following structs; nullptr when there is none.
const Field* FindPath(const std::vector<Field>& fields, const ColumnPath& path) {
  const std::vector<Field>* level = &fields;
  const Field* found = nullptr;
  for (const std::string& name : path) {
    if (level == nullptr) return nullptr;
    auto it = std::find_if(level->begin(), level->end(),
                           [&](const Field& field) { return EqualsIgnoreCase(field.name, name); });
    if (it == level->end()) return nullptr;
    found = &*it;
    level = found->type->id() == TypeId::kStruct ? &found->type->fields() : nullptr;
  }
  return found;
}

}  // namespace

bool IsClusteringSupported(const Protocol& protocol) {
  return IsFeatureSupported(protocol, "clustering");
}

DomainMetadata ClusteringDomain(const std::vector<ColumnPath>& physical_columns) {
  JsonWriter json;
  json.BeginObject();
  json.Key("clusteringColumns");
  json.BeginArray();
  for (const ColumnPath& path : physical_columns) {
    json.BeginArray();
    for (const std::string& name : path) json.String(name);
    json.EndArray();
  }
  json.EndArray();
  json.EndObject();
  return DomainMetadata{std::string(kClusteringDomain), json.Release(), false};
}

std::vector<ColumnPath> ParseClusteringDomain(const DomainMetadata& domain) {
  auto invalid = [&]() {
    SILT_THROW(DELTA_INVALID_LOG_ENTRY,
               {{"file", "domainMetadata"},
                {"message", "the delta.clustering domain holds no clusteringColumns array: " +
                                domain.configuration}});
  };
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::dom::array columns;
  if (parser.parse(domain.configuration).get(root) != simdjson::SUCCESS ||
      root["clusteringColumns"].get_array().get(columns) != simdjson::SUCCESS) {
    invalid();
  }
  std::vector<ColumnPath> paths;
  for (simdjson::dom::element column : columns) {
    ColumnPath path;
    std::string_view name;
    simdjson::dom::array parts;
    if (column.get_string().get(name) == simdjson::SUCCESS) {
      path.emplace_back(name);  // PROTOCOL.md's example spells a column as one name
    } else if (column.get_array().get(parts) == simdjson::SUCCESS) {
      for (simdjson::dom::element part : parts) {
        if (part.get_string().get(name) != simdjson::SUCCESS) invalid();
        path.emplace_back(name);
      }
    }
    if (path.empty()) invalid();
    paths.push_back(std::move(path));
  }
  return paths;
}

std::optional<std::vector<ColumnPath>> PhysicalClusteringColumns(
    const std::map<std::string, DomainMetadata>& domains) {
  auto it = domains.find(std::string(kClusteringDomain));
  if (it == domains.end()) return std::nullopt;
  return ParseClusteringDomain(it->second);
}

std::vector<ColumnPath> LogicalClusteringColumns(const std::vector<ColumnPath>& physical_columns,
                                                 const Schema& schema) {
  std::vector<ColumnPath> logical;
  for (const ColumnPath& physical : physical_columns) {
    ColumnPath path;
    const std::vector<Field>* level = &schema.fields();
    for (const std::string& name : physical) {
      const Field* found = nullptr;
      if (level != nullptr) {
        for (const Field& field : *level) {
          if (EqualsIgnoreCase(PhysicalName(field), name)) {
            found = &field;
            break;
          }
        }
      }
      if (found == nullptr) {
        std::string text;
        for (const std::string& part : physical) text += (text.empty() ? "" : ".") + part;
        SILT_THROW(DELTA_INVALID_LOG_ENTRY,
                   {{"file", "domainMetadata"},
                    {"message", "the clustering column " + text + " is not in the schema"}});
      }
      path.push_back(found->name);
      level = found->type->id() == TypeId::kStruct ? &found->type->fields() : nullptr;
    }
    logical.push_back(std::move(path));
  }
  return logical;
}

std::vector<std::string> ClusteringColumnNames(const std::map<std::string, DomainMetadata>& domains,
                                               const Schema& schema) {
  std::vector<std::string> names;
  std::optional<std::vector<ColumnPath>> physical = PhysicalClusteringColumns(domains);
  if (!physical) return names;
  for (const ColumnPath& path : LogicalClusteringColumns(*physical, schema)) {
    names.push_back(ColumnPathName(path));
  }
  return names;
}

// Delta's error for a clustering column the schema lacks, with Spark's tree of the schema.
[[noreturn]] void ThrowColumnNotInSchema(const ColumnPath& column, const Schema& schema) {
  std::string tree = "root\n";
  AppendTree(schema.fields(), " ", tree);
  SILT_THROW(DELTA_COLUMN_NOT_FOUND_IN_SCHEMA,
             {{"columnName", ColumnPathName(column)}, {"tableSchema", tree}});
}

ColumnPath PhysicalColumnPath(const Schema& schema, const ColumnPath& logical) {
  ColumnPath physical;
  const std::vector<Field>* level = &schema.fields();
  for (size_t i = 0; i < logical.size(); ++i) {
    const Field* found = level == nullptr ? nullptr : FindPath(*level, {logical[i]});
    if (found == nullptr) {
      ThrowColumnNotInSchema(logical, schema);
    }
    physical.push_back(PhysicalName(*found));
    level = found->type->id() == TypeId::kStruct ? &found->type->fields() : nullptr;
  }
  return physical;
}

std::string ColumnPathName(const ColumnPath& logical) {
  std::string out;
  for (const std::string& part : logical) {
    if (!out.empty()) out += ".";
    bool plain = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    bool digits = std::all_of(part.begin(), part.end(),
                              [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (plain && !digits) {
      out += part;
      continue;
    }
    out += '`';
    for (char c : part) out += c == '`' ? std::string("``") : std::string(1, c);
    out += '`';
  }
  return out;
}

std::vector<ColumnPath> ValidateClusteringColumns(const Metadata& metadata,
                                                  const std::vector<ColumnPath>& logical) {
  Schema schema = ParseDeltaSchema(metadata.schema_string);
  std::vector<ColumnPath> resolved;
  std::vector<const Field*> fields;
  for (const ColumnPath& path : logical) {
    const Field* field = FindPath(schema.fields(), path);
    if (field == nullptr) {
      ThrowColumnNotInSchema(path, schema);
    }
    // The schema's spelling of each name.
    ColumnPath spelled;
    const std::vector<Field>* level = &schema.fields();
    for (const std::string& name : path) {
      const Field* part = FindPath(*level, {name});
      spelled.push_back(part->name);
      if (part->type->id() == TypeId::kStruct) level = &part->type->fields();
    }
    resolved.push_back(std::move(spelled));
    fields.push_back(field);
  }
  for (size_t i = 0; i < resolved.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (AsciiLower(ColumnPathName(resolved[i])) == AsciiLower(ColumnPathName(resolved[j]))) {
        SILT_THROW(DELTA_DUPLICATE_COLUMNS_FOUND,
                   {{"coltype", "in CLUSTER BY"},
                    {"duplicateCols", "`" + AsciiLower(ColumnPathName(resolved[i])) + "`"}});
      }
    }
  }
  if (resolved.size() > static_cast<size_t>(kMaxClusteringColumns)) {
    SILT_THROW(DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS,
               {{"numColumnsLimit", std::to_string(kMaxClusteringColumns)},
                {"actualNumColumns", std::to_string(resolved.size())}});
  }
  // A column has statistics when it is a leaf among the first indexed ones and data skipping
  // keeps bounds for its type.
  int64_t remaining = NumIndexedColumns(metadata);
  std::vector<Field> stats_fields = StatsFields(schema.fields(), remaining);
  std::vector<size_t> missing;
  for (size_t i = 0; i < resolved.size(); ++i) {
    const Field* with_stats = FindPath(stats_fields, resolved[i]);
    if (with_stats == nullptr || !KeepsStatsBounds(with_stats->type->id())) missing.push_back(i);
  }
  if (missing.empty()) return resolved;
  std::string unsupported;
  for (size_t i : missing) {
    if (KeepsStatsBounds(fields[i]->type->id())) continue;
    if (!unsupported.empty()) unsupported += ", ";
    unsupported += ColumnPathName(resolved[i]) + " : " + TypeSql(*fields[i]->type);
  }
  if (!unsupported.empty()) {
    SILT_THROW(DELTA_CLUSTERING_COLUMNS_DATATYPE_NOT_SUPPORTED,
               {{"columnsWithDataTypes", unsupported}});
  }
  std::string names;
  for (size_t i : missing) names += (names.empty() ? "" : ", ") + ColumnPathName(resolved[i]);
  std::string tree = "root\n";
  AppendTree(stats_fields, " ", tree);
  SILT_THROW(DELTA_CLUSTERING_COLUMN_MISSING_STATS, {{"columns", names}, {"schema", tree}});
}

}  // namespace silt::log
