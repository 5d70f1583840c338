#include "runtime/framework/parallel_for.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>

#include "absl/synchronization/notification.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

constexpr std::chrono::microseconds kSpinBeforeSleep(50);

// One RunShares call's state, shared with the pool tasks it schedules: a task that starts after
// the call returned finds no share left to claim and only drops its reference.
struct SharedRun {
  explicit SharedRun(int shares) : unfinished(shares) {}
  void Finished() {
    if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) done.Notify();
  }
  std::atomic<int> next{1};  // share 0 is the caller's
  std::atomic<int> unfinished;
  absl::Notification done;  // its destructor waits for a Notify still in progress
};

}  // namespace

void RunShares(const Eigen::ThreadPoolDevice& device, int shares,
               const std::function<void(int)>& share) {
  if (shares <= 0) return;
  if (shares == 1) {
    share(0);
    return;
  }
  auto run = std::make_shared<SharedRun>(shares);
  // Claims and runs shares until none is left. `share` is touched only for a claimed share,
  // which is unfinished, so the caller is still waiting and `share` still alive.
  auto claim = [run, &share, shares] {
    for (int i = run->next.fetch_add(1, std::memory_order_relaxed); i < shares;
         i = run->next.fetch_add(1, std::memory_order_relaxed)) {
      share(i);
      run->Finished();
    }
  };
  for (int i = 1; i < shares; ++i) device.getPool()->Schedule(claim);
  share(0);
  run->Finished();
  claim();
  const auto give_up = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  while (!run->done.HasBeenNotified() && std::chrono::steady_clock::now() < give_up) {
    for (int i = 0; i < 64; ++i) _mm_pause();
  }
  run->done.WaitForNotification();
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
