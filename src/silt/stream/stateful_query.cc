#include "silt/stream/stateful_query.h"

#include <map>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/exec/aggregate_function.h"
#include "silt/expr/duration_text.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"

namespace silt::stream {

namespace {

std::string Quote(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// `parquet.`<path>``: a state version read as a table.
std::string StateTable(const std::string& path) {
  std::string out = "parquet.`";
  for (char c : path) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string WatermarkLiteral(int64_t watermark_ms) {
  return "timestamp_millis(" + std::to_string(watermark_ms) + "L)";
}

[[noreturn]] void ThrowMode(OutputMode mode, const std::string& operation) {
  SILT_THROW(STREAMING_OUTPUT_MODE_UNSUPPORTED,
             {{"outputMode", std::string(OutputModeName(mode))}, {"operation", operation}});
}

[[noreturn]] void ThrowUnsupported(const std::string& message) {
  SILT_THROW(UNSUPPORTED_FEATURE, {{"message", message}});
}

// Calls `visit` with every table reference of `query` (FROM items, joins, subqueries in FROM,
// CTEs and set operations), outermost first, as a mutable node.
template <typename Visit>
void ForEachTable(const sql::Query& query, Visit&& visit);

template <typename Visit>
void ForEachTable(const sql::TableReferencePtr& table, Visit&& visit) {
  if (!table) return;
  visit(*table);
  if (table->subquery) ForEachTable(*table->subquery, visit);
  ForEachTable(table->left, visit);
  ForEachTable(table->right, visit);
}

template <typename Visit>
void ForEachTable(const sql::Query& query, Visit&& visit) {
  for (const sql::CommonTableExpression& cte : query.with) {
    if (cte.query) ForEachTable(*cte.query, visit);
  }
  for (const sql::TableReferencePtr& item : query.from) ForEachTable(item, visit);
  if (query.left) ForEachTable(*query.left, visit);
  if (query.right) ForEachTable(*query.right, visit);
}

bool IsAggregateCall(const sql::Expression& expression) {
  return expression.kind == sql::ExpressionKind::kFunction && !expression.window &&
         expression.name.size() == 1 && exec::IsAggregateFunction(AsciiLower(expression.name[0]));
}

bool HasAggregate(const sql::ExpressionPtr& expression) {
  if (!expression) return false;
  if (IsAggregateCall(*expression)) return true;
  for (const sql::ExpressionPtr& child : expression->children) {
    if (HasAggregate(child)) return true;
  }
  for (const auto& [when, then] : expression->when_clauses) {
    if (HasAggregate(when) || HasAggregate(then)) return true;
  }
  return HasAggregate(expression->case_operand) || HasAggregate(expression->else_result);
}

bool IsColumnNamed(const sql::Expression& expression, const std::string& name) {
  return expression.kind == sql::ExpressionKind::kColumn && !expression.name.empty() &&
         AsciiLower(expression.name.back()) == AsciiLower(name);
}

// Rewrites the select items, HAVING and ORDER BY of an aggregation into expressions over the
// state's key and partial columns, collecting the partial aggregates on the way.
class AggregateRewriter {
 public:
  explicit AggregateRewriter(std::vector<sql::ExpressionPtr> keys) : keys_(std::move(keys)) {
    for (const sql::ExpressionPtr& key : keys_) key_text_.push_back(sql::ToString(*key));
  }

  sql::ExpressionPtr Rewrite(const sql::ExpressionPtr& expression) {
    if (!expression) return expression;
    if (std::optional<size_t> key = KeyOf(*expression)) {
      return sql::ParseExpression("`__k" + std::to_string(*key) + "`");
    }
    if (IsAggregateCall(*expression)) return Aggregate(*expression);
    auto copy = std::make_shared<sql::Expression>(*expression);
    for (sql::ExpressionPtr& child : copy->children) child = Rewrite(child);
    for (auto& [when, then] : copy->when_clauses) {
      when = Rewrite(when);
      then = Rewrite(then);
    }
    copy->case_operand = Rewrite(copy->case_operand);
    copy->else_result = Rewrite(copy->else_result);
    return copy;
  }

  const std::vector<sql::ExpressionPtr>& partials() const { return partials_; }
  const std::vector<std::string>& merges() const { return merges_; }

 private:
  std::optional<size_t> KeyOf(const sql::Expression& expression) const {
    std::string text = sql::ToString(expression);
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (text == key_text_[i]) return i;
      if (expression.kind == sql::ExpressionKind::kColumn &&
          keys_[i]->kind == sql::ExpressionKind::kColumn &&
          IsColumnNamed(expression, keys_[i]->name.back())) {
        return i;
      }
    }
    return std::nullopt;
  }

  // The partial column computing `call` (added once per distinct call text).
  std::string Partial(sql::ExpressionPtr call, const std::string& merge) {
    std::string text = sql::ToString(*call);
    auto found = index_.find(text);
    if (found != index_.end()) return found->second;
    std::string column = "`__p" + std::to_string(partials_.size()) + "`";
    index_.emplace(text, column);
    partials_.push_back(std::move(call));
    merges_.push_back(merge);
    return column;
  }

  sql::ExpressionPtr Aggregate(const sql::Expression& call) {
    std::string name = AsciiLower(call.name[0]);
    if (call.distinct) {
      ThrowUnsupported("DISTINCT aggregates (" + sql::ToString(call) +
                       ") in a streaming aggregation");
    }
    auto renamed = [&](const std::string& new_name) {
      auto copy = std::make_shared<sql::Expression>(call);
      copy->name = {new_name};
      return copy;
    };
    if (name == "count" || name == "count_if") {
      return sql::ParseExpression(Partial(renamed(name), "count"));
    }
    if (name == "sum" || name == "min" || name == "max") {
      return sql::ParseExpression(Partial(renamed(name), name));
    }
    if (name == "avg" || name == "mean") {
      std::string sum = Partial(renamed("sum"), "sum");
      std::string count = Partial(renamed("count"), "count");
      return sql::ParseExpression("CASE WHEN " + count + " = 0 THEN NULL ELSE " + sum + " / " +
                                  count + " END");
    }
    ThrowUnsupported("the aggregate " + name +
                     " in a streaming aggregation (its partial results cannot be kept between "
                     "batches yet; count, count_if, sum, min, max and avg can)");
  }

  std::vector<sql::ExpressionPtr> keys_;
  std::vector<std::string> key_text_;
  std::vector<sql::ExpressionPtr> partials_;
  std::vector<std::string> merges_;
  std::map<std::string, std::string> index_;
};

}  // namespace

std::optional<Watermark> FindWatermark(const sql::Query& query) {
  std::optional<Watermark> found;
  ForEachTable(query, [&](const sql::TableReference& table) {
    std::optional<std::string> column;
    std::optional<std::string> delay;
    for (const auto& [key, value] : table.stream_options) {
      if (key == kWatermarkColumnOption) column = value;
      if (key == kWatermarkDelayOption) delay = value;
    }
    if (!column || !delay || found) return;
    std::string text;
    for (char c : *delay) {
      if (c != '\'' && c != '"') text += c;
    }
    std::optional<int64_t> micros = expr::ParseDurationMicros(text);
    if (!micros || *micros < 0) {
      SILT_THROW(INVALID_STREAMING_OPTION,
                 {{"value", *delay},
                  {"option", "watermark delay"},
                  {"reason",
                   "expected a non-negative interval of weeks, days, hours, minutes, "
                   "seconds or milliseconds, such as '10 minutes'"}});
    }
    found = Watermark{*column, *micros / 1000};
  });
  return found;
}

void SetWatermark(sql::Query& query, const std::string& column, const std::string& delay) {
  bool set = false;
  // The references are shared pointers to mutable nodes: the visitor may change them.
  ForEachTable(query, [&](sql::TableReference& table) {
    if (!table.stream || set) return;
    auto& options = table.stream_options;
    std::erase_if(options, [](const auto& entry) {
      return entry.first == kWatermarkColumnOption || entry.first == kWatermarkDelayOption;
    });
    options.emplace_back(std::string(kWatermarkColumnOption), column);
    options.emplace_back(std::string(kWatermarkDelayOption), delay);
    set = true;
  });
  SILT_CHECK(set, "a streaming query reads STREAM(...)");
}

std::optional<StatefulQuery> StatefulQuery::Plan(const sql::Query& query,
                                                 const std::optional<Deduplication>& deduplication,
                                                 OutputMode mode, const Schema& output) {
  std::optional<Watermark> watermark = FindWatermark(query);
  bool select = query.kind == sql::QueryKind::kSelect;
  bool aggregates = false;
  if (select) {
    aggregates = !query.group_by.empty() || query.group_by_all ||
                 !query.grouping_elements.empty() || HasAggregate(query.having);
    for (const sql::SelectItem& item : query.select_list)
      aggregates |= HasAggregate(item.expression);
  }
  if (deduplication) {
    if (aggregates || (select && query.distinct)) {
      ThrowUnsupported(
          "dropDuplicates over a query that aggregates or is DISTINCT (a streaming "
          "query has one stateful operator)");
    }
    return PlanDeduplicate(query, deduplication->columns, deduplication->within_watermark, mode,
                           output, watermark);
  }
  if (aggregates) {
    if (mode != OutputMode::kComplete) return PlanAggregate(query, mode, output, watermark);
    // Complete mode can do without state: an aggregation whose partial results cannot be kept
    // is recomputed over everything the stream read, as before state existed.
    try {
      return PlanAggregate(query, mode, output, watermark);
    } catch (const Error& error) {
      if (error.error_class() != "UNSUPPORTED_FEATURE") throw;
      return std::nullopt;
    }
  }
  if (select && query.distinct) {
    // DISTINCT over a stream is a deduplication of whole rows (Spark's Dataset.distinct).
    auto input = std::make_shared<sql::Query>(query);
    input->distinct = false;
    return PlanDeduplicate(*input, {}, false, mode, output, watermark);
  }
  return std::nullopt;
}

StatefulQuery StatefulQuery::PlanAggregate(const sql::Query& query, OutputMode mode,
                                           const Schema& output,
                                           const std::optional<Watermark>& watermark) {
  if (query.group_by_all || !query.grouping_elements.empty()) {
    ThrowUnsupported("GROUP BY ALL, GROUPING SETS, ROLLUP and CUBE in a streaming aggregation");
  }
  if (query.qualify || !query.windows.empty()) {
    ThrowUnsupported("QUALIFY and WINDOW clauses in a streaming aggregation");
  }
  if (mode != OutputMode::kComplete && (!query.order_by.empty() || query.limit || query.offset)) {
    ThrowMode(mode, "sorting or LIMIT after a streaming aggregation (only complete mode can)");
  }
  if (query.select_list.size() != output.num_fields()) {
    ThrowUnsupported("a star in the SELECT list of a streaming aggregation");
  }
  StatefulQuery plan;
  plan.kind_ = Kind::kAggregate;
  plan.mode_ = mode;
  plan.watermark_ = watermark;

  // Group keys as written; an ordinal or a select alias stands for the select item.
  std::vector<sql::ExpressionPtr> keys;
  for (const sql::ExpressionPtr& key : query.group_by) {
    sql::ExpressionPtr resolved = key;
    if (key->kind == sql::ExpressionKind::kLiteral &&
        key->literal_kind == sql::LiteralKind::kInteger) {
      size_t ordinal = std::stoul(key->text);
      if (ordinal >= 1 && ordinal <= query.select_list.size()) {
        resolved = query.select_list[ordinal - 1].expression;
      }
    } else if (key->kind == sql::ExpressionKind::kColumn && key->name.size() == 1) {
      for (const sql::SelectItem& item : query.select_list) {
        if (!item.alias.empty() && AsciiLower(item.alias) == AsciiLower(key->name[0]) &&
            !IsColumnNamed(*item.expression, key->name[0])) {
          resolved = item.expression;
        }
      }
    }
    keys.push_back(resolved);
  }
  AggregateRewriter rewriter(keys);
  for (size_t i = 0; i < query.select_list.size(); ++i) {
    const Field& field = output.field(i);
    std::string item = sql::ToString(*rewriter.Rewrite(query.select_list[i].expression));
    // Merged partials may be wider than the aggregate's own type (sum of decimals).
    TypeId id = field.type->id();
    bool numeric = id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger ||
                   id == TypeId::kLong || id == TypeId::kFloat || id == TypeId::kDouble ||
                   id == TypeId::kDecimal;
    if (numeric) item = "CAST(" + item + " AS " + field.type->ToString() + ")";
    plan.output_items_.push_back(item + " AS " + Quote(field.name));
  }
  if (query.having) plan.having_ = sql::ToString(*rewriter.Rewrite(query.having));
  if (!query.order_by.empty()) {
    std::vector<std::string> order;
    for (const sql::OrderItem& item : query.order_by) {
      sql::OrderItem rewritten = item;
      rewritten.expression = rewriter.Rewrite(item.expression);
      std::string text = sql::ToString(*rewritten.expression);
      if (item.direction == sql::SortDirection::kAscending) text += " ASC";
      if (item.direction == sql::SortDirection::kDescending) text += " DESC";
      if (item.null_order == sql::NullOrder::kNullsFirst) text += " NULLS FIRST";
      if (item.null_order == sql::NullOrder::kNullsLast) text += " NULLS LAST";
      order.push_back(text);
    }
    plan.order_and_limit_ = " ORDER BY " + Join(order);
  }
  if (query.limit) plan.order_and_limit_ += " LIMIT " + sql::ToString(*query.limit);
  if (query.offset) plan.order_and_limit_ += " OFFSET " + sql::ToString(*query.offset);

  // The partial query: the same FROM, WHERE and GROUP BY, keys then partial aggregates.
  auto partial = std::make_shared<sql::Query>(query);
  partial->select_list.clear();
  partial->having = nullptr;
  partial->order_by.clear();
  partial->limit = nullptr;
  partial->offset = nullptr;
  partial->group_by = keys;
  for (size_t i = 0; i < keys.size(); ++i) {
    plan.key_columns_.push_back("`__k" + std::to_string(i) + "`");
    partial->select_list.push_back({keys[i], "__k" + std::to_string(i), {}});
  }
  for (size_t i = 0; i < rewriter.partials().size(); ++i) {
    std::string column = "`__p" + std::to_string(i) + "`";
    partial->select_list.push_back({rewriter.partials()[i], "__p" + std::to_string(i), {}});
    const std::string& merge = rewriter.merges()[i];
    plan.partial_merges_.emplace_back(column, merge == "count" ? "coalesce(sum(" + column + "), 0L)"
                                                               : merge + "(" + column + ")");
  }
  plan.partial_sql_ = sql::ToString(*partial);

  // The input: the rows that enter the aggregation.
  auto input = std::make_shared<sql::Query>(query);
  auto star = std::make_shared<sql::Expression>();
  star->kind = sql::ExpressionKind::kStar;
  input->select_list = {{star, "", {}}};
  input->group_by.clear();
  input->having = nullptr;
  input->order_by.clear();
  input->limit = nullptr;
  input->offset = nullptr;
  plan.input_ = input;

  // A watermark evicts by the group key on the event time: the column, or window(column, ...)
  // whose end the watermark passes.
  if (watermark && mode != OutputMode::kComplete) {
    for (size_t i = 0; i < keys.size() && plan.eviction_column_.empty(); ++i) {
      const sql::Expression& key = *keys[i];
      if (IsColumnNamed(key, watermark->column)) {
        plan.eviction_column_ = plan.key_columns_[i];
      } else if (key.kind == sql::ExpressionKind::kFunction && key.name.size() == 1 &&
                 AsciiLower(key.name[0]) == "window" && !key.children.empty() &&
                 IsColumnNamed(*key.children[0], watermark->column)) {
        plan.eviction_column_ = plan.key_columns_[i] + ".`end`";
      }
    }
  }
  if (mode == OutputMode::kAppend && plan.eviction_column_.empty()) {
    ThrowMode(mode,
              "streaming aggregations without a watermark on a grouping key (append mode "
              "writes a group once, when the watermark passes it: group by the watermark "
              "column or a window over it)");
  }
  return plan;
}

StatefulQuery StatefulQuery::PlanDeduplicate(const sql::Query& query, std::vector<std::string> keys,
                                             bool within_watermark, OutputMode mode,
                                             const Schema& output,
                                             const std::optional<Watermark>& watermark) {
  if (mode == OutputMode::kComplete) {
    ThrowMode(mode, "a streaming deduplication without an aggregation");
  }
  if (!query.order_by.empty() || query.limit || query.offset) {
    ThrowMode(mode, "sorting or LIMIT over a streaming deduplication");
  }
  StatefulQuery plan;
  plan.kind_ = within_watermark ? Kind::kDeduplicateWithinWatermark : Kind::kDeduplicate;
  plan.mode_ = mode;
  plan.watermark_ = watermark;
  plan.input_ = std::make_shared<sql::Query>(query);
  std::vector<std::string> names;
  for (const Field& field : output.fields()) {
    plan.columns_.push_back(Quote(field.name));
    names.push_back(Quote(field.name));
  }
  auto find = [&](const std::string& column) -> std::string {
    int index = output.FieldIndex(column, /*case_sensitive=*/false);
    if (index < 0) {
      SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", Quote(column)}, {"proposal", Join(names)}});
    }
    return Quote(output.field(static_cast<size_t>(index)).name);
  };
  if (keys.empty()) {
    plan.keys_ = plan.columns_;
  } else {
    for (const std::string& key : keys) plan.keys_.push_back(find(key));
  }
  if (within_watermark) {
    if (!watermark) {
      ThrowUnsupported("dropDuplicatesWithinWatermark without a watermark on the stream");
    }
    plan.event_time_ = find(watermark->column);
    plan.delay_micros_ = watermark->delay_ms * 1000;
    plan.eviction_column_ = "`__expires_at`";
  } else if (watermark) {
    // Keys are evicted by their event time when it is one of them; otherwise state grows.
    int index = output.FieldIndex(watermark->column, /*case_sensitive=*/false);
    if (index >= 0) {
      std::string column = Quote(output.field(static_cast<size_t>(index)).name);
      for (const std::string& key : plan.keys_) {
        if (key == column) plan.eviction_column_ = column;
      }
    }
  }
  return plan;
}

std::string_view StatefulQuery::operator_name() const {
  switch (kind_) {
    case Kind::kAggregate:
      return "stateStoreSave";
    case Kind::kDeduplicate:
      return "dedupe";
    case Kind::kDeduplicateWithinWatermark:
      return "dedupeWithinWatermark";
  }
  return "stateStoreSave";
}

std::string StatefulQuery::ExpiredSql(int64_t watermark_ms) const {
  if (eviction_column_.empty()) return "false";
  return "coalesce(" + eviction_column_ + " <= " + WatermarkLiteral(watermark_ms) + ", false)";
}

std::string StatefulQuery::StateSql(const std::string& previous, int64_t watermark_ms) const {
  std::string expired = ExpiredSql(watermark_ms);
  if (kind_ == Kind::kAggregate) {
    std::vector<std::string> columns = key_columns_;
    std::vector<std::string> merged = key_columns_;
    for (const auto& [column, merge] : partial_merges_) {
      columns.push_back(column);
      merged.push_back(merge + " AS " + column);
    }
    std::string rows = "SELECT " + Join(columns) + ", true AS `__updated` FROM (" + partial_sql_ +
                       ") AS `__partial`";
    if (!previous.empty()) {
      rows = "SELECT " + Join(columns) + ", false AS `__updated` FROM " + StateTable(previous) +
             " WHERE NOT `__expired` UNION ALL " + rows;
    }
    std::string sql = "SELECT " + Join(merged) +
                      ", max(CASE WHEN `__updated` THEN 1 ELSE 0 END) = 1 AS `__updated`";
    if (key_columns_.empty()) {
      return sql + ", false AS `__expired` FROM (" + rows + ") AS `__rows`";
    }
    // The keys are the group's: an expression over them may follow the GROUP BY.
    return "SELECT *, " + expired + " AS `__expired` FROM (" + sql + " FROM (" + rows +
           ") AS `__rows` GROUP BY " + Join(key_columns_) + ") AS `__merged`";
  }

  bool within = kind_ == Kind::kDeduplicateWithinWatermark;
  std::vector<std::string> kept_columns = columns_;
  if (within) kept_columns.push_back("`__expires_at`");
  std::string kept = previous.empty()
                         ? "SELECT " + Join(columns_) +
                               (within ? ", CAST(NULL AS TIMESTAMP) AS `__expires_at`" : "") +
                               " FROM `__input` WHERE false"
                         : "SELECT " + Join(kept_columns) + " FROM " + StateTable(previous) +
                               " WHERE NOT `__expired`";
  std::vector<std::string> fresh_columns;
  for (const std::string& column : columns_) fresh_columns.push_back("`__fresh`." + column);
  std::vector<std::string> matches;
  for (const std::string& key : keys_) {
    matches.push_back("`__fresh`." + key + " <=> `__kept`." + key);
  }
  std::string expires;
  if (within) {
    expires = ", `__fresh`." + event_time_ + " + INTERVAL '" + std::to_string(delay_micros_) +
              "' MICROSECOND AS `__expires_at`";
  }
  return "WITH `__input` AS (" + sql::ToString(*input_) + "), `__kept` AS (" + kept +
         "), `__fresh` AS (SELECT " + Join(columns_) + " FROM (SELECT " + Join(columns_) +
         ", row_number() OVER (PARTITION BY " + Join(keys_) +
         " ORDER BY 1) AS `__row` FROM `__input`) AS `__numbered` WHERE `__row` = 1) "
         "SELECT " +
         Join(kept_columns) + ", false AS `__updated`, " + expired +
         " AS `__expired` FROM `__kept` UNION ALL SELECT " + Join(fresh_columns) + expires +
         ", true AS `__updated`, false AS `__expired` FROM `__fresh` LEFT ANTI JOIN `__kept` ON " +
         Join(matches, " AND ");
}

std::string StatefulQuery::OutputSql(const std::string& state) const {
  if (kind_ != Kind::kAggregate) {
    return "SELECT " + Join(columns_) + " FROM " + StateTable(state) + " WHERE `__updated`";
  }
  std::string condition;
  switch (mode_) {
    case OutputMode::kComplete:
      condition = "true";
      break;
    case OutputMode::kUpdate:
      condition = "`__updated` AND NOT `__expired`";
      break;
    case OutputMode::kAppend:
      condition = "`__expired`";
      break;
  }
  if (!having_.empty()) condition += " AND (" + having_ + ")";
  return "SELECT " + Join(output_items_) + " FROM " + StateTable(state) + " WHERE " + condition +
         order_and_limit_;
}

std::string StatefulQuery::MetricsSql(const std::string& state) const {
  return "SELECT coalesce(sum(CASE WHEN `__expired` THEN 0 ELSE 1 END), 0L), "
         "coalesce(sum(CASE WHEN `__updated` THEN 1 ELSE 0 END), 0L), "
         "coalesce(sum(CASE WHEN `__expired` THEN 1 ELSE 0 END), 0L) FROM " +
         StateTable(state);
}

}  // namespace silt::stream
