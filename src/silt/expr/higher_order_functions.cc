#include "silt/expr/higher_order_functions.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/type_coercion.h"
#include "silt/vector/batch.h"
#include "silt/vector/take.h"

namespace silt::expr {
namespace {

enum class HigherOrderKind {
  kTransform,
  kFilter,
  kExists,
  kForall,
  kAggregate,  // aggregate and reduce
  kZipWith,
  kMapFilter,
  kMapZipWith,
  kTransformKeys,
  kTransformValues,
  kArraySort,
};

std::optional<HigherOrderKind> KindOf(std::string_view name) {
  using Kind = HigherOrderKind;
  if (name == "transform") return Kind::kTransform;
  if (name == "filter") return Kind::kFilter;
  if (name == "exists") return Kind::kExists;
  if (name == "forall") return Kind::kForall;
  if (name == "aggregate" || name == "reduce") return Kind::kAggregate;
  if (name == "zip_with") return Kind::kZipWith;
  if (name == "map_filter") return Kind::kMapFilter;
  if (name == "map_zip_with") return Kind::kMapZipWith;
  if (name == "transform_keys") return Kind::kTransformKeys;
  if (name == "transform_values") return Kind::kTransformValues;
  if (name == "array_sort") return Kind::kArraySort;
  return std::nullopt;
}

HigherOrderKind RequireKind(std::string_view name) {
  auto kind = KindOf(name);
  SILT_CHECK(kind.has_value(), std::string(name) + " is not a higher-order function");
  return *kind;
}

std::string TypeSql(const DataTypePtr& type) {
  std::string name = type->ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

[[noreturn]] void ThrowMismatch(std::string_view name, const std::string& message) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + std::string(name) + "(...)\""}, {"message", message}});
}

// Types equal apart from nullability flags and field names (Spark's equalsStructurally with
// ignoreNullability).
bool StructurallyEqual(const DataType& a, const DataType& b) {
  if (a.id() != b.id() || a.fields().size() != b.fields().size()) return false;
  if (a.id() == TypeId::kDecimal && (a.precision() != b.precision() || a.scale() != b.scale())) return false;
  if (a.is_interval() && (a.interval_start() != b.interval_start() || a.interval_end() != b.interval_end())) {
    return false;
  }
  for (size_t i = 0; i < a.fields().size(); ++i) {
    if (!StructurallyEqual(*a.fields()[i].type, *b.fields()[i].type)) return false;
  }
  return true;
}

bool ContainsMap(const DataType& type) {
  if (type.id() == TypeId::kMap) return true;
  for (const Field& field : type.fields()) {
    if (ContainsMap(*field.type)) return true;
  }
  return false;
}

ExpressionPtr ArrayValue(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), ListType(NullType()));
  if (argument->type()->id() != TypeId::kList) internal::ThrowArgumentType(name, index, argument, "\"ARRAY\"");
  return argument;
}

ExpressionPtr MapValue(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), MapType(NullType(), NullType()));
  if (argument->type()->id() != TypeId::kMap) internal::ThrowArgumentType(name, index, argument, "\"MAP\"");
  return argument;
}

// ---- Vectors ----

// The most elements list offsets (int32) can address in one batch.
constexpr size_t kMaxElements = static_cast<size_t>(std::numeric_limits<int32_t>::max());

// The elements of the valid rows of a list (or map) vector, row after row, with the row each
// element came from and the offsets of every row into them (NULL rows are empty).
struct Flattened {
  VectorPtr elements;
  std::vector<int64_t> parent;
  std::vector<int32_t> offsets;  // num_rows + 1
  std::vector<uint8_t> valid;    // per row
};

Flattened Flatten(const Vector& list, int64_t num_rows) {
  Flattened flat;
  flat.offsets.resize(static_cast<size_t>(num_rows) + 1);
  flat.valid.resize(static_cast<size_t>(num_rows));
  int64_t total = 0;
  for (int64_t row = 0; row < num_rows; ++row) {
    flat.offsets[row] = static_cast<int32_t>(total);
    flat.valid[row] = list.IsValid(row);
    if (flat.valid[row]) total += list.ListLength(row);
  }
  flat.offsets[num_rows] = static_cast<int32_t>(total);
  flat.parent.resize(static_cast<size_t>(total));
  for (int64_t row = 0; row < num_rows; ++row) {
    std::fill(flat.parent.begin() + flat.offsets[row], flat.parent.begin() + flat.offsets[row + 1], row);
  }
  const VectorPtr& child = list.child(0);
  if (list.null_count() == 0) {
    // Offsets only grow, so the elements of all rows are one range of the child.
    flat.elements = child->Slice(num_rows > 0 ? list.ListStart(0) : 0, total);
  } else {
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(total));
    for (int64_t row = 0; row < num_rows; ++row) {
      if (!flat.valid[row]) continue;
      for (int32_t k = 0; k < list.ListLength(row); ++k) indices.push_back(list.ListStart(row) + k);
    }
    flat.elements = TakeRows(*child, indices);
  }
  return flat;
}

// A list (or map) vector of `type` from per-row offsets into `child` and row validity.
VectorPtr MakeListVector(const DataTypePtr& type, const std::vector<int32_t>& offsets,
                         const std::vector<uint8_t>& valid, VectorPtr child) {
  int64_t num_rows = static_cast<int64_t>(valid.size());
  BufferPtr offset_buffer = Buffer::Allocate(offsets.size() * sizeof(int32_t));
  std::memcpy(offset_buffer->data(), offsets.data(), offsets.size() * sizeof(int32_t));
  int64_t null_count = 0;
  for (uint8_t byte : valid) null_count += byte == 0;
  BufferPtr validity;
  if (null_count > 0) {
    validity = Buffer::Allocate(static_cast<size_t>((num_rows + 7) / 8), true);
    uint8_t* bits = validity->data();
    for (int64_t row = 0; row < num_rows; ++row) {
      if (valid[row]) bits[row >> 3] |= static_cast<uint8_t>(1u << (row & 7));
    }
  }
  return Vector::Make(type, num_rows, {validity, offset_buffer}, {std::move(child)}, null_count);
}

// The entries of a map vector built from aligned key and value vectors.
VectorPtr MakeEntries(const DataTypePtr& map_type, VectorPtr keys, VectorPtr values) {
  int64_t length = keys->length();
  return Vector::Make(StructType(map_type->fields()), length, {nullptr}, {std::move(keys), std::move(values)}, 0);
}

// Integer vector of each element's position within its array.
VectorPtr PositionVector(const Flattened& flat) {
  size_t count = flat.parent.size();
  BufferPtr values = Buffer::Allocate(count * sizeof(int32_t));
  int32_t* out = values->as<int32_t>();
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<int32_t>(i) - flat.offsets[flat.parent[i]];
  return Vector::Make(IntegerType(), static_cast<int64_t>(count), {nullptr, values}, {}, 0);
}

// ---- Lambdas ----

// A lambda with the schema of the batch its body reads: parameters, then captured values.
struct BoundLambda {
  LambdaFunction function;
  SchemaPtr schema;
  size_t arity() const { return function.parameters.size(); }
};

BoundLambda BindLambda(LambdaFunction function, const std::vector<ExpressionPtr>& captures) {
  std::vector<Field> fields;
  for (const LambdaParameter& parameter : function.parameters) {
    fields.push_back(Field{parameter.name, parameter.type, parameter.nullable, {}});
  }
  for (size_t i = 0; i < captures.size(); ++i) {
    fields.push_back(Field{"captured" + std::to_string(i), captures[i]->type(), captures[i]->nullable(), {}});
  }
  return BoundLambda{std::move(function), std::make_shared<Schema>(std::move(fields))};
}

// Evaluates `lambda` over `num_elements` elements whose parameters are `columns`; `parent`
// gives each element's row of the outer batch (null: element i is row i), to which captured
// values and the row mask are gathered. Errors are recorded for elements of masked rows only.
VectorPtr EvaluateLambda(const BoundLambda& lambda, std::vector<VectorPtr> columns,
                         const std::vector<VectorPtr>& captures, const std::vector<int64_t>* parent,
                         int64_t num_elements, EvalContext& context, RowMask mask) {
  for (const VectorPtr& captured : captures) {
    columns.push_back(parent ? TakeRows(*captured, *parent) : captured);
  }
  Batch batch(lambda.schema, std::move(columns), num_elements);
  std::vector<uint8_t> element_mask;
  RowMask inner;
  if (mask.bytes) {
    element_mask.resize(static_cast<size_t>(num_elements));
    for (int64_t i = 0; i < num_elements; ++i) element_mask[i] = mask.Contains(parent ? (*parent)[i] : i);
    inner.bytes = element_mask.data();
  }
  return EvaluateMasked(*lambda.function.body, batch, context, inner);
}

bool IsTrue(const Vector& vector, int64_t i) { return vector.IsValid(i) && vector.GetBool(i); }

// Types whose values are equal exactly when their texts are: not nested ones (whose texts may
// run together) nor floating ones (0.0 = -0.0).
bool HasExactText(const DataType& type) {
  return !type.is_nested() && type.id() != TypeId::kFloat && type.id() != TypeId::kDouble;
}

// ---- The functions ----

// What a call evaluates: its kind, result type, lambdas and how many value arguments precede
// the captured values among the kernel's arguments.
struct HigherOrderCallState {
  HigherOrderKind kind;
  DataTypePtr result_type;
  std::vector<BoundLambda> lambdas;
  size_t num_values = 0;
};

using Arguments = std::vector<VectorPtr>;

VectorPtr RunTransform(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                       int64_t num_rows, EvalContext& context, RowMask mask) {
  const BoundLambda& lambda = call.lambdas[0];
  Flattened flat = Flatten(*args[0], num_rows);
  std::vector<VectorPtr> parameters{flat.elements};
  if (lambda.arity() == 2) parameters.push_back(PositionVector(flat));
  VectorPtr values = EvaluateLambda(lambda, std::move(parameters), captures, &flat.parent,
                                    static_cast<int64_t>(flat.parent.size()), context, mask);
  return MakeListVector(call.result_type, flat.offsets, flat.valid, std::move(values));
}

// filter and map_filter: the elements (entries) whose predicate is TRUE.
VectorPtr RunFilter(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                    int64_t num_rows, EvalContext& context, RowMask mask) {
  const BoundLambda& lambda = call.lambdas[0];
  Flattened flat = Flatten(*args[0], num_rows);
  std::vector<VectorPtr> parameters;
  if (call.kind == HigherOrderKind::kMapFilter) {
    parameters = {flat.elements->StructField(0), flat.elements->StructField(1)};
  } else {
    parameters = {flat.elements};
    if (lambda.arity() == 2) parameters.push_back(PositionVector(flat));
  }
  VectorPtr keep = EvaluateLambda(lambda, std::move(parameters), captures, &flat.parent,
                                  static_cast<int64_t>(flat.parent.size()), context, mask);
  std::vector<int64_t> kept;
  std::vector<int32_t> offsets(static_cast<size_t>(num_rows) + 1);
  for (int64_t row = 0; row < num_rows; ++row) {
    offsets[row] = static_cast<int32_t>(kept.size());
    for (int32_t i = flat.offsets[row]; i < flat.offsets[row + 1]; ++i) {
      if (IsTrue(*keep, i)) kept.push_back(i);
    }
  }
  offsets[num_rows] = static_cast<int32_t>(kept.size());
  return MakeListVector(call.result_type, offsets, flat.valid, TakeRows(*flat.elements, kept));
}

// exists and forall, with Spark's three-valued results and its short circuit: elements after
// the one that decides a row are not evaluated in Spark, so their errors must not surface.
VectorPtr RunQuantifier(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                        int64_t num_rows, EvalContext& context, RowMask mask) {
  const BoundLambda& lambda = call.lambdas[0];
  bool exists = call.kind == HigherOrderKind::kExists;
  Flattened flat = Flatten(*args[0], num_rows);
  int64_t num_elements = static_cast<int64_t>(flat.parent.size());
  // First pass with errors set aside.
  EvalContext scratch = context;
  VectorPtr results = EvaluateLambda(lambda, {flat.elements}, captures, &flat.parent, num_elements, scratch, mask);
  // The deciding element of each row: the first TRUE (exists) or FALSE (forall).
  std::vector<int32_t> decided_at(static_cast<size_t>(num_rows), -1);
  for (int64_t row = 0; row < num_rows; ++row) {
    for (int32_t i = flat.offsets[row]; i < flat.offsets[row + 1]; ++i) {
      if (results->IsValid(i) && results->GetBool(i) == exists) {
        decided_at[row] = i;
        break;
      }
    }
  }
  if (scratch.has_error()) {
    // Evaluate again, raising errors only for elements up to the deciding one.
    std::vector<uint8_t> needed(static_cast<size_t>(num_elements), 0);
    for (int64_t i = 0; i < num_elements; ++i) {
      int64_t row = flat.parent[i];
      needed[i] = mask.Contains(row) && (decided_at[row] < 0 || i <= decided_at[row]);
    }
    std::vector<VectorPtr> columns{flat.elements};
    for (const VectorPtr& captured : captures) columns.push_back(TakeRows(*captured, flat.parent));
    Batch batch(lambda.schema, std::move(columns), num_elements);
    EvaluateMasked(*lambda.function.body, batch, context, RowMask{needed.data()});
  }
  VectorBuilder out(BooleanType(), num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!flat.valid[row]) {
      out.AppendNull();
    } else if (decided_at[row] >= 0) {
      out.AppendBool(exists);
    } else {
      bool saw_null = false;
      for (int32_t i = flat.offsets[row]; i < flat.offsets[row + 1]; ++i) saw_null = saw_null || results->IsNull(i);
      if (saw_null) {
        out.AppendNull();
      } else {
        out.AppendBool(!exists);
      }
    }
  }
  return out.Finish();
}

// aggregate/reduce: every row's accumulator advances one element per step, all rows together.
VectorPtr RunAggregate(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                       int64_t num_rows, EvalContext& context, RowMask mask) {
  const BoundLambda& start = call.lambdas[0];
  const BoundLambda& merge = call.lambdas[1];
  Flattened flat = Flatten(*args[0], num_rows);
  // The rows still folding, and their accumulators (position i belongs to active[i]). The start
  // value is computed for these rows only, as Spark skips it for NULL arrays.
  std::vector<int64_t> active;
  for (int64_t row = 0; row < num_rows; ++row) {
    if (flat.valid[row]) active.push_back(row);
  }
  VectorPtr accumulators = EvaluateLambda(start, {}, captures, &active, static_cast<int64_t>(active.size()),
                                          context, mask);
  const DataTypePtr& state_type = accumulators->type();
  // Where each row's final accumulator is: (piece, position).
  std::vector<VectorPtr> pieces;
  std::vector<std::pair<int, int64_t>> final_at(static_cast<size_t>(num_rows), {-1, 0});
  for (int32_t step = 0; !active.empty(); ++step) {
    std::vector<int64_t> still;
    std::vector<int64_t> kept_positions;
    std::vector<int64_t> element_indices;
    int piece = static_cast<int>(pieces.size());
    for (size_t i = 0; i < active.size(); ++i) {
      int64_t row = active[i];
      if (flat.offsets[row] + step < flat.offsets[row + 1]) {
        still.push_back(row);
        kept_positions.push_back(static_cast<int64_t>(i));
        element_indices.push_back(flat.offsets[row] + step);
      } else {
        final_at[row] = {piece, static_cast<int64_t>(i)};
      }
    }
    pieces.push_back(accumulators);
    if (still.empty()) break;
    VectorPtr current = still.size() == active.size() ? accumulators : TakeRows(*accumulators, kept_positions);
    VectorPtr elements = TakeRows(*flat.elements, element_indices);
    accumulators = EvaluateLambda(merge, {current, elements}, captures, &still,
                                  static_cast<int64_t>(still.size()), context, mask);
    active = std::move(still);
  }
  // The final accumulators of the valid rows, in row order.
  std::vector<int64_t> valid_rows;
  VectorBuilder finals(state_type, num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!flat.valid[row]) continue;
    valid_rows.push_back(row);
    finals.AppendFrom(*pieces[final_at[row].first], final_at[row].second);
  }
  VectorPtr results = finals.Finish();
  if (call.lambdas.size() == 3) {
    results = EvaluateLambda(call.lambdas[2], {results}, captures, &valid_rows,
                             static_cast<int64_t>(valid_rows.size()), context, mask);
  }
  if (static_cast<int64_t>(valid_rows.size()) == num_rows) return results;
  // NULL arrays give NULL without running the finish lambda.
  std::vector<int64_t> gather(static_cast<size_t>(num_rows), -1);
  for (size_t i = 0; i < valid_rows.size(); ++i) gather[valid_rows[i]] = static_cast<int64_t>(i);
  return TakeRows(*results, gather);
}

// zip_with: element i of both arrays, the shorter padded with NULLs.
VectorPtr RunZipWith(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                     int64_t num_rows, EvalContext& context, RowMask mask) {
  const Vector& left = *args[0];
  const Vector& right = *args[1];
  std::vector<int64_t> left_indices;
  std::vector<int64_t> right_indices;
  std::vector<int64_t> parent;
  std::vector<int32_t> offsets(static_cast<size_t>(num_rows) + 1);
  std::vector<uint8_t> valid(static_cast<size_t>(num_rows));
  for (int64_t row = 0; row < num_rows; ++row) {
    offsets[row] = static_cast<int32_t>(parent.size());
    valid[row] = left.IsValid(row) && right.IsValid(row);
    if (!valid[row]) continue;
    int32_t left_length = left.ListLength(row);
    int32_t right_length = right.ListLength(row);
    SILT_USER_CHECK(parent.size() + std::max(left_length, right_length) <= kMaxElements, VECTOR_CAPACITY_EXCEEDED,
                    {{"type", call.result_type->ToString()}});
    for (int32_t k = 0; k < std::max(left_length, right_length); ++k) {
      left_indices.push_back(k < left_length ? left.ListStart(row) + k : -1);
      right_indices.push_back(k < right_length ? right.ListStart(row) + k : -1);
      parent.push_back(row);
    }
  }
  offsets[num_rows] = static_cast<int32_t>(parent.size());
  std::vector<VectorPtr> parameters{TakeRows(*left.child(0), left_indices), TakeRows(*right.child(0), right_indices)};
  VectorPtr values = EvaluateLambda(call.lambdas[0], std::move(parameters), captures, &parent,
                                    static_cast<int64_t>(parent.size()), context, mask);
  return MakeListVector(call.result_type, offsets, valid, std::move(values));
}

// map_zip_with: the keys of the first map, then the second map's other keys; for each, the
// first value of that key in either map (NULL where a map lacks it).
VectorPtr RunMapZipWith(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                        int64_t num_rows, EvalContext& context, RowMask mask) {
  const Vector& left = *args[0];
  const Vector& right = *args[1];
  VectorPtr left_keys = left.child(0)->StructField(0);
  VectorPtr right_keys = right.child(0)->StructField(0);
  std::vector<int64_t> left_indices;
  std::vector<int64_t> right_indices;
  std::vector<int64_t> parent;
  std::vector<int32_t> offsets(static_cast<size_t>(num_rows) + 1);
  std::vector<uint8_t> valid(static_cast<size_t>(num_rows));
  VectorBuilder keys(call.result_type->key_type(), 0);
  bool text_exact = HasExactText(*call.result_type->key_type());
  std::unordered_map<std::string, int64_t> positions;
  for (int64_t row = 0; row < num_rows; ++row) {
    offsets[row] = static_cast<int32_t>(parent.size());
    valid[row] = left.IsValid(row) && right.IsValid(row);
    if (!valid[row]) continue;
    size_t row_begin = parent.size();
    SILT_USER_CHECK(row_begin + static_cast<size_t>(left.ListLength(row)) + static_cast<size_t>(right.ListLength(row)) <=
                        kMaxElements,
                    VECTOR_CAPACITY_EXCEEDED, {{"type", call.result_type->ToString()}});
    positions.clear();
    // Position of `key` (row `index` of `source`) among this row's output keys, or -1. Atomic
    // keys are found by their text (one text per value), nested ones by comparing values.
    auto find = [&](const Vector& source, int64_t index) -> int64_t {
      if (text_exact) {
        auto found = positions.find(CastValueToString(source, index));
        return found == positions.end() ? -1 : found->second;
      }
      for (size_t k = row_begin; k < parent.size(); ++k) {
        bool from_left = left_indices[k] >= 0;
        const Vector& existing = from_left ? *left_keys : *right_keys;
        if (existing.RowEquals(from_left ? left_indices[k] : right_indices[k], source, index)) {
          return static_cast<int64_t>(k);
        }
      }
      return -1;
    };
    for (int32_t i = 0; i < left.ListLength(row); ++i) {
      int64_t index = left.ListStart(row) + i;
      if (find(*left_keys, index) >= 0) continue;  // a repeated key: its first entry counts
      if (text_exact) positions.emplace(CastValueToString(*left_keys, index), static_cast<int64_t>(parent.size()));
      left_indices.push_back(index);
      right_indices.push_back(-1);
      parent.push_back(row);
      keys.AppendFrom(*left_keys, index);
    }
    for (int32_t i = 0; i < right.ListLength(row); ++i) {
      int64_t index = right.ListStart(row) + i;
      int64_t found = find(*right_keys, index);
      if (found >= 0) {
        if (right_indices[found] < 0) right_indices[found] = index;
        continue;
      }
      if (text_exact) positions.emplace(CastValueToString(*right_keys, index), static_cast<int64_t>(parent.size()));
      left_indices.push_back(-1);
      right_indices.push_back(index);
      parent.push_back(row);
      keys.AppendFrom(*right_keys, index);
    }
  }
  offsets[num_rows] = static_cast<int32_t>(parent.size());
  VectorPtr key_vector = keys.Finish();
  std::vector<VectorPtr> parameters{key_vector, TakeRows(*left.child(0)->StructField(1), left_indices),
                                    TakeRows(*right.child(0)->StructField(1), right_indices)};
  VectorPtr values = EvaluateLambda(call.lambdas[0], std::move(parameters), captures, &parent,
                                    static_cast<int64_t>(parent.size()), context, mask);
  return MakeListVector(call.result_type, offsets, valid,
                        MakeEntries(call.result_type, std::move(key_vector), std::move(values)));
}

// transform_keys and transform_values.
VectorPtr RunTransformMap(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                          int64_t num_rows, EvalContext& context, RowMask mask) {
  Flattened flat = Flatten(*args[0], num_rows);
  VectorPtr keys = flat.elements->StructField(0);
  VectorPtr values = flat.elements->StructField(1);
  VectorPtr computed = EvaluateLambda(call.lambdas[0], {keys, values}, captures, &flat.parent,
                                      static_cast<int64_t>(flat.parent.size()), context, mask);
  if (call.kind == HigherOrderKind::kTransformValues) {
    return MakeListVector(call.result_type, flat.offsets, flat.valid,
                          MakeEntries(call.result_type, std::move(keys), std::move(computed)));
  }
  // New keys must be non-NULL and distinct within their map (the EXCEPTION dedup policy).
  bool text_exact = HasExactText(*computed->type());
  std::unordered_set<std::string> seen;
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!mask.Contains(row)) continue;
    seen.clear();
    for (int32_t i = flat.offsets[row]; i < flat.offsets[row + 1]; ++i) {
      if (computed->IsNull(i)) {
        context.RecordError(MakeError(ErrorClass::NULL_MAP_KEY, {}));
        break;
      }
      bool duplicate = false;
      if (text_exact) {
        duplicate = !seen.insert(CastValueToString(*computed, i)).second;
      } else {
        for (int32_t j = flat.offsets[row]; j < i && !duplicate; ++j) duplicate = computed->RowEquals(j, *computed, i);
      }
      if (duplicate) {
        context.RecordError(MakeError(ErrorClass::DUPLICATED_MAP_KEY, {{"key", CastValueToString(*computed, i)}}));
        break;
      }
    }
  }
  return MakeListVector(call.result_type, flat.offsets, flat.valid,
                        MakeEntries(call.result_type, std::move(computed), std::move(values)));
}

// array_sort: a stable bottom-up merge sort of every row at once. Each round evaluates the
// comparator once for the current pair of every unfinished merge of every row.
VectorPtr RunArraySort(const HigherOrderCallState& call, const Arguments& args, const Arguments& captures,
                       int64_t num_rows, EvalContext& context, RowMask mask) {
  Flattened flat = Flatten(*args[0], num_rows);
  int64_t num_elements = static_cast<int64_t>(flat.parent.size());
  std::vector<int64_t> order(static_cast<size_t>(num_elements));
  for (int64_t i = 0; i < num_elements; ++i) order[i] = i;
  if (call.lambdas.empty() || num_elements == 0) {
    return MakeListVector(call.result_type, flat.offsets, flat.valid, flat.elements);
  }
  const BoundLambda& comparator = call.lambdas[0];
  int32_t longest = 0;
  for (int64_t row = 0; row < num_rows; ++row) longest = std::max(longest, flat.offsets[row + 1] - flat.offsets[row]);
  struct Merge {
    int64_t left, left_end, right, right_end, out, row;
  };
  std::vector<int64_t> merged(order.size());
  bool reported = false;
  for (int64_t width = 1; width < longest; width *= 2) {
    std::vector<Merge> merges;
    for (int64_t row = 0; row < num_rows; ++row) {
      int64_t end = flat.offsets[row + 1];
      for (int64_t low = flat.offsets[row]; low < end; low += 2 * width) {
        int64_t middle = std::min(low + width, end);
        int64_t high = std::min(low + 2 * width, end);
        if (middle >= high) {
          std::copy(order.begin() + low, order.begin() + high, merged.begin() + low);
        } else {
          merges.push_back(Merge{low, middle, middle, high, low, row});
        }
      }
    }
    while (!merges.empty()) {
      std::vector<int64_t> lefts, rights, parent;
      for (const Merge& merge : merges) {
        lefts.push_back(order[merge.left]);
        rights.push_back(order[merge.right]);
        parent.push_back(merge.row);
      }
      VectorPtr compared = EvaluateLambda(comparator, {TakeRows(*flat.elements, lefts), TakeRows(*flat.elements, rights)},
                                          captures, &parent, static_cast<int64_t>(merges.size()), context, mask);
      std::vector<Merge> unfinished;
      for (size_t k = 0; k < merges.size(); ++k) {
        Merge merge = merges[k];
        int32_t result = 0;
        if (compared->IsNull(static_cast<int64_t>(k))) {
          if (!reported && mask.Contains(merge.row)) {
            reported = true;
            context.RecordError(MakeError(
                ErrorClass::COMPARATOR_RETURNS_NULL,
                {{"firstValue", CastValueToString(*flat.elements, lefts[k])},
                 {"secondValue", CastValueToString(*flat.elements, rights[k])}}));
          }
        } else {
          result = compared->values<int32_t>()[k];
        }
        // Ties keep the left (earlier) element first: the sort is stable, as Java's.
        merged[merge.out++] = result <= 0 ? order[merge.left++] : order[merge.right++];
        if (merge.left == merge.left_end || merge.right == merge.right_end) {
          for (; merge.left < merge.left_end; ++merge.left) merged[merge.out++] = order[merge.left];
          for (; merge.right < merge.right_end; ++merge.right) merged[merge.out++] = order[merge.right];
        } else {
          unfinished.push_back(merge);
        }
      }
      merges = std::move(unfinished);
    }
    std::swap(order, merged);
  }
  return MakeListVector(call.result_type, flat.offsets, flat.valid, TakeRows(*flat.elements, order));
}

VectorPtr RunCall(const HigherOrderCallState& call, const Arguments& arguments, int64_t num_rows,
                  EvalContext& context, RowMask mask) {
  Arguments values(arguments.begin(), arguments.begin() + static_cast<std::ptrdiff_t>(call.num_values));
  Arguments captures(arguments.begin() + static_cast<std::ptrdiff_t>(call.num_values), arguments.end());
  switch (call.kind) {
    case HigherOrderKind::kTransform: return RunTransform(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kFilter:
    case HigherOrderKind::kMapFilter: return RunFilter(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kExists:
    case HigherOrderKind::kForall: return RunQuantifier(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kAggregate: return RunAggregate(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kZipWith: return RunZipWith(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kMapZipWith: return RunMapZipWith(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kTransformKeys:
    case HigherOrderKind::kTransformValues: return RunTransformMap(call, values, captures, num_rows, context, mask);
    case HigherOrderKind::kArraySort: return RunArraySort(call, values, captures, num_rows, context, mask);
  }
  SILT_CHECK(false, "unknown higher-order function");
  return nullptr;
}

// Spark's comparator for array_sort without one: ascending, NULLs last.
LambdaFunction DefaultComparator(const DataTypePtr& element, bool contains_null) {
  ExpressionPtr left = Column(0, element, contains_null);
  ExpressionPtr right = Column(1, element, contains_null);
  auto constant = [](int32_t value) { return Literal(Scalar::Integer(value)); };
  ExpressionPtr body =
      If(And(IsNull(left), IsNull(right)), constant(0),
         If(IsNull(left), constant(1),
            If(IsNull(right), constant(-1),
               If(Compare(ComparisonOperator::kLess, left, right), constant(-1),
                  If(Compare(ComparisonOperator::kGreater, left, right), constant(1), constant(0))))));
  return LambdaFunction{{{"left", element, contains_null}, {"right", element, contains_null}}, std::move(body)};
}

// The lambda as plan text: its body's own inputs print as `#L0`, `#L1`, ... so that plan printers,
// which name the call's `#i` inputs, leave them alone. Every `#` becomes `#L`, which keeps the
// text of different bodies different (callers compare expressions by their text).
std::string LambdaText(const LambdaFunction& lambda) {
  std::string parameters;
  for (const LambdaParameter& parameter : lambda.parameters) {
    parameters += (parameters.empty() ? "" : ", ") + parameter.name;
  }
  std::string body;
  for (char c : lambda.body->ToString()) {
    body += c;
    if (c == '#') body += 'L';
  }
  return (lambda.parameters.size() == 1 ? parameters : "(" + parameters + ")") + " -> " + body;
}

[[noreturn]] void ThrowArgumentCount(size_t expected, size_t actual) {
  SILT_THROW(INVALID_LAMBDA_FUNCTION_CALL,
             {{"message", "A higher order function expects " + std::to_string(expected) + " arguments, but got " +
                              std::to_string(actual) + "."}});
}

}  // namespace

bool IsHigherOrderFunction(std::string_view name) { return KindOf(name).has_value(); }

bool IsLazyArgument(std::string_view name, size_t position) {
  return KindOf(name) == HigherOrderKind::kAggregate && position == 1;
}

std::vector<bool> LambdaArgumentPositions(std::string_view name, size_t num_arguments) {
  using Kind = HigherOrderKind;
  HigherOrderKind kind = RequireKind(name);
  std::vector<ExpressionPtr> placeholder(num_arguments);
  switch (kind) {
    case Kind::kAggregate:
      internal::CheckArgumentCount(name, placeholder, 3, 4);
      return num_arguments == 3 ? std::vector<bool>{false, false, true} : std::vector<bool>{false, false, true, true};
    case Kind::kZipWith:
    case Kind::kMapZipWith:
      internal::CheckArgumentCount(name, placeholder, 3, 3);
      return {false, false, true};
    case Kind::kArraySort:
      internal::CheckArgumentCount(name, placeholder, 1, 2);
      return num_arguments == 1 ? std::vector<bool>{false} : std::vector<bool>{false, true};
    default:
      internal::CheckArgumentCount(name, placeholder, 2, 2);
      return {false, true};
  }
}

void PrepareValueArguments(std::string_view name, std::vector<ExpressionPtr>& arguments) {
  using Kind = HigherOrderKind;
  switch (RequireKind(name)) {
    case Kind::kAggregate: arguments[0] = ArrayValue(name, 0, arguments[0]); return;
    case Kind::kZipWith:
      arguments[0] = ArrayValue(name, 0, arguments[0]);
      arguments[1] = ArrayValue(name, 1, arguments[1]);
      return;
    case Kind::kMapFilter:
    case Kind::kTransformKeys:
    case Kind::kTransformValues: arguments[0] = MapValue(name, 0, arguments[0]); return;
    case Kind::kMapZipWith: {
      arguments[0] = MapValue(name, 0, arguments[0]);
      arguments[1] = MapValue(name, 1, arguments[1]);
      const DataTypePtr& left = arguments[0]->type();
      const DataTypePtr& right = arguments[1]->type();
      if (!left->key_type()->Equals(*right->key_type())) {
        // Spark widens the key types to one when it can.
        auto key = WiderType(left->key_type(), right->key_type());
        if (!key) {
          ThrowMismatch(name, "Input to the `map_zip_with` should have been two maps with compatible key types, but it's [" +
                                  TypeSql(left->key_type()) + ", " + TypeSql(right->key_type()) + "].");
        }
        arguments[0] = CastIfNeeded(arguments[0], MapType(*key, left->value_type(), left->value_contains_null()));
        arguments[1] = CastIfNeeded(arguments[1], MapType(*key, right->value_type(), right->value_contains_null()));
      }
      if (ContainsMap(*arguments[0]->type()->key_type())) {
        ThrowMismatch(name, "The `map_zip_with` does not support ordering on type " +
                                TypeSql(arguments[0]->type()->key_type()) + ".");
      }
      return;
    }
    case Kind::kArraySort: {
      arguments[0] = ArrayValue(name, 0, arguments[0]);
      if (arguments.size() == 1 && ContainsMap(*arguments[0]->type()->element_type())) {
        ThrowMismatch(name, "The `array_sort` does not support ordering on type " +
                                TypeSql(arguments[0]->type()->element_type()) + ".");
      }
      return;
    }
    default: arguments[0] = ArrayValue(name, 0, arguments[0]); return;
  }
}

std::vector<LambdaParameter> LambdaParameters(std::string_view name, size_t position,
                                              const std::vector<ExpressionPtr>& arguments,
                                              const std::vector<std::string>& names, bool hidden) {
  using Kind = HigherOrderKind;
  HigherOrderKind kind = RequireKind(name);
  std::vector<std::pair<DataTypePtr, bool>> types;
  auto element = [&](size_t index) -> std::pair<DataTypePtr, bool> {
    const DataTypePtr& type = arguments[index]->type();
    return {type->element_type(), type->contains_null()};
  };
  switch (kind) {
    case Kind::kTransform:
    case Kind::kFilter:
      types = {element(0)};
      // The element's position is an optional second parameter.
      if (!hidden && names.size() == 2) types.emplace_back(IntegerType(), false);
      break;
    case Kind::kExists:
    case Kind::kForall: types = {element(0)}; break;
    case Kind::kAggregate: {
      // The accumulator may always be NULL: Spark cannot know what the merge gives.
      std::pair<DataTypePtr, bool> accumulator{arguments[1]->type(), true};
      types = position == 2 ? std::vector<std::pair<DataTypePtr, bool>>{accumulator, element(0)}
                            : std::vector<std::pair<DataTypePtr, bool>>{accumulator};
      break;
    }
    case Kind::kZipWith:
      types = {{arguments[0]->type()->element_type(), true}, {arguments[1]->type()->element_type(), true}};
      break;
    case Kind::kMapFilter:
    case Kind::kTransformKeys:
    case Kind::kTransformValues: {
      const DataTypePtr& map = arguments[0]->type();
      types = {{map->key_type(), false}, {map->value_type(), map->value_contains_null()}};
      break;
    }
    case Kind::kMapZipWith:
      types = {{arguments[0]->type()->key_type(), false},
               {arguments[0]->type()->value_type(), true},
               {arguments[1]->type()->value_type(), true}};
      break;
    case Kind::kArraySort: types = {element(0), element(0)}; break;
  }
  if (!hidden && names.size() != types.size()) ThrowArgumentCount(types.size(), names.size());
  std::vector<LambdaParameter> parameters;
  for (size_t i = 0; i < types.size(); ++i) {
    parameters.push_back(LambdaParameter{hidden ? "col" + std::to_string(i) : names[i], types[i].first, types[i].second});
  }
  return parameters;
}

ExpressionPtr HigherOrderCall(std::string_view name, std::vector<ExpressionPtr> arguments,
                              std::vector<LambdaFunction> lambdas, std::vector<ExpressionPtr> captures) {
  using Kind = HigherOrderKind;
  HigherOrderKind kind = RequireKind(name);
  std::vector<ExpressionPtr> values;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] && !IsLazyArgument(name, i)) values.push_back(arguments[i]);
  }
  // The checks of the lambdas' result types name the lambda's argument position.
  auto require_type = [&](size_t position, LambdaFunction& lambda, const DataTypePtr& type) {
    // An untyped NULL body is a NULL of the required type, as silt's boolean operators read it.
    if (lambda.body->type()->id() == TypeId::kNull) lambda.body = Cast(lambda.body, type);
    if (!lambda.body->type()->Equals(*type)) {
      internal::ThrowArgumentType(name, position, lambda.body, TypeSql(type));
    }
  };
  DataTypePtr result_type;
  switch (kind) {
    case Kind::kTransform:
      result_type = ListType(lambdas[0].body->type(), lambdas[0].body->nullable());
      break;
    case Kind::kFilter:
    case Kind::kMapFilter:
      require_type(1, lambdas[0], BooleanType());
      result_type = values[0]->type();
      break;
    case Kind::kExists:
    case Kind::kForall:
      require_type(1, lambdas[0], BooleanType());
      result_type = BooleanType();
      break;
    case Kind::kAggregate: {
      // The start value runs as the first lambda, for the rows whose array is not NULL.
      lambdas.insert(lambdas.begin(), LambdaFunction{{}, arguments[1]});
      const DataTypePtr& state = arguments[1]->type();
      LambdaFunction& merge = lambdas[1];
      if (!StructurallyEqual(*merge.body->type(), *state)) require_type(2, merge, state);
      merge.body = CastIfNeeded(merge.body, state);
      result_type = lambdas.size() == 3 ? lambdas[2].body->type() : state;
      break;
    }
    case Kind::kZipWith:
      result_type = ListType(lambdas[0].body->type(), lambdas[0].body->nullable());
      break;
    case Kind::kMapZipWith:
      result_type = MapType(values[0]->type()->key_type(), lambdas[0].body->type(), lambdas[0].body->nullable());
      break;
    case Kind::kTransformKeys: {
      const DataTypePtr& key = lambdas[0].body->type();
      if (ContainsMap(*key)) ThrowMismatch(name, "The key of map cannot be/contain " + TypeSql(key) + ".");
      result_type = MapType(key, values[0]->type()->value_type(), values[0]->type()->value_contains_null());
      break;
    }
    case Kind::kTransformValues:
      result_type = MapType(values[0]->type()->key_type(), lambdas[0].body->type(), lambdas[0].body->nullable());
      break;
    case Kind::kArraySort: {
      result_type = values[0]->type();
      if (lambdas.empty()) {
        // NULL elements only: nothing to order.
        const DataTypePtr& element = result_type->element_type();
        if (element->id() != TypeId::kNull) lambdas.push_back(DefaultComparator(element, result_type->contains_null()));
      } else if (lambdas[0].body->type()->id() != TypeId::kInteger) {
        ThrowMismatch(name, "The `lambdafunction` requires return \"INT\" type, but the actual is " +
                                TypeSql(lambdas[0].body->type()) + " type.");
      }
      break;
    }
  }
  auto state = std::make_shared<HigherOrderCallState>();
  state->kind = kind;
  state->result_type = result_type;
  state->num_values = values.size();
  bool deterministic = true;
  std::string text = std::string(name) + "[";
  for (size_t i = 0; i < lambdas.size(); ++i) {
    deterministic = deterministic && lambdas[i].body->deterministic();
    text += (i > 0 ? "; " : "") + LambdaText(lambdas[i]);
    state->lambdas.push_back(BindLambda(std::move(lambdas[i]), captures));
  }
  text += "]";
  std::vector<ExpressionPtr> children = std::move(values);
  for (ExpressionPtr& captured : captures) children.push_back(std::move(captured));
  return internal::MakeCall(text, result_type, std::move(children),
                            [state](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                    RowMask mask) { return RunCall(*state, args, num_rows, context, mask); },
                            deterministic);
}

}  // namespace silt::expr
