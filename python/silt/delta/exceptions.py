"""delta-spark's exception classes (delta.exceptions): the conflicts of concurrent commits."""

from silt.errors import (  # noqa: F401 - re-exported
    ConcurrentAppendException,
    ConcurrentDeleteDeleteException,
    ConcurrentDeleteReadException,
    ConcurrentTransactionException,
    ConcurrentWriteException,
    DeltaConcurrentModificationException,
    MetadataChangedException,
    ProtocolChangedException,
)
