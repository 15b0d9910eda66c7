#include "silt/commands/statement_executor.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <regex>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/base/large_stack.h"
#include "silt/base/shortened_text.h"
#include "silt/commands/merge.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/interval_functions.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/lexer.h"
#include "silt/sql/parser.h"
#include "silt/sql/planner.h"
#include "silt/types/date_time.h"
#include "silt/types/schema_json.h"
#include "silt/types/time_zone.h"

namespace silt::commands {
namespace internal {

// The change data feed needs nothing of CREATE, ALTER and INSERT INTO / OVERWRITE: readers
// derive their changes from add and remove actions. Partial rewrites (REPLACE WHERE) check it
// themselves.
std::vector<std::string> EnforcedFeatures() {
  return {"checkConstraints", "generatedColumns", "changeDataFeed", "identityColumns",
          "allowColumnDefaults"};
}

std::string Lower(std::string_view text) { return AsciiLower(text); }

std::string QuotedJson(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

DeltaTarget ResolveDeltaTarget(sql::SessionState& session, const sql::QualifiedName& name,
                               const sql::SourcePosition& position, const std::string& operation) {
  sql::TableSource source = session.ResolveTable(name, position);
  if (source.kind == sql::TableSource::Kind::kView) {
    SILT_THROW(EXPECT_TABLE_NOT_VIEW,
               {{"operation", operation}, {"viewName", source.display_name}});
  }
  if (source.kind != sql::TableSource::Kind::kDelta) {
    SILT_THROW(UNSUPPORTED_FEATURE, {{"message", operation + " on " + source.display_name +
                                                     ", which is not a Delta table"}});
  }
  return DeltaTarget{source.location, source.display_name, source.identifier};
}

ResultBuilder::ResultBuilder(std::vector<Field> fields)
    : schema_(std::make_shared<Schema>(std::move(fields))) {
  for (const Field& field : schema_->fields()) {
    builders_.push_back(std::make_unique<VectorBuilder>(field.type));
  }
}

void ResultBuilder::AddStringRow(const std::vector<std::optional<std::string>>& values) {
  SILT_CHECK(values.size() == builders_.size(), "result row of the wrong width");
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) {
      builders_[i]->AppendString(*values[i]);
    } else {
      builders_[i]->AppendNull();
    }
  }
}

StatementResult ResultBuilder::Finish() {
  std::vector<VectorPtr> columns;
  for (auto& builder : builders_) columns.push_back(builder->Finish());
  int64_t rows = columns.empty() ? 0 : columns[0]->length();
  StatementResult result;
  result.schema = schema_;
  if (rows > 0) result.batches.emplace_back(schema_, std::move(columns), rows);
  return result;
}

std::vector<std::pair<std::string, std::string>> CheckConstraints(const log::Metadata& metadata) {
  constexpr std::string_view kPrefix = "delta.constraints.";
  std::vector<std::pair<std::string, std::string>> constraints;
  for (const auto& [key, value] : metadata.configuration) {
    if (key.rfind(kPrefix, 0) == 0) constraints.emplace_back(key.substr(kPrefix.size()), value);
  }
  return constraints;
}

exec::ExecContext MakeExecContext(sql::SessionState& session) {
  exec::ExecContext context;
  context.eval = session.MakeEvalContext();
  context.pool = &session.pool();
  context.cancellation = &session.cancellation();
  context.progress = &session.progress();
  context.memory = session.MakeQueryMemory();
  return context;
}

log::CommitOptions CommitOptionsFor(sql::SessionState& session) {
  log::CommitOptions options;
  options.cancellation = &session.cancellation();
  if (const log::SetTransaction* write = RunningIdempotentWrite()) {
    options.application_transaction = *write;
  }
  return options;
}

void AnnounceTargetFiles(sql::SessionState& session,
                         const std::vector<const log::AddFile*>& files) {
  int64_t bytes = 0;
  for (const log::AddFile* file : files) bytes += file->size;
  session.progress().AddInputTotals(static_cast<int64_t>(files.size()), bytes);
}

StatementResult RunQuery(sql::SessionState& session, const sql::Query& query) {
  exec::ExecContext context = MakeExecContext(session);
  sql::PlannedQuery planned = sql::PlanQuery(session, query, context);
  StatementResult result;
  result.schema = planned.schema;
  result.batches = exec::Collect(*planned.root, context);
  return result;
}

std::optional<Batch> QuerySource::Next() {
  std::optional<Batch> batch = planned.root->Next(context);
  ThrowIfCanceled(context.cancellation);
  return batch;
}

QuerySource OpenQuery(sql::SessionState& session, const sql::Query& query) {
  QuerySource source;
  source.context = MakeExecContext(session);
  source.planned = sql::PlanQuery(session, query, source.context);
  return source;
}

}  // namespace internal

namespace {

using internal::Lower;
using internal::ResultBuilder;
using internal::RunQuery;

Field StringField(std::string name, bool nullable = true) {
  return Field{std::move(name), StringType(), nullable, {}};
}

// The database a statement names ({db}, {spark_catalog, db}), lower-cased.
std::string DatabaseName(const sql::QualifiedName& name) {
  if (name.size() == 2 && Lower(name[0]) == "spark_catalog") return Lower(name[1]);
  SILT_USER_CHECK(name.size() == 1, INVALID_SCHEMA_OR_RELATION_NAME,
                  {{"name", [&] {
                      std::string text;
                      for (const auto& part : name) text += (text.empty() ? "" : ".") + part;
                      return text;
                    }()}});
  return Lower(name[0]);
}

// Spark's SHOW ... LIKE patterns: '*' matches anything, '|' separates alternatives, matched
// case-insensitively against the whole name.
bool MatchesShowPattern(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return true;
  std::string lower_name = Lower(name);
  size_t start = 0;
  while (start <= pattern.size()) {
    size_t end = pattern.find('|', start);
    if (end == std::string::npos) end = pattern.size();
    std::string alternative = Lower(pattern.substr(start, end - start));
    alternative.erase(0, alternative.find_first_not_of(' '));
    alternative.erase(alternative.find_last_not_of(' ') + 1);
    std::string regex;
    for (char c : alternative) {
      if (c == '*') {
        regex += ".*";
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        regex += c;
      } else {
        regex += '\\';
        regex += c;
      }
    }
    if (std::regex_match(lower_name, std::regex(regex))) return true;
    start = end + 1;
  }
  return false;
}

// The {database, name} a statement names ({v}, {db, v}, {spark_catalog, db, v}), lower-cased;
// one-part names are in the current database.
std::pair<std::string, std::string> CatalogObjectName(const sql::SessionState& session,
                                                      const sql::QualifiedName& name) {
  if (name.size() == 1) return {session.current_database(), Lower(name[0])};
  if (name.size() == 2) return {Lower(name[0]), Lower(name[1])};
  if (name.size() == 3 && Lower(name[0]) == "spark_catalog")
    return {Lower(name[1]), Lower(name[2])};
  SILT_THROW(INVALID_SCHEMA_OR_RELATION_NAME, {{"name", ShortenedForMessage(name.back())}});
}

std::string QuotedCatalogObject(const std::string& database, const std::string& name) {
  return "`spark_catalog`.`" + ShortenedForMessage(database) + "`.`" + ShortenedForMessage(name) +
         "`";
}

std::string WrittenName(const sql::QualifiedName& name) {
  std::string written;
  for (const auto& part : name)
    written += (written.empty() ? "`" : ".`") + ShortenedForMessage(part) + "`";
  return written;
}

// Spark names an unaliased select item after its expression, and refuses such a name in a
// permanent view: a plain column, a literal, a field of a column or a cast of a column keeps a
// stable name, any other expression needs an alias.
void CheckViewAliases(const sql::Query& query, const Schema& schema, const std::string& view) {
  if (query.kind != sql::QueryKind::kSelect) return;
  size_t position = 0;
  for (const sql::SelectItem& item : query.select_list) {
    const sql::Expression& e = *item.expression;
    if (e.kind == sql::ExpressionKind::kStar) return;  // later positions are unknown here
    bool named = !item.alias.empty() || e.kind == sql::ExpressionKind::kColumn ||
                 e.kind == sql::ExpressionKind::kLiteral ||
                 (e.kind == sql::ExpressionKind::kCast && !e.children.empty() &&
                  e.children[0]->kind == sql::ExpressionKind::kColumn);
    if (!named && e.kind == sql::ExpressionKind::kFieldAccess) {
      const sql::Expression* inner = &e;
      while (inner->kind == sql::ExpressionKind::kFieldAccess && !inner->children.empty()) {
        inner = inner->children[0].get();
      }
      named = inner->kind == sql::ExpressionKind::kColumn;
    }
    if (!named && e.kind == sql::ExpressionKind::kFunction && !e.name.empty()) {
      // Generators name their own columns.
      static const std::set<std::string> kGenerators = {
          "explode", "explode_outer", "posexplode", "posexplode_outer",
          "inline",  "inline_outer",  "stack",      "json_tuple"};
      named = kGenerators.count(Lower(e.name.back())) > 0;
    }
    if (!named) {
      std::string attr = position < schema.num_fields() ? schema.field(position).name : e.text;
      SILT_THROW(CREATE_PERMANENT_VIEW_WITHOUT_ALIAS, {{"name", view}, {"attr", attr}});
    }
    ++position;
  }
}

StatementResult ExecuteCreateTempView(sql::SessionState& session, const sql::Statement& statement) {
  SILT_USER_CHECK(statement.name.size() == 1, INVALID_SCHEMA_OR_RELATION_NAME,
                  {{"name", statement.name.back()}});
  if (statement.if_not_exists && session.FindTempView(statement.name[0]) != nullptr) return {};
  // Bind now so that a view over a missing table or column fails at creation, as in Spark.
  exec::ExecContext context;
  context.eval = session.MakeEvalContext();
  sql::PlannedQuery planned = sql::PlanQuery(session, *statement.query, context);
  if (!statement.column_names.empty() &&
      statement.column_names.size() != planned.schema->num_fields()) {
    SILT_THROW(
        INVALID_ARGUMENT,
        {{"message", "The view column list has " + std::to_string(statement.column_names.size()) +
                         " names but the query returns " +
                         std::to_string(planned.schema->num_fields()) + " columns"}});
  }
  sql::TempView view;
  view.name = statement.name[0];
  view.query = statement.query;
  view.column_names = statement.column_names;
  view.sql_text = statement.source_text;
  session.CreateTempView(std::move(view), statement.or_replace || statement.replace);
  return {};
}

// CREATE [OR REPLACE] VIEW and ALTER VIEW of a permanent view: the query is bound now (so
// missing tables and columns fail here), then stored with its columns, as Spark's catalog does.
StatementResult ExecuteCreateView(sql::SessionState& session, const sql::Statement& statement) {
  const bool alter = statement.replace;
  if (statement.temporary ||
      (alter && statement.name.size() == 1 && session.FindTempView(statement.name[0]) != nullptr)) {
    return ExecuteCreateTempView(session, statement);
  }
  auto [database, name] = CatalogObjectName(session, statement.name);
  session.catalog().CheckDatabase(database);
  const std::string qualified = QuotedCatalogObject(database, name);
  std::optional<sql::StoredView> existing = session.catalog().FindView(database, name);
  const bool is_table = session.catalog().TableLocation(database, name).has_value();
  if (alter) {
    if (is_table) {
      SILT_THROW(
          EXPECT_VIEW_NOT_TABLE,
          {{"tableName", qualified}, {"operation", "ALTER VIEW"}, {"alternative", "ALTER TABLE"}});
    }
    if (!existing) {
      throw MakeError(ErrorClass::TABLE_OR_VIEW_NOT_FOUND,
                      {{"relationName", WrittenName(statement.name)}})
          .WithContext(sql::FormatPosition(statement.position));
    }
  } else if (existing || is_table) {
    if (statement.if_not_exists) return {};
    if (is_table && statement.or_replace) {
      SILT_THROW(EXPECT_VIEW_NOT_TABLE, {{"tableName", qualified},
                                         {"operation", "CREATE OR REPLACE VIEW"},
                                         {"alternative", "DROP TABLE and CREATE VIEW"}});
    }
    if (!statement.or_replace)
      SILT_THROW(TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", qualified}});
  }

  exec::ExecContext context;
  context.eval = session.MakeEvalContext();
  sql::PlannedQuery planned;
  session.BeginViewCreation(qualified);
  try {
    planned = sql::PlanQuery(session, *statement.query, context);
  } catch (...) {
    session.EndViewCreation();
    throw;
  }
  session.EndViewCreation();
  const Schema& output = *planned.schema;
  if (!statement.column_names.empty() && statement.column_names.size() != output.num_fields()) {
    SILT_THROW(
        INVALID_ARGUMENT,
        {{"message", "The view column list has " + std::to_string(statement.column_names.size()) +
                         " names but the query returns " + std::to_string(output.num_fields()) +
                         " columns"}});
  }
  if (statement.column_names.empty()) CheckViewAliases(*statement.query, output, qualified);

  std::vector<Field> fields;
  for (size_t i = 0; i < output.num_fields(); ++i) {
    Field field{output.field(i).name, output.field(i).type, true, {}};
    if (i < statement.columns.size()) {
      field.name = statement.columns[i].name;
      if (statement.columns[i].comment) {
        field.metadata.emplace_back("comment", internal::QuotedJson(*statement.columns[i].comment));
      }
    }
    fields.push_back(std::move(field));
  }
  Schema schema(std::move(fields));
  schema.CheckNoDuplicateNames();

  sql::StoredView view;
  view.name = name;
  view.database = database;
  view.resolution_database = session.current_database();
  view.text = statement.query_text;
  view.schema_json = ToDeltaSchemaJson(schema);
  for (const Field& field : output.fields()) view.query_columns.push_back(field.name);
  if (alter) {
    // ALTER VIEW ... AS changes the query only.
    view.comment = existing->comment;
    view.properties = existing->properties;
    view.created_time_ms = existing->created_time_ms;
  } else {
    view.comment = statement.comment;
    view.properties = statement.properties;
    view.created_time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  }
  // The settings that change what the query means, as Spark records them with a view.
  for (const auto& [key, value] : session.conf()) {
    if (key.rfind("spark.sql.", 0) == 0) view.sql_configs.emplace_back(key, value);
  }
  session.catalog().StoreView(view, /*replace=*/alter || statement.or_replace);
  return {};
}

StatementResult ExecuteDropTable(sql::SessionState& session, const sql::Statement& statement) {
  const sql::QualifiedName& name = statement.name;
  // DROP TABLE also drops a temporary view of that name, as Spark does.
  if (name.size() == 1 && session.DropTempView(name[0])) return {};
  auto [database, table] = CatalogObjectName(session, name);
  if (!session.catalog().DatabaseExists(database)) {
    if (statement.if_exists) return {};
    throw MakeError(ErrorClass::TABLE_OR_VIEW_NOT_FOUND, {{"relationName", WrittenName(name)}})
        .WithContext(sql::FormatPosition(statement.position));
  }
  if (session.catalog().FindView(database, table)) {
    SILT_THROW(WRONG_COMMAND_FOR_OBJECT_TYPE, {{"operation", "DROP TABLE"},
                                               {"requiredType", "EXTERNAL or MANAGED"},
                                               {"objectName", QuotedCatalogObject(database, table)},
                                               {"foundType", "VIEW"},
                                               {"alternative", "DROP VIEW"}});
  }
  session.catalog().DropTable(database, table, statement.if_exists);
  return {};
}

StatementResult ExecuteDropView(sql::SessionState& session, const sql::Statement& statement) {
  if (statement.name.size() == 1 && session.DropTempView(statement.name[0])) return {};
  auto [database, view] = CatalogObjectName(session, statement.name);
  if (session.catalog().DatabaseExists(database)) {
    if (session.catalog().DropView(database, view)) return {};
    // A table is not a view: Spark refuses DROP VIEW on it.
    if (session.catalog().TableLocation(database, view)) {
      SILT_THROW(WRONG_COMMAND_FOR_OBJECT_TYPE,
                 {{"operation", "DROP VIEW"},
                  {"requiredType", "VIEW"},
                  {"objectName", QuotedCatalogObject(database, view)},
                  {"foundType",
                   session.catalog().IsExternalTable(database, view) ? "EXTERNAL" : "MANAGED"},
                  {"alternative", "DROP TABLE"}});
    }
  }
  if (statement.if_exists) return {};
  throw MakeError(ErrorClass::TABLE_OR_VIEW_NOT_FOUND,
                  {{"relationName", WrittenName(statement.name)}})
      .WithContext(sql::FormatPosition(statement.position));
}

// SHOW VIEWS [IN db] [LIKE pattern]: the database's views, then the temporary views.
StatementResult ExecuteShowViews(sql::SessionState& session, const sql::Statement& statement) {
  std::string database =
      statement.name.empty() ? session.current_database() : DatabaseName(statement.name);
  ResultBuilder result({StringField("namespace", false), StringField("viewName", false),
                        Field{"isTemporary", BooleanType(), false, {}}});
  auto add = [&](const std::string& ns, const std::string& view, bool temporary) {
    if (!MatchesShowPattern(statement.pattern, view)) return;
    result.column(0).AppendString(ns);
    result.column(1).AppendString(view);
    result.column(2).AppendBool(temporary);
  };
  for (const std::string& view : session.catalog().ListViews(database)) add(database, view, false);
  for (const std::string& view : session.TempViewNames()) add("", view, true);
  return result.Finish();
}

StatementResult ExecuteShowTables(sql::SessionState& session, const sql::Statement& statement) {
  std::string database =
      statement.name.empty() ? session.current_database() : DatabaseName(statement.name);
  ResultBuilder result({StringField("namespace", false), StringField("tableName", false),
                        Field{"isTemporary", BooleanType(), false, {}}});
  auto add = [&](const std::string& ns, const std::string& table, bool temporary) {
    if (!MatchesShowPattern(statement.pattern, table)) return;
    result.column(0).AppendString(ns);
    result.column(1).AppendString(table);
    result.column(2).AppendBool(temporary);
  };
  // Spark lists a database's views with its tables.
  std::vector<std::string> names = session.catalog().ListTables(database);
  for (const std::string& view : session.catalog().ListViews(database)) names.push_back(view);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) add(database, name, false);
  for (const std::string& view : session.TempViewNames()) add("", view, true);
  return result.Finish();
}

StatementResult ExecuteShowDatabases(sql::SessionState& session, const sql::Statement& statement) {
  ResultBuilder result({StringField("namespace", false)});
  for (const std::string& name : session.catalog().ListDatabases()) {
    if (MatchesShowPattern(statement.pattern, name)) result.AddStringRow({name});
  }
  return result.Finish();
}

// Spark shows the value of a few well-known options even when they were never set.
std::optional<std::string> ConfDefault(const std::string& key) {
  if (key == "spark.sql.ansi.enabled") return "true";
  if (key == "spark.sql.session.timeZone") return "UTC";
  return std::nullopt;
}

constexpr std::string_view kSessionTimeZoneKey = "spark.sql.session.timeZone";

// The zone id `SET TIME ZONE INTERVAL ...` sets: Java's ZoneOffset id of the interval's whole
// seconds ("Z", "+05:30", "-01:02:03"), which must lie within ±18 hours.
std::string TimeZoneOfInterval(const std::string& text) {
  sql::ExpressionPtr node = sql::ParseExpression(text);
  if (node->kind != sql::ExpressionKind::kLiteral || node->literal_kind != sql::LiteralKind::kInterval) {
    SILT_THROW(PARSE_SYNTAX_ERROR, {{"error", "'" + text + "'"}, {"hint", ": expected an interval literal"}});
  }
  std::optional<expr::Scalar> interval = expr::AnsiIntervalLiteral(node->interval_parts);
  if (!interval) {
    SILT_THROW(NOT_IMPLEMENTED, {{"feature", "SET TIME ZONE with a unit-less interval string"}});
  }
  int64_t seconds = interval->type()->id() == TypeId::kDayTimeInterval ? interval->GetInt() / kMicrosPerSecond : 0;
  bool has_months = interval->type()->id() == TypeId::kYearMonthInterval && interval->GetInt() != 0;
  if (has_months || seconds < -18 * 3600 || seconds > 18 * 3600) {
    SILT_THROW(INVALID_INTERVAL_FORMAT,
               {{"input", text}, {"message", "The interval value must be in the range of [-18, +18] hours with second precision."}});
  }
  if (seconds == 0) return "Z";
  int64_t magnitude = seconds < 0 ? -seconds : seconds;
  auto two_digits = [](int64_t value) { return std::string(1, static_cast<char>('0' + value / 10)) + static_cast<char>('0' + value % 10); };
  std::string id = std::string(seconds < 0 ? "-" : "+") + two_digits(magnitude / 3600) + ":" + two_digits(magnitude / 60 % 60);
  if (magnitude % 60 != 0) id += ":" + two_digits(magnitude % 60);
  return id;
}

// `SET TIME ZONE LOCAL | 'zone' | INTERVAL ...` reaches the executor as a SET whose key is the
// text after SET. Returns the session time zone it sets, or nullopt for any other SET.
std::optional<std::string> TimeZoneOfSetTimeZone(const sql::Statement& statement) {
  if (statement.value) return std::nullopt;
  std::string_view text = statement.key;
  auto next_word = [&text]() {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    size_t length = 0;
    while (length < text.size() && std::isalpha(static_cast<unsigned char>(text[length]))) ++length;
    std::string word = Lower(text.substr(0, length));
    text.remove_prefix(length);
    return word;
  };
  if (next_word() != "time" || text.empty() || !std::isspace(static_cast<unsigned char>(text.front())) ||
      next_word() != "zone" || (!text.empty() && !std::isspace(static_cast<unsigned char>(text.front())))) {
    return std::nullopt;
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string rest(text);
  if (Lower(rest) == "local") return TimeZone::SystemDefaultId();
  if (rest.size() >= 2 && (rest.front() == '\'' || rest.front() == '"') && rest.back() == rest.front()) {
    std::string zone;
    for (size_t i = 1; i + 1 < rest.size(); ++i) {
      if (rest[i] == '\\' && i + 2 < rest.size()) ++i;  // a backslash escapes the next character
      zone += rest[i];
    }
    return zone;
  }
  if (Lower(rest).rfind("interval", 0) == 0) return TimeZoneOfInterval(rest);
  // Spark's parser refuses anything else after SET TIME ZONE.
  SILT_THROW(PARSE_SYNTAX_ERROR,
             {{"error", rest.empty() ? std::string("end of input") : "'" + rest + "'"},
              {"hint", ": SET TIME ZONE expects LOCAL, a string or an interval"}});
}

StatementResult ExecuteSet(sql::SessionState& session, const sql::Statement& statement) {
  if (statement.key.empty()) {
    ResultBuilder result({StringField("key", false), StringField("value", true)});
    for (const auto& [key, value] : session.conf()) result.AddStringRow({key, value});
    return result.Finish();
  }
  std::string key = statement.key;
  std::optional<std::string> value = statement.value;
  if (std::optional<std::string> zone = TimeZoneOfSetTimeZone(statement)) {
    key = kSessionTimeZoneKey;
    value = std::move(zone);
  }
  if (value) {
    // Validate the options the engine reads, so a typo fails here and not in a later query.
    if (key == "spark.sql.ansi.enabled") {
      std::string lower = Lower(*value);
      SILT_USER_CHECK(lower == "true" || lower == "false", INVALID_CONFIGURATION,
                      {{"value", *value},
                       {"key", key},
                       {"reason", "expected true or false"}});
    }
    if (key == kSessionTimeZoneKey) {
      SILT_USER_CHECK(TimeZone::Find(*value) != nullptr, INVALID_CONF_VALUE,
                      {{"confValue", *value}, {"confName", key}, {"message", "Cannot resolve the given timezone."}});
    }
    if (key == expr::kMaxValueBytesKey || key == "spark.sql.storeAssignmentPolicy" ||
        key == sql::kMemoryLimitKey) {
      // Read back as every statement will read it, so that a bad value fails here.
      std::optional<std::string> previous = session.GetConf(key);
      session.SetConf(key, *value);
      try {
        session.MakeEvalContext();
        session.MakeQueryMemory();
      } catch (...) {
        if (previous) session.SetConf(key, *previous); else session.UnsetConf(key);
        throw;
      }
    }
    session.SetConf(key, *value);
    ResultBuilder result({StringField("key", false), StringField("value", true)});
    result.AddStringRow({key, *value});
    return result.Finish();
  }
  ResultBuilder result({StringField("key", false), StringField("value", true)});
  std::optional<std::string> current = session.GetConf(key);
  if (!current) current = ConfDefault(key);
  result.AddStringRow({key, current ? *current : std::string("<undefined>")});
  return result.Finish();
}

StatementResult ExecuteReset(sql::SessionState& session, const sql::Statement& statement) {
  if (statement.key.empty()) {
    std::vector<std::string> keys;
    for (const auto& [key, value] : session.conf()) keys.push_back(key);
    for (const std::string& key : keys) session.UnsetConf(key);
  } else {
    session.UnsetConf(statement.key);
  }
  return {};
}

StatementResult ExecuteExplain(sql::SessionState& session, const sql::Statement& statement) {
  SILT_CHECK(statement.explained != nullptr, "EXPLAIN without a statement");
  const sql::Statement& explained = *statement.explained;
  std::string mode = Lower(statement.explain_mode);
  std::string text;
  if (explained.kind == sql::StatementKind::kQuery) {
    exec::ExecContext context;
    context.eval = session.MakeEvalContext();
    text = sql::ExplainQuery(session, *explained.query, context, mode == "extended");
  } else if ((explained.kind == sql::StatementKind::kInsert ||
              explained.kind == sql::StatementKind::kCreateTable) &&
             explained.query != nullptr) {
    exec::ExecContext context;
    context.eval = session.MakeEvalContext();
    std::string command = explained.kind == sql::StatementKind::kInsert
                              ? "Execute InsertIntoDeltaTable"
                              : "Execute CreateTableAsSelect";
    std::string plan = sql::ExplainQuery(session, *explained.query, context, false);
    text = "== Physical Plan ==\n" + command + "\n";
    // Indent the query's operator tree under the command.
    constexpr std::string_view kHeader = "== Physical Plan ==\n";
    std::string tree = plan.rfind(kHeader, 0) == 0 ? plan.substr(kHeader.size()) : plan;
    size_t start = 0;
    bool first = true;
    while (start < tree.size()) {
      size_t end = tree.find('\n', start);
      if (end == std::string::npos) end = tree.size();
      std::string line = tree.substr(start, end - start);
      if (!line.empty()) text += (first ? "+- " : "   ") + line + "\n";
      first = false;
      start = end + 1;
    }
  } else {
    text = "== Physical Plan ==\nExecute " + explained.source_text + "\n";
  }
  ResultBuilder result({StringField("plan", true)});
  result.AddStringRow({text});
  return result.Finish();
}

StatementResult ExecuteOnThisThread(sql::SessionState& session, const sql::Statement& statement) {
  using sql::StatementKind;
  switch (statement.kind) {
    case StatementKind::kQuery:
      return RunQuery(session, *statement.query);
    case StatementKind::kCreateTable:
      return internal::ExecuteCreateTable(session, statement);
    case StatementKind::kCreateView:
      return ExecuteCreateView(session, statement);
    case StatementKind::kCreateDatabase:
      if (statement.location) {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "CREATE DATABASE ... LOCATION"}});
      }
      session.catalog().CreateDatabase(DatabaseName(statement.name), statement.if_not_exists,
                                       statement.comment);
      return {};
    case StatementKind::kDropTable:
      return ExecuteDropTable(session, statement);
    case StatementKind::kDropView:
      return ExecuteDropView(session, statement);
    case StatementKind::kDropDatabase:
      // The parser records CASCADE in `extended`; RESTRICT is the default.
      session.catalog().DropDatabase(DatabaseName(statement.name), statement.if_exists,
                                     statement.extended);
      if (Lower(session.current_database()) == DatabaseName(statement.name)) {
        session.SetCurrentDatabase("default");
      }
      return {};
    case StatementKind::kUse:
      session.SetCurrentDatabase(DatabaseName(statement.name));
      return {};
    case StatementKind::kInsert:
      return internal::ExecuteInsert(session, statement);
    case StatementKind::kAlterTable:
      return internal::ExecuteAlterTable(session, statement);
    case StatementKind::kDescribeTable:
      return internal::ExecuteDescribeTable(session, statement);
    case StatementKind::kDescribeDetail:
      return internal::ExecuteDescribeDetail(session, statement);
    case StatementKind::kDescribeHealth:
      return internal::ExecuteDescribeHealth(session, statement);
    case StatementKind::kDescribeHistory:
      return internal::ExecuteDescribeHistory(session, statement);
    case StatementKind::kShowTables:
      return ExecuteShowTables(session, statement);
    case StatementKind::kShowViews:
      return ExecuteShowViews(session, statement);
    case StatementKind::kShowDatabases:
      return ExecuteShowDatabases(session, statement);
    case StatementKind::kShowTableProperties:
      return internal::ExecuteShowTableProperties(session, statement);
    case StatementKind::kShowCreateTable:
      return internal::ExecuteShowCreateTable(session, statement);
    case StatementKind::kShowColumns:
      return internal::ExecuteShowColumns(session, statement);
    case StatementKind::kExplain:
      return ExecuteExplain(session, statement);
    case StatementKind::kSet:
      return ExecuteSet(session, statement);
    case StatementKind::kReset:
      return ExecuteReset(session, statement);
    case StatementKind::kMerge:
      return internal::ExecuteMerge(session, statement);
    case StatementKind::kUpdate:
      return internal::ExecuteUpdate(session, statement);
    case StatementKind::kDelete:
      return internal::ExecuteDelete(session, statement);
    case StatementKind::kRestore:
      return internal::ExecuteRestore(session, statement);
    case StatementKind::kVacuum:
      return internal::ExecuteVacuum(session, statement);
    case StatementKind::kOptimize:
      return internal::ExecuteOptimize(session, statement);
    case StatementKind::kConvertToDelta:
      return internal::ExecuteConvertToDelta(session, statement);
    case StatementKind::kCreateStreamingTable:
    case StatementKind::kRefreshStreamingTable:
    case StatementKind::kCreateFlow:
    case StatementKind::kAutoCdc:
      // Streaming tables and flows run in the stream layer above (stream/streaming_table.h).
      break;
  }
  SILT_THROW(NOT_IMPLEMENTED, {{"feature", "this statement"}});
}

}  // namespace

StatementResult ExecuteStatement(sql::SessionState& session, const sql::Statement& statement) {
  // The calling thread's stack (8 MiB for a program's main thread, less elsewhere) is not
  // enough for the deepest plans the binder accepts.
  StatementResult result;
  std::optional<log::SetTransaction> idempotent;
  if (internal::IsIdempotentWriteStatement(statement)) {
    idempotent = internal::IdempotentWriteOf(session);
  }
  RunOnLargeStack(kStatementStackBytes, [&] {
    if (!idempotent) {
      result = ExecuteOnThisThread(session, statement);
    } else if (!internal::IdempotentWriteApplied(session, statement, *idempotent)) {
      internal::IdempotentWriteScope scope(&*idempotent);
      result = ExecuteOnThisThread(session, statement);
    }
  });
  if (idempotent) internal::AfterIdempotentWrite(session);
  return result;
}

}  // namespace silt::commands
