#include "values.h"

// After pybind11 (which includes Python.h): the datetime C API, for DATE values.
#include <datetime.h>

#include <cstring>
#include <string>

#include "silt/types/date_time.h"

namespace py = pybind11;

namespace silt::python {
namespace {

// datetime.date.fromordinal(719163) is 1970-01-01, day 0 of a DATE value.
constexpr int64_t kOrdinalOfEpoch = 719163;

}  // namespace

PyObject* NewNone() {
  Py_INCREF(Py_None);
  return Py_None;
}

PyObject* NewString(std::string_view text) {
  uint64_t high = 0;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    high |= word;
  }
  for (; i < text.size(); ++i) high |= static_cast<unsigned char>(text[i]);
  if ((high & 0x8080808080808080ULL) != 0) {
    return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), nullptr);
  }
  PyObject* made = PyUnicode_New(static_cast<Py_ssize_t>(text.size()), 127);
  if (made != nullptr && !text.empty()) {
    std::memcpy(PyUnicode_DATA(made), text.data(), text.size());
  }
  return made;
}

ValueConverter::ValueConverter() {
  if (PyDateTimeAPI == nullptr) PyDateTime_IMPORT;
  py::module_ datetime = py::module_::import("datetime");
  decimal_ = py::module_::import("decimal").attr("Decimal");
  date_ = datetime.attr("date");
  timedelta_ = datetime.attr("timedelta");
  utc_epoch_ = datetime.attr("datetime")(
      1970, 1, 1, py::arg("tzinfo") = datetime.attr("timezone").attr("utc"));
  naive_epoch_ = datetime.attr("datetime")(1970, 1, 1);
}

py::object ValueConverter::Convert(const Vector& vector, int64_t row, bool hashable) const {
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
    case TypeId::kDate: {
      int32_t days = vector.values<int32_t>()[row];
      CivilDate date = CivilFromDays(days);
      if (date.year < 1 || date.year > 9999) {
        // Outside datetime.date's years: its own error (OverflowError / ValueError).
        return date_.attr("fromordinal")(kOrdinalOfEpoch + days);
      }
      PyObject* made = PyDate_FromDate(static_cast<int>(date.year), date.month, date.day);
      if (made == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(made);
    }
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

py::object ValueConverter::Micros(int64_t micros) const {
  return timedelta_(py::arg("microseconds") = micros);
}

py::object ValueConverter::ConvertList(const Vector& vector, int64_t row, bool hashable) const {
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
py::object ValueConverter::ConvertStruct(const Vector& vector, int64_t row, bool hashable) const {
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
py::object ValueConverter::ConvertMap(const Vector& vector, int64_t row, bool hashable) const {
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

}  // namespace silt::python
