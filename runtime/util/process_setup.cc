#include "runtime/util/process_setup.h"

#include "absl/synchronization/mutex.h"

namespace tensord {

void SetUpProcess() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

}  // namespace tensord
