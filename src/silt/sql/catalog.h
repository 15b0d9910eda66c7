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

/// A permanent view as the catalog keeps it (CREATE VIEW): what Spark's catalog records of one.
struct StoredView {
  std::string name;      ///< lower case
  std::string database;  ///< lower case; where the view lives
  /// The current database when the view was created: its query's unqualified names resolve in
  /// it (Spark's "View Catalog and Namespace").
  std::string resolution_database;
  std::string text;  ///< the query as written (Spark's "View Text")
  /// The output columns as Delta schema JSON: the names the view shows, the types its query
  /// had at creation, and column comments (`comment` metadata).
  std::string schema_json;
  /// The names the query gave its columns at creation (Spark's "View Query Output Columns"):
  /// a read takes these columns by name from the query's output, so a `SELECT *` view keeps
  /// its columns when its table gains some.
  std::vector<std::string> query_columns;
  std::optional<std::string> comment;
  std::vector<std::pair<std::string, std::string>> properties;
  /// The session's SQL settings (`spark.sql.*`) when the view was created, as Spark keeps them.
  std::vector<std::pair<std::string, std::string>> sql_configs;
  int64_t created_time_ms = 0;
};

/// The warehouse: databases and the tables in them, kept in a folder so that every session (and
/// every process) pointed at the same folder sees the same tables. Spark's layout: tables of
/// the `default` database are `<warehouse>/<table>`, of database d `<warehouse>/d.db/<table>`
/// (managed tables); a table created with LOCATION (external) is recorded by an entry file in
/// the folder `_silt_tables/` of its database's folder, holding the name and the location and
/// created with put-if-absent, so any number of processes can register and drop tables at once
/// (a registry file `_silt_tables.json` of earlier versions is still read, and folded into
/// entries when the registry next changes). A
/// database other than `default` exists when its folder does; CREATE DATABASE writes the marker
/// file `_silt_database.json` (name, comment) into it, since object stores have no empty folders.
/// A permanent view is an entry file in the folder `_silt_views/` of its database's folder
/// (StoredView as JSON), created with put-if-absent; a name is a table or a view, never both.
/// Names are case-insensitive and stored lower-case, as Spark's session catalog does.
/// A table name has at most 255 bytes, the longest folder name file systems allow.
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

  /// Throws TABLE_NAME_TOO_LONG (a user error) for a table name no file system could hold, before
  /// anything touches the disk.
  static void CheckTableName(const std::string& table);
  /// Where a managed table `database.table` lives.
  std::string ManagedLocation(const std::string& database, const std::string& table) const;
  /// The folder of `database.table` when the table exists (a managed folder holding a Delta log,
  /// or a registered external location), else nullopt (also for a name too long to exist).
  /// Throws SCHEMA_NOT_FOUND for an unknown database.
  std::optional<std::string> TableLocation(const std::string& database, const std::string& table) const;
  /// Records an external table (CREATE TABLE ... LOCATION). Throws TABLE_OR_VIEW_ALREADY_EXISTS,
  /// also to the loser of two processes registering one name at once, and TABLE_NAME_TOO_LONG.
  void RegisterExternalTable(const std::string& database, const std::string& table,
                             const std::string& location);
  /// Forgets a table (DROP TABLE): a managed table's folder is deleted, an external table's
  /// data is kept (as Spark does). Throws TABLE_OR_VIEW_NOT_FOUND unless if_exists.
  void DropTable(const std::string& database, const std::string& table, bool if_exists);
  /// Table names of a database, sorted.
  std::vector<std::string> ListTables(const std::string& database) const;
  /// True when `database.table` was registered with a LOCATION. Throws SCHEMA_NOT_FOUND.
  bool IsExternalTable(const std::string& database, const std::string& table) const;

  /// Stores a permanent view. Throws TABLE_OR_VIEW_ALREADY_EXISTS when a table has the name, or
  /// a view has it and not `replace` (also to the loser of two processes creating one view at
  /// once), SCHEMA_NOT_FOUND and TABLE_NAME_TOO_LONG.
  void StoreView(const StoredView& view, bool replace);
  /// The view `database.name`, or nullopt. Throws SCHEMA_NOT_FOUND for an unknown database.
  std::optional<StoredView> FindView(const std::string& database, const std::string& name) const;
  /// Forgets a view; returns whether one existed. Throws SCHEMA_NOT_FOUND.
  bool DropView(const std::string& database, const std::string& name);
  /// View names of a database, sorted. Throws SCHEMA_NOT_FOUND.
  std::vector<std::string> ListViews(const std::string& database) const;

 private:
  std::string DatabaseFolder(const std::string& database) const;
  std::string RegistryEntryPath(const std::string& database, const std::string& table) const;
  std::string ViewEntryPath(const std::string& database, const std::string& view) const;
  /// Every registered external table: entries and the legacy registry file.
  std::map<std::string, std::string> ReadRegistry(const std::string& database) const;
  std::map<std::string, std::string> ReadLegacyRegistry(const std::string& database) const;
  /// The location registered for `table` (lower case), if any.
  std::optional<std::string> ReadRegistryEntry(const std::string& database,
                                               const std::string& table) const;
  /// Turns the legacy registry file's tables into entries and deletes the file.
  void FoldLegacyRegistry(const std::string& database);
  bool IsDeltaTableFolder(const std::string& location) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string warehouse_;
};

}  // namespace silt::sql
