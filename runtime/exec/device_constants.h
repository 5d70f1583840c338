// DeviceConstants: the copies of a model's constants (weights) in device memory, made once and
// shared by every plan of a session, instead of being copied from the host on every run.
//
// A plan asks for the value of a host-to-device copy node whose input is a constant; the first
// ask makes it, later asks (any plan, any thread) get the same tensor. The copies live as long
// as the object, which the session owns: they go back to the device's allocator when the model
// version unloads. Thread-safe.
#ifndef TENSORD_RUNTIME_EXEC_DEVICE_CONSTANTS_H_
#define TENSORD_RUNTIME_EXEC_DEVICE_CONSTANTS_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class DeviceConstants {
 public:
  // The value kept for copy node `node`, or the one `make` returns, kept when it succeeds. A
  // failure is returned and not kept, so a later plan may try again. `make` runs under the lock
  // (two plans never copy the same weights twice).
  absl::StatusOr<Tensor> GetOrMake(const std::string& node,
                                   const std::function<absl::StatusOr<Tensor>()>& make);

  // Bytes held by the kept values: the model's weights resident in device memory.
  size_t bytes() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Tensor> values_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_DEVICE_CONSTANTS_H_
