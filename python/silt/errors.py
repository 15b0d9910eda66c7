"""The exceptions silt raises.

Every error is a SiltError of its category (UserError, ConcurrentModificationError, StorageError,
CorruptDataError, UnsupportedFeatureError, InternalError) and, at the same time, an instance of
the class PySpark or delta-spark raises for that error class: AnalysisException,
ParseException, ArithmeticException, ... (pyspark.errors) and ConcurrentAppendException, ...
(delta.exceptions). So `except AnalysisException` works as in PySpark, and
getErrorClass()/getCondition(), getMessageParameters() and getSqlState() answer as there.
"""

import re


class SiltError(Exception):
    """An error of the silt engine.

    str(error) is "[ERROR_CLASS] message", as the silt command prints it. error_class is the
    stable name of the condition (Delta Spark's name where it has one, e.g.
    "DELTA_CONCURRENT_APPEND"), sqlstate its five-character SQLSTATE, and category one of
    "user", "concurrent_modification", "io", "corruption", "unsupported", "internal".
    """

    def __init__(self, message, error_class=None, sqlstate=None, category=None):
        super().__init__(message)
        self.error_class = error_class
        self.sqlstate = sqlstate
        self.category = category


class UserError(SiltError):
    """Bad SQL or input, or a violated constraint: fix the statement or the data."""


class ConcurrentModificationError(SiltError):
    """Another writer committed first; the operation may be retried."""


class StorageError(SiltError):
    """The storage failed; the operation may succeed when retried."""


class CorruptDataError(SiltError):
    """A log, checkpoint or data file is invalid."""


class UnsupportedFeatureError(SiltError):
    """A protocol feature or construct that silt does not implement."""


class InternalError(SiltError):
    """A bug in silt."""


_CATEGORY_CLASSES = {
    "user": UserError,
    "concurrent_modification": ConcurrentModificationError,
    "io": StorageError,
    "corruption": CorruptDataError,
    "unsupported": UnsupportedFeatureError,
    "internal": InternalError,
}


# PySpark's exception classes (pyspark.errors), with the same names and methods.


class PySparkException(Exception):
    """The base of PySpark's exceptions: getErrorClass() / getCondition() name the condition,
    getMessageParameters() its parameters, getSqlState() its SQLSTATE."""

    def __init__(self, message=None, errorClass=None, messageParameters=None, **kwargs):
        error_class = errorClass or kwargs.get("error_class")
        if message is None:
            message = "[%s] %s" % (error_class, messageParameters or "")
        super().__init__(message)
        self.error_class = error_class
        self.sqlstate = kwargs.get("sqlstate")
        self.category = kwargs.get("category", "user")
        self._message_parameters = messageParameters

    def getErrorClass(self):
        return _printed_class(str(self), self.error_class)

    def getCondition(self):
        return _printed_class(str(self), self.error_class)

    def getSqlState(self):
        return self.sqlstate

    def getMessageParameters(self):
        """The values of the message template's <placeholders>, by name."""
        if self._message_parameters is None:
            self._message_parameters = _message_parameters(
                self.error_class, getattr(self, "_template_text", None) or str(self))
        return dict(self._message_parameters)

    def getMessage(self):
        text = str(self)
        if self.sqlstate:
            text += " SQLSTATE: %s" % self.sqlstate
        return text

    def getQueryContext(self):
        return []

    _message_parameters = None


class CapturedException(PySparkException):
    """An error of the engine (the JVM's, in PySpark)."""


class AnalysisException(CapturedException):
    """A query or statement that cannot be analysed: unknown table or column, wrong types..."""


class ParseException(AnalysisException):
    """Text that is not valid Spark SQL."""


class IllegalArgumentException(CapturedException):
    """An argument that is not valid."""


class NumberFormatException(IllegalArgumentException):
    """A string that is not a number of the type it is cast to."""


class ArithmeticException(CapturedException):
    """Division by zero, overflow."""


class ArrayIndexOutOfBoundsException(CapturedException):
    """An index beyond an array's end."""


class DateTimeException(CapturedException):
    """A date or time that cannot be parsed or represented."""


class UnsupportedOperationException(CapturedException):
    """An operation that is not supported."""


class SparkRuntimeException(CapturedException):
    """A failure while a query runs."""


class SparkUpgradeException(CapturedException):
    """Behaviour that differs between versions."""


class SparkNoSuchElementException(CapturedException):
    """An element that does not exist."""


class QueryExecutionException(CapturedException):
    """A failure while a query runs."""


class StreamingQueryException(CapturedException):
    """The failure of a streaming query."""


class TempTableAlreadyExistsException(AnalysisException):
    """A temporary view that already exists."""


class UnknownException(CapturedException):
    """An error of no other class."""


class PySparkValueError(PySparkException, ValueError):
    """A Python argument with a bad value."""


class PySparkTypeError(PySparkException, TypeError):
    """A Python argument of a wrong type."""


class PySparkAttributeError(PySparkException, AttributeError):
    """An attribute that does not exist (a DataFrame column read as an attribute)."""


class PySparkIndexError(PySparkException, IndexError):
    """An index out of range."""


class PySparkRuntimeError(PySparkException, RuntimeError):
    """A runtime failure on the Python side."""


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """A feature silt's Python API does not offer (yet)."""


# delta-spark's exceptions (delta.exceptions).


class DeltaConcurrentModificationException(CapturedException):
    """A conflicting commit of another writer."""


class ConcurrentWriteException(DeltaConcurrentModificationException):
    pass


class MetadataChangedException(DeltaConcurrentModificationException):
    pass


class ProtocolChangedException(DeltaConcurrentModificationException):
    pass


class ConcurrentAppendException(DeltaConcurrentModificationException):
    pass


class ConcurrentDeleteReadException(DeltaConcurrentModificationException):
    pass


class ConcurrentDeleteDeleteException(DeltaConcurrentModificationException):
    pass


class ConcurrentTransactionException(DeltaConcurrentModificationException):
    pass


_DELTA_CONFLICTS = {
    "DELTA_CONCURRENT_APPEND": ConcurrentAppendException,
    "DELTA_CONCURRENT_DELETE_READ": ConcurrentDeleteReadException,
    "DELTA_CONCURRENT_DELETE_DELETE": ConcurrentDeleteDeleteException,
    "DELTA_CONCURRENT_TRANSACTION": ConcurrentTransactionException,
    "DELTA_CONCURRENT_WRITE": ConcurrentWriteException,
    "DELTA_METADATA_CHANGED": MetadataChangedException,
    "DELTA_PROTOCOL_CHANGED": ProtocolChangedException,
}

_PARSE_CLASSES = {
    "PARSE_SYNTAX_ERROR", "PARSE_EMPTY_STATEMENT", "UNCLOSED_BRACKETED_COMMENT",
    "INVALID_TYPED_LITERAL", "INVALID_NUMERIC_LITERAL_RANGE", "PARSE_NESTING_TOO_DEEP",
    "UNSUPPORTED_DATATYPE", "INVALID_DECIMAL_TYPE", "DELTA_MERGE_MISSING_WHEN",
    "INVALID_SQL_SYNTAX",
}
_DATETIME_CLASSES = {"CANNOT_PARSE_TIMESTAMP", "DATETIME_FIELD_OUT_OF_BOUNDS", "INVALID_INTERVAL_FORMAT"}
_INDEX_CLASSES = {"INVALID_ARRAY_INDEX", "INVALID_ARRAY_INDEX_IN_ELEMENT_AT", "INVALID_INDEX_OF_ZERO"}
_PYTHON_CLASSES = {
    "CANNOT_INFER_TYPE_FOR_FIELD": PySparkTypeError,
    "CANNOT_MERGE_TYPE": PySparkTypeError,
    "NOT_COLUMN_OR_STR": PySparkTypeError,
    "NOT_COLUMN": PySparkTypeError,
    "NOT_STR": PySparkTypeError,
    "NOT_BOOL_OR_DICT_OR_FLOAT_OR_INT_OR_STR": PySparkTypeError,
    "NOT_LIST_OR_STR_OR_TUPLE": PySparkTypeError,
    "UNSUPPORTED_PYTHON_FEATURE": PySparkNotImplementedError,
    "ATTRIBUTE_NOT_SUPPORTED": PySparkAttributeError,
    "INDEX_OUT_OF_RANGE": PySparkIndexError,
    "CANNOT_BE_EMPTY": PySparkValueError,
    "VALUE_NOT_POSITIVE": PySparkValueError,
    "ARGUMENT_REQUIRED": PySparkValueError,
    "INVALID_ITEM_FOR_CONTAINER": PySparkTypeError,
    "ONLY_ALLOW_SINGLE_TRIGGER": PySparkValueError,
    "VALUE_NOT_TRUE": PySparkValueError,
    "VALUE_NOT_NON_EMPTY_STR": PySparkValueError,
    "NOT_CALLABLE": PySparkTypeError,
}


# Spark's and Delta's classes that only the Python API raises: (family, SQLSTATE).
_SPARK_CLASSES = {
    "UNBOUND_SQL_PARAMETER": (AnalysisException, "42P02"),
    "DELTA_PATH_EXISTS": (AnalysisException, "42K04"),
    "DELTA_NO_START_FOR_CDC_READ": (AnalysisException, "42601"),
    "SQL_CONF_NOT_FOUND": (SparkNoSuchElementException, "42K0I"),
    "INVALID_ATTRIBUTE_NAME_SYNTAX": (AnalysisException, "42601"),
    "UNSUPPORTED_JOIN_TYPE": (IllegalArgumentException, None),
    "_LEGACY_ERROR_TEMP_3102": (AnalysisException, None),
    "CALL_ON_STREAMING_DATASET_UNSUPPORTED": (AnalysisException, "42KDE"),
    "WRITE_STREAM_NOT_ALLOWED": (AnalysisException, "42601"),
    "DELTA_UNSUPPORTED_SCHEMA_DURING_READ": (AnalysisException, "0AKDC"),
}


def _family(error_class, sqlstate, category):
    """The PySpark / delta-spark exception class of an error class."""
    if error_class in _SPARK_CLASSES:
        return _SPARK_CLASSES[error_class][0]
    if error_class in _PYTHON_CLASSES:
        return _PYTHON_CLASSES[error_class]
    if category == "concurrent_modification":
        return _DELTA_CONFLICTS.get(error_class, DeltaConcurrentModificationException)
    if error_class in _PARSE_CLASSES:
        return ParseException
    if error_class == "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS":
        return TempTableAlreadyExistsException
    if error_class == "STREAM_FAILED":
        return StreamingQueryException
    if error_class in _INDEX_CLASSES:
        return ArrayIndexOutOfBoundsException
    if error_class in _DATETIME_CLASSES:
        return DateTimeException
    state = sqlstate or ""
    if state == "22018":
        return NumberFormatException
    if state in ("22003", "22012") and not error_class.startswith("DELTA_"):
        return ArithmeticException
    if state == "22023" or error_class in ("INVALID_ARGUMENT", "INVALID_CONF_VALUE"):
        return IllegalArgumentException
    if category in ("io", "corruption", "internal"):
        return SparkRuntimeException
    if state.startswith("42") or state.startswith("0A") or error_class.startswith("DELTA_"):
        return AnalysisException
    return SparkRuntimeException


_combined = {}


def _error_type(family, category):
    """The class of an error: the PySpark family and the silt category at once."""
    base = _CATEGORY_CLASSES.get(category, UserError)
    key = (family, base)
    if key not in _combined:
        _combined[key] = type(family.__name__, (family, base), {
            "__module__": family.__module__,
            "__qualname__": family.__qualname__,
            "__doc__": family.__doc__,
        })
    return _combined[key]


def _build(text, error_class, sqlstate, category, family=None, message=None):
    family = family or _family(error_class or "", sqlstate, category)
    error_type = _error_type(family, category)
    error = error_type.__new__(error_type)
    Exception.__init__(error, text)
    error.error_class = error_class
    error.sqlstate = sqlstate
    error.category = category
    error._template_text = message
    return error


def _from_engine(text, error_class, sqlstate, category, message=None):
    """The exception for an error of the engine (called by the extension): `text` is
    "[CLASS] message (context)", `message` the rendered template alone."""
    return _build(text, error_class, sqlstate, category, message=message)


def _error(error_class, message, family=None, category=None, sub_class=None):
    """An exception of error class `error_class` (printed with Spark's `sub_class` when given)
    raised by the Python API itself; its SQLSTATE and category come from silt's registry when
    silt knows the class."""
    sqlstate = None
    try:
        from silt import _silt

        info = _silt.error_class_info(error_class)
    except ImportError:
        info = None
    if info is not None:
        sqlstate, registry_category, _ = info
        category = category or registry_category
    elif error_class in _SPARK_CLASSES:
        sqlstate = _SPARK_CLASSES[error_class][1]
    printed = "%s.%s" % (error_class, sub_class) if sub_class else error_class
    return _build("[%s] %s" % (printed, message), error_class, sqlstate, category or "user", family,
                  message=message)


def _printed_class(text, error_class):
    """The condition as the message prints it: CLASS, or CLASS.SUB_CLASS where the engine gives
    Spark's sub-class ("[UNRESOLVED_COLUMN.WITH_SUGGESTION] ...")."""
    if error_class and text.startswith("[%s." % error_class):
        close = text.find("]")
        if close > 0:
            return text[1:close]
    return error_class


_templates = {}


def _message_parameters(error_class, text):
    """Recovers the parameters of a message from its class's template."""
    if not error_class:
        return {}
    if error_class not in _templates:
        try:
            from silt import _silt

            info = _silt.error_class_info(error_class)
        except ImportError:
            info = None
        pattern = None
        if info is not None:
            parts = re.split(r"<([A-Za-z_][A-Za-z0-9_]*)>", info[2])
            regex = ""
            seen = set()
            for index, part in enumerate(parts):
                if index % 2 == 0:
                    regex += re.escape(part)
                elif part in seen:
                    regex += "(?P=%s)" % part
                else:
                    seen.add(part)
                    # Of two adjacent placeholders ("<error><hint>"), the second is a hint that
                    # starts with ": ", as Spark's are.
                    adjacent = index + 2 < len(parts) and parts[index + 1] == ""
                    regex += "(?P<%s>%s)" % (part, "[^:]*" if adjacent else ".*?")
            pattern = re.compile(regex, re.DOTALL)
        _templates[error_class] = pattern
    pattern = _templates[error_class]
    if pattern is None:
        return {}
    prefix = "[%s] " % _printed_class(text, error_class)
    body = text[len(prefix):] if text.startswith(prefix) else text
    match = pattern.fullmatch(body)
    if not match:
        return {}
    return {name: value for name, value in match.groupdict().items()}
