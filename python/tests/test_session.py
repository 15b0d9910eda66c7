import datetime
import decimal
import re
import threading
import time

import pytest

import silt


def test_version_is_the_engine_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", silt.__version__)
    assert silt.__version__ == silt._silt.__version__


def test_query_returns_columns_and_rows(session):
    result = session.sql("SELECT 1 AS one, 'two' AS two")
    assert result.columns == ["one", "two"]
    assert result.rows() == [(1, "two")]
    assert len(result) == 1


def test_statement_without_rows_has_no_columns(session):
    result = session.sql("CREATE TABLE t (id BIGINT)")
    assert result.columns == []
    assert result.rows() == []


def test_sql_runs_every_statement_and_returns_the_last(session):
    result = session.sql(
        "CREATE TABLE t (id BIGINT, name STRING); "
        "INSERT INTO t VALUES (2, 'b'), (1, 'a'), (3, NULL); "
        "SELECT id, name FROM t ORDER BY id"
    )
    assert result.columns == ["id", "name"]
    assert result.rows() == [(1, "a"), (2, "b"), (3, None)]


def test_tables_persist_in_the_warehouse(session, warehouse):
    session.sql("CREATE TABLE people (id BIGINT, city STRING) PARTITIONED BY (city)")
    session.sql("INSERT INTO people VALUES (1, 'London'), (2, 'Helsinki'), (3, 'London')")
    assert (warehouse / "people" / "_delta_log").is_dir()
    other = silt.Session(warehouse=str(warehouse))
    assert other.warehouse == str(warehouse)
    rows = other.sql("SELECT city, count(*) FROM people GROUP BY city ORDER BY city").rows()
    assert rows == [("Helsinki", 1), ("London", 2)]


def test_values_convert_to_python_types(session):
    result = session.sql(
        "SELECT CAST(1 AS TINYINT) AS byte, CAST(2 AS SMALLINT) AS short, 3 AS int,"
        " 9007199254740993 AS long, CAST(1.5 AS FLOAT) AS float, 2.25D AS double,"
        " true AS bool, 'héllo' AS string, CAST('12.30' AS DECIMAL(5, 2)) AS dec,"
        " CAST('-0.001' AS DECIMAL(38, 3)) AS small_dec,"
        " DATE'2024-02-29' AS date, TIMESTAMP'2024-01-31 12:00:00.5' AS ts,"
        " TIMESTAMP_NTZ'2024-01-31 12:00:00.25' AS ntz, CAST('ab' AS BINARY) AS bin,"
        " NULL AS nothing, CAST(NULL AS INT) AS null_int"
    )
    row = result.rows()[0]
    expected = (
        1,
        2,
        3,
        9007199254740993,
        1.5,
        2.25,
        True,
        "héllo",
        decimal.Decimal("12.30"),
        decimal.Decimal("-0.001"),
        datetime.date(2024, 2, 29),
        datetime.datetime(2024, 1, 31, 12, 0, 0, 500000, tzinfo=datetime.timezone.utc),
        datetime.datetime(2024, 1, 31, 12, 0, 0, 250000),
        b"ab",
        None,
        None,
    )
    assert row == expected
    # Exact types, not merely equal values (True == 1, 1.5 == Decimal("1.5")).
    assert [type(value) for value in row] == [type(value) for value in expected]
    assert str(row[8]) == "12.30"


def test_timestamps_are_instants_whatever_the_session_time_zone(warehouse):
    session = silt.Session(warehouse=warehouse, conf={"spark.sql.session.timeZone": "Asia/Tokyo"})
    (value,) = session.sql("SELECT TIMESTAMP'2024-01-31 09:00:00'").rows()[0]
    assert value == datetime.datetime(2024, 1, 31, 0, 0, tzinfo=datetime.timezone.utc)


def test_dates_before_the_epoch(session):
    rows = session.sql("SELECT DATE'1969-12-31', DATE'0001-01-01', TIMESTAMP'1969-12-31 23:59:59'").rows()
    assert rows == [
        (
            datetime.date(1969, 12, 31),
            datetime.date(1, 1, 1),
            datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc),
        )
    ]


def test_nested_values_become_lists_and_dicts(session):
    result = session.sql(
        "SELECT array(1, 2, NULL) AS a, map('x', 1, 'y', 2) AS m,"
        " named_struct('id', 7, 'tags', array('p', 'q')) AS s,"
        " array(named_struct('k', 1), named_struct('k', 2)) AS list_of_structs,"
        " CAST(NULL AS ARRAY<INT>) AS null_array, array() AS empty"
    )
    assert result.rows() == [
        (
            [1, 2, None],
            {"x": 1, "y": 2},
            {"id": 7, "tags": ["p", "q"]},
            [{"k": 1}, {"k": 2}],
            None,
            [],
        )
    ]


def test_nested_values_of_a_table(session):
    session.sql(
        "CREATE TABLE nested (id INT, s STRUCT<a: INT, b: ARRAY<STRING>>, m MAP<STRING, DOUBLE>)"
    )
    session.sql(
        "INSERT INTO nested VALUES"
        " (1, named_struct('a', 1, 'b', array('x')), map('k', 0.5)),"
        " (2, NULL, NULL),"
        " (3, named_struct('a', NULL, 'b', array()), map())"
    )
    rows = session.sql("SELECT id, s, m FROM nested ORDER BY id").rows()
    assert rows == [
        (1, {"a": 1, "b": ["x"]}, {"k": 0.5}),
        (2, None, None),
        (3, {"a": None, "b": []}, {}),
    ]


def test_map_keys_that_are_arrays_become_tuples(session):
    rows = session.sql("SELECT map(array(1, 2), 'pair')").rows()
    assert rows == [({(1, 2): "pair"},)]


def test_rows_span_every_batch(session):
    rows = session.sql("SELECT id FROM range(0, 100000)").rows()
    assert len(rows) == 100000
    assert rows[0] == (0,) and rows[-1] == (99999,)


def test_conf_values_are_session_options(warehouse):
    session = silt.Session(
        warehouse=warehouse,
        conf={"spark.sql.session.timeZone": "America/New_York", "spark.sql.ansi.enabled": False},
    )
    assert session.sql("SET spark.sql.session.timeZone").rows() == [
        ("spark.sql.session.timeZone", "America/New_York")
    ]
    assert session.sql("SET spark.sql.ansi.enabled").rows() == [("spark.sql.ansi.enabled", "false")]


def test_default_warehouse_comes_from_the_environment(warehouse, monkeypatch):
    monkeypatch.setenv("SILT_WAREHOUSE", str(warehouse))
    assert silt.Session().warehouse == str(warehouse)


def test_a_syntax_error_is_a_user_error(session):
    with pytest.raises(silt.UserError) as raised:
        session.sql("SELEC 1")
    error = raised.value
    assert isinstance(error, silt.SiltError)
    assert error.error_class == "PARSE_SYNTAX_ERROR"
    assert error.sqlstate == "42601"
    assert error.category == "user"
    assert str(error).startswith("[PARSE_SYNTAX_ERROR] ")


def test_a_missing_table_names_its_error_class(session):
    with pytest.raises(silt.SiltError) as raised:
        session.sql("SELECT * FROM no_such_table")
    assert isinstance(raised.value, silt.UserError)
    # The same exception is PySpark's class for the error.
    assert isinstance(raised.value, silt.errors.AnalysisException)
    assert type(raised.value).__name__ == "AnalysisException"
    assert raised.value.error_class == "TABLE_OR_VIEW_NOT_FOUND"
    assert raised.value.sqlstate == "42P01"


def test_statements_before_a_failing_one_stay_committed(session):
    with pytest.raises(silt.UserError):
        session.sql("CREATE TABLE kept (id INT); INSERT INTO kept VALUES (1); SELECT * FROM missing")
    assert session.sql("SELECT * FROM kept").rows() == [(1,)]


def test_a_corrupt_log_is_a_corrupt_data_error(session, warehouse):
    session.sql("CREATE TABLE broken (id INT)")
    log = warehouse / "broken" / "_delta_log" / "00000000000000000001.json"
    log.write_text("{not json\n")
    with pytest.raises(silt.CorruptDataError) as raised:
        session.sql("SELECT * FROM broken")
    assert raised.value.category == "corruption"
    assert raised.value.error_class
    assert re.fullmatch(r"[0-9A-Z]{5}", raised.value.sqlstate)


def test_every_category_has_its_exception_class():
    for name in [
        "UserError",
        "ConcurrentModificationError",
        "StorageError",
        "CorruptDataError",
        "UnsupportedFeatureError",
        "InternalError",
    ]:
        assert issubclass(getattr(silt, name), silt.SiltError)


def run_in_thread_while_ticking(session, query):
    """Runs `query` on a thread while this thread keeps running Python; returns the query's
    rows, its duration in seconds and the longest pause between two ticks of this thread."""
    done = threading.Event()
    outcome = {}

    def run():
        started = time.monotonic()
        outcome["rows"] = session.sql(query).rows()
        outcome["seconds"] = time.monotonic() - started
        done.set()

    worker = threading.Thread(target=run)
    ticks = [time.monotonic()]
    worker.start()
    while not done.wait(0.001):
        ticks.append(time.monotonic())
    ticks.append(time.monotonic())
    worker.join()
    longest_pause = max(later - earlier for earlier, later in zip(ticks, ticks[1:]))
    return outcome["rows"], outcome["seconds"], longest_pause


def test_the_engine_runs_without_the_gil(session):
    # With the GIL held through a query, this thread would stall for the query's whole
    # duration. The query grows until it is long enough to tell on this machine.
    rows_in_range = 5_000_000
    while True:
        rows, seconds, longest_pause = run_in_thread_while_ticking(
            session, f"SELECT count(*) FROM range(0, {rows_in_range}) WHERE id % 7 = 3"
        )
        assert rows == [(len(range(3, rows_in_range, 7)),)]
        if seconds >= 0.4 or rows_in_range >= 500_000_000:
            break
        rows_in_range *= 4
    assert seconds >= 0.4, "no query was long enough to tell"
    assert longest_pause < seconds / 2


def test_threads_may_share_a_session(session):
    session.sql("CREATE TABLE shared (id BIGINT)")
    failures = []

    def insert(value):
        try:
            session.sql(f"INSERT INTO shared VALUES ({value})")
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=insert, args=(value,)) for value in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert session.sql("SELECT id FROM shared ORDER BY id").rows() == [(value,) for value in range(8)]

