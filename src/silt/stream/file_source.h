#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/io/file_system.h"
#include "silt/stream/source.h"

namespace silt::stream {

/// The formats a file source reads.
enum class FileFormat { kJson, kCsv, kParquet };

/// Which face opened a file source; it decides whether the schema may be inferred.
enum class FileSourceFace {
  /// Spark's readStream.format(...).load(dir) and STREAM(json.`dir`): the schema is given with
  /// the `schema` option, or inferred only when the session sets
  /// spark.sql.streaming.schemaInference to true.
  kSpark,
  /// Databricks' read_files: the schema is inferred unless given, with a `_rescued_data`
  /// column (rescuedDataColumn names another).
  kReadFiles,
};

/// One file a batch of the file source read: a line of its log.
struct FileEntry {
  std::string path;       ///< as the file system names it
  int64_t timestamp = 0;  ///< modification time, ms since the epoch
  int64_t batch_id = 0;   ///< the log batch that read it

  bool operator==(const FileEntry&) const = default;
};

/// A folder where files land, read as a stream as Spark's FileStreamSource reads it
/// (docs/streaming.md): each batch takes files not read before, oldest first, and records them
/// in the checkpoint's `sources/0/<n>` (Spark's FileStreamSourceLog: `v1`, then one JSON line
/// per file, `{"path":"file:/...","timestamp":<ms>,"batchId":<n>}`); its offset is
/// `{"logOffset":<n>}`, the last log batch read. Each file is read once, even when it changes
/// later.
///
/// Options (names case-insensitive): `schema` (Spark's DDL text, `id BIGINT, name STRING`),
/// `maxFilesPerTrigger`, `latestFirst` (newest files first), `maxFileAge` (files older than
/// the newest seen by more than this are left out, default 7 days; ignored with latestFirst and
/// maxFilesPerTrigger, as in Spark), `pathGlobFilter` (a glob the file names must match),
/// `recursiveFileLookup` (read the files of sub-folders too), `header` for CSV, the
/// JSON options of from_json (`dateFormat`, `timestampFormat`, `allowSingleQuotes`, ...),
/// `rescuedDataColumn`, and `cleanSource` (`off`; `delete` or `archive` into
/// `sourceArchiveDir` the files of a batch once it is committed). Files whose names start with
/// '_' or '.' are hidden.
///
/// A file that cannot be read with the schema fails the batch with FAILED_READ_FILE naming it
/// (`mode` FAILFAST, silt's default; with Spark's PERMISSIVE such values are NULL), unless a
/// rescued-data column is set: then values that do not fit the schema (and JSON fields
/// it lacks) are NULL in their column and kept in the rescued column as a JSON object with the
/// file's path (`_file_path`). Not thread-safe.
class FileSource final : public Source {
 public:
  /// Opens the source over `folder`. Throws INVALID_STREAMING_OPTION for bad options (also
  /// cleanSource archive without a sourceArchiveDir, or one inside the folder), INVALID_SCHEMA
  /// for a schema that does not parse, and NOT_IMPLEMENTED for a CSV separator other than ','.
  /// `eval` gives the session's time zone for dates and timestamps. `infer_schema` is the
  /// session's spark.sql.streaming.schemaInference (the kSpark face only).
  static std::unique_ptr<FileSource> Open(std::shared_ptr<io::FileSystem> fs, std::string folder,
                                          FileFormat format, FileSourceFace face,
                                          const StreamOptions& options, expr::EvalContext eval,
                                          bool infer_schema);

  std::string Describe() const override;
  /// The given schema, the one kept in the checkpoint, or one inferred from the files present.
  /// Throws UNABLE_TO_INFER_SCHEMA when the face may not infer, or there is no file to infer
  /// from.
  SchemaPtr schema() const override;
  /// Reads the file log of `folder`; keeps the inferred schema there (`sources/0/schema`, which
  /// Spark's log reader ignores), so a restart reads with the schema of the first run.
  bool OpenMetadata(const std::shared_ptr<io::FileSystem>& fs, const std::string& folder) override;
  std::string InitialOffset() override;
  /// Throws STREAMING_CHECKPOINT_CORRUPT for an offset that is not `{"logOffset":n}` or names
  /// a log batch that is not there.
  void ValidateOffset(const std::string& offset) override;
  void PrepareForAvailableNow() override;
  std::optional<std::string> LatestOffset(const std::string& start) override;
  BatchInput PlanBatch(const std::string& start, const std::string& end) override;
  /// With cleanSource, deletes or archives the files of the log batch `end` names (best
  /// effort, as Spark's: a file that cannot be moved stays).
  void Commit(const std::string& end) override;

  /// `{"logOffset":n}` and back.
  static std::string OffsetJson(int64_t log_offset);
  static std::optional<int64_t> ParseOffset(std::string_view json);
  /// A log file's text and back (Spark's FileStreamSourceLog, version 1).
  static std::string LogText(const std::vector<FileEntry>& entries);
  static std::optional<std::vector<FileEntry>> ParseLog(std::string_view text);

 private:
  FileSource() = default;
  // The data files of the folder that pass the filters, with their modification times.
  std::vector<io::FileInfo> ListFiles() const;
  std::vector<FileEntry> LogBatch(int64_t batch) const;
  SchemaPtr InferSchema() const;
  // Reads one file with the schema into `rows` (appending batches).
  void ReadFile(const FileEntry& file, std::vector<Batch>& rows) const;
  void ReadJson(const std::string& path, std::string_view text, std::vector<Batch>& rows) const;
  void ReadCsv(const std::string& path, std::string_view text, std::vector<Batch>& rows) const;
  void ReadParquet(const std::string& path, std::vector<Batch>& rows) const;
  // The schema without the rescued-data column, and that column's position (or -1).
  SchemaPtr DataSchema() const;
  int RescueIndex() const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string folder_;
  FileFormat format_ = FileFormat::kJson;
  FileSourceFace face_ = FileSourceFace::kSpark;
  expr::EvalContext eval_;
  bool infer_schema_ = false;
  std::map<std::string, std::string> format_options_;  // lower-case keys, for from_json
  std::optional<int64_t> max_files_;
  bool latest_first_ = false;
  int64_t max_file_age_ms_ = 7LL * 24 * 3600 * 1000;
  std::optional<std::string> glob_;
  bool recursive_ = false;
  bool csv_header_ = false;
  std::string rescue_column_;  // empty: none
  bool permissive_ = false;    // mode PERMISSIVE: what does not parse is NULL
  enum class Clean { kOff, kDelete, kArchive };
  Clean clean_ = Clean::kOff;
  std::string archive_folder_;

  mutable SchemaPtr schema_;
  std::string metadata_folder_;  // empty until OpenMetadata
  int64_t latest_log_batch_ = -1;
  std::map<std::string, int64_t> seen_;  // path -> modification time, of every logged file
  int64_t max_seen_timestamp_ = 0;
  std::optional<std::set<std::string>> available_now_;  // the files present at start
};

}  // namespace silt::stream
