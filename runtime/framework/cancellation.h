// CancellationToken: why a run should stop early — a deadline, or a caller that went away.
// The executor checks it before each node, so a cancelled run stops after the kernels already
// running finish; a single long kernel is not interrupted.
//
//   CancellationToken token(absl::Now() + absl::Milliseconds(100),
//                           [&]() { return rpc_context->IsCancelled(); });
//   session->Run(feeds, fetches, {}, &outputs, RunOptions{&token});
//
// `is_cancelled` is polled at most once per poll interval (1 ms): asking gRPC whether a call was
// cancelled costs tens of microseconds, far more than a small kernel, so polling it before every
// node made small models several times slower.
//
// Thread safety: Check() may be called from any number of threads while the token lives;
// `is_cancelled` must allow that too. The token is owned by the caller and must outlive the run.
#ifndef TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_
#define TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace tensord {

class CancellationToken {
 public:
  // `deadline` = absl::InfiniteFuture() for none; `is_cancelled` may be empty.
  explicit CancellationToken(absl::Time deadline, std::function<bool()> is_cancelled = {})
      : deadline_(deadline), is_cancelled_(std::move(is_cancelled)) {}

  // OK while the run may go on; DEADLINE_EXCEEDED once the deadline passed; CANCELLED once
  // `is_cancelled` says so.
  absl::Status Check() const;

  absl::Time deadline() const { return deadline_; }

 private:
  static constexpr int64_t kPollIntervalNanos = 1000 * 1000;

  const absl::Time deadline_;
  const std::function<bool()> is_cancelled_;
  // When is_cancelled_ may be asked next (absl::GetCurrentTimeNanos), and whether it said yes.
  mutable std::atomic<int64_t> next_poll_ns_{0};
  mutable std::atomic<bool> cancelled_{false};
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_
