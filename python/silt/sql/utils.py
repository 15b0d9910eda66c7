"""The exception classes of pyspark.sql.utils (the same classes as silt.errors)."""

from silt.errors import (  # noqa: F401 - re-exported
    AnalysisException,
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    CapturedException,
    DateTimeException,
    IllegalArgumentException,
    NumberFormatException,
    ParseException,
    PySparkException,
    QueryExecutionException,
    SparkRuntimeException,
    SparkUpgradeException,
    StreamingQueryException,
    UnknownException,
    UnsupportedOperationException,
)
