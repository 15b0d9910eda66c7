"""silt.sql: PySpark's DataFrame API (pyspark.sql's names) on silt's native engine.

    from silt.sql import SparkSession, functions as F, Window, Row
    from silt.sql.types import StructType, StructField, LongType

A PySpark program that stays inside this API runs with only its imports changed.
"""

from silt.sql.catalog import Catalog
from silt.sql.column import Column
from silt.sql.dataframe import DataFrame, DataFrameNaFunctions, DataFrameStatFunctions, GroupedData
from silt.sql.readwriter import DataFrameReader, DataFrameWriter, DataFrameWriterV2
from silt.sql.session import RuntimeConfig, SparkSession
from silt.sql.types import Row
from silt.sql.window import Window, WindowSpec
from silt.sql import functions, types  # noqa: F401 - submodules, as in pyspark.sql

__all__ = [
    "Catalog",
    "Column",
    "DataFrame",
    "DataFrameNaFunctions",
    "DataFrameStatFunctions",
    "DataFrameReader",
    "DataFrameWriter",
    "DataFrameWriterV2",
    "GroupedData",
    "Row",
    "RuntimeConfig",
    "SparkSession",
    "Window",
    "WindowSpec",
    "functions",
    "types",
]
