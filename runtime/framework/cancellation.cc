#include "runtime/framework/cancellation.h"

#include "absl/time/clock.h"

namespace tensord {

absl::Status CancellationToken::Check() const {
  if (deadline_ != absl::InfiniteFuture() && absl::Now() >= deadline_) {
    return absl::DeadlineExceededError("Deadline exceeded: the request ran out of time");
  }
  if (is_cancelled_ && is_cancelled_()) {
    return absl::CancelledError("Cancelled: the client cancelled the request");
  }
  return absl::OkStatus();
}

}  // namespace tensord
