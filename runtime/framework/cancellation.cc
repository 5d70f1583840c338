#include "runtime/framework/cancellation.h"

#include "absl/time/clock.h"

namespace tensord {

absl::Status CancellationToken::Check() const {
  const int64_t now_ns = absl::GetCurrentTimeNanos();
  if (deadline_ != absl::InfiniteFuture() && absl::FromUnixNanos(now_ns) >= deadline_) {
    return absl::DeadlineExceededError("Deadline exceeded: the request ran out of time");
  }
  if (is_cancelled_ && !cancelled_.load(std::memory_order_relaxed)) {
    int64_t next = next_poll_ns_.load(std::memory_order_relaxed);
    if (now_ns >= next &&
        next_poll_ns_.compare_exchange_strong(next, now_ns + kPollIntervalNanos,
                                              std::memory_order_relaxed)) {
      if (is_cancelled_()) cancelled_.store(true, std::memory_order_relaxed);
    }
  }
  if (cancelled_.load(std::memory_order_relaxed)) {
    return absl::CancelledError("Cancelled: the client cancelled the request");
  }
  return absl::OkStatus();
}

}  // namespace tensord
