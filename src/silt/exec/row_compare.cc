#include "silt/exec/row_compare.h"

#include <cmath>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/exec/sort_window.h"

namespace silt::exec {

namespace {

template <typename T>
int CompareNumbers(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
int CompareFloating(T a, T b) {
  bool a_nan = std::isnan(a);
  bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return static_cast<int>(a_nan) - static_cast<int>(b_nan);
  return CompareNumbers(a, b);  // -0.0 == 0.0 under IEEE comparison
}

int CompareNullable(const Vector& left, int64_t i, const Vector& right, int64_t j) {
  bool left_null = left.IsNull(i);
  bool right_null = right.IsNull(j);
  if (left_null || right_null) return static_cast<int>(right_null) - static_cast<int>(left_null);
  return CompareValues(left, i, right, j);
}

}  // namespace

bool IsOrderable(const DataType& type) {
  switch (type.id()) {
    case TypeId::kMap:
      return false;
    case TypeId::kStruct:
      for (const Field& field : type.fields()) {
        if (!IsOrderable(*field.type)) return false;
      }
      return true;
    case TypeId::kList:
      return IsOrderable(*type.element_type());
    default:
      return true;
  }
}

void CheckOrderable(const DataType& type, const char* what) {
  if (IsOrderable(type)) return;
  SILT_THROW(DATATYPE_MISMATCH,
             {{"sqlExpr", std::string(what)},
              {"message", "INVALID_ORDERING_TYPE: the " + std::string(what) +
                              " does not support ordering on type \"" + type.ToString() + "\""}});
}

int CompareValues(const Vector& left, int64_t i, const Vector& right, int64_t j) {
  switch (left.type_id()) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBoolean:
      return static_cast<int>(left.GetBool(i)) - static_cast<int>(right.GetBool(j));
    case TypeId::kByte:
      return CompareNumbers(left.values<int8_t>()[i], right.values<int8_t>()[j]);
    case TypeId::kShort:
      return CompareNumbers(left.values<int16_t>()[i], right.values<int16_t>()[j]);
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
      return CompareNumbers(left.values<int32_t>()[i], right.values<int32_t>()[j]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kDayTimeInterval:
    case TypeId::kTimestampNtz:
      return CompareNumbers(left.values<int64_t>()[i], right.values<int64_t>()[j]);
    case TypeId::kFloat:
      return CompareFloating(left.values<float>()[i], right.values<float>()[j]);
    case TypeId::kDouble:
      return CompareFloating(left.values<double>()[i], right.values<double>()[j]);
    case TypeId::kDecimal:
      return CompareNumbers(left.values<Decimal128>()[i], right.values<Decimal128>()[j]);
    case TypeId::kString:
    case TypeId::kBinary: {
      // std::char_traits<char> compares as unsigned char, i.e. UTF-8 byte order.
      int c = left.GetString(i).compare(right.GetString(j));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case TypeId::kStruct: {
      // Struct children are addressed through the struct's own offset (Arrow's layout).
      for (size_t f = 0; f < left.children().size(); ++f) {
        int c =
            CompareNullable(*left.child(f), left.offset() + i, *right.child(f), right.offset() + j);
        if (c != 0) return c;
      }
      return 0;
    }
    case TypeId::kList: {
      int64_t left_start = left.ListStart(i);
      int64_t right_start = right.ListStart(j);
      int64_t left_length = left.ListLength(i);
      int64_t right_length = right.ListLength(j);
      int64_t common = std::min(left_length, right_length);
      for (int64_t e = 0; e < common; ++e) {
        int c = CompareNullable(*left.child(0), left_start + e, *right.child(0), right_start + e);
        if (c != 0) return c;
      }
      return CompareNumbers(left_length, right_length);
    }
    case TypeId::kMap:
      CheckOrderable(*left.type(), "comparison");
      return 0;
  }
  SILT_CHECK(false, "unknown type in CompareValues");
  return 0;
}

int CompareRows(const std::vector<VectorPtr>& left, int64_t i, const std::vector<VectorPtr>& right,
                int64_t j, const std::vector<SortKey>& keys) {
  for (const SortKey& key : keys) {
    const Vector& a = *left[static_cast<size_t>(key.column)];
    const Vector& b = *right[static_cast<size_t>(key.column)];
    bool a_null = a.IsNull(i);
    bool b_null = b.IsNull(j);
    if (a_null || b_null) {
      if (a_null && b_null) continue;
      return a_null == key.nulls_first ? -1 : 1;
    }
    int c = CompareValues(a, i, b, j);
    if (c != 0) return key.ascending ? c : -c;
  }
  return 0;
}

}  // namespace silt::exec
