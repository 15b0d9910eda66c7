"""The programs of python/examples/ run and print what their pipelines should produce."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

EXPECTED = {
    "cdc_merge.py": (
        "merge: {'num_affected_rows': 3, 'num_updated_rows': 1, 'num_deleted_rows': 1, 'num_inserted_rows': 1}\n"
        "1 Ada Oxford 13\n"
        "3 Grace New York 10\n"
        "4 Barbara Boston 11\n"
    ),
    "scd2_merge.py": (
        "1 1 Main St False 2024-01-01 2024-06-01\n"
        "1 9 New Ave True 2024-06-01 None\n"
        "2 2 Side Rd True 2024-01-01 None\n"
        "3 3 Third Pl True 2024-06-01 None\n"
    ),
    "dedupe_row_number.py": (
        "rows: 3\n"
        "a 2024-05-01T12:00:00 3 13.0\n"
        "b 2024-05-02T09:30:00 4 7.25\n"
        "c 2024-05-03T08:00:00 6 None\n"
    ),
    "dedupe_drop_duplicates.py": (
        "distinct rows: 4\n"
        "orders: 4\n"
        "2024-05-01 4\n"
        "2024-05-02 7\n"
    ),
    "streaming_medallion.py": (
        "run: 3 rows read from bronze, 2 from silver\n"
        "ada 1 10.0\n"
        "linus 1 5.5\n"
        "run: 2 rows read from bronze, 2 from silver\n"
        "ada 2 12.5\n"
        "grace 1 7.0\n"
        "linus 1 5.5\n"
        "run: 0 rows read from bronze, 0 from silver\n"
        "ada 2 12.5\n"
        "grace 1 7.0\n"
        "linus 1 5.5\n"
    ),
    "change_feed.py": (
        "1 insert 1 100\n"
        "1 insert 2 200\n"
        "1 insert 3 300\n"
        "2 update_postimage 2 250\n"
        "2 update_preimage 2 200\n"
        "3 delete 3 300\n"
        "version 1 changes 3\n"
        "version 2 changes 2\n"
        "version 3 changes 1\n"
    ),
}


def test_every_example_is_tested():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name, tmp_path):
    environment = dict(os.environ, SILT_WAREHOUSE=str(tmp_path / "warehouse"))
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name), str(tmp_path)],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_differs_from_pyspark_only_in_imports(name):
    # Every line naming silt is an import line; the docstring lists each with its PySpark form.
    text = (EXAMPLES / name).read_text()
    code = text.split('"""', 2)[2]
    for line in code.splitlines():
        if "silt" in line:
            assert line.startswith(("from silt.sql import", "from silt.delta.tables import")), line
            pyspark = line.replace("from silt.sql", "from pyspark.sql").replace("from silt.delta", "from delta")
            assert re.search(re.escape(line) + r" +->  " + re.escape(pyspark), text), line
