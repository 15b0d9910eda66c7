import pytest

import silt


@pytest.fixture
def warehouse(tmp_path):
    return tmp_path / "warehouse"


@pytest.fixture
def session(warehouse):
    return silt.Session(warehouse=warehouse, conf={"spark.sql.session.timeZone": "UTC"})
