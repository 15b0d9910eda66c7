#include "silt/base/cancellation.h"

#include "silt/base/check.h"

namespace silt {

void Cancellation::ThrowCanceled() { SILT_THROW(OPERATION_CANCELED, {{"reason", ""}}); }

}  // namespace silt
