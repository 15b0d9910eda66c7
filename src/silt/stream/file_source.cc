#include "silt/stream/file_source.h"

#include <fnmatch.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/exec/text_format.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/json_text.h"
#include "silt/expr/scalar.h"
#include "silt/expr/schema_ddl.h"
#include "silt/io/path.h"
#include "silt/parquet/reader.h"
#include "silt/stream/fault_point.h"
#include "silt/types/schema_json.h"
#include "silt/vector/vector.h"

namespace silt::stream {

namespace {

constexpr std::string_view kLogVersion = "v1";
constexpr const char* kSchemaFile = "schema";
constexpr const char* kFilePathKey = "_file_path";
constexpr int64_t kRowsPerBatch = 65536;

[[noreturn]] void ThrowInvalid(const std::string& key, const std::string& value,
                               const std::string& reason) {
  SILT_THROW(INVALID_STREAMING_OPTION, {{"value", value}, {"option", key}, {"reason", reason}});
}

// Spark's time strings for maxFileAge: a number and a unit (ms, s, m/min, h, d, w).
int64_t ParseDurationMs(const std::string& key, const std::string& text) {
  std::string lower = AsciiLower(text);
  int64_t value = 0;
  const char* begin = lower.data();
  const char* end = begin + lower.size();
  auto [ptr, error] = std::from_chars(begin, end, value);
  std::string unit(ptr, end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::map<std::string, int64_t> kUnits = {
      {"ms", 1},         {"s", 1000},        {"sec", 1000},     {"m", 60000},
      {"min", 60000},    {"h", 3600000},     {"hour", 3600000}, {"d", 86400000},
      {"day", 86400000}, {"days", 86400000}, {"w", 604800000},  {"", 1}};
  auto found = kUnits.find(unit);
  if (error != std::errc() || ptr == begin || value < 0 || found == kUnits.end()) {
    ThrowInvalid(key, text, "expected a duration such as 7d, 12h, 30m or 1000ms");
  }
  return value * found->second;
}

// Hadoop's Path.toUri().toString() of a local path: "file:" then the path, percent-encoding
// what a URI path may not hold.
std::string PathToUri(const std::string& path) {
  static constexpr std::string_view kSafe = "-._~/!$&'()*+,;=:@";
  std::string uri = path.starts_with("/") ? "file:" : "";
  for (unsigned char c : path) {
    if (std::isalnum(c) || kSafe.find(static_cast<char>(c)) != std::string_view::npos) {
      uri += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

std::optional<std::string> UriToPath(std::string_view uri) {
  if (uri.starts_with("file://")) {
    uri.remove_prefix(7);
  } else if (uri.starts_with("file:")) {
    uri.remove_prefix(5);
  }
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      path += uri[i];
      continue;
    }
    int value = 0;
    if (i + 2 >= uri.size() ||
        std::from_chars(uri.data() + i + 1, uri.data() + i + 3, value, 16).ptr !=
            uri.data() + i + 3) {
      return std::nullopt;
    }
    path += static_cast<char>(value);
    i += 2;
  }
  return path;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// Whether a path below `root` has a hidden part ('_' or '.' first), as Spark's file index skips.
bool Hidden(const std::string& root, const std::string& path) {
  std::string relative = io::NormalizePath(path);
  std::string base = io::NormalizePath(root);
  if (relative.size() > base.size() && relative.compare(0, base.size(), base) == 0) {
    relative = relative.substr(base.size());
  }
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    if (end > start && (relative[start] == '_' || relative[start] == '.')) return true;
    start = end + 1;
  }
  return false;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The rescued-data JSON of one row: the values that did not fit, and the file.
std::string RescuedJson(const std::vector<std::pair<std::string, std::string>>& raw_members,
                        const std::string& path) {
  std::string json = "{";
  for (const auto& [name, raw] : raw_members) {
    JsonWriter key;
    key.String(name);
    json += key.Release() + ":" + raw + ",";
  }
  JsonWriter file;
  file.String(path);
  json += "\"" + std::string(kFilePathKey) + "\":" + file.Release() + "}";
  return json;
}

// Widens two inferred JSON types to one, as Spark's inference widens the types of a field seen
// in several records: structs take the union of their fields (sorted by name), arrays the wider
// element, bigint and double give double, and other differences are read as their JSON text.
DataTypePtr WidenJsonType(const DataTypePtr& left, const DataTypePtr& right);

std::vector<Field> MergeJsonFields(std::vector<Field> fields, const std::vector<Field>& more) {
  for (const Field& field : more) {
    auto same = std::find_if(fields.begin(), fields.end(),
                             [&](const Field& f) { return f.name == field.name; });
    if (same == fields.end()) {
      fields.push_back(field);
    } else {
      same->type = WidenJsonType(same->type, field.type);
    }
  }
  std::sort(fields.begin(), fields.end(),
            [](const Field& a, const Field& b) { return a.name < b.name; });
  for (Field& field : fields) field.nullable = true;
  return fields;
}

DataTypePtr WidenJsonType(const DataTypePtr& left, const DataTypePtr& right) {
  if (left->Equals(*right)) return left;
  TypeId a = left->id();
  TypeId b = right->id();
  if (a == TypeId::kStruct && b == TypeId::kStruct) {
    return StructType(MergeJsonFields(left->fields(), right->fields()));
  }
  if (a == TypeId::kList && b == TypeId::kList) {
    return ListType(WidenJsonType(left->element_type(), right->element_type()));
  }
  bool numbers =
      (a == TypeId::kLong || a == TypeId::kDouble) && (b == TypeId::kLong || b == TypeId::kDouble);
  return numbers ? DoubleType() : StringType();
}

// Cuts `columns` (of `schema`, `num_rows` rows) into batches of at most kRowsPerBatch rows.
void AppendBatches(const SchemaPtr& schema, std::vector<VectorPtr> columns, int64_t num_rows,
                   std::vector<Batch>& rows) {
  if (num_rows == 0) return;
  Batch whole(schema, std::move(columns), num_rows);
  for (int64_t offset = 0; offset < num_rows; offset += kRowsPerBatch) {
    rows.push_back(whole.Slice(offset, std::min(kRowsPerBatch, num_rows - offset)));
  }
}

}  // namespace

// ---- offsets and the log ----

std::string FileSource::OffsetJson(int64_t log_offset) {
  return "{\"logOffset\":" + std::to_string(log_offset) + "}";
}

std::optional<int64_t> FileSource::ParseOffset(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  int64_t value = 0;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root["logOffset"].get_int64().get(value) != simdjson::SUCCESS || value < -1) {
    return std::nullopt;
  }
  return value;
}

std::string FileSource::LogText(const std::vector<FileEntry>& entries) {
  std::string text(kLogVersion);
  for (const FileEntry& entry : entries) {
    JsonWriter json;
    json.BeginObject();
    json.Key("path");
    json.String(PathToUri(entry.path));
    json.Key("timestamp");
    json.Int(entry.timestamp);
    json.Key("batchId");
    json.Int(entry.batch_id);
    json.EndObject();
    text += "\n" + json.Release();
  }
  return text;
}

std::optional<std::vector<FileEntry>> FileSource::ParseLog(std::string_view text) {
  std::vector<std::string_view> lines = Lines(text);
  if (lines.empty() || lines[0] != kLogVersion) return std::nullopt;
  std::vector<FileEntry> entries;
  simdjson::dom::parser parser;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    simdjson::padded_string padded(lines[i]);
    simdjson::dom::element root;
    std::string_view uri;
    FileEntry entry;
    if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
        root["path"].get_string().get(uri) != simdjson::SUCCESS ||
        root["timestamp"].get_int64().get(entry.timestamp) != simdjson::SUCCESS ||
        root["batchId"].get_int64().get(entry.batch_id) != simdjson::SUCCESS) {
      return std::nullopt;
    }
    std::optional<std::string> path = UriToPath(uri);
    if (!path) return std::nullopt;
    entry.path = std::move(*path);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// ---- opening ----

std::unique_ptr<FileSource> FileSource::Open(std::shared_ptr<io::FileSystem> fs, std::string folder,
                                             FileFormat format, FileSourceFace face,
                                             const StreamOptions& options, expr::EvalContext eval,
                                             bool infer_schema) {
  std::unique_ptr<FileSource> source(new FileSource());
  source->fs_ = std::move(fs);
  source->folder_ = std::string(io::TrimTrailingSeparators(folder));
  source->format_ = format;
  source->face_ = face;
  source->eval_ = std::move(eval);
  source->infer_schema_ = face == FileSourceFace::kReadFiles || infer_schema;
  for (const auto& [key, value] : options.values()) {
    if (key != "mode") source->format_options_[key] = value;
  }
  if (std::optional<std::string> mode = options.Get("mode")) {
    std::string upper = AsciiLower(*mode);
    if (upper != "failfast" && upper != "permissive") {
      ThrowInvalid("mode", *mode, "expected FAILFAST (the default) or PERMISSIVE");
    }
    source->permissive_ = upper == "permissive";
  }
  source->max_files_ = options.GetPositiveInt("maxFilesPerTrigger");
  source->latest_first_ = options.GetBool("latestFirst", false);
  if (std::optional<std::string> age = options.Get("maxFileAge")) {
    source->max_file_age_ms_ = ParseDurationMs("maxFileAge", *age);
  }
  source->glob_ = options.Get("pathGlobFilter");
  source->recursive_ = options.GetBool("recursiveFileLookup", false);
  source->csv_header_ = options.GetBool("header", false);
  for (const char* key : {"sep", "delimiter"}) {
    if (std::optional<std::string> separator = options.Get(key); separator && *separator != ",") {
      SILT_THROW(NOT_IMPLEMENTED, {{"feature", "CSV separators other than ','"}});
    }
  }
  if (std::optional<std::string> clean = options.Get("cleanSource")) {
    std::string mode = AsciiLower(*clean);
    if (mode == "delete") {
      source->clean_ = Clean::kDelete;
    } else if (mode == "archive") {
      source->clean_ = Clean::kArchive;
      std::optional<std::string> archive = options.Get("sourceArchiveDir");
      if (!archive || archive->empty()) {
        ThrowInvalid("sourceArchiveDir", "",
                     "cleanSource archive needs the folder to move files to");
      }
      source->archive_folder_ = std::string(io::TrimTrailingSeparators(*archive));
      std::string inside = io::NormalizePath(source->folder_) + "/";
      if ((io::NormalizePath(source->archive_folder_) + "/").rfind(inside, 0) == 0) {
        ThrowInvalid("sourceArchiveDir", *archive,
                     "the archive folder must not be inside the source folder");
      }
    } else if (mode != "off") {
      ThrowInvalid("cleanSource", *clean, "expected off, delete or archive");
    }
  }
  if (std::optional<std::string> rescue = options.Get("rescuedDataColumn")) {
    source->rescue_column_ = *rescue;
  } else if (face == FileSourceFace::kReadFiles) {
    source->rescue_column_ = "_rescued_data";
  }
  if (std::optional<std::string> text = options.Get("schema")) {
    DataTypePtr type = expr::ParseSchemaDdl(*text);
    if (type->id() != TypeId::kStruct) {
      SILT_THROW(INVALID_SCHEMA,
                 {{"inputSchema", *text}, {"message", "expected column definitions"}});
    }
    std::vector<Field> fields = type->fields();
    for (Field& field : fields) field.nullable = true;
    if (!source->rescue_column_.empty() &&
        Schema(fields).FieldIndex(source->rescue_column_, false) < 0) {
      fields.push_back(Field{source->rescue_column_, StringType(), true, {}});
    }
    source->schema_ = std::make_shared<const Schema>(std::move(fields));
  }
  return source;
}

std::string FileSource::Describe() const { return "FileStreamSource[" + folder_ + "]"; }

bool FileSource::OpenMetadata(const std::shared_ptr<io::FileSystem>& fs,
                              const std::string& folder) {
  (void)fs;  // the source's own file system holds the checkpoint too
  metadata_folder_ = folder;
  for (const io::FileInfo& info : fs_->List(metadata_folder_)) {
    std::string name = BaseName(info.path);
    int64_t batch = 0;
    auto [ptr, error] = std::from_chars(name.data(), name.data() + name.size(), batch);
    if (error != std::errc() || ptr != name.data() + name.size()) continue;
    for (const FileEntry& entry : LogBatch(batch)) {
      seen_[entry.path] = entry.timestamp;
      max_seen_timestamp_ = std::max(max_seen_timestamp_, entry.timestamp);
    }
    latest_log_batch_ = std::max(latest_log_batch_, batch);
  }
  std::string schema_path = io::JoinPath(metadata_folder_, kSchemaFile);
  if (!schema_) {
    if (fs_->Stat(schema_path)) {
      schema_ = std::make_shared<const Schema>(ParseDeltaSchema(fs_->ReadFile(schema_path)));
    } else if (infer_schema_) {
      // The first run's inference is kept, so later runs read with the same columns.
      SchemaPtr inferred = InferSchema();
      fs_->PutIfAbsent(schema_path, ToDeltaSchemaJson(*inferred));
      schema_ = std::make_shared<const Schema>(ParseDeltaSchema(fs_->ReadFile(schema_path)));
    }
  }
  return true;
}

std::vector<FileEntry> FileSource::LogBatch(int64_t batch) const {
  std::string path = io::JoinPath(metadata_folder_, std::to_string(batch));
  std::optional<std::vector<FileEntry>> entries;
  if (fs_->Stat(path)) entries = ParseLog(fs_->ReadFile(path));
  if (!entries) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", path},
                {"message", "it is not a file source log (v1 and one JSON line per file)"}});
  }
  return *entries;
}

SchemaPtr FileSource::schema() const {
  if (!schema_) {
    if (!infer_schema_) {
      SILT_THROW(UNABLE_TO_INFER_SCHEMA,
                 {{"format", std::string(format_ == FileFormat::kJson  ? "JSON"
                                         : format_ == FileFormat::kCsv ? "CSV"
                                                                       : "Parquet") +
                                 " (a streaming file source needs the schema option, or "
                                 "spark.sql.streaming.schemaInference set to true)"}});
    }
    schema_ = InferSchema();
  }
  return schema_;
}

std::vector<io::FileInfo> FileSource::ListFiles() const {
  std::vector<io::FileInfo> files;
  for (const io::FileInfo& info : fs_->List(folder_, "", recursive_)) {
    if (info.is_directory || Hidden(folder_, info.path)) continue;
    if (glob_ && fnmatch(glob_->c_str(), BaseName(info.path).c_str(), 0) != 0) continue;
    files.push_back(info);
  }
  return files;
}

SchemaPtr FileSource::InferSchema() const {
  std::vector<io::FileInfo> files = ListFiles();
  std::sort(files.begin(), files.end(),
            [](const io::FileInfo& a, const io::FileInfo& b) { return a.path < b.path; });
  std::string format_name = format_ == FileFormat::kJson  ? "JSON"
                            : format_ == FileFormat::kCsv ? "CSV"
                                                          : "Parquet";
  std::vector<Field> fields;
  bool found = false;
  for (const io::FileInfo& file : files) {
    if (format_ == FileFormat::kParquet) {
      fields = parquet::FileReader::Open(*fs_, file.path)->schema().fields();
      found = true;
      break;
    }
    if (format_ == FileFormat::kCsv) {
      auto records = exec::ParseCsvRecords(fs_->ReadFile(file.path), file.path);
      if (records.empty()) continue;
      for (size_t i = 0; i < records[0].size(); ++i) {
        std::string name = "_c" + std::to_string(i);
        if (csv_header_ && records[0][i]) name = *records[0][i];
        fields.push_back(Field{name, StringType(), true, {}});
      }
      found = true;
      break;
    }
    // JSON: every file's fields, widened together.
    exec::TextTable table = exec::ReadJsonFiles(*fs_, file.path);
    fields = MergeJsonFields(std::move(fields), table.schema->fields());
    found = found || table.schema->num_fields() > 0;
  }
  if (!found) SILT_THROW(UNABLE_TO_INFER_SCHEMA, {{"format", format_name}});
  for (Field& field : fields) field.nullable = true;
  if (!rescue_column_.empty() && Schema(fields).FieldIndex(rescue_column_, false) < 0) {
    fields.push_back(Field{rescue_column_, StringType(), true, {}});
  }
  return std::make_shared<const Schema>(std::move(fields));
}

// ---- batches ----

std::string FileSource::InitialOffset() { return OffsetJson(-1); }

void FileSource::ValidateOffset(const std::string& offset) {
  std::optional<int64_t> log_offset = ParseOffset(offset);
  if (!log_offset || *log_offset > latest_log_batch_) {
    SILT_THROW(STREAMING_CHECKPOINT_CORRUPT,
               {{"checkpoint", metadata_folder_},
                {"message", "the file source offset " + offset + " names no batch of its log"}});
  }
}

void FileSource::PrepareForAvailableNow() {
  available_now_.emplace();
  for (const io::FileInfo& info : ListFiles()) available_now_->insert(info.path);
}

std::optional<std::string> FileSource::LatestOffset(const std::string& start) {
  SILT_CHECK(!metadata_folder_.empty(), "the file source's log is opened before batches");
  int64_t start_batch = ParseOffset(start).value_or(-1);
  std::vector<io::FileInfo> fresh;
  // maxFileAge does not apply when the newest files come first under a file limit (Spark).
  bool age_applies = !(latest_first_ && max_files_);
  int64_t oldest_allowed = max_seen_timestamp_ - max_file_age_ms_;
  for (io::FileInfo& info : ListFiles()) {
    if (seen_.count(info.path) > 0) continue;
    if (available_now_ && available_now_->count(info.path) == 0) continue;
    if (age_applies && !seen_.empty() && info.modification_time_ms < oldest_allowed) continue;
    fresh.push_back(std::move(info));
  }
  std::sort(fresh.begin(), fresh.end(), [&](const io::FileInfo& a, const io::FileInfo& b) {
    if (a.modification_time_ms != b.modification_time_ms) {
      return latest_first_ ? a.modification_time_ms > b.modification_time_ms
                           : a.modification_time_ms < b.modification_time_ms;
    }
    return a.path < b.path;
  });
  if (max_files_ && static_cast<int64_t>(fresh.size()) > *max_files_) fresh.resize(*max_files_);
  if (fresh.empty()) {
    // A log batch written by a run that died before planning its batch is read now.
    if (latest_log_batch_ > start_batch) return OffsetJson(latest_log_batch_);
    return std::nullopt;
  }
  int64_t batch = latest_log_batch_ + 1;
  std::vector<FileEntry> entries;
  for (const io::FileInfo& info : fresh) {
    entries.push_back(FileEntry{info.path, info.modification_time_ms, batch});
  }
  std::string path = io::JoinPath(metadata_folder_, std::to_string(batch));
  if (fs_->PutIfAbsent(path, LogText(entries)) == io::PutOutcome::kAlreadyExists) {
    SILT_THROW(STREAMING_CHECKPOINT_MISMATCH,
               {{"checkpoint", metadata_folder_},
                {"what", "log batch " + std::to_string(batch) + " written by another run"},
                {"expected", "one run of the query at a time"}});
  }
  for (const FileEntry& entry : entries) {
    seen_[entry.path] = entry.timestamp;
    max_seen_timestamp_ = std::max(max_seen_timestamp_, entry.timestamp);
  }
  latest_log_batch_ = batch;
  ReachFaultPoint(kAfterSourceLogWritten, batch);
  return OffsetJson(batch);
}

BatchInput FileSource::PlanBatch(const std::string& start, const std::string& end) {
  int64_t first = ParseOffset(start).value_or(-1) + 1;
  int64_t last = ParseOffset(end).value_or(-1);
  auto table = std::make_shared<exec::TextTable>();
  table->schema = schema();
  BatchInput input;
  int64_t num_rows = 0;
  for (int64_t batch = first; batch <= last; ++batch) {
    for (const FileEntry& entry : LogBatch(batch)) {
      size_t before = table->batches.size();
      ReadFile(entry, table->batches);
      for (size_t i = before; i < table->batches.size(); ++i)
        num_rows += table->batches[i].num_rows();
      ++input.num_files;
      if (std::optional<io::FileInfo> info = fs_->Stat(entry.path)) input.num_bytes += info->size;
    }
  }
  input.num_rows = num_rows;
  input.rows = std::move(table);
  return input;
}

void FileSource::Commit(const std::string& end) {
  if (clean_ == Clean::kOff) return;
  std::optional<int64_t> batch = ParseOffset(end);
  if (!batch || *batch < 0) return;
  for (const FileEntry& entry : LogBatch(*batch)) {
    try {
      if (clean_ == Clean::kDelete) {
        fs_->Delete(entry.path);
      } else if (fs_->Stat(entry.path)) {
        // The file's whole path below the archive folder, as Spark archives it.
        fs_->WriteFile(io::JoinPath(archive_folder_, entry.path), fs_->ReadFile(entry.path));
        fs_->Delete(entry.path);
      }
    } catch (const Error&) {
      // Cleaning is best effort: the file stays, and is not read again.
    }
  }
}

SchemaPtr FileSource::DataSchema() const {
  int rescue = RescueIndex();
  if (rescue < 0) return schema();
  std::vector<Field> fields = schema()->fields();
  fields.erase(fields.begin() + rescue);
  return std::make_shared<const Schema>(std::move(fields));
}

int FileSource::RescueIndex() const {
  if (rescue_column_.empty()) return -1;
  return schema()->FieldIndex(rescue_column_, false);
}

void FileSource::ReadFile(const FileEntry& file, std::vector<Batch>& rows) const {
  try {
    if (format_ == FileFormat::kParquet) {
      ReadParquet(file.path, rows);
    } else {
      std::string text = fs_->ReadFile(file.path);
      if (format_ == FileFormat::kJson) {
        ReadJson(file.path, text, rows);
      } else {
        ReadCsv(file.path, text, rows);
      }
    }
  } catch (const Error& error) {
    if (error.error_class() == "FAILED_READ_FILE") throw;
    SILT_THROW(FAILED_READ_FILE, {{"path", file.path}, {"message", error.what()}});
  }
}

void FileSource::ReadJson(const std::string& path, std::string_view text,
                          std::vector<Batch>& rows) const {
  SchemaPtr data_schema = DataSchema();
  int rescue = RescueIndex();
  const expr::FunctionRegistry& registry = expr::FunctionRegistry::Default();
  std::vector<expr::ExpressionPtr> map_arguments = {
      expr::Literal(expr::Scalar::String("mode")),
      expr::Literal(expr::Scalar::String(permissive_ && rescue < 0 ? "PERMISSIVE" : "FAILFAST"))};
  for (const auto& [key, value] : format_options_) {
    map_arguments.push_back(expr::Literal(expr::Scalar::String(key)));
    map_arguments.push_back(expr::Literal(expr::Scalar::String(value)));
  }
  expr::ExpressionPtr parse = registry.Bind(
      "from_json", {expr::Column(0, StringType()),
                    expr::Literal(expr::Scalar::String(ToDeltaSchemaJson(*data_schema))),
                    registry.Bind("map", std::move(map_arguments))});
  auto line_schema =
      std::make_shared<const Schema>(std::vector<Field>{{"value", StringType(), true, {}}});
  auto parse_lines = [&](const std::vector<std::string_view>& lines) {
    VectorBuilder builder(StringType(), static_cast<int64_t>(lines.size()));
    for (std::string_view line : lines) builder.AppendString(line);
    Batch batch(line_schema, {builder.Finish()}, static_cast<int64_t>(lines.size()));
    expr::EvalContext context = eval_;
    return expr::Evaluate(*parse, batch, context);
  };

  std::vector<std::string_view> lines;
  for (std::string_view line : Lines(text)) {
    if (!IsBlank(line)) lines.push_back(line);
  }
  if (lines.empty()) return;
  std::vector<VectorPtr> columns;
  if (rescue < 0) {
    VectorPtr parsed = parse_lines(lines);
    for (size_t i = 0; i < data_schema->num_fields(); ++i)
      columns.push_back(parsed->StructField(i));
    AppendBatches(schema(), std::move(columns), static_cast<int64_t>(lines.size()), rows);
    return;
  }

  // With a rescued-data column each line is checked alone: a member the schema lacks, or whose
  // value does not parse as its column's type, moves to the rescued column.
  std::vector<std::unique_ptr<VectorBuilder>> builders;
  for (const Field& field : schema()->fields()) {
    builders.push_back(std::make_unique<VectorBuilder>(field.type));
  }
  auto append_parsed = [&](const VectorPtr& parsed, const std::optional<std::string>& rescued) {
    size_t data_column = 0;
    for (size_t i = 0; i < builders.size(); ++i) {
      if (static_cast<int>(i) == rescue) {
        if (rescued) {
          builders[i]->AppendString(*rescued);
        } else {
          builders[i]->AppendNull();
        }
      } else {
        builders[i]->AppendFrom(*parsed->StructField(data_column++), 0);
      }
    }
  };
  expr::JsonReadFeatures features;
  for (std::string_view line : lines) {
    expr::JsonNode node;
    if (expr::ParseJsonText(line, features, node) !=
            expr::JsonParseOutcome::kValue ||
        node.kind != expr::JsonNode::Kind::kObject) {
      // Not a JSON object: a row of NULLs that keeps the line.
      std::string raw;
      JsonWriter quoted;
      quoted.String(line);
      raw = quoted.Release();
      append_parsed(parse_lines({"{}"}), RescuedJson({{"_corrupt_record", raw}}, path));
      continue;
    }
    std::string kept = "{";
    std::vector<std::pair<std::string, std::string>> rescued;
    for (const auto& [name, value] : node.members) {
      std::string member;
      JsonWriter key;
      key.String(name);
      member = key.Release() + ":";
      std::string raw;
      expr::AppendJsonNode(raw, value);
      member += raw;
      bool fits = data_schema->FieldIndex(name, true) >= 0;
      if (fits) {
        try {
          parse_lines({std::string_view("{" + member + "}")});
        } catch (const Error&) {
          fits = false;
        }
      }
      if (fits) {
        kept += (kept.size() > 1 ? "," : "") + member;
      } else {
        rescued.emplace_back(name, raw);
      }
    }
    kept += "}";
    std::optional<std::string> rescued_text;
    if (!rescued.empty()) rescued_text = RescuedJson(rescued, path);
    append_parsed(parse_lines({std::string_view(kept)}), rescued_text);
  }
  for (auto& builder : builders) columns.push_back(builder->Finish());
  AppendBatches(schema(), std::move(columns), static_cast<int64_t>(lines.size()), rows);
}

void FileSource::ReadCsv(const std::string& path, std::string_view text,
                         std::vector<Batch>& rows) const {
  auto records = exec::ParseCsvRecords(text, path);
  size_t first = csv_header_ && !records.empty() ? 1 : 0;
  int64_t num_rows = static_cast<int64_t>(records.size() - first);
  if (num_rows <= 0) return;
  int rescue = RescueIndex();
  const Schema& schema_ref = *schema();
  // Columns by position, as Spark's CSV reader enforces a given schema; a short record is
  // padded with NULLs.
  std::vector<VectorPtr> columns(schema_ref.num_fields());
  std::vector<std::vector<std::pair<std::string, std::string>>> rescued(
      static_cast<size_t>(num_rows));
  size_t position = 0;
  for (size_t i = 0; i < schema_ref.num_fields(); ++i) {
    if (static_cast<int>(i) == rescue) continue;
    const Field& field = schema_ref.field(i);
    VectorBuilder builder(StringType(), num_rows);
    for (size_t r = first; r < records.size(); ++r) {
      if (position < records[r].size() && records[r][position]) {
        builder.AppendString(*records[r][position]);
      } else {
        builder.AppendNull();
      }
    }
    VectorPtr strings = builder.Finish();
    ++position;
    if (field.type->id() == TypeId::kString) {
      columns[i] = strings;
      continue;
    }
    expr::EvalContext context = eval_;
    if (rescue < 0 && permissive_) {
      columns[i] = expr::CastVector(strings, field.type, expr::ErrorMode::kTry, context);
      continue;
    }
    if (rescue < 0) {
      auto one =
          std::make_shared<const Schema>(std::vector<Field>{{field.name, StringType(), true, {}}});
      Batch batch(one, {strings}, num_rows);
      columns[i] =
          expr::Evaluate(*expr::Cast(expr::Column(0, StringType()), field.type), batch, context);
      continue;
    }
    // A value that does not convert is NULL and kept in the rescued column.
    columns[i] = expr::CastVector(strings, field.type, expr::ErrorMode::kTry, context);
    for (int64_t r = 0; r < num_rows; ++r) {
      if (!strings->IsNull(r) && columns[i]->IsNull(r)) {
        JsonWriter value;
        value.String(strings->GetString(r));
        rescued[static_cast<size_t>(r)].emplace_back(field.name, value.Release());
      }
    }
  }
  if (rescue >= 0) {
    VectorBuilder builder(StringType(), num_rows);
    for (const auto& row : rescued) {
      if (row.empty()) {
        builder.AppendNull();
      } else {
        builder.AppendString(RescuedJson(row, path));
      }
    }
    columns[static_cast<size_t>(rescue)] = builder.Finish();
  }
  AppendBatches(schema(), std::move(columns), num_rows, rows);
}

void FileSource::ReadParquet(const std::string& path, std::vector<Batch>& rows) const {
  std::unique_ptr<parquet::FileReader> reader = parquet::FileReader::Open(*fs_, path);
  const Schema& file_schema = reader->schema();
  const Schema& schema_ref = *schema();
  for (const Batch& batch : reader->Read()) {
    std::vector<VectorPtr> columns;
    for (const Field& field : schema_ref.fields()) {
      int index = file_schema.FieldIndex(field.name, false);
      if (index < 0) {
        // A column the file lacks (or the rescued-data column) is NULL.
        VectorBuilder nulls(field.type, batch.num_rows());
        nulls.AppendNulls(batch.num_rows());
        columns.push_back(nulls.Finish());
        continue;
      }
      const VectorPtr& column = batch.column(static_cast<size_t>(index));
      if (column->type()->Equals(*field.type)) {
        columns.push_back(column);
        continue;
      }
      if (!expr::CanCast(column->type(), field.type)) {
        SILT_THROW(FAILED_READ_FILE,
                   {{"path", path},
                    {"message", "column " + field.name + " is " + column->type()->ToString() +
                                    " in the file, not " + field.type->ToString()}});
      }
      expr::EvalContext context = eval_;
      auto one = std::make_shared<const Schema>(
          std::vector<Field>{{field.name, column->type(), true, {}}});
      Batch single(one, {column}, batch.num_rows());
      columns.push_back(expr::Evaluate(*expr::Cast(expr::Column(0, column->type()), field.type),
                                       single, context));
    }
    AppendBatches(schema(), std::move(columns), batch.num_rows(), rows);
  }
}

}  // namespace silt::stream
