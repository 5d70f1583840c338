#include "runtime/framework/cancellation.h"

#include <gtest/gtest.h>

#include <atomic>

#include "absl/time/clock.h"

namespace tensord {
namespace {

TEST(CancellationTokenTest, NoDeadlineNoCallbackNeverStops) {
  CancellationToken token(absl::InfiniteFuture());
  EXPECT_TRUE(token.Check().ok());
}

TEST(CancellationTokenTest, PastDeadlineIsDeadlineExceeded) {
  CancellationToken token(absl::Now() - absl::Milliseconds(1));
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kDeadlineExceeded);
  CancellationToken later(absl::Now() + absl::Hours(1));
  EXPECT_TRUE(later.Check().ok());
}

TEST(CancellationTokenTest, CallbackCancels) {
  std::atomic<bool> cancelled{false};
  CancellationToken token(absl::InfiniteFuture(), [&]() { return cancelled.load(); });
  EXPECT_TRUE(token.Check().ok());
  cancelled = true;
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace tensord
