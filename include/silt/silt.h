#pragma once

/// The whole public API of silt in one include: Session, DataFrame, Result and Row, DeltaTable,
/// Error, and streaming (DataStreamReader, DataStreamWriter, StreamingQuery).
#include "silt/data_frame.h"   // IWYU pragma: export
#include "silt/delta_table.h"  // IWYU pragma: export
#include "silt/error.h"        // IWYU pragma: export
#include "silt/result.h"       // IWYU pragma: export
#include "silt/session.h"      // IWYU pragma: export
#include "silt/streaming.h"    // IWYU pragma: export
