#include "runtime/framework/parallel_for.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "absl/synchronization/notification.h"

namespace tensord {
namespace {

constexpr std::chrono::microseconds kSpinBeforeSleep(50);

}  // namespace

void RunShares(const Eigen::ThreadPoolDevice& device, int shares,
               const std::function<void(int)>& share) {
  if (shares <= 0) return;
  if (shares == 1) {
    share(0);
    return;
  }
  std::atomic<int> left{shares - 1};
  absl::Notification done;  // its destructor waits for a Notify still in progress
  for (int i = 1; i < shares; ++i) {
    device.getPool()->Schedule([&share, &left, &done, i] {
      share(i);
      if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) done.Notify();
    });
  }
  share(0);
  const auto give_up = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  while (!done.HasBeenNotified() && std::chrono::steady_clock::now() < give_up) {
    for (int i = 0; i < 64; ++i) _mm_pause();
  }
  done.WaitForNotification();
}

void ParallelFor(const Eigen::ThreadPoolDevice& device, Eigen::Index n,
                 const Eigen::TensorOpCost& cost,
                 const std::function<void(Eigen::Index, Eigen::Index)>& f) {
  if (n <= 0) return;
  const int threads =
      n == 1 ? 1
             : Eigen::TensorCostModel<Eigen::ThreadPoolDevice>::numThreads(
                   static_cast<double>(n), cost, device.numThreads());
  const int shares = static_cast<int>(std::min<Eigen::Index>(std::max(threads, 1), n));
  RunShares(device, shares, [&](int i) {
    const Eigen::Index begin = n * i / shares;
    const Eigen::Index end = n * (i + 1) / shares;
    if (begin < end) f(begin, end);
  });
}

}  // namespace tensord
