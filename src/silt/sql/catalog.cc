#include "silt/sql/catalog.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/base/shortened_text.h"
#include "silt/exec/text_format.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"

namespace silt::sql {
namespace {

constexpr std::string_view kDefaultDatabase = "default";
// External tables: one entry file per table in this folder of the database's folder, created
// with put-if-absent, so that processes registering tables at once never rewrite each other's
// entries and exactly one of two registering the same name wins.
constexpr std::string_view kRegistryFolder = "_silt_tables";
// The single registry file earlier versions kept; read, and folded into entries on the next
// registry change.
constexpr std::string_view kLegacyRegistryFile = "_silt_tables.json";
constexpr std::string_view kDatabaseMarkerFile = "_silt_database.json";
// Permanent views: one entry file per view in this folder of the database's folder.
constexpr std::string_view kViewFolder = "_silt_views";
// A managed table's folder is its name, and file systems allow 255 bytes per name.
constexpr size_t kMaxTableNameBytes = 255;
// Entry file names longer than this (after escaping) are shortened and given a hash.
constexpr size_t kMaxEntryStemBytes = 200;

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string QuotedTable(const std::string& database, const std::string& table) {
  return "`spark_catalog`.`" + ShortenedForMessage(database) + "`.`" + ShortenedForMessage(table) +
         "`";
}

uint64_t Fnv1a64(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// The entry file of table `name` (lower case): the name with bytes other than [a-z0-9_-]
// escaped as %XX; a long name keeps a prefix and a hash of the whole (the entry holds the full
// name, which lookups compare).
std::string EntryFileName(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string stem;
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      stem.push_back(static_cast<char>(c));
    } else {
      stem.push_back('%');
      stem.push_back(kHex[c >> 4]);
      stem.push_back(kHex[c & 15]);
    }
  }
  if (stem.size() > kMaxEntryStemBytes) {
    size_t keep = kMaxEntryStemBytes - 20;
    // Never cut an escape in two.
    if (stem[keep - 1] == '%') keep -= 1;
    else if (stem[keep - 2] == '%') keep -= 2;
    stem.resize(keep);
    char hash[17];
    uint64_t value = Fnv1a64(name);
    for (int i = 15; i >= 0; --i, value >>= 4) hash[i] = kHex[value & 15];
    hash[16] = '\0';
    stem += '~';
    stem += hash;
  }
  return stem + ".json";
}

std::string EntryJson(const std::string& name, const std::string& location) {
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String(name);
  json.Key("location");
  json.String(location);
  json.EndObject();
  return json.Release();
}

// The (name, location) an entry file holds; nullopt for a file that is not an entry.
std::optional<std::pair<std::string, std::string>> ParseEntry(const std::string& text) {
  exec::JsonValue value = exec::ParseJson(text);
  const exec::JsonValue* name = value.Find("name");
  const exec::JsonValue* location = value.Find("location");
  if (name == nullptr || location == nullptr || name->kind != exec::JsonValue::Kind::kString ||
      location->kind != exec::JsonValue::Kind::kString) {
    return std::nullopt;
  }
  return std::make_pair(name->text, location->text);
}

void StringPairsJson(JsonWriter& json,
                     const std::vector<std::pair<std::string, std::string>>& pairs) {
  json.BeginObject();
  for (const auto& [key, value] : pairs) {
    json.Key(key);
    json.String(value);
  }
  json.EndObject();
}

std::string ViewJson(const StoredView& view) {
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String(view.name);
  json.Key("database");
  json.String(view.database);
  json.Key("resolutionDatabase");
  json.String(view.resolution_database);
  json.Key("text");
  json.String(view.text);
  json.Key("schema");
  json.String(view.schema_json);
  json.Key("queryColumns");
  json.BeginArray();
  for (const std::string& column : view.query_columns) json.String(column);
  json.EndArray();
  if (view.comment) {
    json.Key("comment");
    json.String(*view.comment);
  }
  json.Key("properties");
  StringPairsJson(json, view.properties);
  json.Key("sqlConfigs");
  StringPairsJson(json, view.sql_configs);
  json.Key("createdTime");
  json.Int(view.created_time_ms);
  json.EndObject();
  return json.Release();
}

std::vector<std::pair<std::string, std::string>> StringPairs(const exec::JsonValue* object) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (object == nullptr) return pairs;
  for (const auto& [key, value] : object->members) {
    if (value.kind == exec::JsonValue::Kind::kString) pairs.emplace_back(key, value.text);
  }
  return pairs;
}

// The view an entry file holds; nullopt for a file that is not a view entry.
std::optional<StoredView> ParseViewEntry(const std::string& text) {
  exec::JsonValue value = exec::ParseJson(text);
  auto string_member = [&](std::string_view key) -> const std::string* {
    const exec::JsonValue* member = value.Find(key);
    if (member == nullptr || member->kind != exec::JsonValue::Kind::kString) return nullptr;
    return &member->text;
  };
  const std::string* name = string_member("name");
  const std::string* database = string_member("database");
  const std::string* query = string_member("text");
  const std::string* schema = string_member("schema");
  if (name == nullptr || database == nullptr || query == nullptr || schema == nullptr) {
    return std::nullopt;
  }
  StoredView view;
  view.name = *name;
  view.database = *database;
  view.text = *query;
  const std::string* resolution = string_member("resolutionDatabase");
  view.resolution_database = resolution != nullptr ? *resolution : view.database;
  view.schema_json = *schema;
  if (const std::string* comment = string_member("comment")) view.comment = *comment;
  if (const exec::JsonValue* columns = value.Find("queryColumns");
      columns != nullptr && columns->kind == exec::JsonValue::Kind::kArray) {
    for (const exec::JsonValue& column : columns->elements) {
      if (column.kind == exec::JsonValue::Kind::kString) view.query_columns.push_back(column.text);
    }
  }
  view.properties = StringPairs(value.Find("properties"));
  view.sql_configs = StringPairs(value.Find("sqlConfigs"));
  if (const exec::JsonValue* created = value.Find("createdTime");
      created != nullptr && created->kind == exec::JsonValue::Kind::kInteger) {
    view.created_time_ms = created->integer;
  }
  return view;
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
  if ((!tables.empty() || !ListViews(lower).empty()) && !cascade) {
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

void Catalog::CheckTableName(const std::string& table) {
  if (table.size() > kMaxTableNameBytes) {
    SILT_THROW(TABLE_NAME_TOO_LONG, {{"name", "`" + ShortenedForMessage(table, kEchoedIdentifierLimit,
                                                                          /*with_length=*/false) +
                                                  "`"},
                                     {"length", std::to_string(table.size())},
                                     {"limit", std::to_string(kMaxTableNameBytes)}});
  }
}

std::string Catalog::RegistryEntryPath(const std::string& database, const std::string& table) const {
  return io::JoinPath(io::JoinPath(DatabaseFolder(database), kRegistryFolder),
                      EntryFileName(table));
}

std::map<std::string, std::string> Catalog::ReadLegacyRegistry(const std::string& database) const {
  std::map<std::string, std::string> tables;
  std::string path = io::JoinPath(DatabaseFolder(database), kLegacyRegistryFile);
  if (!fs_->Stat(path)) return tables;
  std::string text;
  try {
    text = fs_->ReadFile(path);
  } catch (const Error& error) {
    // Folded into entries by another process between the two calls.
    if (error.error_class() == "PATH_NOT_FOUND") return tables;
    throw;
  }
  exec::JsonValue value = exec::ParseJson(text);
  const exec::JsonValue* entries = value.Find("tables");
  if (entries == nullptr) return tables;
  for (const auto& [name, location] : entries->members) {
    if (location.kind == exec::JsonValue::Kind::kString) tables[name] = location.text;
  }
  return tables;
}

std::optional<std::string> Catalog::ReadRegistryEntry(const std::string& database,
                                                      const std::string& table) const {
  std::string path = RegistryEntryPath(database, table);
  if (fs_->Stat(path)) {
    std::optional<std::pair<std::string, std::string>> entry;
    try {
      entry = ParseEntry(fs_->ReadFile(path));
    } catch (const Error& error) {
      // Dropped between the two calls.
      if (error.error_class() != "PATH_NOT_FOUND") throw;
    }
    if (entry && entry->first == table) return entry->second;
  }
  std::map<std::string, std::string> legacy = ReadLegacyRegistry(database);
  if (auto it = legacy.find(table); it != legacy.end()) return it->second;
  return std::nullopt;
}

std::map<std::string, std::string> Catalog::ReadRegistry(const std::string& database) const {
  std::map<std::string, std::string> tables = ReadLegacyRegistry(database);
  std::string folder = io::JoinPath(DatabaseFolder(database), kRegistryFolder);
  for (const io::FileInfo& file : fs_->List(folder)) {
    if (file.is_directory || !EndsWith(file.path, ".json")) continue;
    std::optional<std::pair<std::string, std::string>> entry;
    try {
      entry = ParseEntry(fs_->ReadFile(file.path));
    } catch (const Error& error) {
      if (error.error_class() == "PATH_NOT_FOUND") continue;
      throw;
    }
    if (entry) tables[entry->first] = entry->second;
  }
  return tables;
}

void Catalog::FoldLegacyRegistry(const std::string& database) {
  std::map<std::string, std::string> legacy = ReadLegacyRegistry(database);
  if (legacy.empty()) return;
  for (const auto& [name, location] : legacy) {
    fs_->PutIfAbsent(RegistryEntryPath(database, name), EntryJson(name, location));
  }
  fs_->Delete(io::JoinPath(DatabaseFolder(database), kLegacyRegistryFile));
}

bool Catalog::IsDeltaTableFolder(const std::string& location) const {
  return !fs_->List(io::JoinPath(location, "_delta_log")).empty();
}

std::optional<std::string> Catalog::TableLocation(const std::string& database,
                                                  const std::string& table) const {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  // No file system could hold such a table: answer without asking it.
  if (name.size() > kMaxTableNameBytes) return std::nullopt;
  if (auto location = ReadRegistryEntry(database, name)) return location;
  std::string managed = ManagedLocation(database, name);
  if (IsDeltaTableFolder(managed)) return managed;
  return std::nullopt;
}

bool Catalog::IsExternalTable(const std::string& database, const std::string& table) const {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  if (name.size() > kMaxTableNameBytes) return false;
  return ReadRegistryEntry(database, name).has_value();
}

void Catalog::RegisterExternalTable(const std::string& database, const std::string& table,
                                    const std::string& location) {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  CheckTableName(name);
  if (TableLocation(database, name)) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
               {{"relationName", QuotedTable(AsciiLower(database), name)}});
  }
  FoldLegacyRegistry(database);
  if (fs_->PutIfAbsent(RegistryEntryPath(database, name), EntryJson(name, location)) ==
      io::PutOutcome::kAlreadyExists) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
               {{"relationName", QuotedTable(AsciiLower(database), name)}});
  }
}

void Catalog::DropTable(const std::string& database, const std::string& table, bool if_exists) {
  CheckDatabase(database);
  std::string name = AsciiLower(table);
  if (name.size() <= kMaxTableNameBytes) {
    FoldLegacyRegistry(database);
    std::string entry = RegistryEntryPath(database, name);
    if (ReadRegistryEntry(database, name) && fs_->Delete(entry)) return;
  }
  std::string managed = ManagedLocation(database, name);
  if (name.size() > kMaxTableNameBytes || !IsDeltaTableFolder(managed)) {
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

std::string Catalog::ViewEntryPath(const std::string& database, const std::string& view) const {
  return io::JoinPath(io::JoinPath(DatabaseFolder(database), kViewFolder), EntryFileName(view));
}

void Catalog::StoreView(const StoredView& view, bool replace) {
  CheckDatabase(view.database);
  CheckTableName(view.name);
  if (TableLocation(view.database, view.name)) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
               {{"relationName", QuotedTable(view.database, view.name)}});
  }
  std::string path = ViewEntryPath(view.database, view.name);
  if (replace) {
    fs_->WriteFile(path, ViewJson(view));
    return;
  }
  if (fs_->PutIfAbsent(path, ViewJson(view)) == io::PutOutcome::kAlreadyExists) {
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS,
               {{"relationName", QuotedTable(view.database, view.name)}});
  }
}

std::optional<StoredView> Catalog::FindView(const std::string& database,
                                            const std::string& name) const {
  CheckDatabase(database);
  std::string lower = AsciiLower(name);
  if (lower.size() > kMaxTableNameBytes) return std::nullopt;
  std::string path = ViewEntryPath(database, lower);
  if (!fs_->Stat(path)) return std::nullopt;
  std::optional<StoredView> view;
  try {
    view = ParseViewEntry(fs_->ReadFile(path));
  } catch (const Error& error) {
    // Dropped between the two calls.
    if (error.error_class() == "PATH_NOT_FOUND") return std::nullopt;
    throw;
  }
  if (!view || view->name != lower) return std::nullopt;
  return view;
}

bool Catalog::DropView(const std::string& database, const std::string& name) {
  if (!FindView(database, name)) return false;
  return fs_->Delete(ViewEntryPath(database, AsciiLower(name)));
}

std::vector<std::string> Catalog::ListViews(const std::string& database) const {
  CheckDatabase(database);
  std::set<std::string> names;
  std::string folder = io::JoinPath(DatabaseFolder(database), kViewFolder);
  for (const io::FileInfo& file : fs_->List(folder)) {
    if (file.is_directory || !EndsWith(file.path, ".json")) continue;
    std::optional<StoredView> view;
    try {
      view = ParseViewEntry(fs_->ReadFile(file.path));
    } catch (const Error& error) {
      if (error.error_class() == "PATH_NOT_FOUND") continue;
      throw;
    }
    if (view) names.insert(view->name);
  }
  return {names.begin(), names.end()};
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
