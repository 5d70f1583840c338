#include "server/tfserving/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>
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

// Each release wakes the first waiter alone: the line moves one request per free slot, in
// arrival order, and no waiter is left asleep while a slot is free.
TEST(AdmissionTest, WaitersAreAdmittedOneAtATimeInArrivalOrder) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 3});
  absl::StatusOr<Admission::Slot> running = admission.Admit("m", nullptr);
  ASSERT_TRUE(running.ok());
  std::vector<std::future<absl::StatusOr<Admission::Slot>>> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.push_back(
        std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // arrival order
  }
  *running = Admission::Slot();
  for (size_t i = 0; i < waiters.size(); ++i) {
    ASSERT_EQ(waiters[i].wait_for(std::chrono::seconds(30)), std::future_status::ready) << i;
    for (size_t later = i + 1; later < waiters.size(); ++later) {
      EXPECT_EQ(waiters[later].wait_for(std::chrono::milliseconds(30)),
                std::future_status::timeout)
          << later << " ran before " << i;
    }
    absl::StatusOr<Admission::Slot> admitted = waiters[i].get();
    ASSERT_TRUE(admitted.ok());
  }  // each admitted slot is released as `admitted` goes, admitting the next
}

// When the first waiter leaves (its deadline passes), the one behind it is first: the next
// release wakes it.
TEST(AdmissionTest, AFrontWaiterThatLeavesLetsTheNextMoveUp) {
  Admission admission(AdmissionOptions{.max_in_flight = 2, .max_queued = 2});
  absl::StatusOr<Admission::Slot> first = admission.Admit("m", nullptr);
  absl::StatusOr<Admission::Slot> second = admission.Admit("m", nullptr);
  ASSERT_TRUE(first.ok() && second.ok());
  CancellationToken soon(absl::Now() + absl::Milliseconds(100));
  auto leaving = std::async(std::launch::async, [&]() { return admission.Admit("m", &soon); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto next = std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); });
  ASSERT_EQ(next.wait_for(std::chrono::milliseconds(30)), std::future_status::timeout);
  EXPECT_EQ(leaving.get().status().code(), absl::StatusCode::kDeadlineExceeded);
  *first = Admission::Slot();  // a slot frees while `next` is at the front
  ASSERT_EQ(next.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(next.get().ok());
}

// A ticket is a place in line from the moment it is taken: in its turn it is given the slot (and
// told), ahead of a request that joined the line after it, and Admit with it returns at once.
TEST(AdmissionTest, ATicketIsGrantedItsSlotInItsTurnAndTold) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 3});
  absl::StatusOr<Admission::Slot> running = admission.Admit("m", nullptr);
  ASSERT_TRUE(running.ok());
  std::atomic<int> told{0};
  absl::StatusOr<Admission::Ticket> ticket = admission.Reserve("m", [&] { ++told; });
  ASSERT_TRUE(ticket.ok());
  EXPECT_FALSE(ticket->granted());
  EXPECT_EQ(told.load(), 0);
  auto later = std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); });
  ASSERT_EQ(later.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  *running = Admission::Slot();
  EXPECT_EQ(told.load(), 1);
  EXPECT_TRUE(ticket->granted());
  EXPECT_EQ(later.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  {
    absl::StatusOr<Admission::Slot> slot = admission.Admit("m", nullptr, &*ticket);
    ASSERT_TRUE(slot.ok());
  }  // released: the later request runs
  ASSERT_EQ(later.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(later.get().ok());
  EXPECT_EQ(told.load(), 1);
}

// A thread that comes to wait with a ticket not yet granted waits from the ticket's place, and
// the ticket is no longer told.
TEST(AdmissionTest, WaitingWithAnUngrantedTicketKeepsItsPlace) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 3});
  absl::StatusOr<Admission::Slot> running = admission.Admit("m", nullptr);
  ASSERT_TRUE(running.ok());
  std::atomic<int> told{0};
  absl::StatusOr<Admission::Ticket> ticket = admission.Reserve("m", [&] { ++told; });
  ASSERT_TRUE(ticket.ok());
  auto later = std::async(std::launch::async, [&]() { return admission.Admit("m", nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto ticketed = std::async(std::launch::async,
                             [&]() { return admission.Admit("m", nullptr, &*ticket); });
  ASSERT_EQ(ticketed.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  *running = Admission::Slot();
  ASSERT_EQ(ticketed.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(later.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_TRUE(ticketed.get().ok());  // released here: the later request runs
  ASSERT_EQ(later.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(later.get().ok());
  EXPECT_EQ(told.load(), 0);
}

// Tickets count against the model's bounds, granted or waiting; dropped unused, a granted one
// hands its slot to the next in line and a waiting one frees its place.
TEST(AdmissionTest, TicketsCountAgainstTheBoundsUntilDropped) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 1});
  std::atomic<int> first_told{0}, second_told{0};
  absl::StatusOr<Admission::Ticket> first = admission.Reserve("m", [&] { ++first_told; });
  absl::StatusOr<Admission::Ticket> second = admission.Reserve("m", [&] { ++second_told; });
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(first->granted());  // a free slot and nobody waiting: told before Reserve returned
  EXPECT_EQ(first_told.load(), 1);
  EXPECT_FALSE(second->granted());
  EXPECT_EQ(second_told.load(), 0);
  absl::StatusOr<Admission::Ticket> third = admission.Reserve("m", [] {});
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(third.status().message().find("model m is at capacity: 1 requests running"),
            std::string::npos)
      << third.status();
  EXPECT_EQ(admission.Admit("m", nullptr).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(admission.Reserve("other", [] {}).ok());  // each model has its own line
  *first = Admission::Ticket();  // dropped unused: its slot goes to the next in line
  EXPECT_TRUE(second->granted());
  EXPECT_EQ(second_told.load(), 1);  // once
  absl::StatusOr<Admission::Ticket> fourth = admission.Reserve("m", [] {});
  ASSERT_TRUE(fourth.ok());
  EXPECT_FALSE(fourth->granted());
  *fourth = Admission::Ticket();  // dropped from the line: the place is free again
  EXPECT_TRUE(admission.Reserve("m", [] {}).ok());
}

// A ticket is a place in its own model's line only: given to Admit for another model, it is
// dropped and the request is admitted as any other.
TEST(AdmissionTest, ATicketOfAnotherModelIsNotAPlaceInLine) {
  Admission admission(AdmissionOptions{.max_in_flight = 1, .max_queued = 1});
  absl::StatusOr<Admission::Ticket> ticket = admission.Reserve("a", [] {});
  ASSERT_TRUE(ticket.ok());
  EXPECT_TRUE(admission.Admit("b", nullptr, &*ticket).ok());
  // "a"'s slot was released with the ticket: one granted and one waiting fit again.
  absl::StatusOr<Admission::Ticket> again = admission.Reserve("a", [] {});
  absl::StatusOr<Admission::Ticket> more = admission.Reserve("a", [] {});
  ASSERT_TRUE(again.ok() && more.ok());
  EXPECT_TRUE(again->granted());
}

TEST(AdmissionTest, NoLimitGivesEmptyGrantedTicketsThatAdmitAtOnce) {
  Admission admission(AdmissionOptions{});
  absl::StatusOr<Admission::Ticket> ticket = admission.Reserve("m", [] {});
  ASSERT_TRUE(ticket.ok());
  EXPECT_TRUE(ticket->granted());
  EXPECT_TRUE(admission.Admit("m", nullptr, &*ticket).ok());
}

}  // namespace
}  // namespace tensord
