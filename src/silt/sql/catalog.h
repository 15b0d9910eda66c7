#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace silt::io {
class FileSystem;
}

namespace silt::sql {

/// The warehouse: databases and the tables in them, kept in a folder so that every session (and
/// every process) pointed at the same folder sees the same tables. Spark's layout: tables of
/// the `default` database are `<warehouse>/<table>`, of database d `<warehouse>/d.db/<table>`
/// (managed tables); a table created with LOCATION (external) is recorded in the database's
/// registry file `_silt_tables.json` inside its folder, mapping the name to the location. A
/// database other than `default` exists when its folder does; CREATE DATABASE writes the marker
/// file `_silt_database.json` (name, comment) into it, since object stores have no empty folders.
/// Names are case-insensitive and stored lower-case, as Spark's session catalog does.
/// Thread-safe for concurrent readers; writers go through the file system's atomic operations.
class Catalog {
 public:
  Catalog(std::shared_ptr<io::FileSystem> fs, std::string warehouse);

  const std::string& warehouse() const { return warehouse_; }
  const std::shared_ptr<io::FileSystem>& fs() const { return fs_; }

  /// `default` always exists; others are `<warehouse>/<name>.db` folders. Throws
  /// SCHEMA_ALREADY_EXISTS (unless if_not_exists).
  void CreateDatabase(const std::string& name, bool if_not_exists,
                      const std::optional<std::string>& comment = std::nullopt);
  /// Throws SCHEMA_NOT_FOUND (unless if_exists) and SCHEMA_NOT_EMPTY (unless cascade, which
  /// drops its tables).
  void DropDatabase(const std::string& name, bool if_exists, bool cascade);
  bool DatabaseExists(const std::string& name) const;
  /// The COMMENT given at creation. Throws SCHEMA_NOT_FOUND.
  std::optional<std::string> DatabaseComment(const std::string& name) const;
  /// Throws SCHEMA_NOT_FOUND naming the database when it does not exist.
  void CheckDatabase(const std::string& database) const;
  /// Sorted.
  std::vector<std::string> ListDatabases() const;

  /// Where a managed table `database.table` lives.
  std::string ManagedLocation(const std::string& database, const std::string& table) const;
  /// The folder of `database.table` when the table exists (a managed folder holding a Delta log,
  /// or a registered external location), else nullopt. Throws SCHEMA_NOT_FOUND for an unknown
  /// database.
  std::optional<std::string> TableLocation(const std::string& database, const std::string& table) const;
  /// Records an external table (CREATE TABLE ... LOCATION). Throws TABLE_OR_VIEW_ALREADY_EXISTS.
  void RegisterExternalTable(const std::string& database, const std::string& table,
                             const std::string& location);
  /// Forgets a table (DROP TABLE): a managed table's folder is deleted, an external table's
  /// data is kept (as Spark does). Throws TABLE_OR_VIEW_NOT_FOUND unless if_exists.
  void DropTable(const std::string& database, const std::string& table, bool if_exists);
  /// Table names of a database, sorted.
  std::vector<std::string> ListTables(const std::string& database) const;
  /// True when `database.table` was registered with a LOCATION. Throws SCHEMA_NOT_FOUND.
  bool IsExternalTable(const std::string& database, const std::string& table) const;

 private:
  std::string DatabaseFolder(const std::string& database) const;
  std::map<std::string, std::string> ReadRegistry(const std::string& database) const;
  void WriteRegistry(const std::string& database, const std::map<std::string, std::string>& tables);
  bool IsDeltaTableFolder(const std::string& location) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string warehouse_;
};

}  // namespace silt::sql
