#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "silt/sql/lexer.h"
#include "silt/types/data_type.h"

/// The abstract syntax tree of Spark SQL statements, as the parser produces it: names are kept as
/// written (case preserved; resolution is the binder's job), every node keeps its source
/// position. Nodes are plain structs; each documents which fields a kind uses, the rest stay empty.
namespace silt::sql {

struct Expression;
struct Query;
struct TableReference;
struct Statement;
using ExpressionPtr = std::shared_ptr<Expression>;
using QueryPtr = std::shared_ptr<Query>;
using TableReferencePtr = std::shared_ptr<TableReference>;
using StatementPtr = std::shared_ptr<Statement>;

/// A possibly qualified name (`db.t`, `t.col.field`), one part per element, as written.
using QualifiedName = std::vector<std::string>;

enum class LiteralKind {
  kNull,
  kBoolean,       ///< text "true" / "false"
  kInteger,       ///< fits in int32; text = digits
  kBigint,        ///< L suffix, or an unsuffixed integer that needs 64 bits
  kSmallint,      ///< S suffix
  kTinyint,       ///< Y suffix
  kDecimal,       ///< 1.5, an integer too large for 64 bits, or the BD suffix; text = digits
  kDouble,        ///< exponent or D suffix
  kFloat,         ///< F suffix
  kString,        ///< text = the value (adjacent literals concatenated)
  kBinary,        ///< X'..'; text = the hex digits
  kDate,          ///< DATE '...'; text = the value as written, validated
  kTimestamp,     ///< TIMESTAMP / TIMESTAMP_LTZ '...'
  kTimestampNtz,  ///< TIMESTAMP_NTZ '...'
  kInterval,      ///< INTERVAL ...; interval_parts hold (value, unit)
};

enum class ExpressionKind {
  kLiteral,         ///< literal_kind, text (+ interval_parts)
  kColumn,          ///< name: qualifiers then column (`t.a` = {"t","a"}); may also be a field path
  kStar,            ///< name: qualifier (empty for `*`); except_columns for `* EXCEPT (a, b)`
  kUnary,           ///< op in {"-", "+", "~", "NOT"}; children[0]
  kBinary,          ///< op: "OR","AND","=","==","<>","!=","<","<=",">",">=","<=>","+","-","*","/",
                    ///< "%","DIV","||","&","|","^","<<",">>",">>>"; children[0] op children[1]
  kIs,              ///< children[0] IS [NOT] op, op in {"NULL","TRUE","FALSE","UNKNOWN"}; negated
  kIsDistinctFrom,  ///< children[0] IS [NOT] DISTINCT FROM children[1]; negated = IS NOT
  kIn,              ///< children[0] [NOT] IN (children[1..]) or IN (subquery)
  kBetween,         ///< children[0] [NOT] BETWEEN children[1] AND children[2]
  kLike,            ///< op in {"LIKE","ILIKE","RLIKE"} (REGEXP is RLIKE); children[0..1]; escape
  kCase,            ///< case_operand (simple form), when_clauses, else_result
  kCast,            ///< children[0], cast_type; try_cast for TRY_CAST; op "::" for the :: form
  kFunction,        ///< name, children = arguments, distinct, filter, window (OVER)
  kLambda,          ///< lambda_parameters -> children[0]
  kFieldAccess,     ///< children[0].name[0] (a field of a non-column expression, e.g. `f(x).a`)
  kSubscript,       ///< children[0][children[1]]
  kScalarSubquery,  ///< (subquery)
  kExists,          ///< EXISTS (subquery); negated for NOT EXISTS is expressed as kUnary NOT
};

enum class SortDirection { kDefault, kAscending, kDescending };
enum class NullOrder { kDefault, kNullsFirst, kNullsLast };

/// One ORDER BY / SORT item.
struct OrderItem {
  ExpressionPtr expression;
  SortDirection direction = SortDirection::kDefault;
  NullOrder null_order = NullOrder::kDefault;
};

enum class FrameUnit { kRows, kRange };
enum class FrameBoundKind {
  kUnboundedPreceding,
  kPreceding,
  kCurrentRow,
  kFollowing,
  kUnboundedFollowing,
};

/// One end of a window frame; `offset` is set for kPreceding / kFollowing.
struct FrameBound {
  FrameBoundKind kind = FrameBoundKind::kCurrentRow;
  ExpressionPtr offset;
};

/// ROWS|RANGE BETWEEN start AND end (or a single start bound, end = CURRENT ROW).
struct WindowFrame {
  FrameUnit unit = FrameUnit::kRows;
  FrameBound start;
  FrameBound end;
};

/// OVER (...) or OVER name, and the WINDOW clause's definitions. `reference_name` is the named
/// window the specification refers to (`OVER w`, or `OVER (w ORDER BY x)`).
struct WindowSpec {
  std::string reference_name;
  std::vector<ExpressionPtr> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;
};

/// An expression node. See ExpressionKind for the fields each kind uses.
struct Expression {
  ExpressionKind kind = ExpressionKind::kLiteral;
  /// Where the node starts in the SQL text; for operators and postfix forms (binary, IS, IN,
  /// BETWEEN, LIKE, `.field`, `[i]`, `::`) the operator's own token, as Spark points errors there.
  SourcePosition position;

  LiteralKind literal_kind = LiteralKind::kNull;
  /// Literal value (see LiteralKind).
  std::string text;
  /// INTERVAL literal parts: (value as written, unit upper-cased), e.g. {"'1'", "DAY"}, or for
  /// `INTERVAL '1-2' YEAR TO MONTH` {"'1-2'", "YEAR TO MONTH"}.
  std::vector<std::pair<std::string, std::string>> interval_parts;

  /// Column / star qualifier / function / field name.
  QualifiedName name;
  std::string op;
  bool negated = false;
  std::vector<ExpressionPtr> children;

  /// kStar: `* EXCEPT (a, t.b)`.
  std::vector<QualifiedName> except_columns;
  /// kLike: the ESCAPE character, empty when absent.
  std::string escape;

  /// kCase.
  ExpressionPtr case_operand;
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> when_clauses;
  ExpressionPtr else_result;

  /// kCast.
  DataTypePtr cast_type;
  bool try_cast = false;

  /// kFunction.
  bool distinct = false;
  /// kFunction `struct(x AS name, y)`: one name per argument (empty where unaliased); empty when
  /// no argument is aliased.
  std::vector<std::string> argument_names;
  /// kFunction: CURRENT_DATE, CURRENT_TIMESTAMP or CURRENT_USER written without parentheses. As
  /// in Spark, a column of that name in scope wins over the function.
  bool niladic_keyword = false;
  ExpressionPtr filter;
  std::shared_ptr<WindowSpec> window;
  /// kFunction: `IGNORE NULLS` after lag, lead or nth_value (first, last and their kin take it
  /// as their boolean argument instead).
  bool ignore_nulls = false;
  /// kFunction: `WITHIN GROUP (ORDER BY ...)` of percentile_cont, percentile_disc and mode.
  std::vector<OrderItem> within_group;

  /// kLambda.
  std::vector<std::string> lambda_parameters;

  /// kIn with a subquery, kScalarSubquery, kExists.
  QueryPtr subquery;
};

/// VERSION AS OF n / TIMESTAMP AS OF expr / `t@v5` / `t@20240101000000000`.
struct TimeTravel {
  enum class Kind { kVersion, kTimestamp };
  Kind kind = Kind::kVersion;
  /// The version (an integer literal) or timestamp expression. For `@yyyyMMddHHmmssSSS` the
  /// timestamp is a string literal with the digits as written.
  ExpressionPtr value;
};

/// TABLESAMPLE (x PERCENT | n ROWS | BUCKET x OUT OF y) [REPEATABLE (seed)] after a table name.
struct TableSample {
  enum class Kind { kPercent, kRows, kBucket };
  Kind kind = Kind::kPercent;
  ExpressionPtr amount;  ///< kPercent: the percentage; kRows: the row count
  int64_t numerator = 0;    ///< kBucket
  int64_t denominator = 0;  ///< kBucket
  std::optional<int64_t> seed;
};

enum class TableReferenceKind {
  kTable,        ///< name (`db.t`, `delta.`/path``, `parquet.`/p``); time_travel; alias
  kSubquery,     ///< (query) alias [(columns)]
  kValues,       ///< VALUES rows alias [(columns)]
  kFunction,     ///< table function call (`range(10)`, `table_changes('t', 1)`): function
  kJoin,         ///< left join_type right [ON condition | USING (using_columns)]; natural
  kLateralView,  ///< left LATERAL VIEW [OUTER] function alias AS column_aliases
  kPivot,        ///< left PIVOT (pivot); alias
  kUnpivot,      ///< left UNPIVOT [INCLUDE|EXCLUDE NULLS] (unpivot) [[AS] alias]
};

enum class JoinType { kInner, kLeftOuter, kRightOuter, kFullOuter, kCross, kLeftSemi, kLeftAnti };

/// PIVOT (aggregates FOR columns IN (values)): each value is a tuple with one expression per
/// pivot column, optionally aliased.
struct PivotSpec {
  std::vector<ExpressionPtr> aggregates;
  std::vector<std::string> aggregate_aliases;  ///< empty string where an aggregate has no alias
  std::vector<QualifiedName> columns;
  std::vector<std::vector<ExpressionPtr>> values;
  std::vector<std::string> value_aliases;  ///< empty string where a value has no alias
  std::vector<SourcePosition> value_positions;
};

/// UNPIVOT: `value FOR name IN (c1 [AS a], ...)`, or with several value columns
/// `(v1, v2) FOR name IN ((c1, c2) [AS a], ...)`.
struct UnpivotSpec {
  bool include_nulls = false;
  std::vector<std::string> value_columns;
  std::string name_column;
  std::vector<std::vector<QualifiedName>> columns;  ///< one set per IN item
  std::vector<std::string> aliases;                 ///< empty string where an item has no alias
  std::vector<SourcePosition> positions;
};

/// An item of FROM. See TableReferenceKind for the fields each kind uses.
struct TableReference {
  TableReferenceKind kind = TableReferenceKind::kTable;
  SourcePosition position;
  QualifiedName name;
  std::optional<TimeTravel> time_travel;
  std::optional<TableSample> sample;  ///< kTable: TABLESAMPLE (...)
  std::string alias;
  std::vector<std::string> column_aliases;
  QueryPtr subquery;
  std::vector<std::vector<ExpressionPtr>> values;
  ExpressionPtr function;
  // Joins and lateral views.
  TableReferencePtr left;
  TableReferencePtr right;
  JoinType join_type = JoinType::kInner;
  bool natural = false;
  ExpressionPtr condition;
  std::vector<std::string> using_columns;
  bool outer = false;  ///< LATERAL VIEW OUTER
  std::shared_ptr<PivotSpec> pivot;
  std::shared_ptr<UnpivotSpec> unpivot;
  /// kTable: `STREAM(name)`, the table read as a stream (only a streaming table's query may).
  bool stream = false;
  /// `STREAM(name) WITH (key = value, ...)`: the stream's source options (skipChangeCommits...).
  std::vector<std::pair<std::string, std::string>> stream_options;
  /// `STREAM name(arguments)`: a source function read as a stream (`read_files('/in', format =>
  /// 'json')`), `name` its name; positional literal arguments as text here, named ones
  /// (`key => value`) in stream_options.
  bool stream_call = false;
  std::vector<std::string> stream_arguments;
};

/// One item of a SELECT list.
struct SelectItem {
  ExpressionPtr expression;
  std::string alias;
  /// `AS (a, b)` for generators, e.g. `SELECT explode(m) AS (k, v)`.
  std::vector<std::string> column_aliases;
};

/// WITH name [(columns)] AS (query).
struct CommonTableExpression {
  std::string name;
  std::vector<std::string> columns;
  QueryPtr query;
};

/// ROLLUP (...), CUBE (...) or GROUPING SETS (...) in GROUP BY. For ROLLUP and CUBE each group
/// is one element as written (`a`, or `(a, b)` for a composite element); for GROUPING SETS each
/// group is one grouping set (`()` is empty), a nested ROLLUP/CUBE already expanded to its sets.
struct GroupingAnalytics {
  enum class Kind { kRollup, kCube, kGroupingSets };
  Kind kind = Kind::kGroupingSets;
  SourcePosition position;
  std::vector<std::vector<ExpressionPtr>> groups;
};

/// One item of a GROUP BY clause with grouping analytics: an expression, or an analytics element.
struct GroupingElement {
  ExpressionPtr expression;
  std::optional<GroupingAnalytics> analytics;
};

enum class QueryKind {
  kSelect,        ///< SELECT ... FROM ...
  kValues,        ///< VALUES (..), (..) used as a query
  kSetOperation,  ///< left set_operator right
  kTable,         ///< TABLE t
};

enum class SetOperator { kUnion, kIntersect, kExcept };

/// A query expression. ORDER BY / LIMIT / OFFSET and WITH apply to the whole node, whatever its
/// kind (so `SELECT .. UNION SELECT .. ORDER BY x` orders the union).
struct Query {
  QueryKind kind = QueryKind::kSelect;
  SourcePosition position;
  std::vector<CommonTableExpression> with;

  // kSelect.
  bool distinct = false;
  std::vector<SelectItem> select_list;
  /// Comma-separated FROM items (each may be a join tree); empty without FROM.
  std::vector<TableReferencePtr> from;
  ExpressionPtr where;
  std::vector<ExpressionPtr> group_by;
  bool group_by_all = false;
  /// GROUP BY with ROLLUP, CUBE or GROUPING SETS (then `group_by` is empty): the items in order;
  /// `GROUP BY a, b WITH ROLLUP` is one ROLLUP element. `grouping_sets_legacy` marks Hive's
  /// `GROUP BY a, b GROUPING SETS (...)`: the items are the leading expressions followed by one
  /// GROUPING SETS element, and only that element's sets are the grouping sets.
  std::vector<GroupingElement> grouping_elements;
  bool grouping_sets_legacy = false;
  ExpressionPtr having;
  ExpressionPtr qualify;
  std::vector<std::pair<std::string, WindowSpec>> windows;

  // kValues.
  std::vector<std::vector<ExpressionPtr>> values;

  // kTable.
  QualifiedName table_name;

  // kSetOperation.
  SetOperator set_operator = SetOperator::kUnion;
  bool set_all = false;  ///< UNION ALL; DISTINCT is the default
  QueryPtr left;
  QueryPtr right;

  // Any kind.
  std::vector<OrderItem> order_by;
  ExpressionPtr limit;  ///< null for no LIMIT or LIMIT ALL
  bool limit_all = false;
  ExpressionPtr offset;
};

/// GENERATED ALWAYS|BY DEFAULT AS IDENTITY [(START WITH start INCREMENT BY step)].
struct IdentitySpec {
  bool always = true;  ///< false for BY DEFAULT
  int64_t start = 1;
  int64_t step = 1;
};

/// A column in CREATE TABLE / ADD COLUMNS / CONVERT ... PARTITIONED BY.
struct ColumnDefinition {
  std::string name;
  /// ALTER TABLE ADD COLUMNS of a nested field (`s.t.c INT`): the path of the struct that gets
  /// the field ({"s", "t"}); empty for a top-level column.
  QualifiedName parent_path;
  DataTypePtr type;
  bool nullable = true;
  ExpressionPtr generated_as;  ///< GENERATED ALWAYS AS (expr)
  std::optional<IdentitySpec> identity;
  ExpressionPtr default_value;
  std::optional<std::string> comment;
  /// ALTER TABLE ADD COLUMNS ... FIRST | AFTER col: where the column goes among its siblings,
  /// "" for FIRST, the sibling's name for AFTER; nullopt: at the end.
  std::optional<std::string> position;
};

/// CONSTRAINT name CHECK (expr).
struct CheckConstraint {
  std::string name;
  ExpressionPtr check;
};

/// `column = value` of UPDATE SET / MERGE UPDATE SET; column may be a nested field path.
struct Assignment {
  QualifiedName column;
  ExpressionPtr value;
};

enum class MergeMatch { kMatched, kNotMatchedByTarget, kNotMatchedBySource };
enum class MergeAction { kUpdate, kUpdateStar, kDelete, kInsert, kInsertStar };

/// WHEN [NOT] MATCHED [BY TARGET|SOURCE] [AND condition] THEN action.
struct MergeClause {
  MergeMatch match = MergeMatch::kMatched;
  ExpressionPtr condition;
  MergeAction action = MergeAction::kDelete;
  std::vector<Assignment> assignments;        ///< kUpdate
  std::vector<QualifiedName> insert_columns;  ///< kInsert
  std::vector<ExpressionPtr> insert_values;   ///< kInsert
  SourcePosition position;
};

/// The columns an AUTO CDC clause names: `*`, `* EXCEPT (a, b)` or a list `(a, b)`.
struct ColumnSelection {
  bool all = true;                   ///< `*` (with `columns` the excepted ones)
  std::vector<std::string> columns;  ///< the listed columns, or those EXCEPT leaves out
};

/// AUTO CDC INTO target FROM source KEYS (...) ... (Databricks' syntax; APPLY CHANGES INTO is
/// its older spelling). The target is the statement's `name`.
struct AutoCdc {
  TableReferencePtr source;  ///< STREAM(src) [WITH (...)] [alias], or a subquery over one
  std::vector<std::string> keys;
  bool ignore_null_updates = false;
  ExpressionPtr apply_as_delete;    ///< APPLY AS DELETE WHEN
  ExpressionPtr apply_as_truncate;  ///< APPLY AS TRUNCATE WHEN
  ExpressionPtr sequence_by;
  std::optional<ColumnSelection> columns;        ///< COLUMNS
  int scd_type = 1;                              ///< STORED AS SCD TYPE 1 | 2
  std::optional<ColumnSelection> track_history;  ///< TRACK HISTORY ON
  bool apply_changes_spelling = false;           ///< written APPLY CHANGES INTO
};

enum class AlterTableAction {
  kSetProperties,
  kUnsetProperties,
  kAddColumns,
  kAddConstraint,
  kDropConstraint,
  kRenameColumn,
  kAlterColumn,  ///< ALTER COLUMN c [TYPE t | SET NOT NULL | DROP NOT NULL | COMMENT '..']
  kDropColumns,
  kDropFeature,  ///< DROP FEATURE name [TRUNCATE HISTORY]
  kClusterBy,    ///< CLUSTER BY (c, s.f) | CLUSTER BY NONE (cluster_columns empty)
};

enum class StatementKind {
  kQuery,
  kCreateTable,  ///< also CREATE OR REPLACE TABLE and REPLACE TABLE (replace = true)
  kCreateView,
  kCreateDatabase,
  kDropTable,
  kDropView,
  kDropDatabase,
  kUse,
  kInsert,
  kMerge,
  kUpdate,
  kDelete,
  kAlterTable,
  kDescribeTable,
  kDescribeDetail,
  kDescribeHistory,
  kDescribeHealth,
  kShowTables,
  kShowDatabases,
  kShowTableProperties,
  kShowCreateTable,
  kShowColumns,
  kShowViews,
  kExplain,
  kSet,
  kReset,
  kRestore,
  kVacuum,
  kOptimize,
  kConvertToDelta,
  kCreateStreamingTable,   ///< CREATE [OR REFRESH] STREAMING TABLE ... [AS query | FLOW AUTO CDC]
  kRefreshStreamingTable,  ///< REFRESH STREAMING TABLE name [FULL] [EVERY 'interval']
  kCreateFlow,             ///< CREATE FLOW name [COMMENT '...'] AS body
  kAutoCdc,                ///< AUTO CDC INTO / APPLY CHANGES INTO (a flow's body)
};

/// A parsed statement. Which fields a kind uses:
/// - kQuery: query.
/// - kCreateTable: name, columns, constraints, provider, partition_columns, cluster_columns,
///   location, comment, properties, query (AS ...), or_replace (OR REPLACE), replace (REPLACE
///   TABLE), if_not_exists. With `source` set it is a SHALLOW CLONE of that table (kTable, with
///   its time_travel), and only name, properties, location and the three flags are used.
/// - kCreateView: name, temporary, or_replace, if_not_exists, column_names (with their COMMENTs
///   in `columns`, types unset), comment, properties, query; `ALTER VIEW v AS query` is a
///   kCreateView with replace = true.
/// - kCreateDatabase: name, if_not_exists, comment, location. kDrop*: name, if_exists.
/// - kUse: name (always present; `USE DATABASE d` and `USE d` give the same node).
/// - kInsert: name, overwrite, insert_partitions, if_not_exists (after PARTITION), by_name or
///   column_names, replace_where, query (VALUES is a kValues query).
/// - kMerge: target (kTable, alias), source, condition, merge_clauses, schema_evolution, with
///   (`WITH ... MERGE`: CTEs the source may read; UPDATE and DELETE keep theirs in `with` too).
/// - kUpdate: target, assignments, where. kDelete: target, where.
/// - kAlterTable: name, alter_action and: properties / property_keys + if_exists (UNSET),
///   columns (ADD COLUMNS, ALTER COLUMN TYPE), constraints[0] (ADD CONSTRAINT), constraint_name +
///   if_exists (DROP CONSTRAINT), column_path + new_name (RENAME COLUMN), column_path +
///   alter_column_change (ALTER COLUMN), column_paths (DROP COLUMNS), cluster_columns (CLUSTER
///   BY; empty for CLUSTER BY NONE).
/// - kDescribeTable: name, extended. kDescribeDetail: name. kDescribeHistory: name, limit.
///   kDescribeHealth: name.
/// - kShowTables, kShowViews: name (IN db), pattern. kShowDatabases: pattern. kShowTableProperties: name,
///   property_keys. kShowCreateTable / kShowColumns: name (+ database for SHOW COLUMNS IN t IN db).
/// - kExplain: explain_mode ("" or EXTENDED/FORMATTED/...), explained.
/// - kSet: key (empty for bare SET), value (nullopt for `SET key`). kReset: key (may be empty).
/// - kRestore: name, time_travel. kVacuum: name, retain_hours, dry_run.
/// - kOptimize: name, where, column_names (ZORDER BY), extended for FULL; apply_purge for REORG
///   TABLE name [WHERE where] APPLY (PURGE). kConvertToDelta: name, columns (partition).
/// - kCreateStreamingTable: as kCreateTable (name, columns, partition_columns, comment,
///   properties, query with a `STREAM(...)` table), or_replace for OR REFRESH, if_not_exists;
///   no query for a table fed by flows; flow_body (kAutoCdc) for `FLOW AUTO CDC FROM ...`.
/// - kRefreshStreamingTable: name; extended for FULL; value for EVERY's interval text.
/// - kCreateFlow: name (the flow's), comment, flow_body (kAutoCdc, kMerge whose source reads a
///   STREAM(...), or kInsert BY NAME of a query over one).
/// - kAutoCdc: name (the target), auto_cdc.
struct Statement {
  StatementKind kind = StatementKind::kQuery;
  SourcePosition position;
  /// The statement's own text (without the `;`), for history and EXPLAIN.
  std::string source_text;
  /// kCreateView: the text of its query as written (what a permanent view stores).
  std::string query_text;

  QualifiedName name;
  QueryPtr query;
  bool or_replace = false;
  bool replace = false;
  bool if_not_exists = false;
  bool if_exists = false;
  bool temporary = false;
  bool extended = false;
  bool overwrite = false;
  bool dry_run = false;
  bool schema_evolution = false;

  std::vector<ColumnDefinition> columns;
  std::vector<CheckConstraint> constraints;
  std::string provider;
  std::vector<std::string> partition_columns;
  /// CLUSTER BY's columns, each a path of names (`b.c` is {"b", "c"}); nullopt without CLUSTER BY.
  std::optional<std::vector<QualifiedName>> cluster_columns;
  std::optional<std::string> location;
  std::optional<std::string> comment;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<std::string> property_keys;
  std::vector<std::string> column_names;
  /// ALTER TABLE DROP COLUMNS: the (possibly nested) columns.
  std::vector<QualifiedName> column_paths;

  TableReferencePtr target;
  TableReferencePtr source;
  std::vector<CommonTableExpression> with;
  ExpressionPtr condition;
  std::vector<MergeClause> merge_clauses;
  std::vector<Assignment> assignments;
  ExpressionPtr where;
  ExpressionPtr replace_where;
  /// INSERT's PARTITION (p = v, q): each column named, with its static value (a constant) or
  /// nullptr for a dynamic partition column, whose values come from the query.
  std::vector<std::pair<std::string, ExpressionPtr>> insert_partitions;
  /// INSERT ... BY NAME: the query's columns go to the table's columns of the same names.
  bool by_name = false;
  /// kOptimize written as REORG TABLE ... APPLY (PURGE).
  bool apply_purge = false;

  AlterTableAction alter_action = AlterTableAction::kSetProperties;
  std::string constraint_name;
  QualifiedName column_path;
  std::string new_name;
  /// ALTER COLUMN: "TYPE", "SET NOT NULL", "DROP NOT NULL", "COMMENT", "FIRST", "AFTER <col>".
  std::string alter_column_change;
  /// DROP FEATURE: the feature's name, and TRUNCATE HISTORY.
  std::string feature_name;
  bool truncate_history = false;

  std::string pattern;
  ExpressionPtr limit;
  std::optional<TimeTravel> time_travel;
  ExpressionPtr retain_hours;
  std::string explain_mode;
  StatementPtr explained;
  std::string key;
  std::optional<std::string> value;
  StatementPtr flow_body;
  std::shared_ptr<AutoCdc> auto_cdc;
};

}  // namespace silt::sql
