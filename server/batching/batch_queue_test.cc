#include "server/batching/batch_queue.h"

#include <gtest/gtest.h>

namespace tensord {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000);

Tensor Rows(int64_t rows, int64_t width = 1, float first = 0) {
  Tensor t(DT_FLOAT, TensorShape({rows, width}));
  for (int64_t i = 0; i < rows * width; ++i) t.data<float>()[i] = first + static_cast<float>(i);
  return t;
}

struct Outcome {
  bool called = false;
  absl::StatusOr<TensorMap> result = absl::UnknownError("not called");
};

BatchTask Task(int64_t rows, Outcome* outcome, absl::Time enqueued = kT0, int64_t width = 1,
               absl::Time deadline = absl::InfiniteFuture()) {
  BatchTask task;
  task.inputs = {{"x", Rows(rows, width)}};
  task.rows = rows;
  task.enqueued = enqueued;
  task.deadline = deadline;
  task.done = [outcome](absl::StatusOr<TensorMap> r) {
    outcome->called = true;
    outcome->result = std::move(r);
  };
  return task;
}

BatchingOptions Options(int64_t max_batch, absl::Duration timeout) {
  BatchingOptions options;
  options.max_batch_size = max_batch;
  options.max_execution_batch_size = max_batch;
  options.batch_timeout = timeout;
  options.max_enqueued_batches = 2;
  return options;
}

TEST(BatchQueueTest, WaitsForTheTimeoutUnlessFull) {
  BatchQueue queue("q", Options(4, absl::Milliseconds(10)));
  Outcome a, b, c;
  ASSERT_TRUE(queue.Add(Task(1, &a)).ok());
  ASSERT_TRUE(queue.Add(Task(2, &b, kT0 + absl::Milliseconds(3))).ok());
  EXPECT_FALSE(queue.TakeReady(kT0 + absl::Milliseconds(9)).has_value());
  EXPECT_EQ(queue.ReadyTime(), kT0 + absl::Milliseconds(10));
  auto batch = queue.TakeReady(kT0 + absl::Milliseconds(10));
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->rows, 3);
  EXPECT_EQ(batch->tasks.size(), 2u);
  EXPECT_EQ(queue.size(), 0u);

  // Full before the timeout: 4 rows close the batch at once.
  ASSERT_TRUE(queue.Add(Task(3, &a)).ok());
  ASSERT_TRUE(queue.Add(Task(1, &b)).ok());
  ASSERT_TRUE(queue.Add(Task(2, &c)).ok());
  batch = queue.TakeReady(kT0);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->rows, 4);
  EXPECT_EQ(queue.size(), 1u);  // the 2-row task starts the next batch
  EXPECT_FALSE(queue.TakeReady(kT0).has_value());
}

TEST(BatchQueueTest, DifferentInnerShapesGoToSeparateBatches) {
  BatchQueue queue("q", Options(8, absl::ZeroDuration()));
  Outcome a, b;
  ASSERT_TRUE(queue.Add(Task(1, &a, kT0, /*width=*/2)).ok());
  ASSERT_TRUE(queue.Add(Task(1, &b, kT0, /*width=*/3)).ok());
  auto first = queue.TakeReady(kT0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->tasks.size(), 1u);
  auto second = queue.TakeReady(kT0);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->tasks[0].inputs.at("x").dim_size(1), 3);

  BatchingOptions padded = Options(8, absl::ZeroDuration());
  padded.pad_variable_length_inputs = true;
  BatchQueue pad_queue("q", padded);
  ASSERT_TRUE(pad_queue.Add(Task(1, &a, kT0, 2)).ok());
  ASSERT_TRUE(pad_queue.Add(Task(1, &b, kT0, 3)).ok());
  EXPECT_EQ(pad_queue.TakeReady(kT0)->tasks.size(), 2u);
}

TEST(BatchQueueTest, FullQueueAndOversizedRequests) {
  BatchQueue queue("model m version 1", Options(4, absl::Seconds(1)));
  Outcome o;
  ASSERT_TRUE(queue.Add(Task(4, &o)).ok());
  ASSERT_TRUE(queue.Add(Task(4, &o)).ok());
  absl::Status full = queue.Add(Task(1, &o));
  EXPECT_EQ(full.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(full.message().find("model m version 1"), std::string::npos);
  BatchQueue other("q", Options(4, absl::Seconds(1)));
  EXPECT_EQ(other.Add(Task(5, &o)).code(), absl::StatusCode::kInvalidArgument);
}

TEST(BatchQueueTest, ExpiredTasksLeaveTheQueue) {
  BatchQueue queue("q", Options(4, absl::Seconds(1)));
  Outcome a, b;
  ASSERT_TRUE(queue.Add(Task(1, &a, kT0, 1, kT0 + absl::Milliseconds(5))).ok());
  ASSERT_TRUE(queue.Add(Task(1, &b)).ok());
  EXPECT_EQ(queue.EarliestDeadline(), kT0 + absl::Milliseconds(5));
  EXPECT_TRUE(queue.TakeExpired(kT0 + absl::Milliseconds(4)).empty());
  auto expired = queue.TakeExpired(kT0 + absl::Milliseconds(5));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.queued_rows(), 1);
}

TEST(BatchQueueTest, SplitsLargeRequestsAndJoinsTheirResults) {
  BatchingOptions options = Options(4, absl::ZeroDuration());
  options.enable_large_batch_splitting = true;
  options.max_enqueued_batches = 10;
  BatchQueue queue("q", options);
  Outcome small, large;
  ASSERT_TRUE(queue.Add(Task(3, &small)).ok());
  ASSERT_TRUE(queue.Add(Task(6, &large)).ok());  // 1 row fills batch 1, 4 in batch 2, 1 in 3
  std::vector<Batch> batches;
  while (auto batch = queue.TakeReady(kT0)) batches.push_back(std::move(*batch));
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].rows, 4);
  EXPECT_EQ(batches[1].rows, 4);
  EXPECT_EQ(batches[2].rows, 1);
  // Answer the pieces out of order, echoing their inputs as outputs.
  for (int b : {2, 0, 1}) {
    for (BatchTask& task : batches[b].tasks) task.done(task.inputs);
  }
  ASSERT_TRUE(large.called);
  ASSERT_TRUE(large.result.ok()) << large.result.status();
  const Tensor& joined = large.result->at("x");
  ASSERT_EQ(joined.dim_size(0), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(joined.data<float>()[i], static_cast<float>(i));
}

TEST(BatchQueueTest, AFailedPieceFailsTheWholeRequestOnce) {
  BatchingOptions options = Options(2, absl::ZeroDuration());
  options.enable_large_batch_splitting = true;
  options.max_enqueued_batches = 10;
  BatchQueue queue("q", options);
  Outcome large;
  ASSERT_TRUE(queue.Add(Task(4, &large)).ok());
  auto first = queue.TakeReady(kT0);
  auto second = queue.TakeReady(kT0);
  ASSERT_TRUE(first && second);
  first->tasks[0].done(absl::InternalError("kernel failed"));
  EXPECT_FALSE(large.called);
  second->tasks[0].done(second->tasks[0].inputs);
  ASSERT_TRUE(large.called);
  EXPECT_EQ(large.result.status().message(), "kernel failed");
}

}  // namespace
}  // namespace tensord
