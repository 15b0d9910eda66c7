"""silt.delta: delta-spark's Python API (the package `delta`) on silt's engine.

    from silt.delta.tables import DeltaTable
"""

from silt.delta.tables import DeltaTable


def configure_spark_with_delta_pip(spark_session_builder, extra_packages=None):
    """delta-spark's helper that adds its jars to a session builder; silt needs none, so the
    builder is returned unchanged."""
    return spark_session_builder


__all__ = ["DeltaTable", "configure_spark_with_delta_pip"]
