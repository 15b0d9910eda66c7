#pragma once

#include <cstddef>
#include <functional>

namespace silt {

/// The stack a statement runs on. Binding, optimising, printing and running a plan recurse once
/// per level of the plan and its expressions; the binder bounds those levels
/// (STATEMENT_TOO_COMPLEX), and this stack holds the deepest plan it accepts with a wide margin.
/// Only the pages a statement touches are ever backed by memory.
inline constexpr size_t kStatementStackBytes = size_t{512} << 20;

/// Runs `body` on a new thread whose stack holds `stack_bytes`, waits for it, and rethrows
/// whatever `body` threw. Runs `body` on the calling thread when that thread is itself running
/// such a body with at least as much stack, or when no thread can be started. Any thread may
/// call it.
void RunOnLargeStack(size_t stack_bytes, const std::function<void()>& body);

}  // namespace silt
