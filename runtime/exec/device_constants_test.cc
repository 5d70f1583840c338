#include "runtime/exec/device_constants.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tensord {
namespace {

Tensor Filled(int64_t n, float value) {
  Tensor t(DT_FLOAT, TensorShape{n});
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = value;
  return t;
}

TEST(DeviceConstantsTest, MakesEachValueOnceAndSharesIt) {
  DeviceConstants constants;
  int made = 0;
  auto make = [&] {
    ++made;
    return absl::StatusOr<Tensor>(Filled(4, 2.5f));
  };
  absl::StatusOr<Tensor> first = constants.GetOrMake("w/_to_GPU_0", make);
  absl::StatusOr<Tensor> second = constants.GetOrMake("w/_to_GPU_0", make);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(made, 1);
  EXPECT_EQ(first->data<float>(), second->data<float>());  // one buffer
  EXPECT_EQ(second->data<float>()[3], 2.5f);
  EXPECT_EQ(constants.bytes(), 16u);

  auto bias = [] { return absl::StatusOr<Tensor>(Filled(2, 1.0f)); };
  ASSERT_TRUE(constants.GetOrMake("b/_to_GPU_0", bias).ok());
  EXPECT_EQ(constants.bytes(), 24u);
}

TEST(DeviceConstantsTest, FailureIsReturnedAndNotKept) {
  DeviceConstants constants;
  absl::StatusOr<Tensor> failed = constants.GetOrMake("w/_to_GPU_0", [] {
    return absl::StatusOr<Tensor>(absl::ResourceExhaustedError("out of memory on GPU:0"));
  });
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(constants.bytes(), 0u);
  absl::StatusOr<Tensor> retried =
      constants.GetOrMake("w/_to_GPU_0", [] { return absl::StatusOr<Tensor>(Filled(1, 7.0f)); });
  ASSERT_TRUE(retried.ok());
  EXPECT_EQ(retried->data<float>()[0], 7.0f);
  EXPECT_EQ(constants.bytes(), 4u);
}

TEST(DeviceConstantsTest, ConcurrentPlansCopyOnce) {
  DeviceConstants constants;
  std::atomic<int> made{0};
  std::vector<const float*> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<Tensor> value = constants.GetOrMake("w/_to_GPU_0", [&] {
        made.fetch_add(1);
        return absl::StatusOr<Tensor>(Filled(1024, 1.0f));
      });
      seen[t] = value.ok() ? value->data<float>() : nullptr;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(made.load(), 1);
  for (const float* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_NE(seen[0], nullptr);
  EXPECT_EQ(constants.bytes(), 4096u);
}

}  // namespace
}  // namespace tensord
