import pytest

import silt


@pytest.fixture
def warehouse(tmp_path):
    return tmp_path / "warehouse"


@pytest.fixture
def session(warehouse):
    return silt.Session(warehouse=warehouse, conf={"spark.sql.session.timeZone": "UTC"})


@pytest.fixture
def spark(warehouse):
    """A SparkSession of silt.sql over a fresh warehouse, in UTC."""
    from silt.sql import SparkSession

    session = (
        SparkSession.builder.appName("tests")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.sql.session.timeZone", "UTC")
        .create()
    )
    yield session
    session.stop()
