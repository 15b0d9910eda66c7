"""Spark SQL data types, as pyspark.sql.types names them.

Every type has Spark's simpleString() ("bigint", "decimal(10,2)", "array<int>"), typeName(),
json() / jsonValue() (the form Delta stores in its log) and the repr PySpark prints
("LongType()", "StructField('id', LongType(), True)"). DataType.fromDDL and
_parse_datatype_string read Spark's DDL ("id BIGINT, name STRING", "struct<a:int>").
"""

import datetime
import decimal
import json
import re

__all__ = [
    "ArrayType",
    "BinaryType",
    "BooleanType",
    "ByteType",
    "CharType",
    "DataType",
    "DateType",
    "DayTimeIntervalType",
    "DecimalType",
    "DoubleType",
    "FloatType",
    "IntegerType",
    "LongType",
    "MapType",
    "NullType",
    "Row",
    "ShortType",
    "StringType",
    "StructField",
    "StructType",
    "TimestampNTZType",
    "TimestampType",
    "VarcharType",
    "YearMonthIntervalType",
]


class DataType:
    """The base of every type."""

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def __hash__(self):
        return hash(str(self))

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__

    def __ne__(self, other):
        return not self.__eq__(other)

    @classmethod
    def typeName(cls):
        return cls.__name__[:-4].lower()

    def simpleString(self):
        return self.typeName()

    def jsonValue(self):
        return self.typeName()

    def json(self):
        return json.dumps(self.jsonValue(), separators=(",", ":"), sort_keys=True)

    def needConversion(self):
        return False

    @classmethod
    def fromDDL(cls, ddl):
        """The type a DDL string describes: a schema ("a INT, b STRING") as a StructType, or one
        type ("array<int>")."""
        return _parse_datatype_string(ddl)


class DataTypeSingleton(type):
    """Primitive types without parameters are singletons, as in PySpark."""

    _instances = {}

    def __call__(cls):
        if cls not in cls._instances:
            cls._instances[cls] = super().__call__()
        return cls._instances[cls]


class AtomicType(DataType):
    pass


class NumericType(AtomicType):
    pass


class IntegralType(NumericType, metaclass=DataTypeSingleton):
    pass


class FractionalType(NumericType):
    pass


class NullType(DataType, metaclass=DataTypeSingleton):
    @classmethod
    def typeName(cls):
        return "void"


class StringType(AtomicType, metaclass=DataTypeSingleton):
    pass


class CharType(AtomicType):
    def __init__(self, length):
        self.length = length

    def simpleString(self):
        return "char(%d)" % self.length

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self):
        return "CharType(%d)" % self.length


class VarcharType(AtomicType):
    def __init__(self, length):
        self.length = length

    def simpleString(self):
        return "varchar(%d)" % self.length

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self):
        return "VarcharType(%d)" % self.length


class BinaryType(AtomicType, metaclass=DataTypeSingleton):
    pass


class BooleanType(AtomicType, metaclass=DataTypeSingleton):
    pass


class DateType(AtomicType, metaclass=DataTypeSingleton):
    pass


class TimestampType(AtomicType, metaclass=DataTypeSingleton):
    """An instant; Python values are naive datetimes of the local time zone, as in PySpark."""


class TimestampNTZType(AtomicType, metaclass=DataTypeSingleton):
    @classmethod
    def typeName(cls):
        return "timestamp_ntz"


class DecimalType(FractionalType):
    def __init__(self, precision=10, scale=0):
        self.precision = precision
        self.scale = scale
        self.hasPrecisionInfo = True

    def simpleString(self):
        return "decimal(%d,%d)" % (self.precision, self.scale)

    def jsonValue(self):
        return self.simpleString()

    def __repr__(self):
        return "DecimalType(%d,%d)" % (self.precision, self.scale)


class DoubleType(FractionalType, metaclass=DataTypeSingleton):
    pass


class FloatType(FractionalType, metaclass=DataTypeSingleton):
    pass


class ByteType(IntegralType):
    def simpleString(self):
        return "tinyint"


class IntegerType(IntegralType):
    def simpleString(self):
        return "int"


class LongType(IntegralType):
    def simpleString(self):
        return "bigint"


class ShortType(IntegralType):
    def simpleString(self):
        return "smallint"


class DayTimeIntervalType(AtomicType):
    DAY, HOUR, MINUTE, SECOND = 0, 1, 2, 3
    _fields = {DAY: "day", HOUR: "hour", MINUTE: "minute", SECOND: "second"}

    def __init__(self, startField=None, endField=None):
        if startField is None and endField is None:
            startField, endField = DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND
        elif endField is None:
            endField = startField
        self.startField = startField
        self.endField = endField

    def _name(self):
        start = self._fields[self.startField]
        end = self._fields[self.endField]
        return "interval %s" % start if start == end else "interval %s to %s" % (start, end)

    def simpleString(self):
        return self._name()

    def jsonValue(self):
        return self._name()

    def __repr__(self):
        return "DayTimeIntervalType(%d, %d)" % (self.startField, self.endField)


class YearMonthIntervalType(AtomicType):
    YEAR, MONTH = 0, 1
    _fields = {YEAR: "year", MONTH: "month"}

    def __init__(self, startField=None, endField=None):
        if startField is None and endField is None:
            startField, endField = YearMonthIntervalType.YEAR, YearMonthIntervalType.MONTH
        elif endField is None:
            endField = startField
        self.startField = startField
        self.endField = endField

    def _name(self):
        start = self._fields[self.startField]
        end = self._fields[self.endField]
        return "interval %s" % start if start == end else "interval %s to %s" % (start, end)

    def simpleString(self):
        return self._name()

    def jsonValue(self):
        return self._name()

    def __repr__(self):
        return "YearMonthIntervalType(%d, %d)" % (self.startField, self.endField)


class ArrayType(DataType):
    def __init__(self, elementType, containsNull=True):
        assert isinstance(elementType, DataType), "elementType %s should be a DataType" % elementType
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self):
        return "array<%s>" % self.elementType.simpleString()

    def __repr__(self):
        return "ArrayType(%s, %s)" % (self.elementType, str(self.containsNull))

    def jsonValue(self):
        return {
            "type": self.typeName(),
            "elementType": self.elementType.jsonValue(),
            "containsNull": self.containsNull,
        }

    @classmethod
    def fromJson(cls, json):
        return ArrayType(_parse_datatype_json_value(json["elementType"]), json["containsNull"])


class MapType(DataType):
    def __init__(self, keyType, valueType, valueContainsNull=True):
        assert isinstance(keyType, DataType), "keyType %s should be a DataType" % keyType
        assert isinstance(valueType, DataType), "valueType %s should be a DataType" % valueType
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self):
        return "map<%s,%s>" % (self.keyType.simpleString(), self.valueType.simpleString())

    def __repr__(self):
        return "MapType(%s, %s, %s)" % (self.keyType, self.valueType, str(self.valueContainsNull))

    def jsonValue(self):
        return {
            "type": self.typeName(),
            "keyType": self.keyType.jsonValue(),
            "valueType": self.valueType.jsonValue(),
            "valueContainsNull": self.valueContainsNull,
        }

    @classmethod
    def fromJson(cls, json):
        return MapType(
            _parse_datatype_json_value(json["keyType"]),
            _parse_datatype_json_value(json["valueType"]),
            json["valueContainsNull"],
        )


class StructField(DataType):
    def __init__(self, name, dataType, nullable=True, metadata=None):
        assert isinstance(dataType, DataType), "dataType %s should be a DataType" % dataType
        assert isinstance(name, str), "field name %s should be a string" % name
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self):
        return "%s:%s" % (self.name, self.dataType.simpleString())

    def __repr__(self):
        return "StructField('%s', %s, %s)" % (self.name, self.dataType, str(self.nullable))

    def jsonValue(self):
        return {
            "name": self.name,
            "type": self.dataType.jsonValue(),
            "nullable": self.nullable,
            "metadata": self.metadata,
        }

    @classmethod
    def fromJson(cls, json):
        return StructField(
            json["name"],
            _parse_datatype_json_value(json["type"]),
            json.get("nullable", True),
            json.get("metadata"),
        )

    def typeName(self):
        raise TypeError("StructField does not have typeName. Use typeName on its type explicitly.")


class StructType(DataType):
    def __init__(self, fields=None):
        self.fields = list(fields) if fields else []
        self.names = [f.name for f in self.fields]
        assert all(isinstance(f, StructField) for f in self.fields), "fields should be StructFields"

    def add(self, field, data_type=None, nullable=True, metadata=None):
        """Appends a field: a StructField, or a name with a DataType or type string."""
        if isinstance(field, StructField):
            self.fields.append(field)
            self.names.append(field.name)
        else:
            if isinstance(field, str) and data_type is None:
                raise ValueError("Must specify DataType if passing name of struct_field to create.")
            if isinstance(data_type, str):
                data_type = _parse_datatype_string(data_type)
            self.fields.append(StructField(field, data_type, nullable, metadata))
            self.names.append(field)
        return self

    def __iter__(self):
        return iter(self.fields)

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, key):
        if isinstance(key, str):
            for field in self.fields:
                if field.name == key:
                    return field
            raise KeyError("No StructField named {0}".format(key))
        if isinstance(key, int):
            try:
                return self.fields[key]
            except IndexError:
                raise IndexError("StructType index out of range")
        if isinstance(key, slice):
            return StructType(self.fields[key])
        raise TypeError("StructType keys should be strings, integers or slices")

    def fieldNames(self):
        return list(self.names)

    def simpleString(self):
        return "struct<%s>" % (",".join(f.simpleString() for f in self))

    def __repr__(self):
        return "StructType([%s])" % ", ".join(str(field) for field in self)

    def jsonValue(self):
        return {"type": self.typeName(), "fields": [f.jsonValue() for f in self]}

    @classmethod
    def fromJson(cls, json):
        return StructType([StructField.fromJson(f) for f in json["fields"]])

    def treeString(self, level=None):
        """The tree printSchema() prints (Spark's StructType.treeString)."""
        lines = ["root"]
        for field in self.fields:
            _tree_lines(lines, field.name, field.dataType, field.nullable, " |-- ", level, 1)
        return "\n".join(lines) + "\n"


def _tree_name(data_type):
    if isinstance(data_type, (StructType, ArrayType, MapType)):
        return data_type.typeName()
    if isinstance(data_type, (DecimalType, DayTimeIntervalType, YearMonthIntervalType, CharType, VarcharType)):
        return data_type.simpleString()
    return data_type.typeName()


def _tree_lines(lines, name, data_type, nullable, prefix, max_level, level, nullable_label="nullable"):
    if max_level is not None and level > max_level:
        return
    if nullable is None:
        lines.append("%s%s: %s" % (prefix, name, _tree_name(data_type)))
    else:
        lines.append(
            "%s%s: %s (%s = %s)" % (prefix, name, _tree_name(data_type), nullable_label, str(nullable).lower())
        )
    child_prefix = prefix[:-5] + " |   " + " |-- "
    if isinstance(data_type, StructType):
        for field in data_type.fields:
            _tree_lines(lines, field.name, field.dataType, field.nullable, child_prefix, max_level, level + 1)
    elif isinstance(data_type, ArrayType):
        _tree_lines(lines, "element", data_type.elementType, data_type.containsNull, child_prefix,
                    max_level, level + 1, "containsNull")
    elif isinstance(data_type, MapType):
        _tree_lines(lines, "key", data_type.keyType, None, child_prefix, max_level, level + 1)
        _tree_lines(lines, "value", data_type.valueType, data_type.valueContainsNull, child_prefix,
                    max_level, level + 1, "valueContainsNull")


_atomic_types = [
    NullType, StringType, BinaryType, BooleanType, DateType, TimestampType, TimestampNTZType,
    DoubleType, FloatType, ByteType, IntegerType, LongType, ShortType,
]
_all_atomic_types = {t.typeName(): t for t in _atomic_types}
_fixed_decimal = re.compile(r"decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)")
_interval = re.compile(r"interval (day|hour|minute|second|year|month)(?: to (day|hour|minute|second|year|month))?")


def _parse_datatype_json_string(json_string):
    return _parse_datatype_json_value(json.loads(json_string))


def _parse_datatype_json_value(json_value):
    if not isinstance(json_value, dict):
        if json_value in _all_atomic_types:
            return _all_atomic_types[json_value]()
        if json_value == "decimal":
            return DecimalType()
        match = _fixed_decimal.fullmatch(json_value)
        if match:
            return DecimalType(int(match.group(1)), int(match.group(2)))
        match = _interval.fullmatch(json_value)
        if match:
            start, end = match.group(1), match.group(2) or match.group(1)
            if start in ("year", "month"):
                names = {"year": 0, "month": 1}
                return YearMonthIntervalType(names[start], names[end])
            names = {"day": 0, "hour": 1, "minute": 2, "second": 3}
            return DayTimeIntervalType(names[start], names[end])
        match = re.fullmatch(r"(char|varchar)\((\d+)\)", json_value)
        if match:
            return (CharType if match.group(1) == "char" else VarcharType)(int(match.group(2)))
        raise ValueError("Could not parse datatype: %s" % json_value)
    kind = json_value["type"]
    if kind == "struct":
        return StructType.fromJson(json_value)
    if kind == "array":
        return ArrayType.fromJson(json_value)
    if kind == "map":
        return MapType.fromJson(json_value)
    raise ValueError("not supported type: %s" % kind)


# DDL: Spark's type names (case-insensitive) and their types.
_ddl_names = {
    "boolean": BooleanType, "tinyint": ByteType, "byte": ByteType, "smallint": ShortType,
    "short": ShortType, "int": IntegerType, "integer": IntegerType, "bigint": LongType,
    "long": LongType, "float": FloatType, "real": FloatType, "double": DoubleType,
    "date": DateType, "timestamp": TimestampType, "timestamp_ltz": TimestampType,
    "timestamp_ntz": TimestampNTZType, "string": StringType, "binary": BinaryType,
    "void": NullType,
}


class _DdlParser:
    _token = re.compile(r"\s*(`(?:[^`]|``)*`|[A-Za-z_0-9]+|'(?:[^'\\]|\\.)*'|[<>(),:])")

    def __init__(self, text):
        self.text = text
        self.tokens = []
        at = 0
        while at < len(text):
            match = self._token.match(text, at)
            if not match:
                if text[at:].strip() == "":
                    break
                self.fail()
            self.tokens.append(match.group(1))
            at = match.end()
        self.at = 0

    def fail(self):
        from silt.errors import _error

        raise _error("PARSE_SYNTAX_ERROR", "Syntax error at or near %r: cannot parse the DDL %r."
                     % (self.peek() or "end of input", self.text))

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token.lower() != expected):
            self.fail()
        self.at += 1
        return token

    def done(self):
        return self.at == len(self.tokens)

    def name(self):
        token = self.take()
        if token.startswith("`"):
            return token[1:-1].replace("``", "`")
        if not re.fullmatch(r"[A-Za-z_0-9]+", token):
            self.fail()
        return token

    def data_type(self):
        word = self.take().lower()
        if word in ("array",):
            self.take("<")
            element = self.data_type()
            self.take(">")
            return ArrayType(element)
        if word == "map":
            self.take("<")
            key = self.data_type()
            self.take(",")
            value = self.data_type()
            self.take(">")
            return MapType(key, value)
        if word == "struct":
            self.take("<")
            fields = []
            if self.peek() != ">":
                while True:
                    fields.append(self.field(colon_allowed=True))
                    if self.peek() == ",":
                        self.take()
                        continue
                    break
            self.take(">")
            return StructType(fields)
        if word in ("decimal", "dec", "numeric"):
            if self.peek() == "(":
                self.take()
                precision = int(self.take())
                scale = 0
                if self.peek() == ",":
                    self.take()
                    scale = int(self.take())
                self.take(")")
                return DecimalType(precision, scale)
            return DecimalType()
        if word in ("char", "varchar"):
            self.take("(")
            length = int(self.take())
            self.take(")")
            return CharType(length) if word == "char" else VarcharType(length)
        if word == "interval":
            start = self.take().lower()
            end = start
            if self.peek() and self.peek().lower() == "to":
                self.take()
                end = self.take().lower()
            return _parse_datatype_json_value(
                "interval %s" % start if start == end else "interval %s to %s" % (start, end))
        if word in _ddl_names:
            return _ddl_names[word]()
        from silt.errors import _error

        raise _error("UNSUPPORTED_DATATYPE", "Unsupported data type \"%s\"." % word.upper())

    def field(self, colon_allowed):
        name = self.name()
        if self.peek() == ":":
            self.take()
        data_type = self.data_type()
        nullable = True
        metadata = None
        while self.peek() and self.peek().lower() in ("not", "comment"):
            if self.take().lower() == "not":
                self.take("null")
                nullable = False
            else:
                comment = self.take()
                metadata = {"comment": comment[1:-1]}
        return StructField(name, data_type, nullable, metadata)

    def schema(self):
        fields = []
        while True:
            fields.append(self.field(colon_allowed=True))
            if self.peek() == ",":
                self.take()
                continue
            break
        if not self.done():
            self.fail()
        return StructType(fields)


def _parse_datatype_string(s):
    """Parses a DDL string, as PySpark does: a schema ("a INT, b STRING" or "a: int, b: string"),
    else one type ("int", "array<string>", "struct<a:int>")."""
    try:
        return _DdlParser(s).schema()
    except Exception as schema_error:
        try:
            parser = _DdlParser(s)
            data_type = parser.data_type()
            if not parser.done():
                parser.fail()
            return data_type
        except Exception:
            raise schema_error


def _type_sql(data_type):
    """The type as Spark SQL writes it in CAST and CREATE TABLE, names back-quoted."""
    if isinstance(data_type, StructType):
        return "STRUCT<%s>" % ", ".join(
            "%s: %s%s" % (_quote(f.name), _type_sql(f.dataType), "" if f.nullable else " NOT NULL")
            for f in data_type.fields)
    if isinstance(data_type, ArrayType):
        return "ARRAY<%s>" % _type_sql(data_type.elementType)
    if isinstance(data_type, MapType):
        return "MAP<%s, %s>" % (_type_sql(data_type.keyType), _type_sql(data_type.valueType))
    if isinstance(data_type, (CharType, VarcharType)):
        return "STRING"
    return data_type.simpleString().upper()


def _quote(name):
    return "`" + name.replace("`", "``") + "`"


def _infer_type(value):
    """The type PySpark infers for a Python value (None for None)."""
    if value is None:
        return NullType()
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, int):
        return LongType()
    if isinstance(value, float):
        return DoubleType()
    if isinstance(value, str):
        return StringType()
    if isinstance(value, (bytes, bytearray)):
        return BinaryType()
    if isinstance(value, decimal.Decimal):
        return DecimalType(38, 18)
    if isinstance(value, datetime.datetime):
        return TimestampType()
    if isinstance(value, datetime.date):
        return DateType()
    if isinstance(value, datetime.timedelta):
        return DayTimeIntervalType()
    if isinstance(value, Row) and hasattr(value, "__fields__"):
        return StructType([StructField(n, _infer_type(v), True) for n, v in zip(value.__fields__, value)])
    if isinstance(value, dict):
        for key, item in value.items():
            if key is not None and item is not None:
                return MapType(_infer_type(key), _infer_type(item), True)
        return MapType(NullType(), NullType(), True)
    if isinstance(value, tuple):
        # PySpark infers a plain tuple as a struct of fields _1, _2, ...
        return StructType([StructField("_%d" % (i + 1), _infer_type(v), True) for i, v in enumerate(value)])
    if isinstance(value, list):
        element = NullType()
        for item in value:
            element = _merge_type(element, _infer_type(item))
        return ArrayType(element, True)
    from silt.errors import _error

    raise _error("CANNOT_INFER_TYPE_FOR_FIELD",
                 "Unable to infer the type of the field: not supported type %s." % type(value).__name__)


def _merge_type(a, b):
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType):
        return a
    if type(a) is not type(b):
        if isinstance(a, LongType) and isinstance(b, DoubleType) or isinstance(a, DoubleType) and isinstance(b, LongType):
            return DoubleType()
        from silt.errors import _error

        raise _error("CANNOT_MERGE_TYPE", "Can not merge type `%s` and `%s`." % (
            type(a).__name__, type(b).__name__))
    if isinstance(a, StructType):
        fields = {f.name: f for f in a.fields}
        merged = []
        for f in a.fields:
            other = b.names and f.name in b.names and b[f.name]
            merged.append(StructField(f.name, _merge_type(f.dataType, other.dataType) if other else f.dataType, True))
        for f in b.fields:
            if f.name not in fields:
                merged.append(f)
        return StructType(merged)
    if isinstance(a, ArrayType):
        return ArrayType(_merge_type(a.elementType, b.elementType), True)
    if isinstance(a, MapType):
        return MapType(_merge_type(a.keyType, b.keyType), _merge_type(a.valueType, b.valueType), True)
    return a


class Row(tuple):
    """A row: a tuple whose fields also have names.

    Row(name="Alice", age=11) makes a row (fields in the order given); Row("name", "age") makes a
    row class whose call makes rows. row.name, row["name"] and row[0] read a field; asDict()
    returns a dict.
    """

    def __new__(cls, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        if kwargs:
            row = tuple.__new__(cls, list(kwargs.values()))
            row.__fields__ = list(kwargs.keys())
            return row
        return tuple.__new__(cls, args)

    def asDict(self, recursive=False):
        if not hasattr(self, "__fields__"):
            raise TypeError("Cannot convert a Row class into dict")
        if recursive:
            def convert(value):
                if isinstance(value, Row):
                    return value.asDict(True)
                if isinstance(value, list):
                    return [convert(v) for v in value]
                if isinstance(value, dict):
                    return {k: convert(v) for k, v in value.items()}
                return value

            return dict(zip(self.__fields__, (convert(v) for v in self)))
        return dict(zip(self.__fields__, self))

    def __contains__(self, item):
        if hasattr(self, "__fields__"):
            return item in self.__fields__
        return super().__contains__(item)

    def __call__(self, *args):
        """A row of this row class (Row("name", "age")("Alice", 11))."""
        if len(args) > len(self):
            raise ValueError("Can not create Row with fields %s, expected %d values but got %s"
                             % (self, len(self), args))
        return _make_row(list(self), args)

    def __getitem__(self, item):
        if isinstance(item, (int, slice)):
            return super().__getitem__(item)
        try:
            index = self.__fields__.index(item)
            return super().__getitem__(index)
        except IndexError:
            raise KeyError(item)
        except ValueError:
            raise ValueError(item)

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        try:
            index = self.__fields__.index(item)
            return self[index]
        except IndexError:
            raise AttributeError(item)
        except ValueError:
            raise AttributeError(item)

    def __setattr__(self, key, value):
        if key != "__fields__":
            raise RuntimeError("Row is read-only")
        self.__dict__[key] = value

    def __reduce__(self):
        if hasattr(self, "__fields__"):
            return (_make_row, (self.__fields__, tuple(self)))
        return tuple.__reduce__(self)

    def __repr__(self):
        if hasattr(self, "__fields__"):
            return "Row(%s)" % ", ".join("%s=%r" % (k, v) for k, v in zip(self.__fields__, tuple(self)))
        return "<Row(%s)>" % ", ".join(repr(field) for field in self)


def _make_row(fields, values):
    row = tuple.__new__(Row, values)
    row.__fields__ = list(fields)
    return row
