#include "server/batching/batch_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "absl/time/clock.h"

namespace tensord {
namespace {

BatchingOptions Options(int64_t max_batch, absl::Duration timeout) {
  BatchingOptions options;
  options.max_batch_size = max_batch;
  options.max_execution_batch_size = max_batch;
  options.batch_timeout = timeout;
  return options;
}

struct Pending {
  std::promise<absl::StatusOr<TensorMap>> promise;
  std::future<absl::StatusOr<TensorMap>> future = promise.get_future();
};

BatchTask Task(float value, Pending* pending, absl::Time deadline = absl::InfiniteFuture()) {
  Tensor x(DT_FLOAT, TensorShape({1}));
  x.data<float>()[0] = value;
  BatchTask task;
  task.inputs = {{"x", x}};
  task.rows = 1;
  task.enqueued = absl::Now();
  task.deadline = deadline;
  task.done = [pending](absl::StatusOr<TensorMap> r) { pending->promise.set_value(std::move(r)); };
  return task;
}

// Answers each task with its own inputs (or fails batches containing a negative value).
void Echo(Batch batch, std::atomic<int>* batches, std::atomic<int>* largest) {
  ++*batches;
  int size = static_cast<int>(batch.tasks.size());
  int seen = largest->load();
  while (size > seen && !largest->compare_exchange_weak(seen, size)) {
  }
  bool poisoned = false;
  for (const BatchTask& task : batch.tasks) poisoned |= task.inputs.at("x").data<float>()[0] < 0;
  for (BatchTask& task : batch.tasks) {
    if (poisoned) {
      task.done(absl::InternalError("batch failed"));
    } else {
      task.done(task.inputs);
    }
  }
}

TEST(BatchSchedulerTest, TimeoutClosesAPartialBatch) {
  BatchScheduler scheduler(2);
  std::atomic<int> batches{0}, largest{0};
  auto queue = scheduler.AddQueue("q", Options(8, absl::Milliseconds(50)),
                                  [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  Pending a, b;
  const absl::Time start = absl::Now();
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(1, &a)).ok());
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(2, &b)).ok());
  ASSERT_TRUE(a.future.get().ok());
  ASSERT_TRUE(b.future.get().ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));  // waited for the timer
  EXPECT_EQ(batches.load(), 1);
  EXPECT_EQ(largest.load(), 2);
}

BatchTask RunTask(float value);

// Regression: draining waited out every queued partial batch's timer.
TEST(BatchSchedulerTest, FlushAnswersQueuedRequestsWithoutWaitingForTheirTimeout) {
  BatchScheduler scheduler(2);
  std::atomic<int> batches{0}, largest{0};
  const BatchingOptions hour = Options(8, absl::Hours(1));
  auto scheduled = scheduler.AddQueue("scheduled", hour,
                                      [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  auto led = scheduler.AddQueue("led", hour,
                                [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  Pending a;
  ASSERT_TRUE(scheduler.Schedule(scheduled.get(), Task(1, &a)).ok());  // a batch thread's timer
  auto b = std::async(std::launch::async,
                      [&]() { return scheduler.Run(led.get(), RunTask(2)); });  // its caller's
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(a.future.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  scheduler.Flush();
  ASSERT_EQ(a.future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  ASSERT_EQ(b.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  absl::StatusOr<TensorMap> from_run = b.get();
  ASSERT_TRUE(from_run.ok()) << from_run.status();
  EXPECT_EQ(from_run->at("x").data<float>()[0], 2);
  EXPECT_EQ(a.future.get()->at("x").data<float>()[0], 1);
  // Later requests run at once too.
  Pending c;
  ASSERT_TRUE(scheduler.Schedule(scheduled.get(), Task(3, &c)).ok());
  ASSERT_EQ(c.future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
}

BatchTask RunTask(float value) {
  Pending unused;
  BatchTask task = Task(value, &unused);
  task.done = nullptr;  // Run sets its own
  return task;
}

TEST(BatchSchedulerTest, RunExecutesALoneRequestOnTheCallingThread) {
  BatchScheduler scheduler(2);
  std::thread::id ran_on;
  auto queue = scheduler.AddQueue("q", Options(8, absl::Milliseconds(20)), [&](Batch b) {
    ran_on = std::this_thread::get_id();
    for (BatchTask& task : b.tasks) task.done(task.inputs);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<TensorMap> out = scheduler.Run(queue.get(), RunTask(3));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->at("x").data<float>()[0], 3);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(20));  // the timeout still applies
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(BatchSchedulerTest, ConcurrentRunsShareBatchesAndEachGetsItsOwnAnswer) {
  BatchScheduler scheduler(1);
  std::atomic<int> batches{0}, largest{0};
  auto queue = scheduler.AddQueue("q", Options(4, absl::Milliseconds(5)),
                                  [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  constexpr int kCallers = 12;
  std::vector<std::thread> callers;
  std::vector<absl::StatusOr<TensorMap>> answers(kCallers);
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] { answers[i] = scheduler.Run(queue.get(), RunTask(i)); });
  }
  for (std::thread& t : callers) t.join();
  for (int i = 0; i < kCallers; ++i) {
    ASSERT_TRUE(answers[i].ok()) << answers[i].status();
    EXPECT_EQ(answers[i]->at("x").data<float>()[0], i);
  }
  EXPECT_LT(batches.load(), kCallers);
  EXPECT_LE(largest.load(), 4);
  EXPECT_GT(largest.load(), 1);
}

TEST(BatchSchedulerTest, FullBatchRunsWithoutWaitingAndFailuresStayInTheirBatch) {
  BatchScheduler scheduler(1);
  std::atomic<int> batches{0}, largest{0};
  auto queue = scheduler.AddQueue("q", Options(2, absl::Seconds(30)),
                                  [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  Pending a, b, c, d;
  const absl::Time start = absl::Now();
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(1, &a)).ok());
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(2, &b)).ok());
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(-1, &c)).ok());
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(4, &d)).ok());
  auto ra = a.future.get();
  ASSERT_TRUE(ra.ok());
  EXPECT_EQ(ra->at("x").data<float>()[0], 1.0f);
  EXPECT_TRUE(b.future.get().ok());
  EXPECT_EQ(c.future.get().status().message(), "batch failed");
  EXPECT_EQ(d.future.get().status().message(), "batch failed");
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(batches.load(), 2);
}

TEST(BatchSchedulerTest, BatchReadyWhileEverySlotIsBusyRunsWhenACallerFreesTheSlot) {
  BatchScheduler scheduler(1);
  std::atomic<int> batches{0}, largest{0};
  std::promise<void> started, gate;
  std::shared_future<void> opened = gate.get_future().share();
  auto queue = scheduler.AddQueue("q", Options(1, absl::ZeroDuration()), [&](Batch b) {
    if (b.tasks.front().inputs.at("x").data<float>()[0] == 1) {
      started.set_value();
      opened.wait();
    }
    Echo(std::move(b), &batches, &largest);
  });
  // The caller leads its own batch and holds the only slot until the gate opens.
  Pending unused;
  auto lead =
      std::async(std::launch::async, [&] { return scheduler.Run(queue.get(), Task(1, &unused)); });
  started.get_future().wait();
  Pending queued;
  ASSERT_TRUE(scheduler.Schedule(queue.get(), Task(2, &queued)).ok());
  // Ready at once, but no slot: the batch thread waits for the caller to free it.
  EXPECT_EQ(queued.future.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  gate.set_value();
  auto led = lead.get();
  ASSERT_TRUE(led.ok());
  EXPECT_EQ(led->at("x").data<float>()[0], 1.0f);
  ASSERT_EQ(queued.future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto answer = queued.future.get();
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->at("x").data<float>()[0], 2.0f);
  EXPECT_EQ(batches.load(), 2);
}

TEST(BatchSchedulerTest, DeadlinePassedInTheQueueIsDeadlineExceeded) {
  BatchScheduler scheduler(1);
  std::atomic<int> batches{0}, largest{0};
  auto queue = scheduler.AddQueue("q", Options(8, absl::Seconds(30)),
                                  [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  Pending a;
  ASSERT_TRUE(
      scheduler.Schedule(queue.get(), Task(1, &a, absl::Now() + absl::Milliseconds(20))).ok());
  EXPECT_EQ(a.future.get().status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(batches.load(), 0);
}

TEST(BatchSchedulerTest, QueuesAreServedRoundRobinAndReportDepth) {
  BatchScheduler scheduler(1);
  std::atomic<int> batches{0}, largest{0};
  std::atomic<size_t> last_depth{99};
  auto first = scheduler.AddQueue(
      "a", Options(1, absl::ZeroDuration()),
      [&](Batch b) { Echo(std::move(b), &batches, &largest); },
      [&](size_t depth) { last_depth = depth; });
  auto second = scheduler.AddQueue("b", Options(1, absl::ZeroDuration()),
                                   [&](Batch b) { Echo(std::move(b), &batches, &largest); });
  Pending p1, p2;
  ASSERT_TRUE(scheduler.Schedule(first.get(), Task(1, &p1)).ok());
  ASSERT_TRUE(scheduler.Schedule(second.get(), Task(2, &p2)).ok());
  EXPECT_TRUE(p1.future.get().ok());
  EXPECT_TRUE(p2.future.get().ok());
  EXPECT_EQ(last_depth.load(), 0u);
  EXPECT_EQ(scheduler.num_threads(), 1);
}

}  // namespace
}  // namespace tensord
