#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/cancellation.h"
#include "silt/base/progress.h"
#include "silt/expr/eval_context.h"
#include "silt/sql/ast.h"
#include "silt/sql/catalog.h"

namespace silt {
class ThreadPool;
}
namespace silt::exec {
class QueryMemory;
}
namespace silt::io {
class FileSystem;
}
namespace silt::log {
class Snapshot;
}
namespace silt::exec {
struct TextTable;
}

namespace silt::sql {

/// A view: its query, re-bound at each use (as Spark stores views as plans of text). Temporary
/// views live in the session; a permanent view is read from the catalog (`stored`).
struct TempView {
  std::string name;
  QueryPtr query;
  std::vector<std::string> column_names;  ///< CREATE VIEW v (a, b) AS ...; empty = the query's
  std::string sql_text;
  /// Permanent views only: the catalog's record. Its query is bound with unqualified names in
  /// `stored->resolution_database` and no temporary view visible (SessionState::PushViewBinding).
  std::shared_ptr<const StoredView> stored;
};

/// What a table name in FROM (or a DML target) refers to.
struct TableSource {
  enum class Kind { kDelta, kParquet, kJson, kCsv, kView, kStreamRows };
  Kind kind = Kind::kDelta;
  /// As Spark prints it in messages and plans: `spark_catalog`.`default`.`t`, delta.`/p`.
  std::string display_name;
  /// {database, table} for catalog tables; empty for path tables and views.
  std::vector<std::string> identifier;
  /// Table root (kDelta) or file / folder path (raw files).
  std::string location;
  /// kView only.
  const TempView* view = nullptr;
  /// kView of a permanent view: owns `view`.
  std::shared_ptr<const TempView> permanent_view;
  /// kDelta: the snapshot to scan instead of loading the table's, for a streaming query's
  /// micro-batch input (SessionState::SetStreamInput).
  std::shared_ptr<const log::Snapshot> pinned_snapshot;
  /// kStreamRows: the rows of a micro-batch input read by a file source, scanned as they are.
  std::shared_ptr<const exec::TextTable> pinned_rows;
};

/// The state of one SQL session: catalog, current database, temp views and options. Not
/// thread-safe: one statement at a time per session.
/// The option keys of MakeQueryMemory.
inline constexpr std::string_view kMemoryLimitKey = "silt.memory.limit";
inline constexpr std::string_view kTmpDirKey = "silt.tmp.dir";

/// An option's value without one pair of surrounding quotes: SET stores the text as written
/// (`SET k = '2GB'` keeps the quotes), and sizes, paths and names are often quoted there.
std::string_view UnquotedConfValue(std::string_view text);

/// Bytes in a size written as Spark's byte strings: digits with an optional unit b, k/kb, m/mb,
/// g/gb, t/tb or p/pb (any case, powers of 1024); no unit means bytes; one pair of surrounding
/// quotes is ignored. nullopt for other text, a fraction, zero or a size past 2^63.
std::optional<int64_t> ParseByteSize(std::string_view text);

class SessionState {
 public:
  SessionState(std::shared_ptr<io::FileSystem> fs, std::string warehouse);

  const std::shared_ptr<io::FileSystem>& fs() const { return fs_; }
  Catalog& catalog() { return catalog_; }
  const Catalog& catalog() const { return catalog_; }

  const std::string& current_database() const { return current_database_; }
  /// USE db: throws SCHEMA_NOT_FOUND.
  void SetCurrentDatabase(const std::string& name);

  /// Session options (SET key=value, --conf). Keys are case-sensitive, as Spark's.
  void SetConf(const std::string& key, const std::string& value);
  void UnsetConf(const std::string& key);
  std::optional<std::string> GetConf(const std::string& key) const;
  /// A boolean option ("true"/"false", any case); INVALID_CONFIGURATION for other text.
  bool GetBoolConf(const std::string& key, bool default_value) const;
  /// An integer option; INVALID_CONFIGURATION for other text.
  int64_t GetLongConf(const std::string& key, int64_t default_value) const;
  /// `spark.sql.files.maxRecordsPerFile`: the most rows a written data file holds (0, and any
  /// value below it as in Spark: no limit).
  int64_t MaxRecordsPerFile() const {
    return std::max<int64_t>(0, GetLongConf("spark.sql.files.maxRecordsPerFile", 0));
  }
  const std::map<std::string, std::string>& conf() const { return conf_; }

  /// Evaluation settings from the options: spark.sql.ansi.enabled (default true),
  /// spark.sql.session.timeZone (default UTC), and the statement time (now).
  expr::EvalContext MakeEvalContext() const;

  /// A query's memory budget from the options: silt.memory.limit (a size as Spark writes one,
  /// "2g", "2GB", "512m", a number of bytes; default 80% of the machine's memory) and
  /// silt.tmp.dir (the parent of the query's spill folder; default the system's temporary
  /// folder). A bad size throws INVALID_CONF_VALUE.
  std::shared_ptr<exec::QueryMemory> MakeQueryMemory() const;

  /// Temp views by case-insensitive name. Create throws TABLE_OR_VIEW_ALREADY_EXISTS unless
  /// replace; Drop returns whether one existed.
  void CreateTempView(TempView view, bool replace);
  bool DropTempView(const std::string& name);
  const TempView* FindTempView(const std::string& name) const;
  std::vector<std::string> TempViewNames() const;

  /// Micro-batch inputs of streaming queries: a one-part name that reads as a Delta table pinned
  /// to `snapshot` (usually a subset of a version's files, Snapshot::WithFiles), found before
  /// temp views. Time travel on it is refused. Set replaces, Clear removes.
  void SetStreamInput(const std::string& name, std::shared_ptr<const log::Snapshot> snapshot,
                      std::string display_name);
  /// A micro-batch input given as rows already read (a file source's batch): the name reads as
  /// these rows (TableSource::Kind::kStreamRows).
  void SetStreamInput(const std::string& name, std::shared_ptr<const exec::TextTable> rows,
                      std::string display_name);
  void ClearStreamInput(const std::string& name);

  /// Resolves a table name as written: `t` (temp view first, then current database), `db.t`,
  /// `spark_catalog.db.t`, delta.`/path`, parquet.`/path`, json.`/path`, csv.`/path`. Throws
  /// TABLE_OR_VIEW_NOT_FOUND (with the position) when nothing matches (also for an unknown
  /// database, as Spark does); a delta.`path` that is not a Delta table throws
  /// DELTA_MISSING_DELTA_TABLE, a raw-file path that does not exist PATH_NOT_FOUND. Raw files
  /// are read with exec::ReadJsonFiles / ReadCsvFiles (exec/text_format.h) or the Parquet reader.
  TableSource ResolveTable(const QualifiedName& name, const SourcePosition& position) const;

  /// Binding a permanent view's query: until the matching Pop, one-part names resolve in the
  /// view's resolution database and temporary views are invisible, as Spark resolves a view as
  /// it was created. Throws RECURSIVE_VIEW when the view is already being bound (or created).
  void PushViewBinding(const TempView& view);
  void PopViewBinding();
  /// CREATE VIEW of the permanent view `qualified_name` (`spark_catalog`.`db`.`v`) binds its
  /// query between Begin and End: a temporary view it reads throws INVALID_TEMP_OBJ_REFERENCE,
  /// and reading the view itself (through other views) RECURSIVE_VIEW.
  void BeginViewCreation(const std::string& qualified_name);
  void EndViewCreation();

  /// Worker threads for query execution.
  ThreadPool& pool() const;

  /// The cancel request of the running statement: any thread may Cancel() it; statements poll
  /// it between batches and files and before committing.
  Cancellation& cancellation() { return cancellation_; }
  /// The running statement's progress counters, readable from any thread.
  Progress& progress() { return progress_; }

 private:
  TableSource ResolveCatalogTable(const std::string& database, const std::string& table,
                                  const QualifiedName& written,
                                  const SourcePosition& position) const;
  /// The view `database.view` of the catalog as a source (parsed once per text and cached).
  TableSource PermanentViewSource(const StoredView& stored) const;
  /// Where one-part names resolve: the current database, or a view's while it is bound.
  const std::string& ResolutionDatabase() const;

  std::shared_ptr<io::FileSystem> fs_;
  Catalog catalog_;
  std::string current_database_ = "default";
  std::map<std::string, std::string> conf_;
  std::map<std::string, TempView> temp_views_;  // lower-case name
  struct StreamInput {
    std::shared_ptr<const log::Snapshot> snapshot;
    std::shared_ptr<const exec::TextTable> rows;
    std::string display_name;
  };
  std::map<std::string, StreamInput> stream_inputs_;  // lower-case name
  struct ViewBinding {
    std::string qualified_name;
    std::string database;
  };
  std::vector<ViewBinding> view_bindings_;
  std::optional<std::string> creating_view_;
  // Permanent views parsed, by `database.view`; an entry is re-parsed when its text changes.
  mutable std::map<std::string, std::shared_ptr<const TempView>> view_cache_;
  Cancellation cancellation_;
  Progress progress_;
};

}  // namespace silt::sql
