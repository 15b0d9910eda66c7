// silt._silt: the compiled part of the Python module `silt`. A thin binding of silt::Session;
// the Python package (python/silt/) re-exports it and defines the exception classes.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "silt/error.h"
#include "silt/api/session_internal.h"
#include "silt/session.h"

namespace py = pybind11;

namespace silt::python {
namespace {

// A failure of the engine that is not a silt::Error (a bug): raised as silt.InternalError.
struct UnexpectedFailure {
  std::string message;
};

// The exception class of silt.errors for a category of error.
const char* ExceptionClassFor(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::kUser:
      return "UserError";
    case ErrorCategory::kConcurrentModification:
      return "ConcurrentModificationError";
    case ErrorCategory::kIo:
      return "StorageError";
    case ErrorCategory::kCorruption:
      return "CorruptDataError";
    case ErrorCategory::kUnsupported:
      return "UnsupportedFeatureError";
    case ErrorCategory::kInternal:
      return "InternalError";
  }
  return "InternalError";
}

void RaiseSiltError(const char* class_name, const std::string& text, std::string_view error_class,
                    std::string_view sqlstate, std::string_view category) {
  py::object type = py::module_::import("silt.errors").attr(class_name);
  py::object error = type(text, py::arg("error_class") = error_class,
                          py::arg("sqlstate") = sqlstate, py::arg("category") = category);
  PyErr_SetObject(type.ptr(), error.ptr());
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

// Converts values of result vectors to Python objects. Holds the Python types it needs, so
// one converter serves every value of a result.
class ValueConverter {
 public:
  ValueConverter() {
    py::module_ datetime = py::module_::import("datetime");
    decimal_ = py::module_::import("decimal").attr("Decimal");
    date_ = datetime.attr("date");
    timedelta_ = datetime.attr("timedelta");
    utc_epoch_ = datetime.attr("datetime")(
        1970, 1, 1, py::arg("tzinfo") = datetime.attr("timezone").attr("utc"));
    naive_epoch_ = datetime.attr("datetime")(1970, 1, 1);
  }

  // Row `row` of `vector`. `hashable` asks for tuples instead of lists and dicts (map keys).
  py::object Convert(const Vector& vector, int64_t row, bool hashable = false) const {
    if (vector.IsNull(row)) return py::none();
    switch (vector.type_id()) {
      case TypeId::kNull:
        return py::none();
      case TypeId::kBoolean:
        return py::bool_(vector.GetBool(row));
      case TypeId::kByte:
        return py::int_(vector.values<int8_t>()[row]);
      case TypeId::kShort:
        return py::int_(vector.values<int16_t>()[row]);
      case TypeId::kInteger:
        return py::int_(vector.values<int32_t>()[row]);
      case TypeId::kLong:
        return py::int_(vector.values<int64_t>()[row]);
      case TypeId::kFloat:
        return py::float_(vector.values<float>()[row]);
      case TypeId::kDouble:
        return py::float_(vector.values<double>()[row]);
      case TypeId::kDecimal:
        // The exact digits with the type's scale ("1.50"), which Decimal keeps.
        return decimal_(vector.ValueToString(row));
      case TypeId::kDate:
        return date_.attr("fromordinal")(kOrdinalOfEpoch + vector.values<int32_t>()[row]);
      case TypeId::kTimestamp:
        // An instant: an aware datetime in UTC (astimezone() shows it in any zone).
        return utc_epoch_ + Micros(vector.values<int64_t>()[row]);
      case TypeId::kTimestampNtz:
        return naive_epoch_ + Micros(vector.values<int64_t>()[row]);
      case TypeId::kString: {
        std::string_view text = vector.GetString(row);
        return py::str(text.data(), text.size());
      }
      case TypeId::kBinary: {
        std::string_view bytes = vector.GetString(row);
        return py::bytes(bytes.data(), bytes.size());
      }
      case TypeId::kYearMonthInterval:
        return py::int_(vector.values<int32_t>()[row]);  // months
      case TypeId::kDayTimeInterval:
        return Micros(vector.values<int64_t>()[row]);
      case TypeId::kList:
        return ConvertList(vector, row, hashable);
      case TypeId::kMap:
        return ConvertMap(vector, row, hashable);
      case TypeId::kStruct:
        return ConvertStruct(vector, row, hashable);
    }
    return py::none();
  }

 private:
  // datetime.date.fromordinal(719163) is 1970-01-01, day 0 of a DATE value.
  static constexpr int64_t kOrdinalOfEpoch = 719163;

  py::object Micros(int64_t micros) const { return timedelta_(py::arg("microseconds") = micros); }

  py::object ConvertList(const Vector& vector, int64_t row, bool hashable) const {
    const Vector& elements = *vector.child(0);
    int32_t start = vector.ListStart(row);
    int32_t length = vector.ListLength(row);
    py::list list(length);
    for (int32_t i = 0; i < length; ++i) {
      list[i] = Convert(elements, start + i, hashable);
    }
    if (hashable) return py::tuple(list);
    return list;
  }

  // Struct children are read at the struct's offset plus the row (vector.h).
  py::object ConvertStruct(const Vector& vector, int64_t row, bool hashable) const {
    const std::vector<Field>& fields = vector.type()->fields();
    int64_t child_row = vector.offset() + row;
    if (hashable) {
      py::tuple values(fields.size());
      for (size_t i = 0; i < fields.size(); ++i) {
        values[i] = Convert(*vector.child(i), child_row, true);
      }
      return values;
    }
    py::dict values;
    for (size_t i = 0; i < fields.size(); ++i) {
      values[py::str(fields[i].name)] = Convert(*vector.child(i), child_row);
    }
    return values;
  }

  // A map is a list of struct<key, value> entries; keys become hashable Python values.
  py::object ConvertMap(const Vector& vector, int64_t row, bool hashable) const {
    const Vector& entries = *vector.child(0);
    const Vector& keys = *entries.child(0);
    const Vector& values = *entries.child(1);
    int32_t start = vector.ListStart(row);
    int32_t length = vector.ListLength(row);
    if (hashable) {
      py::tuple pairs(length);
      for (int32_t i = 0; i < length; ++i) {
        int64_t entry = entries.offset() + start + i;
        pairs[i] = py::make_tuple(Convert(keys, entry, true), Convert(values, entry, true));
      }
      return pairs;
    }
    py::dict map;
    for (int32_t i = 0; i < length; ++i) {
      int64_t entry = entries.offset() + start + i;
      map[Convert(keys, entry, true)] = Convert(values, entry);
    }
    return map;
  }

  py::object decimal_;
  py::object date_;
  py::object timedelta_;
  py::object utc_epoch_;
  py::object naive_epoch_;
};

// What Session.sql returns: the last statement's rows, converted on demand.
class Result {
 public:
  explicit Result(StatementOutput output) : output_(std::move(output)) {}

  std::vector<std::string> columns() const {
    std::vector<std::string> names;
    if (!output_.has_rows()) return names;
    for (const Field& field : output_.schema()->fields()) names.push_back(field.name);
    return names;
  }

  int64_t num_rows() const { return output_.has_rows() ? output_.num_rows() : 0; }

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

// A silt::Session for Python. The engine runs without the GIL, so other Python threads go on
// while a statement runs; statements of one session run one at a time, as the engine requires.
class PySession {
 public:
  PySession(std::optional<py::object> warehouse, std::optional<py::dict> conf) {
    SessionOptions options;
    if (warehouse && !warehouse->is_none()) {
      options.warehouse = py::module_::import("os").attr("fspath")(*warehouse).cast<std::string>();
    }
    options.conf = ConfStrings(conf);
    session_ = std::make_unique<Session>(std::move(options));
  }

  Result Sql(const std::string& text) {
    StatementOutput output;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      try {
        output = api::RunStatements(*session_, text);
      } catch (const Error&) {
        throw;
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& error) {
        throw UnexpectedFailure{error.what()};
      }
    }
    return Result(std::move(output));
  }

  std::string warehouse() const { return session_->warehouse(); }

 private:
  std::unique_ptr<Session> session_;
  std::mutex mutex_;
};

}  // namespace
}  // namespace silt::python

PYBIND11_MODULE(_silt, module) {
  using silt::python::PySession;
  using silt::python::Result;
  module.doc() = "The compiled part of silt; use the package `silt`.";
  module.attr("__version__") = SILT_VERSION;

  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const silt::Error& error) {
      silt::python::RaiseSiltError(silt::python::ExceptionClassFor(error.category()), error.what(),
                                   error.error_class(), error.sqlstate(),
                                   silt::ErrorCategoryName(error.category()));
    } catch (const silt::python::UnexpectedFailure& failure) {
      silt::python::RaiseSiltError("InternalError", "[INTERNAL_ERROR] " + failure.message,
                                   "INTERNAL_ERROR", "XX000", "internal");
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
      .def("__len__", &Result::num_rows)
      .def("__repr__", [](const Result& result) {
        return "<silt.Result columns=" + py::repr(py::cast(result.columns())).cast<std::string>() +
               " rows=" + std::to_string(result.num_rows()) + ">";
      });

  py::class_<PySession>(module, "Session", "A SQL session over a warehouse folder of Delta tables.")
      .def(py::init<std::optional<py::object>, std::optional<py::dict>>(),
           py::arg("warehouse") = py::none(), py::arg("conf") = py::none(),
           "warehouse: the folder of named tables (default $SILT_WAREHOUSE, else "
           "./silt-warehouse); conf: session options, as SET key=value would set them.")
      .def("sql", &PySession::Sql, py::arg("text"),
           "Runs the ;-separated statements of `text` and returns the last one's Result. The "
           "first failing statement raises a silt.SiltError; the ones before it stay committed.")
      .def_property_readonly("warehouse", &PySession::warehouse);
}
