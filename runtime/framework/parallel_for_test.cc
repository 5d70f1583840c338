#include "runtime/framework/parallel_for.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "runtime/framework/device.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

TEST(RunSharesTest, EachShareRunsOnceAndTheCallerRunsTheFirst) {
  CpuDevice cpu(CpuDevice::Options{3});  // the caller and a pool of two
  for (int round = 0; round < 100; ++round) {
    std::vector<std::atomic<int>> runs(3);
    std::vector<std::thread::id> where(3);
    RunShares(cpu.eigen_device(), 3, [&](int i) {
      ++runs[i];
      where[i] = std::this_thread::get_id();
    });
    for (int i = 0; i < 3; ++i) ASSERT_EQ(runs[i], 1) << i;
    ASSERT_EQ(where[0], std::this_thread::get_id());
  }
}

// A pool thread that has not started (here: busy elsewhere) leaves its share to the caller,
// which then does not wait for it.
TEST(RunSharesTest, TheCallerRunsTheSharesNoPoolThreadHasClaimed) {
  absl::Notification pool_busy, release;  // outlive the pool, whose task waits on them
  CpuDevice cpu(CpuDevice::Options{2});   // the caller and a pool of one
  cpu.eigen_device().getPool()->Schedule([&] {
    pool_busy.Notify();
    release.WaitForNotification();
  });
  pool_busy.WaitForNotification();
  std::vector<std::thread::id> where(3);
  RunShares(cpu.eigen_device(), 3, [&](int i) { where[i] = std::this_thread::get_id(); });
  for (int i = 0; i < 3; ++i) EXPECT_EQ(where[i], std::this_thread::get_id()) << i;
  release.Notify();  // the pool then runs the call's leftover tasks, which find nothing to do
}

// Every index once, in contiguous ranges: one range on the caller for cheap work, one per
// thread for expensive work.
TEST(ParallelForTest, CoversTheRangeOnceWithOneRangePerThreadWorthUsing) {
  CpuDevice cpu(CpuDevice::Options{2});
  for (const double cycles : {1.0, 1e6}) {
    for (const Eigen::Index n : {1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> seen(n);
      std::atomic<int> ranges{0};
      ParallelFor(cpu.eigen_device(), n, Eigen::TensorOpCost(0, 0, cycles),
                  [&](Eigen::Index begin, Eigen::Index end) {
                    ASSERT_LT(begin, end);
                    for (Eigen::Index i = begin; i < end; ++i) ++seen[i];
                    ++ranges;
                  });
      for (Eigen::Index i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << n << " " << i;
      EXPECT_EQ(ranges, cycles > 1 && n > 1 ? 2 : 1) << "n=" << n << " cycles=" << cycles;
    }
  }
}

// Kernels of concurrent requests share the pool: every call completes with its own result.
TEST(ParallelForTest, ConcurrentCallersShareThePool) {
  CpuDevice cpu(CpuDevice::Options{2});
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        std::atomic<int64_t> sum{0};
        ParallelFor(cpu.eigen_device(), 1000, Eigen::TensorOpCost(0, 0, 1e6),
                    [&](Eigen::Index begin, Eigen::Index end) {
                      int64_t s = 0;
                      for (Eigen::Index i = begin; i < end; ++i) s += i;
                      sum += s;
                    });
        if (sum != 999 * 1000 / 2) ++failures;
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace tensord
