#include "silt/sql/session_state.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/shortened_text.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/memory.h"
#include "silt/io/file_system.h"
#include "silt/io/local_machine.h"
#include "silt/io/path.h"
#include "silt/sql/lexer.h"
#include "silt/sql/parser.h"
#include "silt/types/schema_json.h"

namespace silt::sql {
namespace {

// A name as Spark quotes it in messages: `a`.`b`.
std::string QuoteName(const QualifiedName& name) {
  std::string out;
  for (const std::string& part : name) {
    if (!out.empty()) out += '.';
    out += '`' + ShortenedForMessage(part) + '`';
  }
  return out;
}

std::string QuotedCatalogName(const std::string& database, const std::string& name) {
  return "`spark_catalog`.`" + ShortenedForMessage(database) + "`.`" + ShortenedForMessage(name) +
         "`";
}

[[noreturn]] void ThrowNotFound(const QualifiedName& name, const SourcePosition& position) {
  throw MakeError(ErrorClass::TABLE_OR_VIEW_NOT_FOUND, {{"relationName", QuoteName(name)}})
      .WithContext(FormatPosition(position));
}

}  // namespace

SessionState::SessionState(std::shared_ptr<io::FileSystem> fs, std::string warehouse)
    : fs_(fs), catalog_(std::move(fs), std::move(warehouse)) {}

void SessionState::SetCurrentDatabase(const std::string& name) {
  catalog_.CheckDatabase(name);
  current_database_ = AsciiLower(name);
}

void SessionState::SetConf(const std::string& key, const std::string& value) { conf_[key] = value; }

void SessionState::UnsetConf(const std::string& key) { conf_.erase(key); }

std::optional<std::string> SessionState::GetConf(const std::string& key) const {
  auto it = conf_.find(key);
  if (it == conf_.end()) return std::nullopt;
  return it->second;
}

bool SessionState::GetBoolConf(const std::string& key, bool default_value) const {
  std::optional<std::string> text = GetConf(key);
  if (!text) return default_value;
  std::string lower = AsciiLower(*text);
  if (lower == "true") return true;
  if (lower == "false") return false;
  SILT_THROW(INVALID_CONFIGURATION,
             {{"value", *text}, {"key", key}, {"reason", "expected true or false"}});
}

int64_t SessionState::GetLongConf(const std::string& key, int64_t default_value) const {
  std::optional<std::string> text = GetConf(key);
  if (!text) return default_value;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) {
    SILT_THROW(INVALID_CONFIGURATION, {{"value", *text}, {"key", key}, {"reason", "expected an integer"}});
  }
  return value;
}

expr::EvalContext SessionState::MakeEvalContext() const {
  expr::EvalContext context;
  context.ansi = GetBoolConf("spark.sql.ansi.enabled", true);
  context.time_zone = GetConf("spark.sql.session.timeZone").value_or("UTC");
  context.current_database = current_database();
  if (std::optional<std::string> policy = GetConf("spark.sql.storeAssignmentPolicy")) {
    const std::string& name = *policy;
    if (EqualsIgnoreCase(name, "ANSI")) {
      context.store_assignment = expr::StoreAssignmentPolicy::kAnsi;
    } else if (EqualsIgnoreCase(name, "LEGACY")) {
      context.store_assignment = expr::StoreAssignmentPolicy::kLegacy;
    } else if (EqualsIgnoreCase(name, "STRICT")) {
      context.store_assignment = expr::StoreAssignmentPolicy::kStrict;
    } else {
      SILT_THROW(INVALID_CONF_VALUE, {{"confValue", *policy},
                                      {"confName", "spark.sql.storeAssignmentPolicy"},
                                      {"message", "Expected one of ANSI, LEGACY, STRICT."}});
    }
  }
  if (std::optional<std::string> text = GetConf(std::string(expr::kMaxValueBytesKey))) {
    uint64_t bytes = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), bytes);
    if (error != std::errc() || end != text->data() + text->size() || bytes == 0 ||
        bytes > expr::kMaxValueBytesSetting) {
      SILT_THROW(INVALID_CONFIGURATION,
                 {{"value", *text},
                  {"key", std::string(expr::kMaxValueBytesKey)},
                  {"reason", "expected a number of bytes from 1 to " + std::to_string(expr::kMaxValueBytesSetting)}});
    }
    context.max_value_bytes = bytes;
  }
  context.statement_timestamp_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count();
  return context;
}

std::string_view UnquotedConfValue(std::string_view text) {
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

std::optional<int64_t> ParseByteSize(std::string_view text) {
  text = UnquotedConfValue(text);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  uint64_t number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + digits, number);
  if (error != std::errc() || end != text.data() + digits) return std::nullopt;
  std::string unit = AsciiLower(text.substr(digits));
  int shift = 0;
  if (unit.empty() || unit == "b") {
    shift = 0;
  } else if (unit == "k" || unit == "kb") {
    shift = 10;
  } else if (unit == "m" || unit == "mb") {
    shift = 20;
  } else if (unit == "g" || unit == "gb") {
    shift = 30;
  } else if (unit == "t" || unit == "tb") {
    shift = 40;
  } else if (unit == "p" || unit == "pb") {
    shift = 50;
  } else {
    return std::nullopt;
  }
  if (number == 0 || number > (uint64_t{INT64_MAX} >> shift)) return std::nullopt;
  return static_cast<int64_t>(number << shift);
}

std::shared_ptr<exec::QueryMemory> SessionState::MakeQueryMemory() const {
  int64_t limit = 0;
  if (std::optional<std::string> text = GetConf(std::string(kMemoryLimitKey))) {
    std::optional<int64_t> bytes = ParseByteSize(*text);
    if (!bytes) {
      SILT_THROW(INVALID_CONF_VALUE,
                 {{"confValue", *text},
                  {"confName", std::string(kMemoryLimitKey)},
                  {"message", "Expected a positive size in bytes (b), kibibytes (k), mebibytes (m), gibibytes (g), "
                              "tebibytes (t) or pebibytes (p), e.g. 512m or 2GB."}});
    }
    limit = *bytes;
  } else {
    limit = io::PhysicalMemoryBytes() / 10 * 8;
    if (limit <= 0) limit = INT64_MAX;
  }
  std::string folder(UnquotedConfValue(GetConf(std::string(kTmpDirKey)).value_or("")));
  if (folder.empty()) folder = io::SystemTemporaryFolder();
  return std::make_shared<exec::QueryMemory>(limit, std::move(folder));
}

void SessionState::CreateTempView(TempView view, bool replace) {
  std::string key = AsciiLower(view.name);
  if (!replace && temp_views_.count(key) > 0) {
    SILT_THROW(TEMP_TABLE_OR_VIEW_ALREADY_EXISTS, {{"relationName", "`" + view.name + "`"}});
  }
  temp_views_[key] = std::move(view);
}

bool SessionState::DropTempView(const std::string& name) {
  return temp_views_.erase(AsciiLower(name)) > 0;
}

const TempView* SessionState::FindTempView(const std::string& name) const {
  auto it = temp_views_.find(AsciiLower(name));
  return it == temp_views_.end() ? nullptr : &it->second;
}

std::vector<std::string> SessionState::TempViewNames() const {
  std::vector<std::string> names;
  for (const auto& [key, view] : temp_views_) names.push_back(key);
  return names;
}

void SessionState::SetStreamInput(const std::string& name,
                                  std::shared_ptr<const log::Snapshot> snapshot,
                                  std::string display_name) {
  stream_inputs_[AsciiLower(name)] = StreamInput{std::move(snapshot), nullptr, std::move(display_name)};
}

void SessionState::SetStreamInput(const std::string& name,
                                  std::shared_ptr<const exec::TextTable> rows,
                                  std::string display_name) {
  stream_inputs_[AsciiLower(name)] = StreamInput{nullptr, std::move(rows), std::move(display_name)};
}

void SessionState::ClearStreamInput(const std::string& name) {
  stream_inputs_.erase(AsciiLower(name));
}

TableSource SessionState::ResolveTable(const QualifiedName& name,
                                       const SourcePosition& position) const {
  SILT_CHECK(!name.empty(), "empty table name");
  if (name.size() == 1) {
    if (auto input = stream_inputs_.find(AsciiLower(name[0])); input != stream_inputs_.end()) {
      TableSource source;
      source.kind = input->second.rows ? TableSource::Kind::kStreamRows : TableSource::Kind::kDelta;
      source.display_name = input->second.display_name;
      source.pinned_snapshot = input->second.snapshot;
      source.pinned_rows = input->second.rows;
      return source;
    }
    // A permanent view's query sees no temporary view.
    const TempView* view = view_bindings_.empty() ? FindTempView(name[0]) : nullptr;
    if (view != nullptr && creating_view_) {
      throw MakeError(ErrorClass::INVALID_TEMP_OBJ_REFERENCE,
                      {{"objName", *creating_view_},
                       {"obj", "VIEW"},
                       {"tempObjName", "`" + ShortenedForMessage(view->name) + "`"},
                       {"tempObj", "VIEW"}})
          .WithContext(FormatPosition(position));
    }
    if (view != nullptr) {
      TableSource source;
      source.kind = TableSource::Kind::kView;
      source.display_name = "`" + view->name + "`";
      source.view = view;
      return source;
    }
    return ResolveCatalogTable(ResolutionDatabase(), name[0], name, position);
  }
  if (name.size() == 2) {
    std::string format = AsciiLower(name[0]);
    static const std::map<std::string, TableSource::Kind> kPathFormats = {
        {"delta", TableSource::Kind::kDelta},
        {"parquet", TableSource::Kind::kParquet},
        {"json", TableSource::Kind::kJson},
        {"csv", TableSource::Kind::kCsv}};
    auto format_it = kPathFormats.find(format);
    // `delta.t` stays a table of a database named delta when one exists and the second part
    // does not look like a path, as Spark's resolution of path tables does.
    bool looks_like_path = name[1].find('/') != std::string::npos;
    if (format_it != kPathFormats.end() && (looks_like_path || !catalog_.DatabaseExists(format))) {
      TableSource source;
      source.kind = format_it->second;
      source.location = name[1];
      source.display_name = format + ".`" + name[1] + "`";
      if (source.kind == TableSource::Kind::kDelta) {
        if (fs_->List(io::JoinPath(name[1], "_delta_log")).empty()) {
          throw MakeError(ErrorClass::DELTA_MISSING_DELTA_TABLE,
                          {{"tableName", source.display_name}})
              .WithContext(FormatPosition(position));
        }
      } else if (!fs_->Stat(name[1])) {
        throw MakeError(ErrorClass::PATH_NOT_FOUND, {{"path", name[1]}})
            .WithContext(FormatPosition(position));
      }
      return source;
    }
    return ResolveCatalogTable(name[0], name[1], name, position);
  }
  if (name.size() == 3 && AsciiLower(name[0]) == "spark_catalog") {
    return ResolveCatalogTable(name[1], name[2], name, position);
  }
  ThrowNotFound(name, position);
}

TableSource SessionState::ResolveCatalogTable(const std::string& database, const std::string& table,
                                              const QualifiedName& written,
                                              const SourcePosition& position) const {
  if (!catalog_.DatabaseExists(database)) ThrowNotFound(written, position);
  if (std::optional<StoredView> view = catalog_.FindView(database, table)) {
    return PermanentViewSource(*view);
  }
  std::optional<std::string> location = catalog_.TableLocation(database, table);
  if (!location) ThrowNotFound(written, position);
  TableSource source;
  source.kind = TableSource::Kind::kDelta;
  source.identifier = {AsciiLower(database), AsciiLower(table)};
  source.location = *location;
  source.display_name = "`spark_catalog`.`" + AsciiLower(database) + "`.`" + AsciiLower(table) + "`";
  return source;
}

TableSource SessionState::PermanentViewSource(const StoredView& stored) const {
  std::string key = stored.database + "." + stored.name;
  std::shared_ptr<const TempView>& cached = view_cache_[key];
  if (cached == nullptr || cached->stored->text != stored.text ||
      cached->stored->schema_json != stored.schema_json ||
      cached->stored->resolution_database != stored.resolution_database) {
    Statement parsed = ParseStatement(stored.text);
    if (parsed.kind != StatementKind::kQuery || parsed.query == nullptr) {
      SILT_THROW(
          INVALID_ARGUMENT,
          {{"message", "the stored text of the view " +
                           QuotedCatalogName(stored.database, stored.name) + " is not a query"}});
    }
    auto view = std::make_shared<TempView>();
    view->name = stored.name;
    view->query = parsed.query;
    Schema columns = ParseDeltaSchema(stored.schema_json);
    for (const Field& field : columns.fields()) {
      view->column_names.push_back(field.name);
    }
    view->sql_text = stored.text;
    view->stored = std::make_shared<StoredView>(stored);
    cached = std::move(view);
  }
  TableSource source;
  source.kind = TableSource::Kind::kView;
  source.display_name = QuotedCatalogName(stored.database, stored.name);
  source.identifier = {stored.database, stored.name};
  source.permanent_view = cached;
  source.view = cached.get();
  return source;
}

const std::string& SessionState::ResolutionDatabase() const {
  return view_bindings_.empty() ? current_database_ : view_bindings_.back().database;
}

void SessionState::PushViewBinding(const TempView& view) {
  SILT_CHECK(view.stored != nullptr, "binding a temporary view as a permanent one");
  std::string name = QuotedCatalogName(view.stored->database, view.stored->name);
  std::vector<std::string> path;
  if (creating_view_) path.push_back(*creating_view_);
  for (const ViewBinding& binding : view_bindings_) path.push_back(binding.qualified_name);
  if (std::find(path.begin(), path.end(), name) != path.end()) {
    std::string cycle;
    bool in_cycle = false;
    for (const std::string& step : path) {
      in_cycle = in_cycle || step == name;
      if (in_cycle) cycle += step + " -> ";
    }
    SILT_THROW(RECURSIVE_VIEW, {{"viewIdent", name}, {"newPath", cycle + name}});
  }
  view_bindings_.push_back(ViewBinding{std::move(name), view.stored->resolution_database});
}

void SessionState::PopViewBinding() {
  SILT_CHECK(!view_bindings_.empty(), "no view being bound");
  view_bindings_.pop_back();
}

void SessionState::BeginViewCreation(const std::string& qualified_name) {
  creating_view_ = qualified_name;
}

void SessionState::EndViewCreation() { creating_view_.reset(); }

ThreadPool& SessionState::pool() const { return ThreadPool::Default(); }

}  // namespace silt::sql
