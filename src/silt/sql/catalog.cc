#include "silt/sql/catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/exec/text_format.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"

namespace silt::sql {
namespace {

constexpr std::string_view kDefaultDatabase = "default";
constexpr std::string_view kRegistryFile = "_silt_tables.json";
constexpr std::string_view kDatabaseMarkerFile = "_silt_database.json";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string QuotedTable(const std::string& database, const std::string& table) {
  return "`spark_catalog`.`" + database + "`.`" + table + "`";
}

}  // namespace

Catalog::Catalog(std::shared_ptr<io::FileSystem> fs, std::string warehouse)
    : fs_(std::move(fs)), warehouse_(io::NormalizePath(warehouse)) {}

std::string Catalog::DatabaseFolder(const std::string& database) const {
  std::string name = AsciiLower(database);
  if (name == kDefaultDatabase) return warehouse_;
  return io::JoinPath(warehouse_, name + ".db");
}

bool Catalog::DatabaseExists(const std::string& name) const {
  std::string lower = AsciiLower(name);
  if (lower == kDefaultDatabase) return true;
  if (lower.empty() || lower.find('/') != std::string::npos) return false;
  std::string folder = DatabaseFolder(lower);
  if (fs_->Stat(io::JoinPath(folder, kDatabaseMarkerFile))) return true;
  // A database folder made by another engine has no marker; a folder emptied by DROP
  // DATABASE may linger on disk but holds no file.
  std::optional<io::FileInfo> info = fs_->Stat(folder);
  return info.has_value() && info->is_directory && !fs_->List(folder, "", true).empty();
}

void Catalog::CheckDatabase(const std::string& database) const {
  if (!DatabaseExists(database)) {
    SILT_THROW(SCHEMA_NOT_FOUND, {{"schemaName", "`spark_catalog`.`" + AsciiLower(database) + "`"}});
  }
}

void Catalog::CreateDatabase(const std::string& name, bool if_not_exists,
                             const std::optional<std::string>& comment) {
  std::string lower = AsciiLower(name);
  SILT_USER_CHECK(!lower.empty() && lower.find('/') == std::string::npos &&
                      lower.find('`') == std::string::npos,
                  INVALID_SCHEMA_OR_RELATION_NAME, {{"name", name}});
  if (DatabaseExists(lower)) {
    if (if_not_exists) return;
    SILT_THROW(SCHEMA_ALREADY_EXISTS, {{"schemaName", "`spark_catalog`.`" + lower + "`"}});
  }
  // Folders are implicit in object stores: a marker file makes the database exist.
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String(lower);
  if (comment) {
    json.Key("comment");
    json.String(*comment);
  }
  json.EndObject();
  fs_->WriteFile(io::JoinPath(DatabaseFolder(lower), kDatabaseMarkerFile), json.str());
}

std::optional<std::string> Catalog::DatabaseComment(const std::string& name) const {
  CheckDatabase(name);
  std::string marker = io::JoinPath(DatabaseFolder(name), kDatabaseMarkerFile);
  if (!fs_->Stat(marker)) return std::nullopt;
  exec::JsonValue value = exec::ParseJson(fs_->ReadFile(marker));
  const exec::JsonValue* comment = value.Find("comment");
  if (comment == nullptr || comment->kind != exec::JsonValue::Kind::kString) return std::nullopt;
  return comment->text;
}

void Catalog::DropDatabase(const std::string& name, bool if_exists, bool cascade) {
  std::string lower = AsciiLower(name);
  if (lower == kDefaultDatabase) {
    SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "Cannot drop the default database"}});
  }
  if (!DatabaseExists(lower)) {
    if (if_exists) return;
    SILT_THROW(SCHEMA_NOT_FOUND, {{"schemaName", "`spark_catalog`.`" + lower + "`"}});
  }
  std::vector<std::string> tables = ListTables(lower);
  if (!tables.empty() && !cascade) {
    SILT_THROW(SCHEMA_NOT_EMPTY, {{"schemaName", "`spark_catalog`.`" + lower + "`"}});
  }
  for (const std::string& table : tables) DropTable(lower, table, /*if_exists=*/true);
  for (const io::FileInfo& file : fs_->List(DatabaseFolder(lower), "", /*recursive=*/true)) {
    fs_->Delete(file.path);
  }
}

std::vector<std::string> Catalog::ListDatabases() const {
  std::set<std::string> names{std::string(kDefaultDatabase)};
  for (const io::FileInfo& entry : fs_->List(warehouse_)) {
    std::string base(io::BaseName(entry.path));
    if (entry.is_directory && EndsWith(base, ".db") && base.size() > 3) {
      std::string name = AsciiLower(base.substr(0, base.size() - 3));
      if (DatabaseExists(name)) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

std::string Catalog::ManagedLocation(const std::string& database, const std::string& table) const {
  return io::JoinPath(DatabaseFolder(database), AsciiLower(table));
}

std::map<std::string, std::string> Catalog::ReadRegistry(const std::string& database) const {
  std::map<std::string, std::string> tables;
  std::string path = io::JoinPath(DatabaseFolder(database), kRegistryFile);
  if (!fs_->Stat(path)) return tables;
  exec::JsonValue value = exec::ParseJson(fs_->ReadFile(path));
  const exec::JsonValue* entries = value.Find("tables");
  if (entries == nullptr) return tables;
  for (const auto& [name, location] : entries->members) {
    if (location.kind == exec::JsonValue::Kind::kString) tables[name] = location.text;
  }
  return tables;
}

void Catalog::WriteRegistry(const std::string& database,
                            const std::map<std::string, std::string>& tables) {
  JsonWriter json;
  json.BeginObject();
  json.Key("tables");
  json.BeginObject();
  for (const auto& [name, location] : tables) {
    json.Key(name);
    json.String(location);
  }
  json.EndObject();
  json.EndObject();
  std::string path = io::JoinPath(DatabaseFolder(database), kRegistryFile);
  // Written aside and renamed so a concurrent reader sees the old or the new registry whole.
  std::string staging = path + ".tmp";
  fs_->WriteFile(staging, json.str());
  fs_->Rename(staging, path);
}

bool Catalog::IsDeltaTableFolder(const std::string& location) const {
  return !fs_->List(io::JoinPath(location, "_delta_log")).empty();
}

std::optional<std::string> Catalog::TableLocation(const std::string& database,
                                                  const std::string& table) const {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  std::map<std::string, std::string> registry = ReadRegistry(database);
  if (auto it = registry.find(name); it != registry.end()) return it->second;
  std::string managed = ManagedLocation(database, name);
  if (IsDeltaTableFolder(managed)) return managed;
  return std::nullopt;
}

bool Catalog::IsExternalTable(const std::string& database, const std::string& table) const {
  CheckDatabase(database);
  return ReadRegistry(database).count(AsciiLower(table)) > 0;
}

void Catalog::RegisterExternalTable(const std::string& database, const std::string& table,
                                    const std::string& location) {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  if (TableLocation(database, name)) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
               {{"relationName", QuotedTable(AsciiLower(database), name)}});
  }
  std::map<std::string, std::string> registry = ReadRegistry(database);
  registry[name] = location;
  WriteRegistry(database, registry);
}

void Catalog::DropTable(const std::string& database, const std::string& table, bool if_exists) {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  std::map<std::string, std::string> registry = ReadRegistry(database);
  if (registry.erase(name) > 0) {
    WriteRegistry(database, registry);
    return;
  }
  std::string managed = ManagedLocation(database, name);
  if (!IsDeltaTableFolder(managed)) {
    if (if_exists) return;
    SILT_THROW(TABLE_OR_VIEW_NOT_FOUND, {{"relationName", QuotedTable(AsciiLower(database), name)}});
  }
  // The log goes first, so that a crash part-way leaves no half table that still looks like one.
  std::vector<io::FileInfo> files = fs_->List(managed, "", /*recursive=*/true);
  std::stable_partition(files.begin(), files.end(), [](const io::FileInfo& file) {
    return file.path.find("/_delta_log/") != std::string::npos;
  });
  for (const io::FileInfo& file : files) fs_->Delete(file.path);
}

std::vector<std::string> Catalog::ListTables(const std::string& database) const {
  CheckDatabase(database);
  std::set<std::string> names;
  for (const auto& [name, location] : ReadRegistry(database)) names.insert(name);
  for (const io::FileInfo& entry : fs_->List(DatabaseFolder(database))) {
    if (!entry.is_directory) continue;
    std::string base(io::BaseName(entry.path));
    if (AsciiLower(database) == kDefaultDatabase && EndsWith(base, ".db")) continue;
    if (IsDeltaTableFolder(entry.path)) names.insert(AsciiLower(base));
  }
  return {names.begin(), names.end()};
}

}  // namespace silt::sql
