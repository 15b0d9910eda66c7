"""Window and WindowSpec, as pyspark.sql.Window: the OVER clause of window functions."""

import sys

from silt.sql.column import _to_column

__all__ = ["Window", "WindowSpec"]

_JAVA_MIN_LONG = -(1 << 63)
_JAVA_MAX_LONG = (1 << 63) - 1
_PRECEDING_THRESHOLD = max(-sys.maxsize, _JAVA_MIN_LONG)
_FOLLOWING_THRESHOLD = min(sys.maxsize, _JAVA_MAX_LONG)


def _columns(cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return [_to_column(col) for col in cols]


class Window:
    """Builds WindowSpecs: Window.partitionBy("a").orderBy("b").rowsBetween(...)."""

    unboundedPreceding = _JAVA_MIN_LONG
    unboundedFollowing = _JAVA_MAX_LONG
    currentRow = 0

    @staticmethod
    def partitionBy(*cols):
        return WindowSpec().partitionBy(*cols)

    @staticmethod
    def orderBy(*cols):
        return WindowSpec().orderBy(*cols)

    @staticmethod
    def rowsBetween(start, end):
        return WindowSpec().rowsBetween(start, end)

    @staticmethod
    def rangeBetween(start, end):
        return WindowSpec().rangeBetween(start, end)


def _bound(value, sql):
    if value <= _PRECEDING_THRESHOLD:
        return "UNBOUNDED PRECEDING"
    if value >= _FOLLOWING_THRESHOLD:
        return "UNBOUNDED FOLLOWING"
    if value == 0:
        return "CURRENT ROW"
    if sql:
        return "%d %s" % (abs(value), "PRECEDING" if value < 0 else "FOLLOWING")
    # Spark's names write a row offset as a signed FOLLOWING bound ("-1 FOLLOWING").
    return "%d %s" % (abs(value), "PRECEDING" if value < 0 else "FOLLOWING")


class WindowSpec:
    """The partitioning, ordering and frame of a window."""

    def __init__(self, partition=None, order=None, frame=None):
        self._partition = partition or []
        self._order = order or []
        self._frame = frame  # ("ROWS" | "RANGE", start, end)

    def partitionBy(self, *cols):
        return WindowSpec(_columns(cols), self._order, self._frame)

    def orderBy(self, *cols):
        return WindowSpec(self._partition, _columns(cols), self._frame)

    def rowsBetween(self, start, end):
        return WindowSpec(self._partition, self._order, ("ROWS", start, end))

    def rangeBetween(self, start, end):
        return WindowSpec(self._partition, self._order, ("RANGE", start, end))

    def _sql(self, scope):
        parts = []
        if self._partition:
            parts.append("PARTITION BY " + ", ".join(c._sql(scope) for c in self._partition))
        if self._order:
            parts.append("ORDER BY " + ", ".join(c._sort_sql(scope) for c in self._order))
        if self._frame:
            kind, start, end = self._frame
            parts.append("%s BETWEEN %s AND %s" % (kind, _bound(start, True), _bound(end, True)))
        return " ".join(parts)

    def _pretty(self, function_kind):
        """The window as Spark names it, with the frame Spark fills in when none was given."""
        parts = []
        if self._partition:
            parts.append("PARTITION BY " + ", ".join(c._pretty_in() for c in self._partition))
        if self._order:
            parts.append("ORDER BY " + ", ".join(
                "%s %s" % (c._pretty_in(), c._sort or "ASC NULLS FIRST") for c in self._order))
        if self._frame:
            kind, start, end = self._frame
            parts.append("%s BETWEEN %s AND %s" % (kind, _bound(start, False), _bound(end, False)))
        elif function_kind == "rank":
            parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
        elif self._order:
            parts.append("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
        else:
            parts.append("ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
        return " ".join(parts)
