#include "grpc_absl.hpp"

#include <absl/synchronization/mutex.h>

namespace orbench {

void absl_checks_as_in_release() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

}  // namespace orbench
