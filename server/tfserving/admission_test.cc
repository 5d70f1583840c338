#include "server/tfserving/admission.h"

#include <gtest/gtest.h>

#include <future>
#include <optional>
#include <utility>

#include "absl/time/clock.h"

namespace tensord {
namespace {

TEST(AdmissionTest, NoLimitAdmitsEverything) {
  Admission admission(AdmissionOptions{});
  std::vector<Admission::Slot> slots;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<Admission::Slot> slot = admission.Admit("m", nullptr);
    ASSERT_TRUE(slot.ok());
    slots.push_back(*std::move(slot));
  }
}

TEST(AdmissionTest, FullModelQueuesThenRefusesAndOtherModelsAreUnaffected) {
  Admission admission(AdmissionOptions{.max_in_flight = 2, .max_queued = 1});
  std::optional<Admission::Slot> a = *admission.Admit("m", nullptr);
  std::optional<Admission::Slot> b = *admission.Admit("m", nullptr);
  auto waiter = std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); });
  ASSERT_EQ(waiter.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);

  absl::StatusOr<Admission::Slot> refused = admission.Admit("m", nullptr);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.status().message(),
            "model m is at capacity: 2 requests running (--max_inflight_requests_per_model=2) "
            "and 1 waiting (--max_queued_requests_per_model=1); retry later");
  EXPECT_TRUE(admission.Admit("other", nullptr).ok());

  a.reset();  // frees a slot for the waiter
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  absl::StatusOr<Admission::Slot> admitted = waiter.get();
  EXPECT_TRUE(admitted.ok());
}

TEST(AdmissionTest, DeadlineWhileWaitingLeavesTheLineWithoutRunning) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 1});
  absl::StatusOr<Admission::Slot> running = admission.Admit("m", nullptr);
  ASSERT_TRUE(running.ok());
  CancellationToken token(absl::Now() + absl::Milliseconds(30));
  absl::StatusOr<Admission::Slot> late = admission.Admit("m", &token);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  // Its place in line is free again: the next request may wait.
  auto waiter = std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); });
  ASSERT_EQ(waiter.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  *running = Admission::Slot();  // releases the running request's slot
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(waiter.get().ok());
}

TEST(AdmissionTest, CancelledClientLeavesTheLine) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 4});
  absl::StatusOr<Admission::Slot> running = admission.Admit("m", nullptr);
  ASSERT_TRUE(running.ok());
  std::atomic<bool> gone{false};
  CancellationToken token(absl::InfiniteFuture(), [&]() { return gone.load(); });
  auto waiter = std::async(std::launch::async, [&]() { return admission.Admit("m", &token); });
  ASSERT_EQ(waiter.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  gone = true;
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(waiter.get().status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace tensord
