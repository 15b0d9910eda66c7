#include "silt/stream/auto_cdc.h"

#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/commands/statement_executor.h"
#include "silt/log/snapshot.h"
#include "silt/log/transaction.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/flow_sql.h"
#include "silt/types/schema_json.h"

namespace silt::stream {

namespace {

// The temporary views a batch is applied through.
constexpr const char* kBatchView = "__silt_cdc_batch";
constexpr const char* kChangesView = "__silt_cdc_changes";
constexpr const char* kVersionsView = "__silt_cdc_versions";
constexpr const char* kMatchColumn = "__silt_match";
constexpr const char* kDeletedColumn = "__silt_deleted";
constexpr const char* kStartAt = "__START_AT";
constexpr const char* kEndAt = "__END_AT";

std::string Id(std::string_view name) { return sql::QuoteIdentifier(std::string(name)); }

// `a.k <=> b.k AND ...` over the keys.
std::string KeysMatch(const std::vector<std::string>& keys, const std::string& left,
                      const std::string& right) {
  std::string out;
  for (const std::string& key : keys) {
    if (!out.empty()) out += " AND ";
    out += left + "." + Id(key) + " <=> " + right + "." + Id(key);
  }
  return out;
}

bool Orderable(const DataType& type) {
  if (type.id() == TypeId::kMap) return false;
  for (const Field& field : type.fields()) {
    if (!Orderable(*field.type)) return false;
  }
  return true;
}

// The index of `name` in `names` (case-insensitive), or -1.
int Find(const std::vector<std::string>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (AsciiLower(names[i]) == AsciiLower(name)) return static_cast<int>(i);
  }
  return -1;
}

std::string Proposal(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + Id(name);
  return out;
}

struct CdcPlan {
  std::string target_display;
  std::string target_sql;  // delta.`...`
  std::string state_sql;
  std::vector<std::string> keys;       // as the source spells them
  std::vector<std::string> columns;    // the target's data columns, keys included
  std::vector<std::string> tracked;    // SCD 2: non-key columns whose change opens a version
  std::vector<std::string> untracked;  // SCD 2: non-key columns updated in place
  bool scd2 = false;
  bool ignore_null_updates = false;
  bool has_truncate = false;
  // The keys' SQL types, for the truncate row of the state table.
  std::vector<std::pair<std::string, std::string>> key_types;

  bool IsKey(const std::string& column) const { return Find(keys, column) >= 0; }
};

class AutoCdcSink final : public Sink {
 public:
  explicit AutoCdcSink(CdcPlan plan) : plan_(std::move(plan)) {}

  std::string Describe() const override { return "AutoCdcSink[" + plan_.target_display + "]"; }

  std::optional<int64_t> AddBatch(const BatchContext& batch) override {
    sql::SessionState& session = *batch.session;
    TemporaryViews views(session);
    views.Create(kBatchView, batch.query_sql);
    views.Create(kChangesView, ChangesSql());
    bool truncating = plan_.has_truncate &&
                      QueryCount(session, std::string("SELECT count(*) FROM ") + kBatchView +
                                              " WHERE " + Id(kCdcTruncateColumn) + " AND " +
                                              Id(kCdcSequenceColumn) + " IS NOT NULL") > 0;
    TransactionScope txn(session, batch.query_id, batch.batch_id);
    int64_t rows = 0;
    if (plan_.scd2) {
      views.Create(kVersionsView, VersionsSql());
      rows = RunMerge(session, Scd2MergeSql());
    } else {
      rows = RunMerge(session, Scd1MergeSql(truncating));
    }
    // The target holds the batch; the state does not yet.
    ReachFaultPoint(kAfterDataFilesWritten, batch.batch_id);
    RunMerge(session, StateMergeSql(truncating));
    return rows;
  }

 private:
  // The new value of column `c` for a change `s` to the current row `t`.
  std::string NewValue(const std::string& column) const {
    std::string value = "s." + Id(column);
    return plan_.ignore_null_updates ? "coalesce(" + value + ", t." + Id(column) + ")" : value;
  }

  // The latest change of each key in the batch that is newer than what the flow applied to the
  // key and than any truncate.
  std::string ChangesSql() const {
    std::string seq = Id(kCdcSequenceColumn);
    std::string truncate = Id(kCdcTruncateColumn);
    std::string partition;
    for (const std::string& key : plan_.keys) {
      partition += (partition.empty() ? "" : ", ") + Id(key);
    }
    std::string latest = "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY " + partition +
                         " ORDER BY " + seq + " DESC) AS __silt_rank FROM " + kBatchView +
                         " WHERE NOT " + truncate + " AND " + seq +
                         " IS NOT NULL) AS ranked WHERE __silt_rank = 1";
    std::string truncated = "SELECT max(" + seq + ") FROM (SELECT " + seq + " FROM " +
                            plan_.state_sql + " WHERE " + truncate + " UNION ALL SELECT " + seq +
                            " FROM " + kBatchView + " WHERE " + truncate + ") AS truncates";
    return "SELECT l.* FROM (" + latest + ") AS l LEFT JOIN (SELECT * FROM " + plan_.state_sql +
           " WHERE NOT " + truncate + ") AS st ON " + KeysMatch(plan_.keys, "l", "st") +
           " WHERE (st." + seq + " IS NULL OR l." + seq + " > st." + seq + ") AND coalesce(l." +
           seq + " > (" + truncated + "), true)";
  }

  std::string InsertClause(bool scd2) const {
    std::string names;
    std::string values;
    for (const std::string& column : plan_.columns) {
      names += (names.empty() ? "" : ", ") + Id(column);
      values += (values.empty() ? "" : ", ") + std::string("s.") + Id(column);
    }
    if (scd2) {
      names += std::string(", ") + kStartAt + ", " + kEndAt;
      values += ", s." + Id(kCdcSequenceColumn) + ", NULL";
    }
    return " WHEN NOT MATCHED AND NOT s." + Id(kCdcDeleteColumn) + " THEN INSERT (" + names +
           ") VALUES (" + values + ")";
  }

  std::string Scd1MergeSql(bool truncating) const {
    std::string out = "MERGE INTO " + plan_.target_sql + " AS t USING " + kChangesView +
                      " AS s ON " + KeysMatch(plan_.keys, "t", "s") + " WHEN MATCHED AND s." +
                      Id(kCdcDeleteColumn) + " THEN DELETE";
    std::string sets;
    for (const std::string& column : plan_.columns) {
      if (plan_.IsKey(column)) continue;
      // After a truncate the old values are gone: nothing to keep.
      std::string value = truncating ? "s." + Id(column) : NewValue(column);
      sets += (sets.empty() ? "" : ", ") + Id(column) + " = " + value;
    }
    if (!sets.empty()) out += " WHEN MATCHED THEN UPDATE SET " + sets;
    out += InsertClause(/*scd2=*/false);
    if (truncating) out += " WHEN NOT MATCHED BY SOURCE THEN DELETE";
    return out;
  }

  // `t.h <=> new h AND ...` over the tracked columns: the change keeps the current version.
  std::string SameTracked() const {
    std::string out;
    for (const std::string& column : plan_.tracked) {
      out += (out.empty() ? "" : " AND ") + std::string("t.") + Id(column) + " <=> " +
             NewValue(column);
    }
    return out.empty() ? "true" : out;
  }

  // SCD 2: each change once to match the key's current version, and once more, unmatchable,
  // to be inserted as a new version when it changes a tracked column.
  std::string VersionsSql() const {
    std::string matched;
    std::string opened;
    for (const std::string& column : plan_.columns) {
      matched += "s." + Id(column) + ", ";
      opened +=
          (plan_.IsKey(column) ? "s." + Id(column) : NewValue(column)) + " AS " + Id(column) + ", ";
    }
    std::string flags = "s." + Id(kCdcSequenceColumn) + ", s." + Id(kCdcDeleteColumn);
    return "SELECT " + matched + flags + ", true AS " + kMatchColumn + " FROM " + kChangesView +
           " AS s UNION ALL SELECT " + opened + flags + ", false AS " + kMatchColumn + " FROM " +
           kChangesView + " AS s JOIN " + plan_.target_sql + " AS t ON " +
           KeysMatch(plan_.keys, "t", "s") + " AND t." + kEndAt + " IS NULL WHERE NOT s." +
           Id(kCdcDeleteColumn) + " AND NOT (" + SameTracked() + ")";
  }

  std::string Scd2MergeSql() const {
    std::string close =
        " THEN UPDATE SET " + std::string(kEndAt) + " = s." + Id(kCdcSequenceColumn);
    std::string out = "MERGE INTO " + plan_.target_sql + " AS t USING " + kVersionsView +
                      " AS s ON s." + kMatchColumn + " AND " + KeysMatch(plan_.keys, "t", "s") +
                      " AND t." + kEndAt + " IS NULL WHEN MATCHED AND s." + Id(kCdcDeleteColumn) +
                      close + " WHEN MATCHED AND NOT (" + SameTracked() + ")" + close;
    std::string sets;
    for (const std::string& column : plan_.untracked) {
      sets += (sets.empty() ? "" : ", ") + Id(column) + " = " + NewValue(column);
    }
    if (!sets.empty()) out += " WHEN MATCHED THEN UPDATE SET " + sets;
    return out + InsertClause(/*scd2=*/true);
  }

  std::string StateMergeSql(bool truncating) const {
    std::string seq = Id(kCdcSequenceColumn);
    std::string truncate = Id(kCdcTruncateColumn);
    std::string keys;
    for (const std::string& key : plan_.keys) keys += Id(key) + ", ";
    std::string source = "SELECT " + keys + seq + ", " + Id(kCdcDeleteColumn) + " AS " +
                         kDeletedColumn + ", false AS " + truncate + " FROM " + kChangesView;
    if (truncating) {
      std::string nulls;
      for (const auto& [key, type] : plan_.key_types) {
        nulls += "CAST(NULL AS " + type + ") AS " + Id(key) + ", ";
      }
      source += " UNION ALL SELECT " + nulls + "max(" + seq + "), false, true FROM " + kBatchView +
                " WHERE " + truncate + " AND " + seq + " IS NOT NULL";
    }
    std::string names = keys + seq + ", " + kDeletedColumn + ", " + truncate;
    std::string values;
    for (const std::string& key : plan_.keys) values += "s." + Id(key) + ", ";
    values += "s." + seq + ", s." + kDeletedColumn + ", s." + truncate;
    return "MERGE INTO " + plan_.state_sql + " AS t USING (" + source + ") AS s ON t." + truncate +
           " = s." + truncate + " AND " + KeysMatch(plan_.keys, "t", "s") +
           " WHEN MATCHED THEN UPDATE SET " + seq + " = greatest(t." + seq + ", s." + seq + "), " +
           kDeletedColumn + " = s." + kDeletedColumn + " WHEN NOT MATCHED THEN INSERT (" + names +
           ") VALUES (" + values + ")";
  }

 private:
  CdcPlan plan_;
};

[[noreturn]] void ThrowInvalid(const std::string& target, const std::string& message) {
  SILT_THROW(AUTO_CDC_INVALID, {{"target", target}, {"message", message}});
}

[[noreturn]] void ThrowUnresolved(const std::string& name,
                                  const std::vector<std::string>& columns) {
  SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", Id(name)}, {"proposal", Proposal(columns)}});
}

// The source columns `selection` names, in the source's order (`*`, `* EXCEPT`) or the list's.
std::vector<std::string> Select(const sql::ColumnSelection& selection,
                                const std::vector<std::string>& source) {
  for (const std::string& name : selection.columns) {
    if (Find(source, name) < 0) ThrowUnresolved(name, source);
  }
  std::vector<std::string> out;
  if (!selection.all) {
    for (const std::string& name : selection.columns) out.push_back(source[Find(source, name)]);
    return out;
  }
  for (const std::string& name : source) {
    if (Find(selection.columns, name) < 0) out.push_back(name);
  }
  return out;
}

// Gives the target the flow's columns when it has none yet; otherwise checks it has them.
void PrepareTarget(sql::SessionState& session, const sql::TableSource& target,
                   const std::vector<Field>& columns) {
  auto snapshot = log::Snapshot::Load(session.fs(), target.location);
  Schema schema = snapshot->schema();
  if (schema.num_fields() == 0) {
    auto txn = log::Transaction::Start(snapshot);
    log::Metadata metadata = txn->metadata();
    metadata.schema_string = ToDeltaSchemaJson(Schema(columns));
    txn->UpdateMetadata(metadata);
    txn->SetOperation("ADD COLUMNS", {}, {});
    txn->Commit(log::CommitOptions{});
    return;
  }
  for (const Field& column : columns) {
    int index = schema.FieldIndex(column.name, /*case_sensitive=*/false);
    if (index < 0) {
      ThrowInvalid(target.display_name,
                   "the target has no column " + Id(column.name) + ", which the flow writes");
    }
    if (!schema.field(index).type->Equals(*column.type)) {
      ThrowInvalid(target.display_name, "the target's column " + Id(column.name) + " is " +
                                            schema.field(index).type->ToString() +
                                            "; the flow writes " + column.type->ToString());
    }
  }
}

}  // namespace

std::string AutoCdcStreamQuery(const sql::AutoCdc& cdc) {
  auto flag = [](const sql::ExpressionPtr& condition) {
    return condition ? "coalesce((" + sql::ToString(*condition) + "), false)"
                     : std::string("false");
  };
  return "SELECT *, (" + sql::ToString(*cdc.sequence_by) + ") AS " + Id(kCdcSequenceColumn) + ", " +
         flag(cdc.apply_as_delete) + " AS " + Id(kCdcDeleteColumn) + ", " +
         flag(cdc.apply_as_truncate) + " AS " + Id(kCdcTruncateColumn) + " FROM " +
         sql::ToString(*cdc.source);
}

std::unique_ptr<Sink> MakeAutoCdcSink(sql::SessionState& session, const sql::Statement& statement,
                                      const sql::TableSource& target, const Schema& stream_schema,
                                      const std::string& state_location) {
  const sql::AutoCdc& cdc = *statement.auto_cdc;
  const std::string& display = target.display_name;
  // The source's columns are the stream's but the three computed last.
  SILT_CHECK(stream_schema.num_fields() >= 3, "an AUTO CDC stream has its computed columns");
  std::vector<std::string> source;
  std::vector<DataTypePtr> types;
  for (size_t i = 0; i + 3 < stream_schema.num_fields(); ++i) {
    source.push_back(stream_schema.field(i).name);
    types.push_back(stream_schema.field(i).type);
  }
  const DataTypePtr& sequence_type = stream_schema.field(stream_schema.num_fields() - 3).type;
  if (!Orderable(*sequence_type) || sequence_type->id() == TypeId::kNull) {
    ThrowInvalid(display, "SEQUENCE BY " + sql::ToString(*cdc.sequence_by) + " is of type " +
                              sequence_type->ToString() + ", which cannot be ordered");
  }
  if (cdc.scd_type == 1 && cdc.track_history) {
    ThrowInvalid(display, "TRACK HISTORY ON is only supported with STORED AS SCD TYPE 2");
  }
  if (cdc.scd_type == 2 && cdc.apply_as_truncate) {
    ThrowInvalid(display, "APPLY AS TRUNCATE WHEN is only supported with STORED AS SCD TYPE 1");
  }

  CdcPlan plan;
  plan.target_display = display;
  plan.target_sql = DeltaPathSql(target.location);
  plan.state_sql = DeltaPathSql(state_location);
  plan.scd2 = cdc.scd_type == 2;
  plan.ignore_null_updates = cdc.ignore_null_updates;
  plan.has_truncate = cdc.apply_as_truncate != nullptr;
  std::set<std::string> seen;
  for (const std::string& key : cdc.keys) {
    int index = Find(source, key);
    if (index < 0) ThrowUnresolved(key, source);
    if (!seen.insert(AsciiLower(key)).second) {
      ThrowInvalid(display, "KEYS names " + Id(key) + " twice");
    }
    plan.keys.push_back(source[index]);
  }
  plan.columns = cdc.columns ? Select(*cdc.columns, source) : source;
  for (const std::string& key : plan.keys) {
    if (Find(plan.columns, key) < 0) {
      ThrowInvalid(display,
                   "COLUMNS leaves out the key column " + Id(key) + "; the target keeps every key");
    }
  }
  if (plan.scd2) {
    for (const std::string& name : {std::string(kStartAt), std::string(kEndAt)}) {
      if (Find(plan.columns, name) >= 0) {
        ThrowInvalid(display,
                     "the source has a column " + name +
                         ", which SCD type 2 adds to the target; leave it out with COLUMNS");
      }
    }
    std::vector<std::string> non_keys;
    for (const std::string& column : plan.columns) {
      if (!plan.IsKey(column)) non_keys.push_back(column);
    }
    // `*` stands for the target's columns but the keys.
    std::vector<std::string> tracked = non_keys;
    if (cdc.track_history) {
      const sql::ColumnSelection& selection = *cdc.track_history;
      for (const std::string& column : selection.columns) {
        if (Find(source, column) < 0) ThrowUnresolved(column, source);
        if (!selection.all && Find(plan.columns, column) < 0) {
          ThrowInvalid(display, "TRACK HISTORY ON names " + Id(column) +
                                    ", which is not a column of the target");
        }
      }
      if (!selection.all) {
        tracked = selection.columns;
      } else {
        tracked.clear();
        for (const std::string& column : non_keys) {
          if (Find(selection.columns, column) < 0) tracked.push_back(column);
        }
      }
    }
    for (const std::string& column : non_keys) {
      (Find(tracked, column) >= 0 ? plan.tracked : plan.untracked).push_back(column);
    }
  }

  std::vector<Field> target_columns;
  for (const std::string& column : plan.columns) {
    target_columns.push_back(Field{column, types[Find(source, column)], true, {}});
  }
  if (plan.scd2) {
    target_columns.push_back(Field{kStartAt, sequence_type, true, {}});
    target_columns.push_back(Field{kEndAt, sequence_type, true, {}});
  }
  PrepareTarget(session, target, target_columns);

  // The state table: the last sequence applied per key (deletes too) and the last truncate.
  std::string columns;
  for (const std::string& key : plan.keys) {
    std::string type = types[Find(source, key)]->ToString();
    columns += Id(key) + " " + type + ", ";
    plan.key_types.emplace_back(key, type);
  }
  columns += Id(kCdcSequenceColumn) + " " + sequence_type->ToString() + ", " + kDeletedColumn +
             " BOOLEAN, " + Id(kCdcTruncateColumn) + " BOOLEAN";
  if (!session.fs()->Stat(state_location + "/_delta_log/00000000000000000000.json")) {
    RunSql(session, "CREATE TABLE " + plan.state_sql + " (" + columns + ") USING delta");
  }

  return std::make_unique<AutoCdcSink>(std::move(plan));
}

}  // namespace silt::stream
