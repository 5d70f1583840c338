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

TEST(CancellationTokenTest, CallbackIsPolledAtMostOncePerMillisecond) {
  std::atomic<bool> cancelled{false};
  std::atomic<int> polls{0};
  CancellationToken token(absl::InfiniteFuture(), [&]() {
    ++polls;
    return cancelled.load();
  });
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(token.Check().ok());
  EXPECT_LE(polls.load(), 2);  // the first Check polls; 1000 Checks take well under 2 ms...
  cancelled = true;
  absl::SleepFor(absl::Milliseconds(2));
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
  cancelled = false;  // once cancelled, it stays cancelled
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace tensord
