#include "server/batching/batching_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

namespace tensord {
namespace {

Tensor Features(int64_t rows, float offset) {
  Tensor t(DT_FLOAT, TensorShape({rows, 16}));
  for (int64_t i = 0; i < rows * 16; ++i) t.data<float>()[i] = offset + 0.01f * i;
  return t;
}

class BatchingRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadOptions load;
    auto bundle = SavedModelBundle::Load(std::filesystem::absolute("tests/testdata/keras_mlp/1"),
                                         load);
    ASSERT_TRUE(bundle.ok()) << bundle.status();
    handle_.name = "mlp";
    handle_.version = 1;
    handle_.bundle = std::shared_ptr<const SavedModelBundle>(std::move(*bundle));
  }

  // Runs `requests` concurrent requests of 1..n rows through `runner` and checks each answer
  // against the unbatched run of the same rows.
  void ExpectSameAsUnbatched(const SignatureRunner& runner, int requests) {
    std::vector<std::thread> threads;
    std::vector<absl::StatusOr<TensorMap>> batched(requests, absl::UnknownError("not run"));
    for (int i = 0; i < requests; ++i) {
      threads.emplace_back([&, i]() {
        batched[i] = runner.Run("serving_default", {{"features", Features(i + 1, i)}}, {},
                                RunOptions(), nullptr);
      });
    }
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < requests; ++i) {
      auto alone = handle_.bundle->RunSignature("serving_default",
                                                {{"features", Features(i + 1, i)}});
      ASSERT_TRUE(alone.ok());
      ASSERT_TRUE(batched[i].ok()) << batched[i].status();
      const Tensor& got = batched[i]->begin()->second;
      const Tensor& want = alone->begin()->second;
      ASSERT_EQ(got.shape(), want.shape());
      for (int64_t k = 0; k < got.NumElements(); ++k) {
        EXPECT_NEAR(got.data<float>()[k], want.data<float>()[k], 1e-6) << i << " " << k;
      }
    }
  }

  ServableHandle handle_;
};

TEST_F(BatchingRunnerTest, ConcurrentRequestsMergeAndGetTheirOwnRows) {
  BatchScheduler scheduler(2);
  MetricRegistry registry;
  ServingMetrics metrics(&registry);
  BatchingOptions options;
  options.max_batch_size = 64;
  options.max_execution_batch_size = 64;
  options.batch_timeout = absl::Milliseconds(100);
  options.allowed_batch_sizes = {16, 64};
  BatchingRunner runner(handle_, &scheduler, options, &metrics);
  ExpectSameAsUnbatched(runner, 5);  // 15 rows, padded to 16
  const std::vector<std::string> labels = {"mlp", "1", "serving_default"};
  EXPECT_EQ(metrics.batch_rows->Value(labels), 15);
  // Fewer batches than requests: some were merged, and padding was counted.
  EXPECT_LT(metrics.batch_size->Count(labels), 5);
  EXPECT_GE(metrics.batch_padding_rows->Value(labels), 1);
  EXPECT_EQ(metrics.batch_queue_duration->Count(labels), 5);
}

TEST_F(BatchingRunnerTest, LargeRequestsAreSplitOrRejected) {
  BatchScheduler scheduler(1);
  BatchingOptions options;
  options.max_batch_size = 4;
  options.max_execution_batch_size = 4;
  BatchingRunner strict(handle_, &scheduler, options, nullptr);
  auto rejected =
      strict.Run("serving_default", {{"features", Features(5, 0)}}, {}, RunOptions(), nullptr);
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kInvalidArgument);

  options.enable_large_batch_splitting = true;
  BatchingRunner splitting(handle_, &scheduler, options, nullptr);
  ExpectSameAsUnbatched(splitting, 6);  // up to 6 rows against batches of 4
}

TEST_F(BatchingRunnerTest, UnknownSignaturesAndDeadlinesKeepTheirErrors) {
  BatchScheduler scheduler(1);
  BatchingOptions options;
  options.batch_timeout = absl::Seconds(5);
  BatchingRunner runner(handle_, &scheduler, options, nullptr);
  auto unknown = runner.Run("nope", {{"features", Features(1, 0)}}, {}, RunOptions(), nullptr);
  EXPECT_FALSE(unknown.ok());
  CancellationToken token(absl::Now() + absl::Milliseconds(50));
  RunOptions run_options;
  run_options.cancellation = &token;
  auto late =
      runner.Run("serving_default", {{"features", Features(1, 0)}}, {}, run_options, nullptr);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);

  // The time spent waiting is reported to the caller.
  BatchingOptions slow;
  slow.batch_timeout = absl::Milliseconds(30);
  BatchingRunner waiting(handle_, &scheduler, slow, nullptr);
  RunStats stats;
  ASSERT_TRUE(
      waiting.Run("serving_default", {{"features", Features(1, 0)}}, {}, RunOptions(), &stats)
          .ok());
  EXPECT_GE(stats.queued, absl::Milliseconds(30));
}

}  // namespace
}  // namespace tensord
