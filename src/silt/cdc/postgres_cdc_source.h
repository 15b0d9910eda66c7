#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/cdc/postgres_change_reader.h"
#include "silt/sql/session_state.h"
#include "silt/stream/sink.h"
#include "silt/stream/source.h"

namespace silt::cdc {

/// The offset of a PostgreSQL change stream: `{"sourceVersion":1,"slot":"<slot>","lsn":"X/Y"}`,
/// the end of the last source transaction a batch holds ("0/0": nothing read yet, not even the
/// initial snapshot).
struct PostgresCdcOffset {
  std::string slot;
  Lsn lsn = 0;
  std::string ToJson() const;
  /// Throws STREAMING_CHECKPOINT_CORRUPT for other text.
  static PostgresCdcOffset Parse(const std::string& json);
};

/// `postgres_cdc`: a stream of one PostgreSQL table's changes (docs/cdc.md). Its rows are the
/// table's columns and the change columns of PostgresChangeReader; the first batch is the
/// initial snapshot (`_op` 'r'), then one row per insert ('c'), update ('u'), delete ('d',
/// the old key) and truncate ('t'), whole source transactions per batch. Staged changes live in
/// the checkpoint (`sources/0/changes/`), which the executor gives it (OpenMetadata).
class PostgresCdcSource : public stream::Source {
 public:
  /// `options` must name exactly one table (several are read together by PostgresMirror):
  /// INVALID_STREAMING_OPTION otherwise.
  PostgresCdcSource(std::shared_ptr<io::FileSystem> fs, PostgresCdcOptions options);

  std::string Describe() const override;
  bool OpenMetadata(const std::shared_ptr<io::FileSystem>& fs, const std::string& folder) override;
  void Commit(const std::string& end) override;
  void Close() noexcept override;
  SchemaPtr schema() const override;
  std::string InitialOffset() override;
  void ValidateOffset(const std::string& offset) override;
  void PrepareForAvailableNow() override;
  std::optional<std::string> LatestOffset(const std::string& start) override;
  stream::BatchInput PlanBatch(const std::string& start, const std::string& end) override;

  PostgresChangeReader& reader() { return *reader_; }
  /// The offsets of the batch PlanBatch was last asked for.
  std::pair<Lsn, Lsn> planned() const { return planned_; }

 protected:
  /// For PostgresMirror: any number of tables; batch inputs are the first table's.
  struct AnyTables {};
  PostgresCdcSource(std::shared_ptr<io::FileSystem> fs, PostgresCdcOptions options, AnyTables);

 private:
  std::unique_ptr<PostgresChangeReader> reader_;
  std::pair<Lsn, Lsn> planned_{0, 0};
};

/// What PostgresMirror keeps each table as.
enum class MirrorHistory {
  kScdType1,  ///< the target equals the source table: upserts and deletes by primary key
  kScdType2,  ///< every version kept, with __START_AT / __END_AT (the commit LSN order)
};

struct MirrorTable {
  std::string source_table;  ///< "schema.table"
  std::string target;        ///< a table name or delta.`/path`
  MirrorHistory history = MirrorHistory::kScdType1;
};

/// Mirrors PostgreSQL tables into Delta tables over one replication slot (`silt cdc`), exactly
/// once: each batch applies each table's changes with one MERGE that carries the stream's
/// `txn` (app id `<query id>:<table>`, version = batch id), so a replayed batch is skipped.
/// Targets are created when missing, with the source table's columns. With
/// `schema_evolution`, a column added at the source is added to the target (the stream
/// restarts itself at the change); without it the stream stops with CDC_SOURCE_SCHEMA_CHANGED.
struct PostgresMirrorSpec {
  PostgresCdcOptions source;
  std::vector<MirrorTable> tables;
  std::string checkpoint_location;
  bool schema_evolution = false;
};

/// The source and sink of a mirror, for stream::StreamExecution.
std::unique_ptr<stream::Source> MakeMirrorSource(std::shared_ptr<io::FileSystem> fs,
                                                 const PostgresMirrorSpec& spec);
/// Makes `STREAM postgres_cdc('<connection>', tables => '...', slot => '...', publication =>
/// '...')` and DataStreamReader.Format("postgres_cdc") open a PostgresCdcSource (the connection
/// is the first argument or the `connection` option). Idempotent; the api layer calls it.
void RegisterPostgresCdcSource();

/// `source` must be the one MakeMirrorSource made (the sink reads each table's staged rows
/// from it); it must outlive the sink.
std::unique_ptr<stream::Sink> MakeMirrorSink(stream::Source& source, const PostgresMirrorSpec& spec);

}  // namespace silt::cdc
