// silt._silt: the compiled part of the Python module `silt`. A thin binding of silt::Session;
// the Python package (python/silt/) re-exports it and defines the exception classes.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arrow_stream.h"
#include "object_arenas.h"
#include "pandas_columns.h"
#include "parquet_export.h"
#include "values.h"
#include "silt/api/session_internal.h"
#include "silt/base/error_class.h"
#include "silt/error.h"
#include "silt/exec/operator.h"
#include "silt/exec/text_format.h"
#include "silt/expr/function_registry.h"
#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
#include "silt/parquet/writer.h"
#include "silt/session.h"
#include "silt/sql/parser.h"
#include "silt/sql/planner.h"
#include "silt/sql/session_state.h"
#include "silt/stream/streaming_table.h"
#include "silt/streaming.h"

namespace py = pybind11;

namespace silt::python {
namespace {

// A failure of the engine that is not a silt::Error (a bug): raised as silt.InternalError.
struct UnexpectedFailure {
  std::string message;
};

// Raises the exception silt.errors makes for an error: its category's class and, at once,
// PySpark's class for the error class (AnalysisException, ParseException, ...). `message` is
// the rendered template alone, from which Python recovers the message parameters.
void RaiseSiltError(const std::string& text, std::string_view error_class,
                    std::string_view sqlstate, std::string_view category,
                    const std::string& message) {
  py::object error = py::module_::import("silt.errors")
                         .attr("_from_engine")(text, error_class, sqlstate, category, message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
}

// Turns Python values of `conf` into the strings `SET key=value` would take: booleans as
// true/false, everything else by str().
std::map<std::string, std::string> ConfStrings(const std::optional<py::dict>& conf) {
  std::map<std::string, std::string> strings;
  if (!conf) return strings;
  for (const auto& [key, value] : *conf) {
    std::string text;
    if (py::isinstance<py::bool_>(value)) {
      text = value.cast<bool>() ? "true" : "false";
    } else {
      text = py::str(value).cast<std::string>();
    }
    strings[py::str(key).cast<std::string>()] = std::move(text);
  }
  return strings;
}

// A type as Spark's DataType.jsonValue() writes it: a name ("long", "decimal(10,2)") for
// primitive types, a dict for struct, array and map types.
py::object TypeJson(const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct: {
      py::list fields;
      for (const Field& field : type.fields()) {
        py::dict entry;
        entry["name"] = field.name;
        entry["type"] = TypeJson(*field.type);
        entry["nullable"] = field.nullable;
        entry["metadata"] = py::dict();
        fields.append(std::move(entry));
      }
      py::dict json;
      json["type"] = "struct";
      json["fields"] = std::move(fields);
      return json;
    }
    case TypeId::kList: {
      py::dict json;
      json["type"] = "array";
      json["elementType"] = TypeJson(*type.element_type());
      json["containsNull"] = type.contains_null();
      return json;
    }
    case TypeId::kMap: {
      py::dict json;
      json["type"] = "map";
      json["keyType"] = TypeJson(*type.key_type());
      json["valueType"] = TypeJson(*type.value_type());
      json["valueContainsNull"] = type.value_contains_null();
      return json;
    }
    case TypeId::kNull:
      return py::str("void");
    default:
      // Delta's names are Spark's JSON names ("long", "integer", "timestamp_ntz"); interval
      // types give Spark's name.
      return py::str(type.DeltaName());
  }
}

py::list SchemaJson(const Schema& schema) {
  py::list fields;
  for (const Field& field : schema.fields()) {
    py::dict entry;
    entry["name"] = field.name;
    entry["type"] = TypeJson(*field.type);
    entry["nullable"] = field.nullable;
    entry["metadata"] = py::dict();
    fields.append(std::move(entry));
  }
  return fields;
}

// What Session.sql returns: the last statement's rows, converted on demand.
class Result {
 public:
  explicit Result(StatementOutput output) : output_(std::move(output)) {}

  // The columns as Spark's StructType.jsonValue()["fields"]; empty without rows.
  py::list schema() const {
    if (!output_.has_rows()) return py::list();
    return SchemaJson(*output_.schema());
  }

  // Column `index` as a list of Python values (as rows() converts them).
  py::list column(size_t index) const {
    CheckColumn(index);
    py::list values;
    ValueConverter converter;
    for (const Batch& batch : output_.batches()) {
      const Vector& vector = *batch.column(index);
      for (int64_t row = 0; row < batch.num_rows(); ++row) {
        values.append(converter.Convert(vector, row));
      }
    }
    return values;
  }

  // Every value as Spark's show() prints it ("NULL", "1.50", timestamps in the session time
  // zone), row by row.
  std::vector<std::vector<std::string>> display_rows() const {
    std::vector<std::vector<std::string>> rows;
    if (!output_.has_rows()) return rows;
    silt::Result result = api::MakeResult(output_);
    for (const silt::Row& row : result) {
      std::vector<std::string> cells;
      for (size_t column = 0; column < row.size(); ++column) cells.push_back(row.ToString(column));
      rows.push_back(std::move(cells));
    }
    return rows;
  }

  py::capsule arrow_stream() const { return ExportArrowStream(output_); }

  std::string show(int64_t max_rows, int truncate) const {
    return api::MakeResult(output_).Show(max_rows, truncate);
  }

  std::vector<std::string> columns() const {
    std::vector<std::string> names;
    if (!output_.has_rows()) return names;
    for (const Field& field : output_.schema()->fields()) names.push_back(field.name);
    return names;
  }

  int64_t num_rows() const { return output_.has_rows() ? output_.num_rows() : 0; }

  void CheckColumn(size_t index) const {
    if (!output_.has_rows() || index >= output_.schema()->num_fields()) {
      throw py::index_error("no column " + std::to_string(index));
    }
  }

  py::list rows() const {
    py::list rows;
    if (!output_.has_rows()) return rows;
    ValueConverter converter;
    for (const Batch& batch : output_.batches()) {
      for (int64_t row = 0; row < batch.num_rows(); ++row) {
        py::tuple values(batch.num_columns());
        for (size_t column = 0; column < batch.num_columns(); ++column) {
          values[column] = converter.Convert(*batch.column(column), row);
        }
        rows.append(std::move(values));
      }
    }
    return rows;
  }

 private:
  StatementOutput output_;
};

// A query's rows as the engine produces them, for toLocalIterator, the Arrow stream and
// toPandas. Waits for the engine without the GIL; a signal handler that raises (Ctrl-C's
// KeyboardInterrupt) cancels the query and its exception is raised instead.
class PyResultStream {
 public:
  explicit PyResultStream(std::unique_ptr<api::StatementStream> stream)
      : stream_(std::move(stream)) {}

  // Closing joins the producer thread, which never needs the GIL.
  ~PyResultStream() {
    if (!stream_ || !Py_IsInitialized()) return;
    py::gil_scoped_release release;
    stream_.reset();
  }

  py::list schema() const {
    if (!stream_ || !stream_->has_rows()) return py::list();
    return SchemaJson(*stream_->schema());
  }

  // The next batch's rows as a Result, or None at the end.
  py::object next_batch() {
    std::optional<Batch> batch = Next();
    if (!batch) return py::none();
    std::vector<Batch> batches;
    batches.push_back(std::move(*batch));
    return py::cast(Result(StatementOutput(stream_->schema(), std::move(batches),
                                           stream_->statement_text(), stream_->time_zone())));
  }

  // Every remaining row, converted for toPandas as the engine produces them.
  std::unique_ptr<PandasColumns> pandas_columns() {
    CheckOpen();
    if (!stream_->has_rows()) return std::make_unique<PandasColumns>(Schema(std::vector<Field>{}));
    auto columns = std::make_unique<PandasColumns>(*stream_->schema());
    HugeObjectArenas arenas;
    while (std::optional<Batch> batch = Next()) columns->Add(*batch);
    return columns;
  }

  // The remaining rows as an Arrow C stream that reads this stream (which it takes).
  py::capsule arrow_stream() {
    CheckOpen();
    std::shared_ptr<api::StatementStream> stream = std::move(stream_);
    SchemaPtr schema = stream->schema();
    return ExportArrowStream(std::move(schema), [stream] { return stream->Next(); });
  }

  void close() {
    if (!stream_) return;
    py::gil_scoped_release release;
    stream_->Close();
  }

 private:
  void CheckOpen() const {
    if (!stream_) {
      SILT_THROW(INVALID_ARGUMENT, {{"message", "the stream was handed to an Arrow reader"}});
    }
  }

  std::optional<Batch> Next() {
    CheckOpen();
    while (true) {
      bool ready = false;
      {
        py::gil_scoped_release release;
        ready = stream_->WaitReady(std::chrono::milliseconds(50));
      }
      if (PyErr_CheckSignals() != 0) {
        {
          py::gil_scoped_release release;
          stream_->Cancel();
          stream_->Close();
        }
        throw py::error_already_set();
      }
      if (ready) break;
    }
    py::gil_scoped_release release;
    return stream_->Next();
  }

  std::unique_ptr<api::StatementStream> stream_;
};

// A Python object that C++ code keeps and may drop on a thread that does not hold the GIL
// (a streaming query's thread): the last owner takes the GIL to release it.
std::shared_ptr<py::object> HoldPython(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)), [](py::object* held) {
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing left to release
    py::gil_scoped_acquire gil;
    delete held;
  });
}

// A Python exception raised by a foreachBatch function. It ends the query (what() becomes the
// message of its STREAM_FAILED error); the exception itself is kept for the Python side.
class PythonFunctionFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The exception a query's foreachBatch function raised, shared by the function and the query.
struct FunctionFailure {
  std::mutex mutex;
  std::shared_ptr<py::object> exception;
};

// A running streaming query for Python. The engine's query runs on a thread of its own; every
// wait here releases the GIL, since that thread takes it to call a foreachBatch function.
class PyStreamingQuery {
 public:
  PyStreamingQuery(StreamingQuery query, std::shared_ptr<FunctionFailure> failure)
      : query_(std::move(query)), failure_(std::move(failure)) {}

  // Dropping the last handle stops the query and joins its thread, whose foreachBatch call may
  // be waiting for the GIL.
  ~PyStreamingQuery() {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_release release;
    query_.reset();
  }

  std::string id() const { return query_->id(); }
  std::string run_id() const { return query_->run_id(); }
  std::string name() const { return query_->name(); }
  bool is_active() const { return query_->IsActive(); }

  // Waits until the query ends or `timeout_ms` passes (none: no limit); returns whether it
  // ended. A signal handler that raises (Ctrl-C's KeyboardInterrupt) ends the wait with its
  // exception; the query goes on.
  bool AwaitTermination(std::optional<int64_t> timeout_ms) {
    auto start = std::chrono::steady_clock::now();
    while (true) {
      int64_t slice = 50;
      if (timeout_ms) {
        int64_t spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
        slice = std::max<int64_t>(0, std::min<int64_t>(slice, *timeout_ms - spent));
      }
      bool ended = false;
      {
        py::gil_scoped_release release;
        try {
          ended = query_->AwaitTermination(slice);
        } catch (const Error&) {
          ended = true;  // failure() tells how
        }
      }
      if (ended) return true;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (timeout_ms && slice < 50) return false;
    }
  }

  // The error that ended the query, as (text, error class, SQLSTATE, category, message), or
  // None when it has not failed.
  py::object failure() const {
    std::optional<Error> error;
    {
      py::gil_scoped_release release;
      try {
        query_->AwaitTermination(0);
      } catch (const Error& caught) {
        error.emplace(caught);
      }
    }
    if (!error) return py::none();
    return py::make_tuple(std::string(error->what()), std::string(error->error_class()),
                          std::string(error->sqlstate()),
                          std::string(ErrorCategoryName(error->category())), error->message());
  }

  // The exception the foreachBatch function raised, or None.
  py::object function_exception() const {
    std::lock_guard<std::mutex> lock(failure_->mutex);
    if (!failure_->exception) return py::none();
    return *failure_->exception;
  }

  void Stop() {
    py::gil_scoped_release release;
    query_->Stop();
  }

  py::dict status() const {
    StreamingQueryStatus status = query_->Status();
    py::dict out;
    out["message"] = status.message;
    out["isDataAvailable"] = status.is_data_available;
    out["isTriggerActive"] = status.is_trigger_active;
    return out;
  }

  // Spark's JSON of the last batch's progress, or None before the first batch.
  py::object last_progress() const {
    std::optional<StreamingQueryProgress> progress = query_->LastProgress();
    if (!progress) return py::none();
    return py::str(progress->json);
  }

  std::vector<std::string> recent_progress() const {
    std::vector<std::string> out;
    for (const StreamingQueryProgress& progress : query_->RecentProgress()) {
      out.push_back(progress.json);
    }
    return out;
  }

 private:
  std::optional<StreamingQuery> query_;
  std::shared_ptr<FunctionFailure> failure_;
};

// A query's columns as analysed (nothing read), or the rows of a statement that ran.
struct Analysis {
  bool is_query = false;
  SchemaPtr schema;
  StatementOutput output;
};

// A silt::Session for Python. The engine runs without the GIL, so other Python threads go on
// while a statement runs; statements of one session run one at a time, as the engine requires.
// Each runs on a worker thread while the calling thread watches for signals: Ctrl-C cancels the
// statement (which commits nothing and removes what it wrote) and raises KeyboardInterrupt.
class PySession {
 public:
  PySession(std::optional<py::object> warehouse, std::optional<py::dict> conf) {
    SessionOptions options;
    if (warehouse && !warehouse->is_none()) {
      options.warehouse = py::module_::import("os").attr("fspath")(*warehouse).cast<std::string>();
    }
    options.conf = ConfStrings(conf);
    owned_ = std::make_unique<Session>(std::move(options));
    session_ = owned_.get();
  }

  // A streaming query's session while its foreachBatch function runs: usable until Close.
  explicit PySession(Session* borrowed) : session_(borrowed) {}

  // Ends a borrowed session's use: later calls raise instead of reaching a session that may be
  // gone.
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    session_ = nullptr;
  }

  Result Sql(const std::string& text) {
    return Result(Run<StatementOutput>([&] { return api::RunStatements(*session_, text); }));
  }

  // One statement, as spark.sql() takes it: a query is analysed (its columns, as a dict of
  // "is_query" and "schema"), any other statement runs now ("result").
  py::dict Analyze(const std::string& text) {
    Analysis analysis = Run<Analysis>([&] {
      Analysis done;
      sql::Statement statement = sql::ParseStatement(text);
      if (statement.kind != sql::StatementKind::kQuery) {
        done.output = api::RunStatements(*session_, text);
        return done;
      }
      sql::SessionState& state = api::StateOf(*session_);
      state.cancellation().Reset();
      exec::ExecContext context;
      context.eval = state.MakeEvalContext();
      context.pool = &state.pool();
      sql::PlannedQuery planned = sql::PlanQuery(state, *statement.query, context);
      done.is_query = true;
      done.schema = planned.schema;
      return done;
    });
    py::dict answer;
    answer["is_query"] = analysis.is_query;
    if (analysis.is_query) {
      answer["schema"] = SchemaJson(*analysis.schema);
    } else {
      answer["result"] = Result(std::move(analysis.output));
    }
    return answer;
  }

  // The rows of the last statement of `text` as they are produced (the statements before it run
  // now; a query is planned now and runs as the stream is read).
  std::unique_ptr<PyResultStream> Stream(const std::string& text) {
    return std::make_unique<PyResultStream>(Run<std::unique_ptr<api::StatementStream>>(
        [&] { return api::StreamStatements(*session_, text); }));
  }

  // Spark's show() text of the query `text`, producing only the rows it shows.
  std::string Show(const std::string& text, int64_t max_rows, int truncate) {
    return Run<std::string>([&] {
      // Starts uncancelled, as every statement does (a Ctrl-C before may have left a request).
      api::StateOf(*session_).cancellation().Reset();
      return session_->Sql(text).Show(max_rows, truncate);
    });
  }

  // These wait for the session without the GIL: a foreachBatch function (which holds the GIL)
  // may set options while this thread is starting the query.
  void SetConf(const std::string& key, const std::string& value) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    CheckOpen();
    session_->SetConf(key, value);
  }

  std::optional<std::string> GetConf(const std::string& key) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    CheckOpen();
    return session_->GetConf(key);
  }

  std::string warehouse() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    CheckOpen();
    return session_->warehouse();
  }

  // A stream read as DataStreamReader reads it: `format`, `options`, then the table at `path`
  // or the table `table` (exactly one of them); an unknown format fails here.
  StreamingDataFrame ReadStream(const std::string& format,
                                const std::map<std::string, std::string>& options,
                                const std::optional<std::string>& path,
                                const std::optional<std::string>& table,
                                const std::optional<std::string>& schema) {
    return Run<StreamingDataFrame>([&] {
      DataStreamReader reader = session_->ReadStream();
      reader.Format(format).Options(options);
      if (schema) reader.Schema(*schema);
      return path ? reader.Load(*path) : reader.Table(*table);
    });
  }

  // The columns of the stream `frame` reads, as Spark's StructType.jsonValue()["fields"].
  // Opening the source checks the table and the options (as Spark's load() does), not only
  // start().
  py::list StreamSchema(const StreamingDataFrame& frame,
                        const std::map<std::string, std::string>& options) {
    SchemaPtr schema = Run<SchemaPtr>([&] {
      sql::Statement parsed = sql::ParseStatement(frame.sql());
      return stream::OpenStreamSource(api::StateOf(*session_), *parsed.query,
                                      stream::StreamOptions(options))
          ->schema();
    });
    return SchemaJson(*schema);
  }

  // Starts writing `query` (SQL over the stream `frame`, which it names `name`; the stream itself
  // when none) with `writer`'s settings, to the Delta table at `path`, the table `table`, or
  // `function` (foreachBatch).
  std::shared_ptr<PyStreamingQuery> StartStream(const StreamingDataFrame& frame,
                                                const std::optional<std::string>& query,
                                                const std::string& name, const py::dict& writer,
                                                const std::optional<py::function>& function,
                                                const std::optional<std::string>& path,
                                                const std::optional<std::string>& table);

 private:
  void CheckOpen() const {
    if (session_ == nullptr) {
      SILT_THROW(INVALID_ARGUMENT,
                 {{"message", "this session belonged to a foreachBatch call that has returned; "
                              "use a batch's DataFrame and session only inside the function"}});
    }
  }

 private:
  // Runs `work` on a worker thread without the GIL, one at a time per session; a signal handler
  // that raises (Ctrl-C's KeyboardInterrupt) cancels it and its exception is raised instead.
  template <typename T, typename Work>
  T Run(Work work) {
    std::packaged_task<T()> task([&work]() -> T {
      try {
        return work();
      } catch (const Error&) {
        throw;
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& error) {
        throw UnexpectedFailure{error.what()};
      }
    });
    std::future<T> future = task.get_future();
    bool interrupted = false;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      CheckOpen();
      std::thread worker(std::move(task));
      while (future.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        if (interrupted) continue;
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) {
          interrupted = true;
          session_->Cancel();
        }
      }
      worker.join();
    }
    if (interrupted) {
      try {
        future.get();
      } catch (...) {
        // The cancellation's own error; the signal handler's exception is the one to raise.
      }
      throw py::error_already_set();
    }
    return future.get();
  }

  std::unique_ptr<Session> owned_;
  Session* session_ = nullptr;
  std::mutex mutex_;
};

std::shared_ptr<PyStreamingQuery> PySession::StartStream(
    const StreamingDataFrame& frame, const std::optional<std::string>& query,
    const std::string& name, const py::dict& writer, const std::optional<py::function>& function,
    const std::optional<std::string>& path, const std::optional<std::string>& table) {
  std::string format = writer["format"].cast<std::string>();
  std::string output_mode = writer["outputMode"].cast<std::string>();
  auto options = writer["options"].cast<std::map<std::string, std::string>>();
  auto partition_by = writer["partitionBy"].cast<std::vector<std::string>>();
  std::string query_name = writer["queryName"].cast<std::string>();
  std::string trigger_kind = writer["trigger"].cast<std::string>();
  int64_t interval_ms = writer["intervalMs"].cast<int64_t>();
  Trigger trigger = Trigger::ProcessingTime(interval_ms);
  if (trigger_kind == "once") trigger = Trigger::Once();
  if (trigger_kind == "availableNow") trigger = Trigger::AvailableNow();

  auto failure = std::make_shared<FunctionFailure>();
  std::function<void(const DataFrame&, int64_t)> callback;
  if (function) {
    // `function(engine, sql, batch_id)` is the Python side's wrapper of the user's function.
    std::shared_ptr<py::object> held = HoldPython(*function);
    callback = [held, failure](const DataFrame& batch, int64_t batch_id) {
      py::gil_scoped_acquire gil;
      py::object engine = py::cast(std::make_unique<PySession>(&batch.session()));
      PySession* borrowed = engine.cast<PySession*>();
      try {
        (*held)(engine, batch.sql(), batch_id);
      } catch (py::error_already_set& error) {
        borrowed->Close();
        std::string text = error.what();
        {
          std::lock_guard<std::mutex> lock(failure->mutex);
          failure->exception = HoldPython(error.value());
        }
        throw PythonFunctionFailure(text);
      }
      borrowed->Close();
    };
  }
  StreamingQuery started = Run<StreamingQuery>([&] {
    DataStreamWriter stream_writer = (query ? frame.Sql(*query, name) : frame).WriteStream();
    stream_writer.Format(format).OutputMode(output_mode).Options(options);
    stream_writer.PartitionBy(partition_by).Trigger(trigger);
    if (!query_name.empty()) stream_writer.QueryName(query_name);
    if (callback) {
      stream_writer.ForEachBatch(callback);
      return stream_writer.Start();
    }
    if (table) return stream_writer.ToTable(*table);
    return stream_writer.Start(*path);
  });
  return std::make_shared<PyStreamingQuery>(std::move(started), failure);
}

// The live data files of the Delta table at `table_root` (its current version), for
// DeltaTable.generate: a dict of "partition_columns", "column_mapping" (whether the table maps
// column names) and "files", (path as in the log, [(column, value or None)], whether it has a
// deletion vector) tuples.
py::dict DeltaFiles(const std::string& table_root) {
  std::shared_ptr<const log::Snapshot> snapshot;
  {
    py::gil_scoped_release release;
    snapshot = log::Snapshot::Load(io::MakeLocalFileSystem(), table_root);
  }
  py::list files;
  for (const log::AddFile& file : snapshot->files()) {
    py::list partition;
    for (const auto& [column, value] : file.partition_values) {
      partition.append(py::make_tuple(column, value ? py::object(py::str(*value)) : py::none()));
    }
    files.append(py::make_tuple(file.path, partition, file.deletion_vector.has_value()));
  }
  py::dict answer;
  answer["partition_columns"] = snapshot->metadata().partition_columns;
  answer["column_mapping"] = snapshot->column_mapping_mode() != log::ColumnMappingMode::kNone;
  answer["files"] = files;
  return answer;
}

// Reads the CSV file or folder `csv_path` as the engine's CSV reader does, with or without a
// header line, and writes its rows to the Parquet file `parquet_path` (spark.read.csv for
// options the SQL csv.`path` relation does not take).
void CsvToParquet(const std::string& csv_path, const std::string& parquet_path, bool header) {
  py::gil_scoped_release release;
  std::shared_ptr<io::FileSystem> fs = io::MakeLocalFileSystem();
  exec::TextTable table = exec::ReadCsvFiles(*fs, csv_path, header);
  if (table.schema->num_fields() == 0) {
    SILT_THROW(UNABLE_TO_INFER_SCHEMA, {{"format", "CSV"}});
  }
  std::unique_ptr<parquet::FileWriter> writer =
      parquet::FileWriter::Open(fs->OpenWrite(parquet_path), *table.schema);
  for (const Batch& batch : table.batches) {
    if (batch.num_rows() > 0) writer->Write(batch);
  }
  writer->Close();
}

// The registry entry of error class `name`: (sqlstate, category, message template), or None.
py::object ErrorClassInfoOf(const std::string& name) {
  ErrorClass found = FindErrorClass(name);
  if (found == ErrorClass::kCount) return py::none();
  const ErrorClassInfo& info = GetErrorClassInfo(static_cast<ErrorClassId>(found));
  return py::make_tuple(std::string(info.sqlstate), std::string(ErrorCategoryName(info.category)),
                        std::string(info.message_template));
}

}  // namespace
}  // namespace silt::python

PYBIND11_MODULE(_silt, module) {
  using silt::python::PySession;
  using silt::python::PyStreamingQuery;
  using silt::python::Result;
  module.doc() = "The compiled part of silt; use the package `silt`.";
  module.attr("__version__") = SILT_VERSION;

  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const silt::Error& error) {
      silt::python::RaiseSiltError(error.what(), error.error_class(), error.sqlstate(),
                                   silt::ErrorCategoryName(error.category()), error.message());
    } catch (const silt::python::UnexpectedFailure& failure) {
      silt::python::RaiseSiltError("[INTERNAL_ERROR] " + failure.message, "INTERNAL_ERROR", "XX000",
                                   "internal", failure.message);
    }
  });

  py::class_<Result>(module, "Result", "The rows of the last statement that Session.sql ran.")
      .def_property_readonly("columns", &Result::columns,
                             "The column names; empty for a statement that returns no rows.")
      .def_property_readonly("num_rows", &Result::num_rows)
      .def("rows", &Result::rows,
           "The rows as a list of tuples of Python values: int, float, str, bytes, bool, None, "
           "decimal.Decimal, datetime.date, datetime.datetime (TIMESTAMP aware in UTC, "
           "TIMESTAMP_NTZ naive), datetime.timedelta; arrays as lists, structs and maps as "
           "dicts.")
      .def("schema", &Result::schema,
           "The columns as Spark's StructType.jsonValue()['fields'] (name, type, nullable).")
      .def("column", &Result::column, py::arg("index"),
           "Column `index` as a list of Python values, converted as rows() converts them.")
      .def("display_rows", &Result::display_rows,
           "Every value as Spark's show() prints it, as a list of rows of strings.")
      .def("show", &Result::show, py::arg("max_rows") = 20, py::arg("truncate") = 20,
           "The rows as Spark's show(max_rows, truncate) prints them.")
      .def(
          "__arrow_c_stream__",
          [](const Result& result, py::object) { return result.arrow_stream(); },
          py::arg("requested_schema") = py::none(),
          "The rows as an Arrow C stream (a PyCapsule 'arrow_array_stream'): a struct of the "
          "columns per batch, pointing at the result's buffers without copying.")
      .def("__len__", &Result::num_rows)
      .def("__repr__", [](const Result& result) {
        return "<silt.Result columns=" + py::repr(py::cast(result.columns())).cast<std::string>() +
               " rows=" + std::to_string(result.num_rows()) + ">";
      });

  using silt::python::PandasColumns;
  using silt::python::PyResultStream;
  py::class_<PandasColumns>(module, "PandasColumns",
                            "The columns of a result converted for toPandas.")
      .def_property_readonly("num_rows", &PandasColumns::num_rows)
      .def("take", &PandasColumns::Take, py::arg("index"),
           "Column `index`: (numpy array, NULL mask or None) for fixed-width types other than "
           "DATE (TIMESTAMP as int64 microseconds), else a numpy array of objects. Once per "
           "column.");

  py::class_<PyResultStream>(module, "ResultStream",
                             "The rows of a statement as the engine produces them.")
      .def("schema", &PyResultStream::schema,
           "The columns as Spark's StructType.jsonValue()['fields'].")
      .def("next_batch", &PyResultStream::next_batch,
           "The next batch of rows as a Result, or None once every row was returned.")
      .def("pandas_columns", &PyResultStream::pandas_columns,
           "Every remaining row as PandasColumns, converted while the engine produces the next.")
      .def(
          "__arrow_c_stream__",
          [](PyResultStream& stream, py::object) { return stream.arrow_stream(); },
          py::arg("requested_schema") = py::none(),
          "The remaining rows as an Arrow C stream that reads batches as they are produced.")
      .def("close", &PyResultStream::close,
           "Stops the query when it still runs and releases what it holds.");

  py::class_<PySession>(module, "Session", "A SQL session over a warehouse folder of Delta tables.")
      .def(py::init<std::optional<py::object>, std::optional<py::dict>>(),
           py::arg("warehouse") = py::none(), py::arg("conf") = py::none(),
           "warehouse: the folder of named tables (default $SILT_WAREHOUSE, else "
           "./silt-warehouse); conf: session options, as SET key=value would set them.")
      .def("sql", &PySession::Sql, py::arg("text"),
           "Runs the ;-separated statements of `text` and returns the last one's Result. The "
           "first failing statement raises a silt.SiltError; the ones before it stay committed.")
      .def("analyze", &PySession::Analyze, py::arg("text"),
           "One statement, as spark.sql() takes it: a query is analysed without reading rows "
           "({'is_query': True, 'schema': fields}); any other statement runs now "
           "({'is_query': False, 'result': Result}).")
      .def("stream", &PySession::Stream, py::arg("text"),
           "As sql(), but the last statement's rows come as a ResultStream, as they are "
           "produced.")
      .def("show", &PySession::Show, py::arg("text"), py::arg("max_rows") = 20,
           py::arg("truncate") = 20,
           "The text Spark's show(max_rows, truncate) prints for the query `text`.")
      .def("set_conf", &PySession::SetConf, py::arg("key"), py::arg("value"))
      .def("get_conf", &PySession::GetConf, py::arg("key"))
      .def_property_readonly("warehouse", &PySession::warehouse)
      .def("read_stream", &PySession::ReadStream, py::arg("format"), py::arg("options"),
           py::arg("path") = py::none(), py::arg("table") = py::none(),
           py::arg("schema") = py::none(), py::keep_alive<0, 1>(),
           "The stream of the table at `path` or the table `table`, read with `format`, "
           "`options` and `schema` (DDL) as DataStreamReader reads it.")
      .def("stream_schema", &PySession::StreamSchema, py::arg("frame"), py::arg("options"),
           "The columns the stream reads, as Spark's StructType.jsonValue()['fields'].")
      .def("start_stream", &PySession::StartStream, py::arg("frame"), py::arg("query"),
           py::arg("name"), py::arg("writer"), py::arg("function") = py::none(),
           py::arg("path") = py::none(), py::arg("table") = py::none(),
           "Starts writing `query` (SQL naming the stream `frame` `name`; None: `frame` itself) "
           "as `writer` says: to "
           "the Delta table at `path`, the table `table`, or function(engine, sql, batch_id).");

  py::class_<silt::StreamingDataFrame>(module, "StreamingDataFrame",
                                       "A stream as DataStreamReader read it (SQL over STREAM(...)).")
      .def_property_readonly("sql", &silt::StreamingDataFrame::sql)
      .def("with_watermark", &silt::StreamingDataFrame::WithWatermark, py::arg("column"),
           py::arg("delay"),
           "This stream with an event-time watermark on its column `column`, `delay` late.")
      .def("over", &silt::StreamingDataFrame::Sql, py::arg("query"), py::arg("name"),
           "The query `query` over this stream, which it names `name`.")
      .def("drop_duplicates", &silt::StreamingDataFrame::DropDuplicates, py::arg("columns"),
           "This stream's first row of each value of `columns` (all when empty), across batches.")
      .def("drop_duplicates_within_watermark",
           &silt::StreamingDataFrame::DropDuplicatesWithinWatermark, py::arg("columns"),
           "As drop_duplicates, each key kept until the watermark passes its event time plus "
           "the delay.");

  py::class_<PyStreamingQuery, std::shared_ptr<PyStreamingQuery>>(
      module, "StreamingQuery", "A streaming query running on a thread of its own.")
      .def_property_readonly("id", &PyStreamingQuery::id)
      .def_property_readonly("run_id", &PyStreamingQuery::run_id)
      .def_property_readonly("name", &PyStreamingQuery::name)
      .def_property_readonly("is_active", &PyStreamingQuery::is_active)
      .def("await_termination", &PyStreamingQuery::AwaitTermination,
           py::arg("timeout_ms") = py::none(),
           "Waits for the query to end (at most timeout_ms); returns whether it ended.")
      .def("failure", &PyStreamingQuery::failure,
           "The error that ended the query: (text, error class, SQLSTATE, category, message), "
           "or None.")
      .def("function_exception", &PyStreamingQuery::function_exception,
           "The exception the foreachBatch function raised, or None.")
      .def("stop", &PyStreamingQuery::Stop)
      .def("status", &PyStreamingQuery::status)
      .def("last_progress", &PyStreamingQuery::last_progress)
      .def("recent_progress", &PyStreamingQuery::recent_progress);

  module.def("delta_files", &silt::python::DeltaFiles, py::arg("table_root"),
             "The live data files of the Delta table at table_root: partition columns, whether "
             "it maps column names, and (path, partition values, has deletion vector) per file.");
  module.def("write_parquet", &silt::python::WriteParquetFile, py::arg("path"), py::arg("fields"),
             py::arg("columns"),
             "Writes Python columns (values in the engine's form) as a Parquet file; fields are "
             "(name, Spark type, nullable) tuples.");
  module.def("csv_to_parquet", &silt::python::CsvToParquet, py::arg("csv_path"),
             py::arg("parquet_path"), py::arg("header"),
             "Reads CSV (with or without a header line) and writes its rows, all strings, as a "
             "Parquet file.");
  module.def(
      "function_names", [] { return silt::expr::FunctionRegistry::Default().Names(); },
      "The names of the engine's scalar functions, sorted.");
  module.def("error_class_info", &silt::python::ErrorClassInfoOf, py::arg("name"),
             "The registry entry of an error class: (sqlstate, category, message template), or "
             "None for a name silt does not know.");
}
