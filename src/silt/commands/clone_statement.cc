// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t SHALLOW CLONE s [VERSION|TIMESTAMP AS OF ...]
// [TBLPROPERTIES (...)] [LOCATION '...'], as Delta runs it: the new table's first commit holds
// the source's metadata (with a new id and the given properties on top), its protocol, and an
// add for each of the source's live files at the version cloned, by absolute path, so no data
// is copied. Deletion vectors stored beside the source's files are referenced by absolute path
// too. The clone is a table of its own from then on: its writes never touch the source, and
// VACUUM of the clone never deletes the source's files (they are outside its folder).

#include <filesystem>
#include <iterator>
#include <set>

#include "silt/commands/statement_internal.h"
#include "silt/io/path.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/random_uuid.h"
#include "silt/log/restore.h"
#include "silt/log/table_features.h"
#include "silt/log/table_properties.h"

namespace silt::commands::internal {
namespace {

// `path` as an absolute location: an object store URL as it is, a local path made absolute.
std::string AbsoluteLocation(const std::string& path) {
  if (path.find("://") != std::string::npos) return path;
  std::string local = path.rfind("file:", 0) == 0 ? log::CanonicalLogPath(path) : path;
  return std::filesystem::absolute(local).lexically_normal().string();
}

// A log path (URI) for the absolute location `location`: local files get the file: scheme,
// as Spark writes them, and what a URI must not hold literally (a space in a partition value)
// is escaped.
std::string AbsoluteLogPath(const std::string& location) {
  if (location.find("://") != std::string::npos) return log::EncodeLogPath(location);
  return "file://" + log::EncodeLogPath(location);
}

// The add of the clone for `file`, a live file of `source`, whose root is `source_root` made
// absolute.
log::AddFile ClonedAdd(const log::AddFile& file, const log::Snapshot& source,
                       const std::string& source_root) {
  log::AddFile add = file;
  add.data_change = true;
  add.path = AbsoluteLogPath(AbsoluteLocation(source.ResolvePath(file.path)));
  if (add.deletion_vector && add.deletion_vector->storage_type == 'u') {
    // A UUID-named vector lives beside the source's files: name it by absolute path ('p').
    log::DeletionVectorDescriptor& vector = *add.deletion_vector;
    vector.path_or_inline_dv = AbsoluteLogPath(log::DeletionVectorPath(vector, source_root));
    vector.storage_type = 'p';
  }
  return add;
}

}  // namespace

StatementResult ExecuteShallowClone(sql::SessionState& session, const sql::Statement& statement) {
  const sql::TableReference& reference = *statement.source;
  DeltaTarget source_target =
      ResolveDeltaTarget(session, reference.name, reference.position, "CLONE");
  log::SnapshotOptions snapshot_options;
  if (reference.time_travel) {
    snapshot_options =
        TimeTravelOptions(*reference.time_travel, session.MakeEvalContext(), "CLONE");
  }
  auto source = log::Snapshot::Load(session.fs(), source_target.location, snapshot_options);

  CreateTarget target = ResolveCreateTarget(session, statement);
  const bool replacing = statement.or_replace || statement.replace;
  bool location_has_log =
      !target.exists && !session.fs()->List(io::JoinPath(target.location, "_delta_log")).empty();
  if ((target.exists || location_has_log) && !replacing) {
    if (statement.if_not_exists) return {};
    SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", target.display_name}});
  }
  if (!target.exists && statement.replace && !statement.or_replace) {
    SILT_THROW(TABLE_OR_VIEW_NOT_FOUND, {{"relationName", target.display_name}});
  }
  const std::string source_root = AbsoluteLocation(source->table_root());
  if (AbsoluteLocation(target.location) == source_root) {
    SILT_THROW(UNSUPPORTED_FEATURE, {{"message", "CLONE of a table onto itself"}});
  }

  // The source's metadata with the given properties on top; a new table gets a new id.
  log::Metadata metadata = source->metadata();
  for (const auto& [key, value] : statement.properties) {
    auto property = log::ValidateTableProperty(key, value);
    std::erase_if(metadata.configuration,
                  [&](const auto& entry) { return entry.first == property.first; });
    metadata.configuration.push_back(std::move(property));
  }
  metadata.configuration = log::ValidateTableProperties(metadata.configuration);
  log::Protocol protocol =
      log::MergeProtocols(source->protocol(), log::RequiredProtocol(metadata));

  std::unique_ptr<log::Transaction> txn;
  std::shared_ptr<const log::Snapshot> replaced;
  if (target.exists || location_has_log) {
    replaced = log::Snapshot::Load(session.fs(), target.location);
    txn = log::Transaction::Start(replaced, EnforcedFeatures());
    // A replaced table keeps its id; protocols never go down.
    metadata.id = replaced->metadata().id;
    metadata.created_time = replaced->metadata().created_time;
    protocol = log::MergeProtocols(replaced->protocol(), protocol);
  } else {
    txn = log::Transaction::StartCreate(session.fs(), target.location, EnforcedFeatures());
    metadata.id = log::RandomUuid();
    metadata.created_time = std::nullopt;  // the commit's time
  }
  txn->UpdateMetadata(metadata);
  txn->UpdateProtocol(protocol);
  // Clustering columns and row tracking's high water mark come along with the files.
  for (const auto& [name, domain] : source->domain_metadata()) {
    if (!domain.removed) txn->AddDomainMetadata(domain);
  }

  // A file of the replaced table that is also one of the clone's (the same file with the same
  // deletion vector: the table was cloned from this source before) stays as it is: a commit
  // must not add and remove one file.
  auto key = [](const log::AddFile& file) {
    return log::CanonicalLogPath(file.path) + '\0' +
           (file.deletion_vector ? file.deletion_vector->UniqueId() : std::string());
  };
  std::vector<log::AddFile> adds;
  std::set<std::string> cloned;
  int64_t source_bytes = 0;
  for (const log::AddFile& file : source->files()) {
    source_bytes += file.size;
    adds.push_back(ClonedAdd(file, *source, source_root));
    cloned.insert(key(adds.back()));
  }
  int64_t removed_files = 0;
  int64_t removed_bytes = 0;
  if (replaced) {
    txn->RecordReadWholeTable();
    for (const log::AddFile& file : replaced->files()) {
      if (cloned.erase(key(file)) > 0) continue;
      txn->RemoveLiveFile(file);
      ++removed_files;
      removed_bytes += file.size;
    }
  }
  for (log::AddFile& add : adds) {
    if (replaced && !cloned.contains(key(add))) continue;  // kept from the replaced table
    txn->Add(std::move(add));
  }
  const int64_t source_files = static_cast<int64_t>(source->files().size());

  txn->SetOperation(
      "CLONE",
      {{"source", QuotedJson(source_target.display_name)},
       {"sourceVersion", std::to_string(source->version())},
       {"isShallow", "true"}},
      {{"sourceTableSize", std::to_string(source_bytes)},
       {"sourceNumOfFiles", std::to_string(source_files)},
       {"numRemovedFiles", std::to_string(removed_files)},
       {"numCopiedFiles", "0"},
       {"removedFilesSize", std::to_string(removed_bytes)},
       {"copiedFilesSize", "0"}});
  CommitCreatedTable(session, target, *txn);

  std::vector<Field> fields;
  for (const char* name : {"source_table_size", "source_num_of_files", "num_removed_files",
                           "num_copied_files", "removed_files_size", "copied_files_size"}) {
    fields.push_back(Field{name, LongType(), true, {}});
  }
  ResultBuilder result(std::move(fields));
  const int64_t values[] = {source_bytes, source_files, removed_files, 0, removed_bytes, 0};
  for (size_t i = 0; i < std::size(values); ++i) result.column(i).AppendInt(values[i]);
  return result.Finish();
}

}  // namespace silt::commands::internal
