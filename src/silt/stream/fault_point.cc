#include "silt/stream/fault_point.h"

#include <utility>

namespace silt::stream {

namespace {

FaultHook& Hook() {
  static FaultHook hook;
  return hook;
}

}  // namespace

void TestingSetFaultHook(FaultHook hook) { Hook() = std::move(hook); }

void ReachFaultPoint(std::string_view step, int64_t batch_id) {
  if (Hook()) Hook()(step, batch_id);
}

}  // namespace silt::stream
