"""silt: Delta Lake tables from Python, on silt's native engine.

PySpark's and delta-spark's API, for programs written for them:

    from silt.sql import SparkSession, functions as F
    from silt.delta.tables import DeltaTable
    spark = SparkSession.builder.getOrCreate()
    spark.table("people").groupBy("city").agg(F.count("*").alias("n")).show()

and the engine's own binding:

    import silt
    session = silt.Session(warehouse="/data/warehouse")
    result = session.sql("SELECT id, name FROM people ORDER BY id")
    result.columns  # ['id', 'name']
    result.rows()   # [(1, 'Ada'), (2, 'Linus')]

Errors are raised as silt.SiltError subclasses carrying .error_class and .sqlstate.
"""

from silt.errors import (
    ConcurrentModificationError,
    CorruptDataError,
    InternalError,
    SiltError,
    StorageError,
    UnsupportedFeatureError,
    UserError,
)
from silt._silt import Result, Session, __version__

__all__ = [
    "ConcurrentModificationError",
    "CorruptDataError",
    "InternalError",
    "Result",
    "Session",
    "SiltError",
    "StorageError",
    "UnsupportedFeatureError",
    "UserError",
    "__version__",
]
