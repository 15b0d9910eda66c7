#include "pandas_columns.h"

#include <pybind11/numpy.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "values.h"

namespace py = pybind11;

namespace silt::python {
namespace {

// The memory of one column of the frame, grown as batches arrive. Anonymous pages: they come
// zero-filled, mremap grows them without copying what they hold, and from a few megabytes on
// they are asked for as huge pages, so the hundreds of megabytes of a large result cost a page
// fault per 2 MiB rather than per 4 KiB. At the end a numpy array takes the memory as it is.
class ColumnMemory {
 public:
  ColumnMemory() = default;
  ColumnMemory(const ColumnMemory&) = delete;
  ColumnMemory& operator=(const ColumnMemory&) = delete;
  ~ColumnMemory() { Unmap(data_, capacity_); }

  // Adds `bytes` zero bytes at the end; returns where they start. Throws std::bad_alloc.
  uint8_t* Grow(size_t bytes) {
    if (size_ + bytes > capacity_) Reserve(size_ + bytes);
    uint8_t* added = data_ + size_;
    size_ += bytes;
    return added;
  }

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // A one-dimensional numpy array of the memory's items of `dtype` that owns the memory from
  // now on; for objects (new references held in the memory) it also owns their references.
  py::array ToArray(const py::dtype& dtype, bool objects) && {
    auto item_size = static_cast<size_t>(dtype.itemsize());
    std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(size_ / item_size)};
    if (data_ == nullptr) return py::array(dtype, shape);
    auto* owned = new Owned{data_, size_, capacity_, objects};
    data_ = nullptr;
    size_ = capacity_ = 0;
    py::capsule base(owned, [](void* pointer) {
      auto* memory = static_cast<Owned*>(pointer);
      if (memory->objects) {
        auto** object = reinterpret_cast<PyObject**>(memory->data);
        for (size_t i = 0; i < memory->size / sizeof(PyObject*); ++i) Py_XDECREF(object[i]);
      }
      Unmap(memory->data, memory->capacity);
      delete memory;
    });
    return py::array(dtype, shape, {static_cast<py::ssize_t>(item_size)}, owned->data, base);
  }

 private:
  struct Owned {
    uint8_t* data;
    size_t size;
    size_t capacity;
    bool objects;
  };

  static constexpr size_t kFirstCapacity = size_t{64} << 10;
  static constexpr size_t kHugePagesFrom = size_t{4} << 20;

  static void Unmap(uint8_t* data, size_t capacity) {
    if (data != nullptr) munmap(data, capacity);
  }

  void Reserve(size_t needed) {
    size_t capacity = std::max(kFirstCapacity, capacity_);
    while (capacity < needed) capacity *= 2;
    void* grown = data_ == nullptr
                      ? mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                             -1, 0)
                      : mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) throw std::bad_alloc();
    if (capacity >= kHugePagesFrom) madvise(grown, capacity, MADV_HUGEPAGE);  // a hint only
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = capacity;
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

PyObject* Checked(PyObject* made) {
  if (made == nullptr) throw py::error_already_set();
  return made;
}

PyObject* NewReference(PyObject* object) {
  Py_INCREF(object);
  return object;
}

// Converts the values of a string column to Python str objects batch by batch, making one str
// per distinct value where that pays, as pyarrow's to_pandas(deduplicate_objects) does: once
// per entry of a Parquet dictionary the vector was decoded from, and for a batch whose sampled
// values repeat, once per distinct value of the batch.
class StringObjects {
 public:
  StringObjects() = default;
  StringObjects(const StringObjects&) = delete;
  StringObjects& operator=(const StringObjects&) = delete;
  ~StringObjects() { ReleaseDictionary(); }

  // Writes the values of `vector` (new references; None for NULL) to out[0, length).
  void Convert(const Vector& vector, PyObject** out) {
    int64_t length = vector.length();
    if (const DictionaryCodes* codes = vector.dictionary_codes()) {
      UseDictionary(codes->dictionary);
      const int32_t* code = codes->codes->as<int32_t>() + vector.offset();
      for (int64_t row = 0; row < length; ++row) {
        if (vector.IsNull(row)) {
          out[row] = NewNone();
          continue;
        }
        // Made at the first row that uses the entry: a dictionary may hold more values than a
        // batch reads of it.
        PyObject*& entry = entries_[static_cast<size_t>(code[row])];
        if (entry == nullptr) entry = Checked(NewString(dictionary_->GetString(code[row])));
        out[row] = NewReference(entry);
      }
      return;
    }
    if (!Repeats(vector)) {
      if (vector.null_count() != 0) {
        for (int64_t row = 0; row < length; ++row) {
          out[row] = vector.IsNull(row) ? NewNone() : Checked(NewString(vector.GetString(row)));
        }
        return;
      }
      // The common case read directly: offsets and bytes, no validity to consult.
      const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
      const char* bytes = reinterpret_cast<const char*>(vector.buffer(2)->data());
      for (int64_t row = 0; row < length; ++row) {
        out[row] = Checked(NewString(std::string_view(
            bytes + offsets[row], static_cast<size_t>(offsets[row + 1] - offsets[row]))));
      }
      return;
    }
    std::unordered_map<std::string_view, PyObject*> seen;
    for (int64_t row = 0; row < length; ++row) {
      if (vector.IsNull(row)) {
        out[row] = NewNone();
        continue;
      }
      auto [entry, inserted] = seen.try_emplace(vector.GetString(row), nullptr);
      if (inserted) entry->second = Checked(NewString(entry->first));
      else Py_INCREF(entry->second);
      out[row] = entry->second;
    }
  }

 private:
  // Rows sampled from the start of a batch to tell whether its values repeat.
  static constexpr int64_t kSampleRows = 256;

  // Whether fewer than half of the sampled values are distinct: a hash lookup per row then
  // saves more than it costs.
  static bool Repeats(const Vector& vector) {
    int64_t sample = std::min<int64_t>(vector.length(), kSampleRows);
    if (sample < 16) return false;
    std::unordered_map<std::string_view, bool> distinct;
    for (int64_t row = 0; row < sample; ++row) {
      if (!vector.IsNull(row)) distinct.emplace(vector.GetString(row), true);
    }
    return static_cast<int64_t>(distinct.size()) * 2 < sample;
  }

  // Makes `dictionary` the one whose entries_ are cached: consecutive batches of one Parquet
  // column chunk share theirs.
  void UseDictionary(const VectorPtr& dictionary) {
    if (dictionary_ == dictionary) return;
    ReleaseDictionary();
    entries_.assign(static_cast<size_t>(dictionary->length()), nullptr);
    dictionary_ = dictionary;
  }

  void ReleaseDictionary() {
    for (PyObject* entry : entries_) Py_XDECREF(entry);
    entries_.clear();
    dictionary_ = nullptr;
  }

  VectorPtr dictionary_;  // held, so that a new dictionary never takes its address
  std::vector<PyObject*> entries_;
};

// One datetime.date per day, shared by its rows: found by the day's offset from the first day
// seen when it lies within kSpan of it (a column of dates usually spans a few years), else in
// a hash map.
class DateObjects {
 public:
  DateObjects() = default;
  DateObjects(const DateObjects&) = delete;
  DateObjects& operator=(const DateObjects&) = delete;
  ~DateObjects() {
    for (PyObject* date : by_offset_) Py_XDECREF(date);
    for (auto& [day, date] : by_day_) Py_XDECREF(date);
  }

  // Writes the values of `vector` (new references; None for NULL) to out[0, length).
  void Convert(const Vector& vector, const ValueConverter& converter, PyObject** out) {
    const int32_t* days = vector.values<int32_t>();
    bool nulls = vector.null_count() != 0;
    for (int64_t row = 0; row < vector.length(); ++row) {
      if (nulls && vector.IsNull(row)) {
        out[row] = NewNone();
        continue;
      }
      if (by_offset_.empty()) {
        first_day_ = int64_t{days[row]} - kSpan / 2;
        by_offset_.assign(kSpan, nullptr);
      }
      int64_t offset = int64_t{days[row]} - first_day_;
      PyObject*& date = offset >= 0 && offset < kSpan ? by_offset_[static_cast<size_t>(offset)]
                                                      : by_day_[days[row]];
      if (date == nullptr) date = Checked(converter.Convert(vector, row).release().ptr());
      out[row] = NewReference(date);
    }
  }

 private:
  static constexpr int64_t kSpan = 1 << 16;

  std::vector<PyObject*> by_offset_;  // a reference each
  int64_t first_day_ = 0;
  std::unordered_map<int32_t, PyObject*> by_day_;
};

bool IsFixedWidth(TypeId type) {
  switch (type) {
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

// The numpy dtype a fixed-width type's values are handed over as.
py::dtype FixedWidthDtype(TypeId type) {
  switch (type) {
    case TypeId::kBoolean:
      return py::dtype::of<bool>();
    case TypeId::kByte:
      return py::dtype::of<int8_t>();
    case TypeId::kShort:
      return py::dtype::of<int16_t>();
    case TypeId::kInteger:
      return py::dtype::of<int32_t>();
    case TypeId::kFloat:
      return py::dtype::of<float>();
    case TypeId::kDouble:
      return py::dtype::of<double>();
    default:  // BIGINT, TIMESTAMP, TIMESTAMP_NTZ
      return py::dtype::of<int64_t>();
  }
}

size_t FixedWidthSize(TypeId type) {
  switch (type) {
    case TypeId::kBoolean:
    case TypeId::kByte:
      return 1;
    case TypeId::kShort:
      return 2;
    case TypeId::kInteger:
    case TypeId::kFloat:
      return 4;
    default:  // BIGINT, DOUBLE, TIMESTAMP, TIMESTAMP_NTZ
      return 8;
  }
}

}  // namespace

struct PandasColumns::Column {
  explicit Column(TypeId type)
      : type(type), fixed_width(IsFixedWidth(type)),
        value_size(fixed_width ? FixedWidthSize(type) : sizeof(PyObject*)) {}
  ~Column() {
    if (fixed_width || values.empty()) return;
    // Objects not taken: the references the memory holds (slots not yet written are null).
    auto** objects = reinterpret_cast<PyObject**>(values.data());
    for (size_t i = 0; i < values.size() / sizeof(PyObject*); ++i) Py_XDECREF(objects[i]);
  }

  TypeId type;
  bool fixed_width;
  size_t value_size;
  bool taken = false;
  ColumnMemory values;  // fixed-width values, or a new reference per row
  ColumnMemory nulls;   // a bool per row from the first NULL on (the rows before it are zero)
  StringObjects strings;
  DateObjects dates;
};

PandasColumns::PandasColumns(const Schema& schema) {
  for (const Field& field : schema.fields()) {
    columns_.push_back(std::make_unique<Column>(field.type->id()));
  }
}

PandasColumns::~PandasColumns() = default;

void PandasColumns::Add(const Batch& batch) {
  int64_t first_row = rows_;
  int64_t length = batch.num_rows();
  for (size_t i = 0; i < columns_.size(); ++i) {
    Column& column = *columns_[i];
    const Vector& vector = *batch.column(i);
    auto count = static_cast<size_t>(length);
    uint8_t* values = column.values.Grow(count * column.value_size);
    if (!column.fixed_width) {
      auto* objects = reinterpret_cast<PyObject**>(values);
      if (column.type == TypeId::kString) {
        column.strings.Convert(vector, objects);
      } else if (column.type == TypeId::kDate) {
        column.dates.Convert(vector, converter_, objects);
      } else {
        for (int64_t row = 0; row < length; ++row) {
          objects[row] = Checked(converter_.Convert(vector, row).release().ptr());
        }
      }
      continue;
    }
    if (column.type == TypeId::kBoolean) {
      for (int64_t row = 0; row < length; ++row) {
        values[row] = !vector.IsNull(row) && vector.GetBool(row);
      }
    } else if (length > 0) {
      std::memcpy(values,
                  vector.buffer(1)->data() + static_cast<size_t>(vector.offset()) * column.value_size,
                  count * column.value_size);
    }
    if (vector.null_count() != 0 || !column.nulls.empty()) {
      // From the first NULL on, a mask entry for every row (zero, not NULL, until set).
      column.nulls.Grow(static_cast<size_t>(first_row + length) - column.nulls.size());
      if (vector.null_count() != 0) {
        uint8_t* nulls = column.nulls.data() + first_row;
        for (int64_t row = 0; row < length; ++row) nulls[row] = vector.IsNull(row);
      }
    }
  }
  rows_ += length;
}

py::object PandasColumns::Take(size_t index) {
  if (index >= columns_.size()) throw py::index_error("no column " + std::to_string(index));
  Column& column = *columns_[index];
  if (column.taken) throw py::value_error("column " + std::to_string(index) + " was taken");
  column.taken = true;
  if (!column.fixed_width) return std::move(column.values).ToArray(py::dtype("O"), true);
  py::array values = std::move(column.values).ToArray(FixedWidthDtype(column.type), false);
  if (column.nulls.empty()) return py::make_tuple(values, py::none());
  return py::make_tuple(values, std::move(column.nulls).ToArray(py::dtype::of<bool>(), false));
}

}  // namespace silt::python
