"""DataFrame, GroupedData and DataFrameNaFunctions, as pyspark.sql names them.

A DataFrame is a Spark SQL query that silt's engine analyses when the DataFrame is made (so a
missing column fails there, as in Spark) and runs when an action (collect, count, show,
toPandas, write...) asks for rows. Transformations compose the query: identifiers are
back-quoted, each DataFrame placed in a FROM clause gets its own qualifier so that columns of
joined DataFrames stay apart, and columns are named as Spark names them.
"""

import itertools
import random as _random
import re

from silt.errors import PySparkAttributeError, PySparkTypeError, PySparkValueError, _error
from silt.sql.column import Column, _Scope, _lit, _quote, _reference
from silt.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DoubleType,
    FloatType,
    MapType,
    NumericType,
    StringType,
    StructField,
    StructType,
    TimestampType,
    _make_row,
    _parse_datatype_json_value,
    _type_sql,
)

__all__ = ["DataFrame", "DataFrameNaFunctions", "GroupedData"]

_ids = itertools.count(1)


class _Join:
    """The FROM clause of a join, kept open so that later operations can still tell the joined
    DataFrames' columns apart."""

    def __init__(self, from_sql, qualifiers, origins, where=()):
        self.from_sql = from_sql
        self.qualifiers = qualifiers  # frame id -> SQL qualifier
        self.origins = origins  # per output column: its qualifier, or None (USING columns)
        self.where = list(where)


# "SELECT * FROM t": a query that reads one table (a name or a path) and nothing else.
_PLAIN_TABLE_READ = re.compile(r"^SELECT \* FROM ((?:`[^`]*`|[A-Za-z0-9_.])+)$")


class _Relation:
    """A DataFrame placed in a FROM clause."""

    def __init__(self, from_sql, qualifiers, origins, where, names):
        self.from_sql = from_sql
        self.scope = _Scope(qualifiers)
        self.origins = origins
        self.where = where
        self.names = names

    def column_sql(self, index):
        qualifier = self.origins[index]
        name = _quote(self.names[index])
        return qualifier + "." + name if qualifier else name

    def query(self, items, where=(), group_by=None, having=None, order_by=None, limit=None,
              distinct=False, qualify=None):
        text = "SELECT " + ("DISTINCT " if distinct else "") + ", ".join(items) + " FROM " + self.from_sql
        conditions = list(self.where) + list(where)
        if conditions:
            text += " WHERE " + " AND ".join(conditions)
        if group_by is not None:
            text += " GROUP BY " + group_by
        if having:
            text += " HAVING " + having
        if qualify:
            text += " QUALIFY " + qualify
        if order_by:
            text += " ORDER BY " + ", ".join(order_by)
        if limit is not None:
            text += " LIMIT %d" % limit
        return text


def _session_of(frame, other):
    """The session that can read both DataFrames: a foreachBatch batch's (whose input only its
    query's session reads) when `other` is one, else `frame`'s."""
    if other._session._batch_of_stream and not frame._session._batch_of_stream:
        return other._session
    return frame._session


def _flatten(cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return list(cols)


class DataFrame:
    """A distributed collection of rows under named columns (pyspark.sql.DataFrame)."""

    def __init__(self, session, query, schema=None, join=None, alias=None):
        self.sparkSession = session
        self._session = session
        self._id = next(_ids)
        # The ids whose columns this DataFrame's columns are: its own and, for an alias, those of
        # the DataFrame it aliases (df.alias("s") still resolves df.id).
        self._lineage = (self._id,)
        self._query = query
        self._join = join
        self._alias = alias
        self._schema = schema if schema is not None else session._analyze(query)
        self.na = DataFrameNaFunctions(self)

    # Placement in queries.

    def _relation(self, qualifier=None):
        names = self._schema.names
        if self._join is not None and self._alias is None and qualifier is None:
            qualifiers = dict(self._join.qualifiers)
            for frame_id in self._lineage:
                qualifiers[frame_id] = None
            return _Relation(self._join.from_sql, qualifiers, self._join.origins, self._join.where, names)
        qualifier = qualifier or (_quote(self._alias) if self._alias else "`_s%d`" % self._id)
        # A table read as it is (spark.table, spark.read.load) is placed as the table itself, so
        # that its hidden columns (a Delta table's `_metadata`) resolve as they do in Spark.
        table = _PLAIN_TABLE_READ.match(self._query)
        source = table.group(1) if table and not self.isStreaming else "(%s)" % self._query
        return _Relation("%s AS %s" % (source, qualifier), {i: qualifier for i in self._lineage},
                         [qualifier] * len(names), [], names)

    def _derive(self, query, schema=None):
        return DataFrame(self._session, query, schema)

    def _columns_sql(self, relation):
        return [relation.column_sql(i) for i in range(len(relation.names))]

    def _item(self, col, relation):
        if isinstance(col, str):
            if col == "*":
                return "*"
            return _reference(self._id, col)._select_sql(relation.scope)
        if isinstance(col, Column):
            return col._select_sql(relation.scope)
        raise _error("NOT_COLUMN_OR_STR", "Argument `col` should be a Column or str, got %s."
                     % type(col).__name__)

    def _condition_sql(self, condition, relation):
        if isinstance(condition, str):
            return "(" + condition + ")"
        if isinstance(condition, Column):
            return condition._sql(relation.scope)
        raise _error("NOT_COLUMN_OR_STR", "Argument `condition` should be a Column or str, got %s."
                     % type(condition).__name__)

    # Schema.

    @property
    def schema(self):
        return self._schema

    @property
    def columns(self):
        return list(self._schema.names)

    @property
    def dtypes(self):
        return [(f.name, f.dataType.simpleString()) for f in self._schema.fields]

    def printSchema(self, level=None):
        print(self._schema.treeString(level))

    def __repr__(self):
        return "DataFrame[%s]" % ", ".join("%s: %s" % pair for pair in self.dtypes)

    # Column access.

    def __getitem__(self, item):
        if isinstance(item, str):
            return self._column(item)
        if isinstance(item, int):
            if item < 0 or item >= len(self._schema.names):
                raise _error("INDEX_OUT_OF_RANGE", "DataFrame column index out of range: %d." % item)
            return _reference(self._id, _quote(self._schema.names[item]))
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        raise _error("NOT_COLUMN_OR_INT_OR_LIST_OR_STR_OR_TUPLE",
                     "Argument `item` should be a Column, int, list, str or tuple, got %s."
                     % type(item).__name__)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get("_schema", StructType()).names:
            raise _error("ATTRIBUTE_NOT_SUPPORTED", "Attribute `%s` is not supported." % name,
                         family=PySparkAttributeError)
        return self._column(name)

    def _column(self, name):
        if name == "*":
            return Column(lambda scope: scope.reference(self._id, ["*"]), "*", ref=(self._id, ["*"]))
        column = _reference(self._id, name)
        # Spark resolves df["x"] against df's columns at once.
        first = column._ref[1][0]
        if len(column._ref[1]) == 1:
            field = next((f for f in self._schema.fields if f.name.lower() == first.lower()), None)
            column._data_type = field.dataType if field is not None else None
        if not any(first.lower() == n.lower() for n in self._schema.names) and not (
                self._alias and first == self._alias):
            raise _error("UNRESOLVED_COLUMN",
                         "A column, variable, or function parameter with name `%s` cannot be resolved. "
                         "Did you mean one of the following? [%s]."
                         % (name, ", ".join("`%s`" % n for n in self._schema.names)),
                         sub_class="WITH_SUGGESTION")
        return column

    def colRegex(self, colName):
        raise _error("NOT_IMPLEMENTED", "DataFrame.colRegex is not implemented by silt.")

    # Projections.

    def select(self, *cols):
        cols = _flatten(cols)
        relation = self._relation()
        items = [self._item(col, relation) for col in cols]
        if not items:
            items = self._columns_sql(relation)
        return self._derive(relation.query(items))

    def selectExpr(self, *expr):
        exprs = _flatten(expr)
        relation = self._relation()
        return self._derive(relation.query(list(exprs)))

    def withColumns(self, *colsMap):
        if len(colsMap) != 1 or not isinstance(colsMap[0], dict):
            raise _error("NOT_DICT", "Argument `colsMap` should be a dict.", family=PySparkTypeError)
        mapping = colsMap[0]
        for value in mapping.values():
            if not isinstance(value, Column):
                raise _error("NOT_COLUMN", "Argument `col` should be a Column, got %s."
                             % type(value).__name__, family=PySparkTypeError)
        relation = self._relation()
        existing = {name.lower() for name in relation.names}
        if not any(key.lower() in existing for key in mapping):
            # Only new columns: appended after every column, without listing them (keeps long
            # chains of withColumn short).
            items = ["*"] + [value._sql(relation.scope) + " AS " + _quote(key) for key, value in mapping.items()]
            return self._derive(relation.query(items))
        items = []
        replaced = set()
        for index, name in enumerate(relation.names):
            match = next((key for key in mapping if key.lower() == name.lower()), None)
            if match is not None:
                items.append(mapping[match]._sql(relation.scope) + " AS " + _quote(match))
                replaced.add(match)
            else:
                items.append(relation.column_sql(index))
        for key, value in mapping.items():
            if key not in replaced:
                items.append(value._sql(relation.scope) + " AS " + _quote(key))
        return self._derive(relation.query(items))

    def withColumn(self, colName, col):
        if not isinstance(col, Column):
            raise _error("NOT_COLUMN", "Argument `col` should be a Column, got %s." % type(col).__name__,
                         family=PySparkTypeError)
        return self.withColumns({colName: col})

    def withColumnsRenamed(self, colsMap):
        relation = self._relation()
        items = []
        for index, name in enumerate(relation.names):
            match = next((key for key in colsMap if key.lower() == name.lower()), None)
            sql = relation.column_sql(index)
            items.append(sql + " AS " + _quote(colsMap[match]) if match is not None else sql)
        return self._derive(relation.query(items))

    def withColumnRenamed(self, existing, new):
        return self.withColumnsRenamed({existing: new})

    def toDF(self, *cols):
        if len(cols) != len(self._schema.names):
            raise _error("INVALID_PARAMETER_VALUE",
                         "The number of columns doesn't match.\nOld column names (%d): %s\nNew column "
                         "names (%d): %s" % (len(self._schema.names), ", ".join(self._schema.names),
                                             len(cols), ", ".join(cols)))
        relation = self._relation()
        items = [relation.column_sql(i) + " AS " + _quote(name) for i, name in enumerate(cols)]
        return self._derive(relation.query(items))

    def drop(self, *cols):
        relation = self._relation()
        keep = list(range(len(relation.names)))
        for col in cols:
            if isinstance(col, str):
                keep = [i for i in keep if relation.names[i].lower() != col.lower()]
            elif isinstance(col, Column):
                if col._ref is None:
                    continue
                frame, parts = col._ref
                qualifier = relation.scope.qualifiers.get(frame) if frame is not None else None
                name = parts[-1].lower()
                if len(parts) == 2 and frame is None:
                    qualifier = _quote(parts[0])
                keep = [i for i in keep if not (
                    relation.names[i].lower() == name and (qualifier is None or relation.origins[i] in (
                        qualifier, None) or relation.origins[i] == qualifier))]
            else:
                raise _error("NOT_COLUMN_OR_STR", "Argument `col` should be a Column or str, got %s."
                             % type(col).__name__)
        if len(keep) == len(relation.names):
            return self
        if not keep:
            return self._derive(relation.query(["1 AS `__silt_no_columns`"])).select([])
        return self._derive(relation.query([relation.column_sql(i) for i in keep]))

    def alias(self, alias):
        frame = DataFrame.__new__(DataFrame)
        frame.__dict__.update(self.__dict__)
        frame._id = next(_ids)
        frame._lineage = (frame._id,) + tuple(self._lineage)
        frame._alias = alias
        frame.na = DataFrameNaFunctions(frame)
        return frame

    def transform(self, func, *args, **kwargs):
        result = func(self, *args, **kwargs)
        if not isinstance(result, DataFrame):
            raise _error("INVALID_PARAMETER_VALUE",
                         "Func returned an instance of type [%s], should have been DataFrame."
                         % type(result).__name__)
        return result

    # Filters.

    def filter(self, condition):
        relation = self._relation()
        text = self._condition_sql(condition, relation)
        if self._join is not None and self._alias is None:
            join = _Join(self._join.from_sql, self._join.qualifiers, self._join.origins,
                         self._join.where + [text])
            # Analysed now, as every transformation: a bad condition fails here, as in Spark.
            return DataFrame(self._session, "SELECT * FROM %s WHERE %s" % (
                join.from_sql, " AND ".join(join.where)), join=join)
        return self._derive(relation.query(["*"], where=[text]))

    where = filter

    def limit(self, num):
        relation = self._relation()
        return self._derive(relation.query(["*"], limit=int(num)), self._schema)

    def offset(self, num):
        relation = self._relation()
        return self._derive(relation.query(["*"]) + " OFFSET %d" % int(num), self._schema)

    def distinct(self):
        relation = self._relation()
        return self._derive(relation.query(["*"], distinct=True), self._schema)

    def dropDuplicates(self, subset=None):
        """The first row of each value of the columns `subset` (all when None). On a stream, the
        engine's stateful deduplication: a key's later rows, in this batch or later ones, are
        dropped; with a watermark on one of the keys, keys the watermark passed are forgotten."""
        if subset is not None and not isinstance(subset, (list, tuple)):
            raise _error("NOT_LIST_OR_TUPLE", "Argument `subset` should be a list or tuple, got %s."
                         % type(subset).__name__, family=PySparkTypeError)
        if self.isStreaming:
            from silt.sql.streaming import _drop_duplicates

            return _drop_duplicates(self, subset, within_watermark=False)
        if subset is None:
            return self.distinct()
        relation = self._relation()
        keys = [_reference(self._id, name)._sql(relation.scope) for name in subset]
        if not keys:
            return self.limit(1)
        # Spark keeps one arbitrary row of each group of equal keys (NULLs equal); the rows of
        # a group all sort alike, so row_number() picks one of them whole.
        window = "row_number() OVER (PARTITION BY %s ORDER BY %s) = 1" % (", ".join(keys), ", ".join(keys))
        return self._derive(relation.query(["*"], qualify=window))

    drop_duplicates = dropDuplicates

    def dropDuplicatesWithinWatermark(self, subset=None):
        """On a stream with a watermark, the first row of each value of the columns `subset` (all
        when None), each key kept until the watermark passes its event time plus the delay
        (Spark's dropDuplicatesWithinWatermark); on a batch DataFrame, dropDuplicates."""
        if subset is not None and not isinstance(subset, (list, tuple)):
            raise _error("NOT_LIST_OR_TUPLE", "Argument `subset` should be a list or tuple, got %s."
                         % type(subset).__name__, family=PySparkTypeError)
        if self.isStreaming:
            from silt.sql.streaming import _drop_duplicates

            return _drop_duplicates(self, subset, within_watermark=True)
        return self.dropDuplicates(subset)

    def sample(self, withReplacement=None, fraction=None, seed=None):
        # PySpark accepts sample(fraction), sample(fraction, seed) and sample(withReplacement,
        # fraction, seed).
        if isinstance(withReplacement, float) and fraction is None:
            withReplacement, fraction = None, withReplacement
        elif isinstance(withReplacement, float) and isinstance(fraction, int):
            withReplacement, fraction, seed = None, withReplacement, fraction
        if fraction is None or not isinstance(fraction, (int, float)):
            raise _error("NOT_FLOAT", "Argument `fraction` should be a float, got %s."
                         % type(fraction).__name__, family=PySparkTypeError)
        if fraction < 0 or (fraction > 1 and not withReplacement):
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `fraction` in `sample` is invalid: Sampling fraction "
                         "(%s) must be on interval [0, 1] without replacement." % fraction)
        if withReplacement:
            raise _error("NOT_IMPLEMENTED", "sample with replacement is not implemented by silt.")
        if seed is None:
            seed = _random.randint(-(2 ** 63), 2 ** 63 - 1)
        relation = self._relation()
        return self._derive(relation.query(["*"], where=["rand(%dL) < %rD" % (seed, float(fraction))]),
                            self._schema)

    def randomSplit(self, weights, seed=None):
        for weight in weights:
            if weight < 0.0:
                raise _error("VALUE_NOT_POSITIVE", "Argument `weights` should be positive, got %s." % weight,
                             family=PySparkValueError)
        if seed is None:
            seed = _random.randint(-(2 ** 63), 2 ** 63 - 1)
        total = float(sum(weights))
        bounds = [0.0]
        for weight in weights:
            bounds.append(bounds[-1] + weight / total)
        relation = self._relation()
        # One rand() column with a fixed seed gives each row one draw shared by all splits.
        drawn = self._derive(relation.query(["*", "rand(%dL) AS `__silt_split`" % seed]))
        splits = []
        for low, high in zip(bounds, bounds[1:]):
            inner = drawn._relation()
            items = [inner.column_sql(i) for i in range(len(inner.names) - 1)]
            splits.append(self._derive(inner.query(
                items, where=["`__silt_split` >= %rD AND `__silt_split` < %rD" % (low, high)])))
        return splits

    # Ordering.

    def _sort_items(self, cols, kwargs, relation):
        cols = _flatten(cols)
        if not cols:
            raise _error("CANNOT_BE_EMPTY", "At least one column must be specified.", family=PySparkValueError)
        columns = []
        for col in cols:
            if isinstance(col, int) and not isinstance(col, bool):
                # PySpark 4: a positive ordinal is that column ascending, a negative one descending.
                if col == 0 or abs(col) > len(self._schema.names):
                    raise _error("INDEX_NOT_POSITIVE" if col == 0 else "INDEX_OUT_OF_RANGE",
                                 "Sort ordinal %d is out of range." % col)
                column = self[abs(col) - 1]
                columns.append(column.desc() if col < 0 else column)
            else:
                columns.append(_reference(self._id, col) if isinstance(col, str) else col)
        ascending = kwargs.get("ascending", True)
        if isinstance(ascending, (bool, int)) and not isinstance(ascending, list):
            if not ascending:
                columns = [c.desc() for c in columns]
        elif isinstance(ascending, list):
            columns = [c if asc else c.desc() for asc, c in zip(ascending, columns)]
        else:
            raise _error("NOT_BOOL_OR_LIST", "Argument `ascending` should be a bool or list, got %s."
                         % type(ascending).__name__, family=PySparkTypeError)
        return [c._sort_sql(relation.scope) for c in columns]

    def orderBy(self, *cols, **kwargs):
        relation = self._relation()
        items = self._sort_items(cols, kwargs, relation)
        return self._derive(relation.query(["*"], order_by=items))

    sort = orderBy

    def sortWithinPartitions(self, *cols, **kwargs):
        return self.orderBy(*cols, **kwargs)

    # Joins.

    def join(self, other, on=None, how=None):
        if not isinstance(other, DataFrame):
            raise _error("NOT_DATAFRAME", "Argument `other` should be a DataFrame, got %s."
                         % type(other).__name__, family=PySparkTypeError)
        kind = _join_kind(how, on)
        left = self._relation()
        right = other._relation("`_s%d_r`" % other._id if other._id == self._id else None)
        if other._join is not None and other._alias is None:
            # A join on the right is placed as one subquery.
            right = other._relation("`_s%d`" % other._id)
        qualifiers = dict(left.scope.qualifiers)
        qualifiers.update(right.scope.qualifiers)
        scope = _Scope(qualifiers)
        if left.where:
            left = self._relation("`_s%d`" % self._id)
            qualifiers = dict(left.scope.qualifiers)
            qualifiers.update(right.scope.qualifiers)
            scope = _Scope(qualifiers)
        using = None
        condition = ""
        if isinstance(on, str):
            on = [on]
        if isinstance(on, (list, tuple)) and on and all(isinstance(o, str) for o in on):
            using = list(on)
            condition = " USING (%s)" % ", ".join(_quote(name) for name in using)
        elif isinstance(on, (list, tuple)) and on:
            conditions = [o._sql(scope) for o in on]
            condition = " ON " + " AND ".join(conditions)
        elif isinstance(on, Column):
            condition = " ON " + on._sql(scope)
        elif on is None or (isinstance(on, (list, tuple)) and not on):
            if kind not in ("CROSS", "INNER"):
                condition = " ON true"
            elif kind == "INNER":
                kind = "CROSS"
        else:
            raise _error("NOT_COLUMN_OR_LIST_OR_STR", "Argument `on` should be a Column, list or str, got %s."
                         % type(on).__name__, family=PySparkTypeError)
        from_sql = "%s %s JOIN %s%s" % (left.from_sql, kind, right.from_sql, condition)
        if kind in ("LEFT SEMI", "LEFT ANTI"):
            origins = list(left.origins)
        elif using is not None:
            lowered = [name.lower() for name in using]
            origins = [None] * len(using)
            origins += [q for q, n in zip(left.origins, left.names) if n.lower() not in lowered]
            origins += [q for q, n in zip(right.origins, right.names) if n.lower() not in lowered]
        else:
            origins = list(left.origins) + list(right.origins)
        join = _Join(from_sql, qualifiers, origins)
        frame = DataFrame(_session_of(self, other), "SELECT * FROM " + from_sql, join=join)
        if len(origins) != len(frame._schema.names):
            frame._join = None
        return frame

    def crossJoin(self, other):
        return self.join(other, how="cross")

    # Set operations.

    def _set_operation(self, other, operator):
        left = self._relation()
        right = other._relation("`_s%d_r`" % other._id if other._id == self._id else None)
        query = "%s %s %s" % (left.query(["*"]), operator, right.query(["*"]))
        return DataFrame(_session_of(self, other), query)

    def union(self, other):
        return self._set_operation(other, "UNION ALL")

    unionAll = union

    def unionByName(self, other, allowMissingColumns=False):
        left_names = self._schema.names
        right_fields = {f.name.lower(): f for f in other._schema.fields}
        left_fields = {f.name.lower(): f for f in self._schema.fields}
        left = self._relation()
        right = other._relation("`_s%d_r`" % other._id if other._id == self._id else None)
        left_items = self._columns_sql(left)
        right_items = []
        for field in self._schema.fields:
            if field.name.lower() in right_fields:
                index = [n.lower() for n in right.names].index(field.name.lower())
                right_items.append(right.column_sql(index))
            elif allowMissingColumns:
                right_items.append("CAST(NULL AS %s) AS %s" % (_type_sql(field.dataType), _quote(field.name)))
            else:
                raise _error("UNRESOLVED_COLUMN",
                             "A column, variable, or function parameter with name `%s` cannot be resolved. "
                             "Did you mean one of the following? [%s]." % (
                                 field.name, ", ".join("`%s`" % n for n in other._schema.names)),
                             sub_class="WITH_SUGGESTION")
        for index, field in enumerate(other._schema.fields):
            if field.name.lower() not in left_fields:
                if not allowMissingColumns:
                    raise _error("NUM_COLUMNS_MISMATCH",
                                 "UNION can only be performed on inputs with the same number of columns, "
                                 "but the first input has %d columns and the second input has %d columns."
                                 % (len(left_names), len(other._schema.names)))
                left_items.append("CAST(NULL AS %s) AS %s" % (_type_sql(field.dataType), _quote(field.name)))
                right_items.append(right.column_sql(index))
        query = "%s UNION ALL %s" % (left.query(left_items), right.query(right_items))
        return DataFrame(_session_of(self, other), query)

    def intersect(self, other):
        return self._set_operation(other, "INTERSECT DISTINCT")

    def intersectAll(self, other):
        return self._set_operation(other, "INTERSECT ALL")

    def subtract(self, other):
        return self._set_operation(other, "EXCEPT DISTINCT")

    def exceptAll(self, other):
        return self._set_operation(other, "EXCEPT ALL")

    # Aggregation.

    def groupBy(self, *cols):
        return GroupedData(self, _flatten(cols), "GROUP")

    groupby = groupBy

    def rollup(self, *cols):
        return GroupedData(self, _flatten(cols), "ROLLUP")

    def cube(self, *cols):
        return GroupedData(self, _flatten(cols), "CUBE")

    def agg(self, *exprs):
        return self.groupBy().agg(*exprs)

    def unpivot(self, ids, values, variableColumnName, valueColumnName):
        """Turns the `values` columns into rows of (variableColumnName, valueColumnName),
        keeping the `ids` columns (DataFrame.unpivot); values=None takes every non-id column."""
        def names(cols):
            if cols is None:
                return None
            if isinstance(cols, (str, Column)):
                cols = [cols]
            return list(cols)

        id_columns = [_reference(self._id, c) if isinstance(c, str) else c for c in names(ids) or []]
        value_columns = names(values)
        if value_columns is None:
            id_names = {c._name().lower() for c in id_columns}
            value_columns = [n for n in self._schema.names if n.lower() not in id_names]
        value_columns = [_reference(self._id, c) if isinstance(c, str) else c for c in value_columns]
        if not value_columns:
            raise _error("UNPIVOT_REQUIRES_VALUE_COLUMNS",
                         "At least one value column needs to be specified for UNPIVOT, all columns "
                         "specified as ids.")
        relation = self._relation()
        scope = relation.scope
        entries = ", ".join(
            "named_struct('v', %s, 'x', %s)" % (_lit(c._name())._sql(scope), c._sql(scope)) for c in value_columns)
        items = [c._select_sql(scope) for c in id_columns]
        inner = relation.query(items + ["explode(array(%s)) AS `__silt_unpivot`" % entries])
        outer_ids = [_quote(c._name()) for c in id_columns]
        query = "SELECT %s FROM (%s) AS `_unpivoted`" % (", ".join(outer_ids + [
            "`__silt_unpivot`.`v` AS %s" % _quote(variableColumnName),
            "`__silt_unpivot`.`x` AS %s" % _quote(valueColumnName)]), inner)
        return self._derive(query)

    melt = unpivot

    # Missing values.

    def fillna(self, value, subset=None):
        return self.na.fill(value, subset)

    def dropna(self, how="any", thresh=None, subset=None):
        return self.na.drop(how, thresh, subset)

    def replace(self, to_replace, value=..., subset=None):
        return self.na.replace(to_replace, value, subset)

    # No-ops that keep PySpark programs running.

    def cache(self):
        return self

    def persist(self, storageLevel=None):
        return self

    def unpersist(self, blocking=False):
        return self

    def checkpoint(self, eager=True):
        return self

    def localCheckpoint(self, eager=True):
        return self

    def hint(self, name, *parameters):
        return self

    def repartition(self, numPartitions=None, *cols):
        return self

    def repartitionByRange(self, numPartitions=None, *cols):
        return self

    def coalesce(self, numPartitions):
        return self

    @property
    def is_cached(self):
        return False

    @property
    def isStreaming(self):
        """True when the DataFrame reads a stream (spark.readStream): it runs through
        writeStream.start(), and batch actions (collect, count, show, write...) refuse it."""
        return bool(self._session._streams_of(self._query))

    # Actions.

    def _run(self, query=None):
        return self._session._run(query or self._query)

    def collect(self):
        result = self._run()
        return _rows(result, self._schema_of(result))

    def _schema_of(self, result):
        return StructType([_field_from_json(f) for f in result.schema()])

    def take(self, num):
        return self.limit(num).collect()

    def head(self, n=None):
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self):
        return self.head()

    def tail(self, num):
        rows = self.collect()
        return rows[-num:] if num > 0 else []

    def count(self):
        result = self._run("SELECT count(*) FROM (%s) AS `_counted`" % self._query)
        return result.rows()[0][0]

    def isEmpty(self):
        result = self._run("SELECT 1 FROM (%s) AS `_probe` LIMIT 1" % self._query)
        return len(result) == 0

    def toLocalIterator(self, prefetchPartitions=False):
        """The rows as an iterator that reads them as the engine produces them: a result larger
        than memory can be iterated, and the first rows come before the last are made.
        Dropping the iterator early stops the query."""
        stream = self._session._stream(self._query)
        schema = StructType([_field_from_json(f) for f in stream.schema()])
        return _stream_rows(stream, schema)

    def foreach(self, f):
        for row in self.collect():
            f(row)

    def foreachPartition(self, f):
        f(iter(self.collect()))

    def show(self, n=20, truncate=True, vertical=False):
        if not isinstance(n, int) or isinstance(n, bool):
            raise _error("NOT_INT", "Argument `n` should be an int, got %s." % type(n).__name__,
                         family=PySparkTypeError)
        if not isinstance(vertical, bool):
            raise _error("NOT_BOOL", "Argument `vertical` should be a bool, got %s."
                         % type(vertical).__name__, family=PySparkTypeError)
        if isinstance(truncate, bool):
            width = 20 if truncate else 0
        elif isinstance(truncate, int):
            width = truncate
        else:
            raise _error("NOT_BOOL", "Argument `truncate` should be a bool or int, got %s."
                         % type(truncate).__name__, family=PySparkTypeError)
        if n < 0:
            n = 0
        if not vertical:
            print(self._session._show(self._query, n, width))
            return
        result = self._run("SELECT * FROM (%s) AS `_shown` LIMIT %d" % (self._query, n + 1))
        print(_vertical(self._schema.names, result.display_rows(), n, width))

    def _show_string(self, n=20, truncate=20):
        return self._session._show(self._query, n, truncate)

    def explain(self, extended=None, mode=None):
        if isinstance(extended, str) and mode is None:
            extended, mode = None, extended
        keyword = ""
        if extended or mode in ("extended", "formatted", "cost", "codegen"):
            keyword = "EXTENDED "
        result = self._run("EXPLAIN %s%s" % (keyword, self._query))
        print("\n".join(str(row[0]) for row in result.rows()))

    def toPandas(self):
        from silt.sql.pandas import _pandas, result_to_pandas

        _pandas()  # the error for a missing pandas before the query runs
        stream = self._session._stream(self._query)
        try:
            schema = StructType([_field_from_json(f) for f in stream.schema()])
            columns = stream.pandas_columns()
        finally:
            stream.close()
        return result_to_pandas(columns, schema, self._session)

    def __arrow_c_stream__(self, requested_schema=None):
        """The rows as an Arrow C stream (the Arrow PyCapsule interface), for pyarrow, polars or
        DuckDB: one struct array of the columns per batch, sharing the engine's buffers, read
        as the engine produces them."""
        return self._session._stream(self._query).__arrow_c_stream__(requested_schema)

    def createOrReplaceTempView(self, name):
        self._session._execute("CREATE OR REPLACE TEMPORARY VIEW %s AS %s" % (_quote(name), self._query))

    def createTempView(self, name):
        self._session._execute("CREATE TEMPORARY VIEW %s AS %s" % (_quote(name), self._query))

    registerTempTable = createOrReplaceTempView

    @property
    def write(self):
        from silt.sql.readwriter import DataFrameWriter

        if self.isStreaming:
            raise _error("CALL_ON_STREAMING_DATASET_UNSUPPORTED",
                         "The method `write` can not be called on streaming Dataset/DataFrame.")
        return DataFrameWriter(self)

    def writeTo(self, table):
        from silt.sql.readwriter import DataFrameWriterV2

        return DataFrameWriterV2(self, table)

    @property
    def writeStream(self):
        """The DataStreamWriter that starts this streaming DataFrame's query."""
        from silt.sql.streaming import DataStreamWriter

        if not self.isStreaming:
            raise _error("WRITE_STREAM_NOT_ALLOWED",
                         "'writeStream' can be called only on streaming Dataset/DataFrame.")
        return DataStreamWriter(self)

    def withWatermark(self, eventTime, delayThreshold):
        """Spark's event-time watermark on the TIMESTAMP column `eventTime`, `delayThreshold`
        (an interval string) late. On a stream, the query's stateful operator (aggregation or
        deduplication) drops rows at or before the watermark and evicts the state it passed;
        `eventTime` must be a column of the stream's rows, not one computed after it. On a batch
        DataFrame it changes nothing, as in Spark."""
        from silt.sql.streaming import _interval_ms

        if not isinstance(eventTime, str):
            raise _error("NOT_STR", "Argument `eventTime` should be a str, got %s."
                         % type(eventTime).__name__, family=PySparkTypeError)
        if not isinstance(delayThreshold, str):
            raise _error("NOT_STR", "Argument `delayThreshold` should be a str, got %s."
                         % type(delayThreshold).__name__, family=PySparkTypeError)
        self._column(eventTime)
        _interval_ms(delayThreshold, "delayThreshold")
        if self.isStreaming:
            from silt.sql.streaming import _with_watermark

            return _with_watermark(self, eventTime, delayThreshold)
        return self._derive(self._query, self._schema)

    @property
    def rdd(self):
        raise _error("NOT_IMPLEMENTED", "DataFrame.rdd: silt has no RDDs.", family=_not_implemented())

    def describe(self, *cols):
        cols = _flatten(cols)
        if not cols:
            cols = [f.name for f in self._schema.fields
                    if isinstance(f.dataType, (NumericType, StringType))]
        relation = self._relation()
        statistics = [("count", "count(%s)"), ("mean", "avg(%s)"), ("stddev", "stddev(%s)"),
                      ("min", "min(%s)"), ("max", "max(%s)")]
        queries = []
        for label, template in statistics:
            items = ["'%s' AS `summary`" % label]
            for name in cols:
                field = self._schema[name]
                ref = _reference(self._id, name)._sql(relation.scope)
                numeric = isinstance(field.dataType, NumericType)
                if label in ("mean", "stddev") and not numeric:
                    items.append("CAST(NULL AS STRING) AS %s" % _quote(name))
                else:
                    items.append("CAST(%s AS STRING) AS %s" % (template % ref, _quote(name)))
            queries.append(relation.query(items))
        return self._derive(" UNION ALL ".join(queries))

    # Statistics (pyspark.sql.DataFrame.corr, cov, approxQuantile; DataFrame.stat).

    def _numeric_column(self, name, argument):
        if not isinstance(name, str):
            raise _error("NOT_STR", "Argument `%s` should be a str, got %s." % (argument, type(name).__name__),
                         family=PySparkTypeError)
        field = self._schema[name]  # UNRESOLVED_COLUMN's error for a missing one
        if not isinstance(field.dataType, NumericType):
            raise _error("UNSUPPORTED_DATA_TYPE", "Column `%s` has the type %s, not a numeric type."
                         % (name, field.dataType.simpleString()), family=PySparkTypeError)
        return _reference(self._id, name)

    def _aggregate_value(self, expression_sql):
        relation = self._relation()
        return self._run(relation.query([expression_sql])).rows()[0][0]

    def corr(self, col1, col2, method=None):
        """The Pearson correlation coefficient of two numeric columns, as a float (None without
        two rows whose values are both non-NULL)."""
        if method not in (None, "pearson"):
            raise _error("VALUE_NOT_PEARSON", "Value for `method` only supports the 'pearson', got '%s'."
                         % method, family=PySparkValueError)
        relation = self._relation()
        first = self._numeric_column(col1, "col1")._sql(relation.scope)
        second = self._numeric_column(col2, "col2")._sql(relation.scope)
        value = self._aggregate_value("corr(CAST(%s AS DOUBLE), CAST(%s AS DOUBLE))" % (first, second))
        return None if value is None else float(value)

    def cov(self, col1, col2):
        """The sample covariance of two numeric columns, as a float."""
        relation = self._relation()
        first = self._numeric_column(col1, "col1")._sql(relation.scope)
        second = self._numeric_column(col2, "col2")._sql(relation.scope)
        value = self._aggregate_value("covar_samp(CAST(%s AS DOUBLE), CAST(%s AS DOUBLE))" % (first, second))
        return None if value is None else float(value)

    def approxQuantile(self, col, probabilities, relativeError):
        """Approximate quantiles of numeric columns, ignoring NULLs: for each probability p, a
        value of the column whose rank is within relativeError * count of p * count (exact for
        0). `col` is a name (a list of floats back) or a list of names (a list of such lists);
        an empty column gives an empty list."""
        names = [col] if isinstance(col, str) else col
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise _error("NOT_LIST_OR_STR_OR_TUPLE", "Argument `col` should be a list, str or tuple, got %s."
                         % type(col).__name__, family=PySparkTypeError)
        if not isinstance(probabilities, (list, tuple)) or not all(
                isinstance(p, (int, float)) and 0 <= p <= 1 for p in probabilities):
            raise _error("NOT_LIST_OF_FLOAT_OR_INT", "Argument `probabilities` should be a list of floats "
                         "between 0 and 1.", family=PySparkTypeError)
        if not isinstance(relativeError, (int, float)) or relativeError < 0:
            raise _error("NEGATIVE_VALUE", "Value for `relativeError` must be greater than or equal to 0, got "
                         "'%s'." % relativeError, family=PySparkValueError)
        if not probabilities:
            return [] if isinstance(col, str) else [[] for _ in names]
        relation = self._relation()
        # percentile_approx's accuracy is 1 / relative error; a large one gives exact ranks.
        accuracy = 2147483647 if relativeError == 0 else max(1, min(2147483647, int(1.0 / relativeError)))
        wanted = "array(%s)" % ", ".join("CAST(%r AS DOUBLE)" % float(p) for p in probabilities)
        items = ["percentile_approx(CAST(%s AS DOUBLE), %s, %d)" % (
            self._numeric_column(name, "col")._sql(relation.scope), wanted, accuracy) for name in names]
        row = self._run(relation.query(items)).rows()[0]
        quantiles = [[] if values is None else [float(v) for v in values] for values in row]
        return quantiles[0] if isinstance(col, str) else quantiles

    @property
    def stat(self):
        """DataFrameStatFunctions: corr, cov and approxQuantile of this DataFrame."""
        return DataFrameStatFunctions(self)

    def summary(self, *statistics):
        """Statistics of the numeric and string columns as strings, one row per statistic:
        count, mean, stddev, min, approximate percentiles ("25%"), max, count_distinct and
        approx_count_distinct (default: count, mean, stddev, min, 25%, 50%, 75%, max). Mean,
        stddev and the percentiles are NULL for string columns, as in Spark."""
        statistics = _flatten(statistics) or ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
        cols = [f.name for f in self._schema.fields if isinstance(f.dataType, (NumericType, StringType))]
        relation = self._relation()
        simple = {"count": "count(%s)", "mean": "avg(%s)", "stddev": "stddev(%s)", "min": "min(%s)",
                  "max": "max(%s)", "count_distinct": "count(DISTINCT %s)",
                  "approx_count_distinct": "approx_count_distinct(%s)"}
        queries = []
        for label in statistics:
            percentile = None
            if isinstance(label, str) and label.endswith("%"):
                try:
                    percentile = float(label[:-1]) / 100
                except ValueError:
                    percentile = None
                if percentile is None or not 0 <= percentile <= 1:
                    raise _error("ILLEGAL_ARGUMENT", "Unable to parse %s as a percentile" % label,
                                 family=_illegal_argument())
            elif label not in simple:
                raise _error("ILLEGAL_ARGUMENT", "%s is not a recognised statistic" % label,
                             family=_illegal_argument())
            items = ["'%s' AS `summary`" % label]
            for name in cols:
                ref = _reference(self._id, name)._sql(relation.scope)
                numeric = isinstance(self._schema[name].dataType, NumericType)
                if percentile is not None:
                    value = "percentile_approx(%s, %r, 10000)" % (ref, percentile) if numeric else None
                elif label in ("mean", "stddev") and not numeric:
                    value = None
                else:
                    value = simple[label] % ref
                items.append("CAST(%s AS STRING) AS %s" % (value or "NULL", _quote(name)))
            queries.append(relation.query(items))
        return self._derive(" UNION ALL ".join(queries))

    def isLocal(self):
        """True: collect() and take() run in this process (silt has no executors)."""
        return True

    def __iter__(self):
        raise _error("NOT_ITERABLE", "DataFrame is not iterable; use collect() or toLocalIterator().",
                     family=PySparkTypeError)


class DataFrameStatFunctions:
    """pyspark.sql.DataFrameStatFunctions: the statistics of a DataFrame (df.stat)."""

    def __init__(self, df):
        self.df = df

    def corr(self, col1, col2, method=None):
        return self.df.corr(col1, col2, method)

    def cov(self, col1, col2):
        return self.df.cov(col1, col2)

    def approxQuantile(self, col, probabilities, relativeError):
        return self.df.approxQuantile(col, probabilities, relativeError)

    def __getattr__(self, name):
        # crosstab, freqItems and sampleBy are not implemented; anything else is not an attribute.
        raise _error("ATTRIBUTE_NOT_SUPPORTED", "Attribute `%s` is not supported." % name,
                     family=PySparkAttributeError)


def _not_implemented():
    from silt.errors import PySparkNotImplementedError

    return PySparkNotImplementedError


_JOIN_TYPES = {
    "inner": "INNER",
    "cross": "CROSS",
    "outer": "FULL OUTER",
    "full": "FULL OUTER",
    "fullouter": "FULL OUTER",
    "full_outer": "FULL OUTER",
    "left": "LEFT OUTER",
    "leftouter": "LEFT OUTER",
    "left_outer": "LEFT OUTER",
    "right": "RIGHT OUTER",
    "rightouter": "RIGHT OUTER",
    "right_outer": "RIGHT OUTER",
    "semi": "LEFT SEMI",
    "leftsemi": "LEFT SEMI",
    "left_semi": "LEFT SEMI",
    "anti": "LEFT ANTI",
    "leftanti": "LEFT ANTI",
    "left_anti": "LEFT ANTI",
}


def _join_kind(how, on):
    if how is None:
        return "INNER"
    if not isinstance(how, str):
        raise _error("NOT_STR", "Argument `how` should be a str, got %s." % type(how).__name__,
                     family=PySparkTypeError)
    kind = _JOIN_TYPES.get(how.lower().replace("_", "") if how.lower() not in _JOIN_TYPES else how.lower())
    if kind is None:
        raise _error("UNSUPPORTED_JOIN_TYPE",
                     "Unsupported join type: '%s'. Supported join types include: 'inner', 'outer', 'full', "
                     "'fullouter', 'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', "
                     "'right_outer', 'leftsemi', 'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', "
                     "'cross'." % how, family=_illegal_argument())
    return kind


def _illegal_argument():
    from silt.errors import IllegalArgumentException

    return IllegalArgumentException


def _field_from_json(json):
    return StructField(json["name"], _parse_datatype_json_value(json["type"]), json["nullable"])


def _converter(data_type):
    """A function turning the engine's Python value of `data_type` into PySpark's, or None when
    they are the same."""
    if isinstance(data_type, TimestampType):
        return lambda value: None if value is None else value.astimezone().replace(tzinfo=None)
    if isinstance(data_type, BinaryType):
        return lambda value: None if value is None else bytearray(value)
    if isinstance(data_type, StructType):
        names = data_type.names
        converters = [_converter(f.dataType) for f in data_type.fields]

        def struct(value):
            if value is None:
                return None
            values = list(value.values())
            return _make_row(names, [c(v) if c else v for c, v in zip(converters, values)])

        return struct
    if isinstance(data_type, ArrayType):
        element = _converter(data_type.elementType)
        if element is None:
            return None
        return lambda value: None if value is None else [element(v) for v in value]
    if isinstance(data_type, MapType):
        key = _converter(data_type.keyType)
        item = _converter(data_type.valueType)
        if key is None and item is None:
            return None
        key = key or (lambda v: v)
        item = item or (lambda v: v)
        return lambda value: None if value is None else {key(k): item(v) for k, v in value.items()}
    return None


def _rows(result, schema):
    names = schema.names
    converters = [_converter(f.dataType) for f in schema.fields]
    rows = result.rows()
    if not any(converters):
        return [_make_row(names, values) for values in rows]
    out = []
    for values in rows:
        out.append(_make_row(names, [c(v) if c else v for c, v in zip(converters, values)]))
    return out


def _stream_rows(stream, schema):
    """The rows of a ResultStream, batch by batch as they come; closing the generator (or
    dropping it) stops the query."""
    try:
        while True:
            batch = stream.next_batch()
            if batch is None:
                return
            yield from _rows(batch, schema)
    finally:
        stream.close()


def _vertical(names, cells, n, truncate):
    """Spark's show(vertical=True) layout."""
    shown = cells[:n]
    if truncate > 0:
        def cut(text):
            if len(text) > truncate:
                return text[:truncate - 3] + "..." if truncate >= 4 else text[:truncate]
            return text
    else:
        def cut(text):
            return text
    out = []
    name_width = max([len(name) for name in names] + [0])
    rows = [[cut(value) for value in row] for row in shown]
    value_width = max([len(value) for row in rows for value in row] + [0])
    for index, values in enumerate(rows):
        header = "-RECORD %d" % index
        out.append(header + "-" * max(0, name_width + value_width + 5 - len(header)))
        for name, value in zip(names, values):
            out.append(" %s | %s " % (name.ljust(name_width), value.ljust(value_width)))
    if not shown:
        out.append("(0 rows)")
    text = "\n".join(out) + "\n"
    if len(cells) > n:
        text += "only showing top %d %s\n" % (n, "row" if n == 1 else "rows")
    return text


class GroupedData:
    """The groups of groupBy/rollup/cube, aggregated by agg() and its shortcuts."""

    def __init__(self, df, cols, kind, pivot=None):
        self._df = df
        self._cols = cols
        self._kind = kind
        self._pivot = pivot  # (column, values)

    def _grouping(self, relation):
        columns = [_reference(self._df._id, c) if isinstance(c, str) else c for c in self._cols]
        return columns

    def agg(self, *exprs):
        if not exprs:
            raise _error("CANNOT_BE_EMPTY", "At least one agg expression must be given.",
                         family=PySparkValueError)
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            columns = []
            for name, function in exprs[0].items():
                columns.append(_dict_aggregate(self._df, name, function))
        else:
            for expression in exprs:
                if not isinstance(expression, Column):
                    raise _error("NOT_COLUMN", "Argument `exprs` should be Columns or one dict, got %s."
                                 % type(expression).__name__, family=PySparkTypeError)
            columns = list(exprs)
        return self._aggregate(columns)

    def _aggregate(self, columns):
        relation = self._df._relation()
        scope = relation.scope
        grouping = self._grouping(relation)
        items = [c._select_sql(scope) for c in grouping]
        if self._pivot is not None:
            pivot_column, values = self._pivot
            pivot_sql = pivot_column._sql(scope)
            for value in values:
                value_sql = _lit(value)._sql(scope)
                label = "null" if value is None else _pivot_label(value)
                for column in columns:
                    name = label if len(columns) == 1 else "%s_%s" % (label, column._name())
                    items.append("%s FILTER (WHERE %s <=> %s) AS %s" % (
                        column._sql(scope), pivot_sql, value_sql, _quote(name)))
        else:
            items += [c._select_sql(scope) for c in columns]
        keys = ", ".join(c._sql(scope) for c in grouping)
        if self._kind == "GROUP":
            group_by = keys if grouping else None
        else:
            group_by = "%s(%s)" % (self._kind, keys)
        return self._df._derive(relation.query(items, group_by=group_by))

    def pivot(self, pivot_col, values=None):
        if self._pivot is not None:
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `pivot` is invalid: a GroupedData is pivoted once.")
        column = _reference(self._df._id, pivot_col) if isinstance(pivot_col, str) else pivot_col
        if values is None:
            relation = self._df._relation()
            query = relation.query(["DISTINCT " + column._sql(relation.scope)]) + " ORDER BY 1 ASC NULLS FIRST"
            values = [row[0] for row in self._df._session._run(query).rows()]
        return GroupedData(self._df, self._cols, self._kind, (column, list(values)))

    def count(self):
        return self._aggregate([Column(lambda scope: "count(*)", "count", aggregate=True).alias("count")])

    def _numeric(self, function, cols):
        if not cols:
            cols = [f.name for f in self._df._schema.fields if isinstance(f.dataType, NumericType)]
        else:
            for name in cols:
                field = self._df._schema[name] if name in self._df._schema.names else None
                if field is None or not isinstance(field.dataType, NumericType):
                    raise _error("DATATYPE_MISMATCH",
                                 "\"%s\" is not a numeric column. Aggregation function can only be "
                                 "applied on a numeric column." % name)
        from silt.sql import functions

        return self._aggregate([getattr(functions, function)(name) for name in cols])

    def mean(self, *cols):
        return self._numeric("avg", cols)

    avg = mean

    def max(self, *cols):
        return self._numeric("max", cols)

    def min(self, *cols):
        return self._numeric("min", cols)

    def sum(self, *cols):
        return self._numeric("sum", cols)


def _pivot_label(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_DICT_AGGREGATES = {
    "avg": "avg", "mean": "avg", "max": "max", "min": "min", "sum": "sum", "count": "count",
    "first": "first", "last": "last", "stddev": "stddev", "variance": "variance",
    "collect_list": "collect_list", "collect_set": "collect_set",
    "approx_count_distinct": "approx_count_distinct", "stddev_samp": "stddev_samp",
    "stddev_pop": "stddev_pop", "var_samp": "var_samp", "var_pop": "var_pop",
}


def _dict_aggregate(df, name, function):
    from silt.sql import functions

    lowered = function.lower()
    if name == "*" and lowered == "count":
        return functions.count("*")
    canonical = _DICT_AGGREGATES.get(lowered, lowered)
    column = _reference(df._id, name)
    return functions._call(canonical, [column], aggregate=True)


class DataFrameNaFunctions:
    """df.na: drop, fill and replace of missing values."""

    def __init__(self, df):
        self._df = df

    def _subset(self, subset):
        if subset is None:
            return list(self._df._schema.names)
        if isinstance(subset, str):
            return [subset]
        if not isinstance(subset, (list, tuple)):
            raise _error("NOT_LIST_OR_STR_OR_TUPLE", "Argument `subset` should be a list, str or tuple, got %s."
                         % type(subset).__name__)
        return list(subset)

    def drop(self, how="any", thresh=None, subset=None):
        if how not in ("any", "all"):
            raise _error("VALUE_NOT_ANY_OR_ALL", "Value for `how` must be 'any' or 'all', got '%s'." % how,
                         family=PySparkValueError)
        df = self._df
        names = self._subset(subset)
        if thresh is None:
            thresh = len(names) if how == "any" else 1
        relation = df._relation()
        counts = []
        for name in names:
            field = df._schema[name] if name in df._schema.names else None
            ref = _reference(df._id, name)._sql(relation.scope)
            if field is not None and isinstance(field.dataType, (FloatType, DoubleType)):
                # Spark's na.drop counts NaN as missing too.
                counts.append("CASE WHEN %s IS NULL OR %s = CAST('NaN' AS DOUBLE) THEN 0 ELSE 1 END" % (ref, ref))
            else:
                counts.append("CASE WHEN %s IS NULL THEN 0 ELSE 1 END" % ref)
        if not counts:
            return df
        condition = "(%s) >= %d" % (" + ".join(counts), thresh)
        return df._derive(relation.query(["*"], where=[condition]))

    def fill(self, value, subset=None):
        df = self._df
        if not isinstance(value, (float, int, str, bool, dict)):
            raise _error("NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_STR",
                         "Argument `value` should be a bool, dict, float, int or str, got %s."
                         % type(value).__name__)
        relation = df._relation()
        items = []
        if isinstance(value, dict):
            targets = {key.lower(): fill for key, fill in value.items()}
        else:
            names = self._subset(subset)
            targets = {}
            for name in names:
                field = df._schema[name] if name in df._schema.names else None
                if field is None:
                    continue
                if _fill_applies(value, field.dataType):
                    targets[name.lower()] = value
        for index, field in enumerate(df._schema.fields):
            ref = relation.column_sql(index)
            fill = targets.get(field.name.lower(), None)
            if field.name.lower() not in targets:
                items.append(ref)
                continue
            literal = _lit(fill)._sql(relation.scope)
            type_sql = _type_sql(field.dataType)
            if isinstance(field.dataType, (FloatType, DoubleType)):
                items.append("CASE WHEN %s IS NULL OR %s = CAST('NaN' AS DOUBLE) THEN CAST(%s AS %s) ELSE %s END AS %s" % (
                    ref, ref, literal, type_sql, ref, _quote(field.name)))
            else:
                items.append("coalesce(%s, CAST(%s AS %s)) AS %s" % (ref, literal, type_sql, _quote(field.name)))
        return df._derive(relation.query(items))

    def replace(self, to_replace, value=..., subset=None):
        df = self._df
        if value is ...:
            if not isinstance(to_replace, dict):
                raise _error("ARGUMENT_REQUIRED", "Argument `value` is required when argument `to_replace` "
                             "is not a dictionary.", family=PySparkTypeError)
        if isinstance(to_replace, dict):
            mapping = dict(to_replace)
        else:
            olds = list(to_replace) if isinstance(to_replace, (list, tuple)) else [to_replace]
            news = list(value) if isinstance(value, (list, tuple)) else [value] * len(olds)
            if len(olds) != len(news):
                raise _error("LENGTH_SHOULD_BE_THE_SAME",
                             "to_replace and value should be of the same length, got %d and %d."
                             % (len(olds), len(news)), family=PySparkValueError)
            mapping = dict(zip(olds, news))
        names = self._subset(subset)
        lowered = {n.lower() for n in names}
        relation = df._relation()
        items = []
        for index, field in enumerate(df._schema.fields):
            ref = relation.column_sql(index)
            applicable = [(old, new) for old, new in mapping.items()
                          if field.name.lower() in lowered and _replace_applies(old, field.dataType)]
            if not applicable:
                items.append(ref)
                continue
            type_sql = _type_sql(field.dataType)
            branches = " ".join(
                "WHEN %s = %s THEN CAST(%s AS %s)" % (ref, _lit(old)._sql(relation.scope),
                                                      _lit(new)._sql(relation.scope), type_sql)
                for old, new in applicable)
            items.append("CASE %s ELSE %s END AS %s" % (branches, ref, _quote(field.name)))
        return df._derive(relation.query(items))


def _fill_applies(value, data_type):
    if isinstance(value, bool):
        return isinstance(data_type, BooleanType)
    if isinstance(value, (int, float)):
        return isinstance(data_type, NumericType)
    if isinstance(value, str):
        return isinstance(data_type, StringType)
    return False


def _replace_applies(value, data_type):
    if value is None:
        return False
    if isinstance(value, bool):
        return isinstance(data_type, BooleanType)
    if isinstance(value, (int, float)):
        return isinstance(data_type, NumericType)
    if isinstance(value, str):
        return isinstance(data_type, StringType)
    return False
