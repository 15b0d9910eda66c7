"""Exception classes: one per Spark error family, as pyspark.errors and delta.exceptions have
them, with getErrorClass()/getCondition(), getMessageParameters() and getSqlState()
(pyspark.errors.exceptions.base.PySparkException docstrings)."""

import os
import signal
import threading
import time

import pytest

import silt
from silt import errors
from silt.delta import exceptions as delta_exceptions
from silt.sql import utils


def test_parse_errors(spark):
    with pytest.raises(errors.ParseException) as raised:
        spark.sql("SELEC 1")
    error = raised.value
    assert isinstance(error, errors.AnalysisException)  # as in PySpark
    assert isinstance(error, silt.UserError)
    assert error.getErrorClass() == error.getCondition() == "PARSE_SYNTAX_ERROR"
    assert error.getSqlState() == "42601"
    assert error.getMessageParameters() == {"error": "'SELEC'", "hint": ""}
    assert str(error).startswith("[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'")


def test_analysis_errors_carry_their_parameters(spark):
    with pytest.raises(utils.AnalysisException) as raised:
        spark.sql("SELECT * FROM nowhere")
    assert raised.value.getMessageParameters() == {"relationName": "`nowhere`"}
    assert raised.value.getSqlState() == "42P01"
    df = spark.range(1)
    with pytest.raises(errors.AnalysisException) as raised:
        df.select("missing")
    assert raised.value.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_runtime_error_families(spark):
    spark.conf.set("spark.sql.ansi.enabled", True)
    cases = [
        ("SELECT 1 / 0", errors.ArithmeticException, "DIVIDE_BY_ZERO"),
        ("SELECT CAST('x' AS INT)", errors.NumberFormatException, "CAST_INVALID_INPUT"),
        ("SELECT array(1)[5]", errors.ArrayIndexOutOfBoundsException, "INVALID_ARRAY_INDEX"),
        ("SELECT 2147483647 + 1", errors.ArithmeticException, "ARITHMETIC_OVERFLOW"),
    ]
    for statement, family, error_class in cases:
        with pytest.raises(family) as raised:
            spark.sql(statement).collect()
        assert raised.value.getErrorClass() == error_class, statement
        assert isinstance(raised.value, errors.PySparkException)
    assert issubclass(errors.NumberFormatException, errors.IllegalArgumentException)


def test_concurrent_modification_errors_are_delta_exceptions():
    error = errors._from_engine("[DELTA_CONCURRENT_APPEND] Transaction conflict detected.",
                                "DELTA_CONCURRENT_APPEND", "2D521", "concurrent_modification")
    assert isinstance(error, delta_exceptions.ConcurrentAppendException)
    assert isinstance(error, delta_exceptions.DeltaConcurrentModificationException)
    assert isinstance(error, silt.ConcurrentModificationError)
    assert type(error).__name__ == "ConcurrentAppendException"


def test_python_side_errors_are_python_exception_types(spark):
    with pytest.raises(TypeError) as raised:
        spark.range(1).withColumn("x", "not a column")
    assert isinstance(raised.value, errors.PySparkTypeError)
    assert raised.value.getErrorClass() == "NOT_COLUMN"
    with pytest.raises(errors.IllegalArgumentException) as raised:
        spark.range(1).join(spark.range(1), "id", "nonsense")
    assert raised.value.getErrorClass() == "UNSUPPORTED_JOIN_TYPE"


def test_user_code_can_raise_pyspark_exceptions():
    error = errors.PySparkValueError(errorClass="MY_ERROR", messageParameters={"a": "1"})
    assert error.getErrorClass() == "MY_ERROR"
    assert error.getMessageParameters() == {"a": "1"}
    assert isinstance(error, ValueError)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_cancels_a_running_query(spark):
    # SIGINT during a long query raises KeyboardInterrupt and stops the query.
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        spark.sql("SELECT count(*) FROM range(0, 20000000000) WHERE id % 7 = 3").collect()
    assert time.monotonic() - started < 10
    timer.join()
    # The session keeps working, show() (which plans and pulls rows itself) first.
    spark.createDataFrame([(1,)], ["x"]).show()
    assert spark.range(3).count() == 3
