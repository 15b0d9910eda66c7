#pragma once

// The Arrow C stream interface (arrow.apache.org/docs/format/CStreamInterface.html) over the
// rows of a statement: silt's vectors already have Arrow's memory layout, so the arrays point
// at the result's buffers, which the exported arrays keep alive.

#include <pybind11/pybind11.h>

#include <functional>
#include <optional>

#include "silt/api/session_internal.h"

namespace silt::python {

/// A PyCapsule named "arrow_array_stream" holding an ArrowArrayStream over `output`'s batches:
/// its schema is a struct of the columns, each batch one struct array. The capsule's destructor
/// releases the stream unless a consumer moved it out.
pybind11::capsule ExportArrowStream(StatementOutput output);

/// The same over the batches `next` returns until it returns nullopt, of `schema` (null: no
/// columns): `next` runs when the consumer asks for a batch, on the consumer's thread (with or
/// without the GIL), and the stream owns it. An error it throws ends the stream: get_next
/// returns EIO and get_last_error the error's text.
pybind11::capsule ExportArrowStream(SchemaPtr schema, std::function<std::optional<Batch>()> next);

}  // namespace silt::python
