"""Random queries run by silt and by DuckDB over the same small tables, compared row for row.

A silently wrong answer is the worst bug a query engine can have, and hand-written tests only
find the ones somebody thought of. This test generates queries from templates with random
predicates, expressions, aggregates, joins, subqueries, set operations, grouping sets and
windows over four tables of integers, doubles, decimals, dates, big integers and strings full of
NULLs, empty strings, duplicates and skew, runs each on silt (Delta tables of several files each,
so file pruning by statistics takes part) and on DuckDB (the same rows in memory), and compares
the results as multisets of rows (numbers within a relative 1e-6 or 5e-6).

The templates keep to SQL both engines read alike, or spell it for each (`for_duckdb`, and
Spark's NULL ordering). Where Spark differs from DuckDB, silt follows Spark, and the test keeps
out of the way: concat() of a NULL is NULL in Spark (the templates use `||`, NULL in both),
grouping sets over no rows give no grand total row, and a multi-column NOT IN is not generated
(DuckDB compares row values as structs).

Usage: random_queries.py --peer PATH [--seeds 1,2,3] [--queries N]   (exit status 1 on a
difference, with each differing query, its seed and the rows only one side gave)
"""

import argparse
import datetime
import decimal
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile

from silt.sql import SparkSession

SCHEMAS = {
    "t1": [("id", "INT"), ("a", "INT"), ("b", "INT"), ("s", "STRING"), ("d", "DOUBLE")],
    "t2": [("a", "INT"), ("c", "INT"), ("s", "STRING")],
    "t3": [("k", "INT"), ("v", "INT")],
    "t4": [("id", "INT"), ("m", "DECIMAL(10,2)"), ("dt", "DATE"), ("big", "BIGINT"), ("g", "STRING")],
}
DUCKDB_TYPES = {"INT": "INTEGER", "STRING": "VARCHAR", "DOUBLE": "DOUBLE", "DECIMAL(10,2)": "DECIMAL(10,2)",
                "DATE": "DATE", "BIGINT": "BIGINT"}
INTEGERS = {"t1": ["a", "b", "id"], "t2": ["a", "c"], "t3": ["k", "v"]}


def make_rows(rng, table, count):
    if table == "t1":
        return [(i, rng.choice([None] + list(range(10))), rng.choice([None, 0, 1, 2, 3, 4, -1]),
                 rng.choice([None, "x", "y", "z", "", "xy", "Y", "x%y", "a\u00e9_b", "xzy"]),
                 rng.choice([None, 0.5, 1.25, -2.0, 3.0, 10.75])) for i in range(count)]
    if table == "t2":
        return [(rng.choice([None] + list(range(12))), rng.choice([None, 1, 2, 3, 5]),
                 rng.choice([None, "x", "z", "w", ""])) for _ in range(count)]
    if table == "t3":
        return [(rng.choice([None] + list(range(6))), rng.choice([None, 10, 20, 30])) for _ in range(count)]
    return [(i, rng.choice([None, "0.00", "1.50", "-2.25", "99999.99", "12.34", "0.01"]),
             rng.choice([None, "2024-01-01", "2024-02-29", "2023-12-31", "2024-03-15", "1999-07-04"]),
             rng.choice([None, 0, 1, -7, 10 ** 12, 3 * 10 ** 11 + 1, -(10 ** 10)]),
             rng.choice([None, "g1", "g2", "g3"])) for i in range(count)]


def literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'%s'" % value
    return repr(value)


def values_query(rows, schema, string_type):
    # Decimals and dates are written as text and cast, which both engines read alike.
    body = ", ".join(
        "(" + ", ".join("CAST(%s AS %s)" % (literal(v), string_type if t == "STRING" else t)
                        for v, (_, t) in zip(row, schema)) + ")" for row in rows)
    return "SELECT * FROM (VALUES %s) AS v(%s)" % (body, ", ".join(name for name, _ in schema))


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def integer(self, alias, table):
        rng = self.rng
        column = "%s.%s" % (alias, rng.choice(INTEGERS[table]))
        return rng.choice([
            column, column, column, "(%s + %d)" % (column, rng.randint(-2, 3)), "abs(%s)" % column,
            "coalesce(%s, %d)" % (column, rng.randint(-1, 2)), "(%s * 2)" % column,
            "CASE WHEN %s > %d THEN %s ELSE %d END" % (column, rng.randint(0, 5), column, rng.randint(0, 3))])

    def predicate(self, alias, table, depth=0):
        rng = self.rng
        roll = rng.random()
        if depth < 2 and roll < 0.2:
            return "(%s %s %s)" % (self.predicate(alias, table, depth + 1), rng.choice(["AND", "OR"]),
                                   self.predicate(alias, table, depth + 1))
        if depth < 2 and roll < 0.25:
            return "NOT (%s)" % self.predicate(alias, table, depth + 1)
        name = rng.choice([name for name, _ in SCHEMAS[table]])
        column = "%s.%s" % (alias, name)
        if name == "s":
            return rng.choice([
                "%s = '%s'" % (column, rng.choice(["x", "y", ""])), "%s IS NULL" % column,
                "%s IS NOT NULL" % column, "%s LIKE '%s%%'" % (column, rng.choice(["x", "y", ""])),
                "%s IN ('x', 'z')" % column, "%s < 'y'" % column, "coalesce(%s, 'n') <> 'x'" % column])
        if name == "d":
            return rng.choice(["%s > %s" % (column, rng.choice(["0", "1.0", "-1.5"])), "%s IS NULL" % column,
                               "%s BETWEEN 0 AND 3" % column])
        value = self.integer(alias, table)
        return rng.choice([
            "%s %s %d" % (value, rng.choice(["=", "<>", "<", "<=", ">", ">="]), rng.randint(-1, 6)),
            "%s IS NULL" % value, "%s IN (1, 3, 5)" % value, "%s NOT IN (2, 4)" % value,
            "%s BETWEEN 1 AND 4" % value])

    def aggregate(self, alias, table):
        return self.rng.choice([
            "count(*)", "count({c})", "sum({c})", "min({c})", "max({c})", "avg({c})",
            "count(DISTINCT {c})", "sum(DISTINCT {c})"]).format(c=self.integer(alias, table))

    def query(self):
        rng = self.rng
        pick = getattr(self, "q_" + rng.choice([name[2:] for name in dir(self) if name.startswith("q_")]))
        return pick()

    def q_filter(self):
        table = self.rng.choice(["t1", "t2"])
        columns = ", ".join("x." + name for name, _ in SCHEMAS[table])
        return "SELECT %s FROM %s x WHERE %s" % (columns, table, self.predicate("x", table))

    def q_group(self):
        table = self.rng.choice(["t1", "t2"])
        key = self.integer("x", table)
        return "SELECT %s AS g, %s, %s FROM %s x WHERE %s GROUP BY %s" % (
            key, self.aggregate("x", table), self.aggregate("x", table), table, self.predicate("x", table), key)

    def q_join(self):
        rng = self.rng
        on = "x.a = y.a" + rng.choice(["", " AND x.s = y.s", " AND y.c > 1", " AND x.b < y.c"])
        where = rng.choice(["true", self.predicate("x", "t1"), "y.c IS NULL OR y.c > 2"])
        return "SELECT x.id, x.a, x.s, y.a, y.c, y.s FROM t1 x %s t2 y ON %s WHERE %s" % (
            rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"]), on, where)

    def q_three_way(self):
        rng = self.rng
        return ("SELECT x.a, count(*), %s, %s FROM t1 x %s t2 y ON x.a = y.a %s JOIN t3 z ON z.k = x.b"
                " GROUP BY x.a" % (self.aggregate("y", "t2"), self.aggregate("z", "t3"),
                                   rng.choice(["JOIN", "LEFT JOIN"]), rng.choice(["LEFT", ""])))

    def q_in(self):
        rng = self.rng
        return "SELECT x.id, x.a FROM t1 x WHERE %s %sIN (SELECT y.%s FROM t2 y WHERE %s)" % (
            self.integer("x", "t1"), rng.choice(["", "NOT "]), rng.choice(["a", "c"]), self.predicate("y", "t2"))

    def q_exists(self):
        return "SELECT x.id FROM t1 x WHERE %sEXISTS (SELECT 1 FROM t2 y WHERE y.a = x.a AND %s)" % (
            self.rng.choice(["", "NOT "]), self.predicate("y", "t2"))

    def q_scalar_subquery(self):
        rng = self.rng
        function = rng.choice(["count(*)", "sum(y.c)", "max(y.c)", "count(y.s)", "min(y.s)"])
        correlation = rng.choice(["y.a = x.a", "y.a = x.b", "y.a > x.a", "y.c = x.b AND y.a <> x.a"])
        where = rng.choice(["", " WHERE %s" % self.predicate("x", "t1")])
        return "SELECT x.id, (SELECT %s FROM t2 y WHERE %s) AS sub FROM t1 x%s" % (function, correlation, where)

    def q_set_operation(self):
        operation = self.rng.choice(["UNION", "UNION ALL", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"])
        return "SELECT x.a, x.s FROM t1 x WHERE %s %s SELECT y.a, y.s FROM t2 y WHERE %s" % (
            self.predicate("x", "t1"), operation, self.predicate("y", "t2"))

    def q_window(self):
        window = self.rng.choice([
            "sum(x.b) OVER (PARTITION BY x.a)", "rank() OVER (PARTITION BY x.a ORDER BY x.b)",
            "dense_rank() OVER (ORDER BY x.s)", "count(*) OVER (PARTITION BY x.s ORDER BY x.a)",
            "max(x.d) OVER (PARTITION BY x.b ORDER BY x.id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
            "row_number() OVER (PARTITION BY x.a ORDER BY x.id)", "lag(x.b) OVER (PARTITION BY x.a ORDER BY x.id)",
            "sum(x.a) OVER (ORDER BY x.b RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
            "first_value(x.s) OVER (PARTITION BY x.a ORDER BY x.id)"])
        return "SELECT x.id, %s AS w FROM t1 x WHERE %s" % (window, self.predicate("x", "t1"))

    def q_distinct(self):
        table = self.rng.choice(["t1", "t2"])
        return "SELECT DISTINCT %s, x.s FROM %s x" % (self.integer("x", table), table)

    def q_outer_group(self):
        return "SELECT y.a, count(x.id), sum(x.b) FROM t2 y LEFT JOIN t1 x ON x.a = y.a AND %s GROUP BY y.a" % (
            self.predicate("x", "t1"))

    def q_having_subquery(self):
        return ("SELECT x.a, count(*) AS n FROM t1 x GROUP BY x.a"
                " HAVING count(*) > (SELECT count(*) FROM t3 z WHERE z.k = x.a)")

    def q_derived_join(self):
        return "SELECT x.id, y.m FROM t1 x JOIN (SELECT a, max(c) AS m FROM t2 GROUP BY a) y ON y.a = x.a WHERE %s" % (
            self.predicate("x", "t1"))

    def q_grouping_sets(self):
        form, columns = self.rng.choice([("ROLLUP(x.a, x.b)", "x.a, x.b"), ("CUBE(x.a, x.s)", "x.a, x.s"),
                                         ("GROUPING SETS ((x.a), (x.b), ())", "x.a, x.b")])
        return "SELECT %s, count(*), sum(x.id) FROM t1 x WHERE %s GROUP BY %s" % (
            columns, self.predicate("x", "t1"), form)

    def q_top_rows(self):
        rng = self.rng
        order = rng.choice(["x.a DESC, x.id", "x.s, x.id DESC", "x.b NULLS LAST, x.id", "x.d DESC NULLS FIRST, x.id"])
        return "SELECT x.id, x.a, x.s FROM t1 x WHERE %s ORDER BY %s LIMIT %d" % (
            self.predicate("x", "t1"), order, rng.randint(1, 12))

    def q_cte(self):
        return ("WITH c AS (SELECT x.a, count(*) AS n FROM t1 x WHERE %s GROUP BY x.a)"
                " SELECT c.a, c.n, y.c FROM c LEFT JOIN t2 y ON y.a = c.a WHERE c.n > %d" % (
                    self.predicate("x", "t1"), self.rng.randint(0, 3)))

    def q_null_safe_join(self):
        return "SELECT x.id, y.c FROM t1 x JOIN t2 y ON x.a <=> y.a AND x.s <=> y.s"

    def q_using(self):
        rng = self.rng
        return "SELECT a, x.id, y.c FROM t1 x %s t2 y USING (a) WHERE %s" % (
            rng.choice(["JOIN", "LEFT JOIN", "FULL JOIN"]), rng.choice(["true", "y.c > 1", "a IS NULL"]))

    def q_aggregate_filter(self):
        return "SELECT x.a, count(*) FILTER (WHERE %s), sum(x.b) FILTER (WHERE %s) FROM t1 x GROUP BY x.a" % (
            self.predicate("x", "t1"), self.predicate("x", "t1"))

    def q_row_in(self):
        return "SELECT x.id FROM t1 x WHERE (x.a, x.s) IN (SELECT y.a, y.s FROM t2 y WHERE %s)" % (
            self.predicate("y", "t2"))

    def q_nested_subquery(self):
        return ("SELECT x.id FROM t1 x WHERE x.a IN (SELECT y.a FROM t2 y"
                " WHERE y.c > (SELECT min(z.v) / 10 FROM t3 z WHERE z.k = y.a))")

    def q_strings(self):
        function = self.rng.choice([
            "upper(x.s)", "lower(x.s)", "length(x.s)", "x.s || '-' || x.a", "substring(x.s, 1, 1)",
            "coalesce(x.s, 'none')", "trim(' ' || x.s || ' ')", "replace(x.s, 'x', 'q')", "lpad(x.s, 3, '*')",
            "reverse(x.s)"])
        return "SELECT x.id, %s FROM t1 x WHERE %s" % (function, self.predicate("x", "t1"))

    def q_conditionals(self):
        return ("SELECT x.id, CASE x.a WHEN 1 THEN 'one' WHEN NULL THEN 'null' ELSE x.s END, nullif(x.a, 2),"
                " greatest(x.a, x.b), least(x.a, x.b) FROM t1 x")

    def q_self_join(self):
        return "SELECT x.id, y.id FROM t1 x JOIN t1 y ON x.a = y.b AND x.id < y.id WHERE %s" % (
            self.predicate("x", "t1"))

    def typed_predicate(self):
        rng = self.rng
        return rng.choice([
            "x.dt BETWEEN DATE'2024-01-01' AND DATE'2024-03-01'", "year(x.dt) = 2024", "x.dt + 5 > DATE'2024-03-01'",
            "x.dt IS NULL", "x.dt < DATE'2024-01-01'", "month(x.dt) IN (2, 3)",
            "x.m > 1", "x.m BETWEEN -3 AND 13", "x.m * 2 < 3", "x.m IS NULL", "x.m = 1.5", "abs(x.m) >= 12.34",
            "x.big > 100", "x.big IS NULL", "x.big % 7 = 1", "x.big < 0", "x.g = 'g2'", "x.g IS NULL"])

    def q_typed_filter(self):
        return "SELECT x.id, x.m, x.dt, x.big, x.g FROM t4 x WHERE %s AND %s" % (
            self.typed_predicate(), self.rng.choice(["true", self.typed_predicate()]))

    def q_typed_arithmetic(self):
        expression = self.rng.choice([
            "x.m * 2", "x.m + 1.5", "round(x.m, 1)", "-x.m", "x.m * x.m", "abs(x.m)", "x.m - 0.01",
            "x.big + 1", "x.big * 3", "x.big % 7", "x.dt + 10", "year(x.dt) * 100 + month(x.dt)", "day(x.dt)",
            "floor(x.m)", "ceil(x.m)", "CAST(x.m AS INT)", "CAST(x.big AS DOUBLE) / 4"])
        return "SELECT x.id, %s FROM t4 x WHERE %s" % (expression, self.typed_predicate())

    def q_typed_group(self):
        rng = self.rng
        key = rng.choice(["x.g", "month(x.dt)", "year(x.dt)", "x.m > 1", "x.big % 2"])
        aggregates = ", ".join(rng.sample([
            "sum(x.m)", "avg(x.m)", "min(x.dt)", "max(x.dt)", "count(DISTINCT x.dt)", "sum(x.big)",
            "max(x.m)", "min(x.big)", "count(x.m)", "sum(x.m * 2)"], 3))
        return "SELECT %s, %s FROM t4 x WHERE %s GROUP BY %s" % (key, aggregates, self.typed_predicate(), key)

    def q_typed_window(self):
        window = self.rng.choice([
            "sum(x.m) OVER (PARTITION BY x.g ORDER BY x.dt, x.id ROWS UNBOUNDED PRECEDING)",
            "max(x.big) OVER (PARTITION BY x.g)", "rank() OVER (ORDER BY x.m DESC)",
            "count(*) OVER (PARTITION BY x.dt)", "min(x.m) OVER (ORDER BY x.id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)"])
        return "SELECT x.id, %s FROM t4 x" % window

    def q_typed_join(self):
        return "SELECT x.id, x.m, y.s, y.b FROM t4 x %s t1 y ON y.id = x.id AND y.b < 3 WHERE %s" % (
            self.rng.choice(["JOIN", "LEFT JOIN"]), self.typed_predicate())

    def q_typed_top_rows(self):
        order = self.rng.choice(["x.m DESC, x.id", "x.dt, x.id", "x.big DESC NULLS LAST, x.id", "x.g, x.m, x.id"])
        return "SELECT x.id, x.m, x.dt FROM t4 x ORDER BY %s LIMIT %d" % (order, self.rng.randint(1, 15))

    def like_pattern(self):
        # Several '%' parts, '_' (one character, also a multibyte one) and an escaped '%' or '_'.
        return self.rng.choice([
            "'%x%y%'", "'%y%'", "'x_'", "'_'", "'%'", "'x%y'", "'%_%'", "'a_%b'", "'x!%%' ESCAPE '!'",
            "'%!_%' ESCAPE '!'", "'%z%'", "''", "'x%z%y'"])

    def q_like(self):
        rng = self.rng
        return "SELECT x.id, x.s FROM t1 x WHERE x.s %sLIKE %s%s" % (
            rng.choice(["", "NOT "]), self.like_pattern(),
            rng.choice(["", " AND " + self.predicate("x", "t1"), " OR x.s IS NULL"]))

    def q_semi_small_left(self):
        # A left side filtered to a few rows against a larger right side: the semi or anti
        # join may build its left side.
        rng = self.rng
        residual = rng.choice(["", " AND y.c > x.b", " AND y.s <> x.s", " AND y.c IS NOT NULL"])
        return "SELECT x.id, x.a, x.s FROM t1 x WHERE x.id %s %d AND %sEXISTS (SELECT 1 FROM t2 y WHERE y.a = x.%s%s)" % (
            rng.choice(["<", ">"]), rng.randint(0, 40), rng.choice(["", "NOT "]), rng.choice(["a", "b"]), residual)

    def q_in_small_left(self):
        rng = self.rng
        return "SELECT x.id, x.a FROM t1 x WHERE x.id < %d AND %s %sIN (SELECT y.%s FROM t2 y WHERE %s)" % (
            rng.randint(0, 40), self.integer("x", "t1"), rng.choice(["", "NOT "]), rng.choice(["a", "c"]),
            rng.choice(["true", self.predicate("y", "t2")]))

    def q_outer_small_left(self):
        # Q13's shape: count the right rows of each left row, then count the counts.
        rng = self.rng
        on = rng.choice(["", " AND y.s NOT LIKE %s" % self.like_pattern(), " AND y.c > 1", " AND x.b < y.c"])
        return ("SELECT n, count(*) FROM (SELECT x.id, count(y.c) AS n FROM t1 x LEFT JOIN t2 y ON x.a = y.a%s"
                " WHERE x.id %s %d GROUP BY x.id) GROUP BY n" % (on, rng.choice(["<", ">"]), rng.randint(0, 60)))

    def q_in_having(self):
        # Q18's shape: keys whose group passes a HAVING, joined back to the rows.
        rng = self.rng
        return ("SELECT x.id, x.a, z.v FROM t1 x JOIN t3 z ON z.k = x.b WHERE x.a IN"
                " (SELECT y.a FROM t2 y GROUP BY y.a HAVING %s > %d)" % (
                    rng.choice(["sum(y.c)", "count(*)", "max(y.c)", "count(y.s)"]), rng.randint(0, 12)))

    def q_filtered_build(self):
        # A probe table joined to a filtered (small) side: the join's keys may be passed into the
        # probe side's scan, which must then keep every row that can match, for every join type.
        rng = self.rng
        key = rng.choice([("x.a", "y.a"), ("x.s", "y.s"), ("x.b", "y.c"), ("x.a + 1", "y.a"), ("x.id", "y.c")])
        filtered = rng.choice(["y.c = %d" % rng.randint(1, 5), "y.s = 'x'", "y.a < %d" % rng.randint(0, 12),
                               "y.a IS NULL", "y.c IS NOT NULL AND y.a > 8", "false"])
        form = rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "IN", "NOT IN", "EXISTS", "NOT EXISTS"])
        if form in ("IN", "NOT IN"):
            return "SELECT x.id, x.a FROM t1 x WHERE %s %s (SELECT %s FROM t2 y WHERE %s)" % (
                key[0], form, key[1], filtered)
        if form in ("EXISTS", "NOT EXISTS"):
            return "SELECT x.id, x.s FROM t1 x WHERE %s (SELECT 1 FROM t2 y WHERE %s = %s AND %s)" % (
                form, key[1], key[0], filtered)
        return "SELECT x.id, x.b, y.a, y.c FROM t1 x %s (SELECT * FROM t2 y WHERE %s) y ON %s = %s" % (
            form, filtered, key[0], key[1])

    def q_filtered_builds_chain(self):
        # Two filtered sides joined on different columns of one probe table, and keys of
        # different types (INT against BIGINT, dates).
        rng = self.rng
        return rng.choice([
            "SELECT x.id, y.c, z.v FROM t1 x JOIN t2 y ON y.a = x.a JOIN t3 z ON z.k = x.b"
            " WHERE y.c %s %d AND z.v %s %d" % (rng.choice(["=", "<", ">"]), rng.randint(1, 5),
                                                 rng.choice(["=", "<>"]), rng.choice([10, 20, 30])),
            "SELECT x.id, x.big, y.a FROM t4 x JOIN t1 y ON x.big = y.a WHERE %s" % self.predicate("y", "t1"),
            "SELECT x.id, y.id FROM t4 x JOIN t4 y ON x.dt = y.dt WHERE y.g = '%s' AND y.id %% %d = 0" % (
                rng.choice(["g1", "g2", "g3"]), rng.randint(2, 9)),
            "SELECT x.id, y.id FROM t4 x %s t4 y ON x.m = y.m AND y.big %s 0" % (
                rng.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN"]), rng.choice(["<", ">", "="]))])

    def q_union_group(self):
        return ("SELECT u.a, count(*), max(u.s) FROM (SELECT a, s FROM t1 UNION ALL SELECT a, s FROM t2) u"
                " GROUP BY u.a HAVING count(*) > 1")


def normalized(value):
    if value is None:
        return (0, "")
    if isinstance(value, bool):
        return (1, float(value))
    if isinstance(value, (int, float)):
        return (1, float(value))
    if isinstance(value, (datetime.date, decimal.Decimal)):
        value = str(value)
    if isinstance(value, str):
        try:
            return (1, float(value))  # DuckDB's JSON gives BIGINT, HUGEINT and DECIMAL as text
        except ValueError:
            return (2, value)
    return (3, str(value))


def same_rows(got, want):
    """Whether two sorted row lists agree, numbers within a relative 1e-6 or half a unit of the
    sixth decimal (a decimal average is rounded to six decimals in Spark, a double in DuckDB)."""
    if len(got) != len(want):
        return False
    for got_row, want_row in zip(got, want):
        for (got_kind, got_value), (want_kind, want_value) in zip(got_row, want_row):
            if got_kind != want_kind:
                return False
            if got_kind == 1 and not math.isclose(got_value, want_value, rel_tol=1e-6, abs_tol=5e-6):
                return False
            if got_kind != 1 and got_value != want_value:
                return False
    return True


def for_duckdb(query):
    """The query in DuckDB's spelling: `<=>` is IS NOT DISTINCT FROM, and a decimal cast to an
    integer truncates in Spark where DuckDB rounds."""
    return query.replace(" <=> ", " IS NOT DISTINCT FROM ").replace("CAST(x.m AS INT)", "CAST(trunc(x.m) AS INT)")


def run_seed(seed, count, peer):
    rng = random.Random(seed)
    sizes = {"t1": 60 + rng.randint(0, 300), "t2": 40 + rng.randint(0, 200), "t3": 15, "t4": 50 + rng.randint(0, 200)}
    data = {table: make_rows(rng, table, size) for table, size in sizes.items()}
    generator = Generator(rng)
    queries = [generator.query() for _ in range(count)]
    folder = tempfile.mkdtemp(prefix="silt-random-queries-")
    spark = SparkSession.builder.config("spark.sql.warehouse.dir", folder).getOrCreate()
    duckdb_script = ["SET default_null_order = 'nulls_first_on_asc_last_on_desc';"]
    try:
        for table, schema in SCHEMAS.items():
            columns = ", ".join("%s %s" % (name, kind) for name, kind in schema)
            spark.sql("DROP TABLE IF EXISTS %s" % table)
            spark.sql("CREATE TABLE %s (%s) USING delta" % (table, columns))
            rows = data[table]
            cuts = [0] + sorted(rng.sample(range(1, len(rows)), 3)) + [len(rows)]
            for start, end in zip(cuts, cuts[1:]):  # four files, for file pruning to work on
                spark.sql("INSERT INTO %s %s" % (table, values_query(rows[start:end], schema, "STRING")))
            duckdb_columns = ", ".join("%s %s" % (name, DUCKDB_TYPES[kind]) for name, kind in schema)
            duckdb_script.append("CREATE TABLE %s (%s); INSERT INTO %s %s;" % (
                table, duckdb_columns, table, values_query(rows, schema, "VARCHAR")))
        duckdb_script += [for_duckdb(query) + ";" for query in queries]
        ran = subprocess.run([peer, "--format", "json", "-"], input="\n".join(duckdb_script),
                             capture_output=True, text=True)
        if ran.returncode != 0:
            print("seed %d: DuckDB failed: %s" % (seed, ran.stderr.strip()))
            return 1
        expected_results = json.loads(ran.stdout)[-count:]
        differences = 0
        for query, expected in zip(queries, expected_results):
            try:
                got = sorted(tuple(normalized(v) for v in row) for row in spark.sql(query).collect())
            except Exception as error:  # an error where DuckDB answers is a difference too
                print("seed %d: silt failed: %s\n    %s" % (seed, query, str(error).splitlines()[0]))
                differences += 1
                continue
            want = sorted(tuple(normalized(v) for v in row.values()) for row in expected)
            if same_rows(got, want):
                continue
            if not got and len(want) == 1 and any(form in query for form in ("ROLLUP", "CUBE", "GROUPING SETS")):
                continue  # Spark's grouping sets give no grand total row over no rows
            differences += 1
            only_silt = sorted(set(got) - set(want))[:5]
            only_duckdb = sorted(set(want) - set(got))[:5]
            print("seed %d: different rows: %s\n    silt %d rows, DuckDB %d; only silt: %s; only DuckDB: %s" % (
                seed, query, len(got), len(want), only_silt, only_duckdb))
        return differences
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", required=True, help="the DuckDB peer runner (tools/duckdb-peer/duckdb)")
    parser.add_argument("--seeds", default="1,2,3,4")
    parser.add_argument("--queries", type=int, default=300, help="queries per seed")
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    differences = sum(run_seed(seed, args.queries, args.peer) for seed in seeds)
    print("%d queries over %d seeds, %d differences" % (args.queries * len(seeds), len(seeds), differences))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
