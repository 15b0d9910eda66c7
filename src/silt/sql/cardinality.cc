#include "silt/sql/cardinality.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "silt/error.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/log/table_scan.h"
#include "silt/sql/optimizer.h"

namespace silt::sql {
namespace {

using expr::ExpressionKind;
using expr::ExpressionPtr;

// The selectivity of an equality on a column whose distinct values are unknown, of a predicate
// the estimates cannot read (a LIKE, a function), and of one side of a range on a column
// without a known range.
constexpr double kEqualitySelectivity = 0.05;
constexpr double kDefaultSelectivity = 0.25;
constexpr double kRangeSelectivity = 1.0 / 3;
// A LIKE pattern keeps this fraction per literal character, down to kMinLikeSelectivity.
constexpr double kLikeCharacterSelectivity = 0.5;
constexpr double kMinLikeSelectivity = 0.01;
// A range comparison of an aggregate's value with a constant (HAVING sum(x) > 300, HAVING
// count(*) > 1) keeps this fraction of the groups. Such a threshold is written to single out
// the notable groups: a sum or count grows with its group's rows, so its values spread over a
// range many times one row's, and a constant picked beyond the typical group lies in the tail
// of that spread (TPC-H Q18's sum(l_quantity) > 300 keeps 57 of 1.5M orders; a third, the
// default of a range without known bounds, would make every such subquery look as large as
// its input). The same 1% as the smallest selectivity of a LIKE pattern.
constexpr double kAggregateRangeSelectivity = 0.01;
// A column whose distinct values reach this fraction of its relation's rows may be a key.
constexpr double kKeyFraction = 0.9;

bool IsIntegral(TypeId id) {
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger ||
         id == TypeId::kLong || id == TypeId::kDate || id == TypeId::kTimestamp ||
         id == TypeId::kTimestampNtz;
}

double DecimalFactor(const DataType& type) { return std::pow(10.0, type.scale()); }

// A statistics value of a column of `type` as a number; nullopt for strings and booleans.
std::optional<double> StatsNumber(const log::Scalar& value, const DataType& type) {
  if (const auto* integer = std::get_if<int64_t>(&value)) return static_cast<double>(*integer);
  if (const auto* real = std::get_if<double>(&value)) return *real;
  if (const auto* decimal = std::get_if<Decimal128>(&value)) {
    return static_cast<double>(*decimal) / DecimalFactor(type);
  }
  return std::nullopt;
}

// A literal as a number on the same scale as StatsNumber.
std::optional<double> LiteralNumber(const expr::Expression& literal) {
  if (literal.kind() != ExpressionKind::kLiteral || literal.literal().is_null())
    return std::nullopt;
  const DataType& type = *literal.type();
  if (IsIntegral(type.id())) return static_cast<double>(literal.literal().GetInt());
  if (type.id() == TypeId::kFloat || type.id() == TypeId::kDouble)
    return literal.literal().GetDouble();
  if (type.id() == TypeId::kDecimal) {
    return static_cast<double>(literal.literal().GetDecimal()) / DecimalFactor(type);
  }
  return std::nullopt;
}

// The input column `expression` reads, through casts; -1 when it is not a column.
int ColumnOf(const expr::Expression& expression) {
  const expr::Expression* node = &expression;
  while (node->kind() == ExpressionKind::kCast) node = node->child(0).get();
  return node->kind() == ExpressionKind::kColumn ? node->column_index() : -1;
}

// Distinct values of a column of `type` whose values lie in [min, max], at most `rows`.
std::optional<double> DistinctInRange(const DataType& type, std::optional<double> min,
                                      std::optional<double> max, double rows) {
  if (type.id() == TypeId::kBoolean) return std::min(2.0, rows);
  if (!min || !max) return std::nullopt;
  double width;
  if (type.id() == TypeId::kDate || IsIntegral(type.id())) {
    width = *max - *min + 1;
  } else if (type.id() == TypeId::kDecimal) {
    width = (*max - *min) * DecimalFactor(type) + 1;
  } else {
    return std::nullopt;  // floating point: any number of values fit
  }
  return std::max(1.0, std::min(width, rows));
}

// The distinct values left of `distinct` when `rows` rows become `kept` rows at random (each
// value is kept when one of its rows is).
double ScaleDistinct(double distinct, double rows, double kept) {
  if (rows <= 0 || kept >= rows) return std::min(distinct, std::max(kept, 1.0));
  double fraction = kept / rows;
  double per_value = rows / std::max(distinct, 1.0);
  double left = distinct * (1 - std::pow(1 - fraction, per_value));
  return std::max(1.0, std::min(left, kept));
}

// ---- Filters ----

// The lower and upper bounds range conjuncts put on one column.
struct Range {
  std::optional<double> low;
  std::optional<double> high;
  int bounds = 0;
};

// Whether `conjunct` is `column op number` (either side first) with op a range comparison;
// adds its bound to `ranges` when it is.
bool AddRange(const expr::Expression& conjunct, std::map<int, Range>& ranges) {
  if (conjunct.kind() != ExpressionKind::kComparison) return false;
  expr::ComparisonOperator op = conjunct.comparison();
  if (op == expr::ComparisonOperator::kEqual || op == expr::ComparisonOperator::kNotEqual ||
      op == expr::ComparisonOperator::kNullSafeEqual) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    int column = ColumnOf(*conjunct.child(side));
    std::optional<double> value = LiteralNumber(*conjunct.child(1 - side));
    if (column < 0 || !value) continue;
    bool less =
        op == expr::ComparisonOperator::kLess || op == expr::ComparisonOperator::kLessOrEqual;
    if (side == 1) less = !less;  // 5 < x is x > 5
    Range& range = ranges[column];
    ++range.bounds;
    if (less) {
      range.high = range.high ? std::min(*range.high, *value) : *value;
    } else {
      range.low = range.low ? std::max(*range.low, *value) : *value;
    }
    return true;
  }
  return false;
}

double Clamp(double value) { return std::max(0.0, std::min(1.0, value)); }

double EqualitySelectivity(const ColumnEstimate& column, const std::optional<double>& value) {
  if (value && column.min && column.max && (*value < *column.min || *value > *column.max)) return 0;
  return column.distinct ? 1 / std::max(*column.distinct, 1.0) : kEqualitySelectivity;
}

// The fraction of `input`'s rows for which `predicate` is true; narrows the estimates of the
// columns it restricts in `output` (equalities and IN lists).
double Selectivity(const ExpressionPtr& predicate, const RelationEstimate& input,
                   RelationEstimate* output) {
  const expr::Expression& e = *predicate;
  auto column_estimate = [&](const expr::Expression& operand) -> const ColumnEstimate* {
    int column = ColumnOf(operand);
    return column < 0 ? nullptr : &input.columns[static_cast<size_t>(column)];
  };
  switch (e.kind()) {
    case ExpressionKind::kLiteral:
      return !e.literal().is_null() && e.type()->id() == TypeId::kBoolean && e.literal().GetBool()
                 ? 1
                 : 0;
    case ExpressionKind::kAnd:
      return Selectivity(e.child(0), input, output) * Selectivity(e.child(1), input, output);
    case ExpressionKind::kOr: {
      double a = Selectivity(e.child(0), input, nullptr);
      double b = Selectivity(e.child(1), input, nullptr);
      return Clamp(a + b - a * b);
    }
    case ExpressionKind::kNot:
      return Clamp(1 - Selectivity(e.child(0), input, nullptr));
    case ExpressionKind::kIsNull:
    case ExpressionKind::kIsNotNull: {
      const ColumnEstimate* column = column_estimate(*e.child(0));
      double nulls = column ? column->null_fraction : kEqualitySelectivity;
      if (e.kind() == ExpressionKind::kIsNull) return nulls;
      if (column && output)
        output->columns[static_cast<size_t>(ColumnOf(*e.child(0)))].null_fraction = 0;
      return 1 - nulls;
    }
    case ExpressionKind::kIn: {
      const ColumnEstimate* column = column_estimate(*e.child(0));
      if (!column) return kDefaultSelectivity;
      double selectivity = 0;
      for (size_t i = 1; i < e.children().size(); ++i) {
        selectivity += EqualitySelectivity(*column, LiteralNumber(*e.child(i)));
      }
      if (output && column->distinct) {
        ColumnEstimate& narrowed = output->columns[static_cast<size_t>(ColumnOf(*e.child(0)))];
        narrowed.distinct =
            std::min(*column->distinct, static_cast<double>(e.children().size() - 1));
      }
      return Clamp(selectivity);
    }
    case ExpressionKind::kComparison: {
      const ColumnEstimate* left = column_estimate(*e.child(0));
      const ColumnEstimate* right = column_estimate(*e.child(1));
      expr::ComparisonOperator op = e.comparison();
      bool equality =
          op == expr::ComparisonOperator::kEqual || op == expr::ComparisonOperator::kNullSafeEqual;
      if (left && right) {
        // Two columns of one relation.
        double equal = left->distinct && right->distinct
                           ? 1 / std::max({*left->distinct, *right->distinct, 1.0})
                           : kEqualitySelectivity;
        if (equality) return equal;
        if (op == expr::ComparisonOperator::kNotEqual) return 1 - equal;
        return kRangeSelectivity;
      }
      const ColumnEstimate* column = left ? left : right;
      if (!column) return kDefaultSelectivity;
      std::optional<double> value = LiteralNumber(*e.child(left ? 1 : 0));
      bool literal = e.child(left ? 1 : 0)->kind() == ExpressionKind::kLiteral;
      if (!literal) return equality ? kEqualitySelectivity : kDefaultSelectivity;
      double equal = EqualitySelectivity(*column, value);
      if (equality) {
        if (output) {
          ColumnEstimate& narrowed =
              output->columns[static_cast<size_t>(ColumnOf(*e.child(left ? 0 : 1)))];
          narrowed.distinct = 1;
          if (value) narrowed.min = narrowed.max = value;
        }
        return equal;
      }
      if (op == expr::ComparisonOperator::kNotEqual) return 1 - equal;
      std::map<int, Range> ranges;
      AddRange(e, ranges);
      if (ranges.empty() || !column->min || !column->max) {
        return column->aggregate ? kAggregateRangeSelectivity : kRangeSelectivity;
      }
      const Range& range = ranges.begin()->second;
      double low = range.low ? std::max(*range.low, *column->min) : *column->min;
      double high = range.high ? std::min(*range.high, *column->max) : *column->max;
      if (*column->max <= *column->min) return low <= high ? 1 : 0;
      return Clamp((high - low) / (*column->max - *column->min));
    }
    case ExpressionKind::kCall: {
      // `x LIKE 'pattern'`: the more literal characters the pattern holds, the fewer strings
      // match it ('%green%' keeps a few percent, '%special%requests%' about none).
      if (e.function().name != "like" || e.children().size() < 2 ||
          e.child(1)->kind() != ExpressionKind::kLiteral || e.child(1)->literal().is_null() ||
          e.child(1)->type()->id() != TypeId::kString) {
        return kDefaultSelectivity;
      }
      std::string_view pattern = e.child(1)->literal().GetString();
      int literal_characters = 0;
      for (char c : pattern) literal_characters += c != '%' && c != '_' ? 1 : 0;
      return std::max(kMinLikeSelectivity, std::pow(kLikeCharacterSelectivity, literal_characters));
    }
    default:
      return kDefaultSelectivity;
  }
}

// ---- Joins ----

// What the key columns of one join side say about the join.
struct KeySide {
  double distinct = 1;   // distinct key tuples in the side
  bool key = false;      // the tuples may all differ in their base relation
  double base_rows = 0;  // rows of that relation, when key
  double base_distinct = 0;
};

KeySide DescribeKeys(const RelationEstimate& side, const std::vector<int>& columns) {
  KeySide keys;
  const void* origin = nullptr;
  bool same_origin = true;
  double base_distinct = 1;
  for (int column : columns) {
    const ColumnEstimate& estimate = side.columns[static_cast<size_t>(column)];
    keys.distinct *= estimate.distinct.value_or(side.rows);
    if (!estimate.origin || (origin && estimate.origin != origin)) same_origin = false;
    origin = estimate.origin;
    keys.base_rows = estimate.base_rows;
    base_distinct *= estimate.base_distinct;
  }
  keys.distinct = std::max(1.0, std::min(keys.distinct, side.rows));
  if (same_origin && keys.base_rows > 0) {
    keys.base_distinct = std::min(base_distinct, keys.base_rows);
    keys.key = keys.base_distinct >= kKeyFraction * keys.base_rows;
  }
  return keys;
}

// Rows of an inner equi-join of `left` and `right` on the column pairs.
double EquiJoinRows(const RelationEstimate& left, const RelationEstimate& right,
                    const std::vector<int>& left_keys, const std::vector<int>& right_keys) {
  KeySide l = DescribeKeys(left, left_keys);
  KeySide r = DescribeKeys(right, right_keys);
  // Foreign key to primary key: each row of the referencing side finds its key's row when that
  // row passed the key side's filters. Of two key-like sides the smaller base is the key.
  const KeySide* primary = nullptr;
  if (l.key && r.key) {
    primary = l.base_rows <= r.base_rows ? &l : &r;
  } else if (l.key) {
    primary = &l;
  } else if (r.key) {
    primary = &r;
  }
  double domain =
      primary ? std::max(primary->base_distinct, 1.0) : std::max(l.distinct, r.distinct);
  return left.rows * right.rows / domain;
}

}  // namespace

RelationEstimate CardinalityEstimator::Filter(const RelationEstimate& input,
                                              const ExpressionPtr& predicate) {
  if (!predicate) return input;
  RelationEstimate output = input;
  std::map<int, Range> ranges;
  double selectivity = 1;
  for (const ExpressionPtr& conjunct : expr::SplitConjunction(predicate)) {
    if (!AddRange(*conjunct, ranges)) selectivity *= Selectivity(conjunct, input, &output);
  }
  // Range conjuncts on one column keep the part of its range between their bounds.
  for (const auto& [index, range] : ranges) {
    const ColumnEstimate& column = input.columns[static_cast<size_t>(index)];
    ColumnEstimate& narrowed = output.columns[static_cast<size_t>(index)];
    if (!column.min || !column.max) {
      selectivity *= column.aggregate ? kAggregateRangeSelectivity
                                      : std::pow(kRangeSelectivity, range.bounds > 1 ? 1.5 : 1);
      continue;
    }
    double low = range.low ? std::max(*range.low, *column.min) : *column.min;
    double high = range.high ? std::min(*range.high, *column.max) : *column.max;
    double fraction = *column.max > *column.min ? Clamp((high - low) / (*column.max - *column.min))
                                                : (low <= high ? 1 : 0);
    selectivity *= fraction;
    if (low <= high) narrowed.min = low, narrowed.max = high;
    if (column.distinct) narrowed.distinct = std::max(1.0, *column.distinct * fraction);
  }
  output.rows = input.rows <= 0 ? 0 : std::max(1.0, input.rows * Clamp(selectivity));
  for (size_t c = 0; c < output.columns.size(); ++c) {
    ColumnEstimate& column = output.columns[c];
    if (column.distinct && input.columns[c].distinct == column.distinct) {
      column.distinct = ScaleDistinct(*column.distinct, input.rows, output.rows);
    } else if (column.distinct) {
      column.distinct = std::min(*column.distinct, output.rows);
    }
  }
  return output;
}

RelationEstimate CardinalityEstimator::Join(const RelationEstimate& left,
                                            const RelationEstimate& right, exec::JoinType type,
                                            const ExpressionPtr& condition) {
  const int left_width = static_cast<int>(left.columns.size());
  RelationEstimate both;
  both.columns = left.columns;
  both.columns.insert(both.columns.end(), right.columns.begin(), right.columns.end());
  std::vector<int> left_keys, right_keys;
  std::vector<ExpressionPtr> residual;
  if (condition) {
    for (const ExpressionPtr& conjunct : expr::SplitConjunction(condition)) {
      if (conjunct->kind() == ExpressionKind::kComparison &&
          (conjunct->comparison() == expr::ComparisonOperator::kEqual ||
           conjunct->comparison() == expr::ComparisonOperator::kNullSafeEqual)) {
        int a = ColumnOf(*conjunct->child(0));
        int b = ColumnOf(*conjunct->child(1));
        if (a >= 0 && b >= 0 && (a < left_width) != (b < left_width)) {
          left_keys.push_back(std::min(a, b));
          right_keys.push_back(std::max(a, b) - left_width);
          continue;
        }
      }
      residual.push_back(conjunct);
    }
  }
  double inner;
  if (!left_keys.empty()) {
    inner = EquiJoinRows(left, right, left_keys, right_keys);
  } else {
    inner = left.rows * right.rows;
  }
  both.rows = inner;
  if (!residual.empty()) both = Filter(both, expr::JoinConjunction(residual));
  inner = std::min(both.rows, left.rows * right.rows);
  // Columns: a key holds the values both sides share; each side's other columns keep the
  // values of the rows left of it.
  for (size_t k = 0; k < left_keys.size(); ++k) {
    ColumnEstimate& a = both.columns[static_cast<size_t>(left_keys[k])];
    ColumnEstimate& b = both.columns[static_cast<size_t>(left_width + right_keys[k])];
    if (a.distinct && b.distinct) a.distinct = b.distinct = std::min(*a.distinct, *b.distinct);
  }
  auto settle = [&](size_t begin, size_t end, double side_rows, double rows) {
    for (size_t c = begin; c < end; ++c) {
      ColumnEstimate& column = both.columns[c];
      if (column.distinct)
        column.distinct = ScaleDistinct(*column.distinct, side_rows, std::min(rows, side_rows));
    }
  };
  switch (type) {
    case exec::JoinType::kLeftSemi:
    case exec::JoinType::kLeftAnti: {
      double matched = std::min(left.rows, inner);
      double rows = type == exec::JoinType::kLeftSemi
                        ? matched
                        : std::max(left.rows - matched, 0.1 * left.rows);
      both.columns.resize(static_cast<size_t>(left_width));
      both.rows = left.rows <= 0 ? 0 : std::max(1.0, rows);
      settle(0, both.columns.size(), left.rows, both.rows);
      return both;
    }
    case exec::JoinType::kLeftOuter:
      both.rows = std::max(inner, left.rows);
      break;
    case exec::JoinType::kRightOuter:
      both.rows = std::max(inner, right.rows);
      break;
    case exec::JoinType::kFullOuter:
      both.rows = std::max({inner, left.rows, right.rows});
      break;
    default:
      both.rows = inner;
      break;
  }
  if (left.rows > 0 && right.rows > 0) both.rows = std::max(both.rows, 1.0);
  settle(0, static_cast<size_t>(left_width), left.rows, both.rows);
  settle(static_cast<size_t>(left_width), both.columns.size(), right.rows, both.rows);
  return both;
}

const RelationEstimate& CardinalityEstimator::Estimate(const LogicalPtr& node) {
  auto found = estimates_.find(node.get());
  if (found != estimates_.end()) return found->second.second;
  RelationEstimate estimate = Compute(node);
  return estimates_.emplace(node.get(), std::make_pair(node, std::move(estimate)))
      .first->second.second;
}

const log::ScanSummary& CardinalityEstimator::Summary(
    const std::shared_ptr<const log::Snapshot>& snapshot, const log::ScanOptions& options) {
  // The snapshot lives as long as the scan nodes remembered with it.
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(snapshot.get()));
  for (const std::string& column : options.columns) key += "\x1f" + column;
  for (const log::ScanPredicate& predicate : options.predicates) {
    key += "\x1e" + predicate.column + "\x1f" + std::to_string(static_cast<int>(predicate.op)) +
           "\x1f" + predicate.value;
  }
  auto found = summaries_.find(key);
  if (found != summaries_.end()) return found->second;
  log::ScanSummary summary = log::TableScan::Make(snapshot, options)->Summarize();
  return summaries_.emplace(std::move(key), std::move(summary)).first->second;
}

RelationEstimate CardinalityEstimator::ScanEstimate(const LogicalNode& scan) {
  RelationEstimate estimate;
  estimate.columns.resize(scan.columns.size());
  log::ScanOptions options;
  std::vector<size_t> table_columns;  // output index of each column the summary describes
  for (size_t i = 0; i < scan.scan_columns.size(); ++i) {
    if (scan.scan_columns[i] == kFileMetadataScanColumn) continue;
    options.columns.push_back(
        scan.snapshot->schema().field(static_cast<size_t>(scan.scan_columns[i])).name);
    table_columns.push_back(i);
  }
  std::vector<log::ScanPredicate> predicates = ScanPredicatesOf(scan);
  const log::ScanSummary* table = nullptr;
  const log::ScanSummary* kept = nullptr;
  try {
    if (!table_columns.empty()) {
      table = &Summary(scan.snapshot, options);
      options.predicates = std::move(predicates);
      kept = &Summary(scan.snapshot, options);
    }
  } catch (const Error&) {
    // The scan itself reports what is wrong; the estimate does without statistics.
    table = kept = nullptr;
  }
  if (!kept) {
    for (const log::AddFile& file : scan.snapshot->files())
      estimate.rows += static_cast<double>(file.size) / 100.0;
    return estimate;
  }
  estimate.rows = static_cast<double>(kept->num_rows);
  const double table_rows = static_cast<double>(table->num_rows);
  for (size_t t = 0; t < table_columns.size(); ++t) {
    const DataType& type = *scan.columns[table_columns[t]].type;
    ColumnEstimate& column = estimate.columns[table_columns[t]];
    auto describe = [&](const log::ColumnSummary& summary, double rows, std::optional<double>& min,
                        std::optional<double>& max, double& nulls) -> std::optional<double> {
      if (summary.min) min = StatsNumber(*summary.min, type);
      if (summary.max) max = StatsNumber(*summary.max, type);
      nulls = summary.null_count && rows > 0
                  ? std::min(1.0, static_cast<double>(*summary.null_count) / rows)
                  : 0;
      if (summary.distinct_values) return static_cast<double>(*summary.distinct_values);
      return DistinctInRange(type, min, max, rows * (1 - nulls));
    };
    column.distinct =
        describe(kept->columns[t], estimate.rows, column.min, column.max, column.null_fraction);
    std::optional<double> table_min, table_max;
    double table_nulls = 0;
    std::optional<double> table_distinct =
        describe(table->columns[t], table_rows, table_min, table_max, table_nulls);
    column.origin = &scan;
    column.base_rows = table_rows;
    column.base_distinct = table_distinct.value_or(0);
  }
  return Filter(estimate, scan.predicate);
}

RelationEstimate CardinalityEstimator::Compute(const LogicalPtr& plan) {
  const LogicalNode& node = *plan;
  auto child = [&](size_t i) -> const RelationEstimate& { return Estimate(node.children[i]); };
  auto unknown_columns = [&](double rows) {
    RelationEstimate estimate;
    estimate.rows = rows;
    estimate.columns.resize(node.columns.size());
    return estimate;
  };
  switch (node.kind) {
    case LogicalKind::kDeltaScan:
      return ScanEstimate(node);
    case LogicalKind::kParquetScan:
      return Filter(unknown_columns(1e6), node.predicate);
    case LogicalKind::kChangeFeedScan: {
      // Change files carry no statistics here: about 100 bytes per row.
      double rows = 0;
      for (const log::ChangeFile& file : node.change_feed->files())
        rows += static_cast<double>(file.size) / 100.0;
      return Filter(unknown_columns(rows), node.predicate);
    }
    case LogicalKind::kValues: {
      double rows = 0;
      for (const Batch& batch : node.batches) rows += static_cast<double>(batch.num_rows());
      return unknown_columns(rows);
    }
    case LogicalKind::kRange: {
      double rows =
          node.range_step == 0
              ? 0
              : std::max(0.0, std::ceil(static_cast<double>(node.range_end - node.range_start) /
                                        static_cast<double>(node.range_step)));
      RelationEstimate estimate = unknown_columns(rows);
      ColumnEstimate& column = estimate.columns[0];
      column.distinct = std::max(rows, 1.0);
      column.min = static_cast<double>(std::min(node.range_start, node.range_end));
      column.max = static_cast<double>(std::max(node.range_start, node.range_end));
      column.origin = &node;
      column.base_rows = rows;
      column.base_distinct = rows;
      return estimate;
    }
    case LogicalKind::kFilter:
      return Filter(child(0), node.predicate);
    case LogicalKind::kProject: {
      const RelationEstimate& input = child(0);
      RelationEstimate estimate = unknown_columns(input.rows);
      for (size_t i = 0; i < node.expressions.size(); ++i) {
        const expr::Expression& expression = *node.expressions[i];
        int column = ColumnOf(expression);
        if (column >= 0) {
          estimate.columns[i] = input.columns[static_cast<size_t>(column)];
        } else if (expression.kind() == ExpressionKind::kLiteral) {
          estimate.columns[i].distinct = 1;
        }
      }
      return estimate;
    }
    case LogicalKind::kAggregate: {
      const RelationEstimate& input = child(0);
      if (node.expressions.empty()) return unknown_columns(1);
      double groups = 1;
      for (const ExpressionPtr& key : node.expressions) {
        int column = ColumnOf(*key);
        std::optional<double> distinct =
            column >= 0 ? input.columns[static_cast<size_t>(column)].distinct : std::nullopt;
        groups *= distinct ? *distinct + 1 : input.rows;
        groups = std::min(groups, input.rows);
      }
      RelationEstimate estimate = unknown_columns(std::max(1.0, std::min(groups, input.rows)));
      for (size_t i = 0; i < node.expressions.size(); ++i) {
        int column = ColumnOf(*node.expressions[i]);
        ColumnEstimate& out = estimate.columns[i];
        if (column >= 0) out = input.columns[static_cast<size_t>(column)];
        // The groups are a relation of their own, unique on all keys together.
        out.origin = &node;
        out.base_rows = estimate.rows;
        out.base_distinct =
            node.expressions.size() == 1 ? estimate.rows : out.distinct.value_or(estimate.rows);
        if (out.distinct) out.distinct = std::min(*out.distinct, estimate.rows);
      }
      for (size_t i = node.expressions.size(); i < estimate.columns.size(); ++i) {
        estimate.columns[i].aggregate = true;
      }
      return estimate;
    }
    case LogicalKind::kJoin:
      return Join(child(0), child(1), node.join_type, node.predicate);
    case LogicalKind::kSort:
    case LogicalKind::kLimit: {
      RelationEstimate estimate = child(0);
      if (node.limit) estimate.rows = std::min(estimate.rows, static_cast<double>(*node.limit));
      return estimate;
    }
    case LogicalKind::kWindow:
    case LogicalKind::kGenerate: {
      const RelationEstimate& input = child(0);
      RelationEstimate estimate = unknown_columns(input.rows);
      std::copy(input.columns.begin(), input.columns.end(), estimate.columns.begin());
      return estimate;
    }
    case LogicalKind::kExpand:
      return unknown_columns(child(0).rows * static_cast<double>(node.projections.size()));
    case LogicalKind::kUnion: {
      double rows = 0;
      for (size_t i = 0; i < node.children.size(); ++i) rows += child(i).rows;
      return unknown_columns(rows);
    }
    case LogicalKind::kSetOperation:
      return unknown_columns(child(0).rows);
    case LogicalKind::kDistinct: {
      RelationEstimate estimate = child(0);
      double rows = 1;
      for (const ColumnEstimate& column : estimate.columns) {
        rows = std::min(rows * (column.distinct ? *column.distinct + 1 : estimate.rows),
                        estimate.rows);
      }
      estimate.rows = std::max(1.0, std::min(rows, estimate.rows));
      return estimate;
    }
  }
  return unknown_columns(node.children.empty() ? 1 : child(0).rows);
}

}  // namespace silt::sql
