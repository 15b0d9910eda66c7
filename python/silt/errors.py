"""The exceptions silt raises: one class per error category, all under SiltError."""


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
