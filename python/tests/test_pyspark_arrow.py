"""The Arrow PyCapsule stream interface of DataFrames (arrow.apache.org/docs/format/
CDataInterface/PyCapsuleInterface.html), read here by a minimal consumer of the Arrow C stream
interface in ctypes, and by pyarrow where it is installed."""

import ctypes
import datetime

import pytest


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))), ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))), ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)), ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))), ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]


def stream_of(capsule):
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get_pointer(capsule, b"arrow_array_stream"), ctypes.POINTER(ArrowArrayStream))


def valid(array, row):
    bitmap = array.buffers[0]
    if not bitmap:
        return True
    bit = array.offset + row
    return bool(ctypes.cast(bitmap, ctypes.POINTER(ctypes.c_uint8))[bit >> 3] >> (bit & 7) & 1)


def read_column(array, format):
    values = []
    for row in range(array.length):
        if not valid(array, row):
            values.append(None)
        elif format == b"l":
            values.append(ctypes.cast(array.buffers[1], ctypes.POINTER(ctypes.c_int64))[array.offset + row])
        elif format == b"u":
            offsets = ctypes.cast(array.buffers[1], ctypes.POINTER(ctypes.c_int32))
            start, end = offsets[array.offset + row], offsets[array.offset + row + 1]
            values.append(ctypes.string_at(array.buffers[2] + start, end - start).decode())
        elif format == b"tdD":
            days = ctypes.cast(array.buffers[1], ctypes.POINTER(ctypes.c_int32))[array.offset + row]
            values.append(datetime.date(1970, 1, 1) + datetime.timedelta(days=days))
        else:
            raise AssertionError(format)
    return values


def test_dataframe_exports_an_arrow_stream(spark):
    df = spark.sql("SELECT id, CASE WHEN id % 2 = 0 THEN concat('v', id) END AS s,"
                   " date_add(DATE'2024-01-01', CAST(id AS INT)) AS d, array(id) AS a,"
                   " CAST(1.5 AS DECIMAL(5, 2)) AS dec, TIMESTAMP'2024-01-01 00:00:00' AS ts, map('k', id) AS m"
                   " FROM range(5000)")
    capsule = df.__arrow_c_stream__()
    stream = stream_of(capsule)
    schema = ArrowSchema()
    assert stream.contents.get_schema(stream, ctypes.byref(schema)) == 0
    assert schema.format == b"+s" and schema.n_children == 7
    children = [schema.children[i].contents for i in range(schema.n_children)]
    assert [c.name for c in children] == [b"id", b"s", b"d", b"a", b"dec", b"ts", b"m"]
    assert [c.format for c in children] == [b"l", b"u", b"tdD", b"+l", b"d:5,2", b"tsu:UTC", b"+m"]
    assert children[3].n_children == 1 and children[3].children[0].contents.format == b"l"
    entries = children[6].children[0].contents
    assert (entries.name, entries.format, entries.n_children) == (b"entries", b"+s", 2)
    assert [entries.children[i].contents.name for i in range(2)] == [b"key", b"value"]
    schema.release(ctypes.byref(schema))
    assert not schema.release

    ids, strings, days = [], [], []
    while True:
        array = ArrowArray()
        assert stream.contents.get_next(stream, ctypes.byref(array)) == 0
        if not array.release:
            break
        assert array.n_children == 7
        entries = array.children[6].contents.children[0].contents
        assert entries.n_children == 2 and entries.length == array.length
        ids += read_column(array.children[0].contents, b"l")
        strings += read_column(array.children[1].contents, b"u")
        days += read_column(array.children[2].contents, b"tdD")
        array.release(ctypes.byref(array))
    assert ids == list(range(5000))
    assert strings[:3] == ["v0", None, "v2"] and strings[-1] is None
    assert days[0] == datetime.date(2024, 1, 1) and days[-1] == datetime.date(2024, 1, 1) + datetime.timedelta(4999)
    del capsule  # the capsule's destructor releases the stream


def test_pyarrow_reads_a_dataframe(spark):
    pyarrow = pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    table = pyarrow.table(spark.range(3))
    assert table.column("id").to_pylist() == [0, 1, 2]


def test_arrow_stream_reads_batches_as_they_are_produced(spark):
    # The batches before id 300000 are read before the one holding it fails; the failure ends
    # the stream with the error's text.
    capsule = spark.sql("SELECT id, 10 DIV (id - 300000) AS q FROM range(1000000)").__arrow_c_stream__()
    stream = stream_of(capsule)
    array = ArrowArray()
    assert stream.contents.get_next(stream, ctypes.byref(array)) == 0
    assert array.release and array.length > 0
    assert read_column(array.children[0].contents, b"l")[:3] == [0, 1, 2]
    array.release(ctypes.byref(array))
    while True:
        array = ArrowArray()
        code = stream.contents.get_next(stream, ctypes.byref(array))
        if code != 0:
            break
        assert array.release, "the stream ended without the error"
        array.release(ctypes.byref(array))
    assert b"DIVIDE_BY_ZERO" in stream.contents.get_last_error(stream)
