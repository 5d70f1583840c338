// CancellationToken: why a run should stop early — a deadline, or a caller that went away.
// The executor checks it before each node, so a cancelled run stops after the kernels already
// running finish; a single long kernel is not interrupted.
//
//   CancellationToken token(absl::Now() + absl::Milliseconds(100),
//                           [&]() { return rpc_context->IsCancelled(); });
//   session->Run(feeds, fetches, {}, &outputs, RunOptions{&token});
//
// Thread safety: Check() may be called from any number of threads while the token lives;
// `is_cancelled` must allow that too. The token is owned by the caller and must outlive the run.
#ifndef TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_
#define TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_

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
  const absl::Time deadline_;
  const std::function<bool()> is_cancelled_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_CANCELLATION_H_
