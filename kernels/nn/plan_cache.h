// PlanCache: what a kernel prepares per input shape (oneDNN primitives and their memory
// descriptions), made on first use and kept while the kernel lives, so references to a plan
// stay valid. Keys are the shape numbers the plan depends on.
//
// Thread-safe: concurrent Get calls for a new key make it once.
#ifndef TENSORD_KERNELS_NN_PLAN_CACHE_H_
#define TENSORD_KERNELS_NN_PLAN_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace tensord {

template <typename Plan>
class PlanCache {
 public:
  // The plan for `key`; `make()` (returning std::unique_ptr<Plan>) builds it on first use,
  // under the cache's lock.
  template <typename Make>
  const Plan& Get(const std::vector<int64_t>& key, Make make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, make()).first;
    return *it->second;
  }

 private:
  std::mutex mu_;
  std::map<std::vector<int64_t>, std::unique_ptr<Plan>> plans_;  // guarded by mu_
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_PLAN_CACHE_H_
