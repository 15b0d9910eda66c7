#pragma once

#include <string>

namespace silt::log {

/// Returns a new random (version 4, RFC 4122) UUID in canonical lower-case 8-4-4-4-12 form, as
/// Delta uses for table ids, commit txnIds and data file names. Thread-safe: each thread draws
/// from its own generator, seeded from std::random_device, the time and the thread, so forked
/// processes and threads do not repeat each other's ids.
std::string RandomUuid();

}  // namespace silt::log
