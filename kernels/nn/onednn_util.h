// What the oneDNN kernels share: the CPU engine, a stream and reusable scratch buffers per
// thread, the fused epilogue as post-ops, and running a kernel's parts on the intra-op pool.
//
// oneDNN runs single-threaded per call (Debian builds it on OpenMP, whose spinning teams fight
// the intra-op pool and co-tenant processes for cores); kernels split their work into parts
// and spread them over the pool with RunParts (on RunShares, runtime/framework/parallel_for.h).
#ifndef TENSORD_KERNELS_NN_ONEDNN_UTIL_H_
#define TENSORD_KERNELS_NN_ONEDNN_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "dnnl.hpp"
#include "kernels/nn/conv_fusion.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace onednn {

const dnnl::engine& Engine();

// This thread's stream (oneDNN streams are not thread-safe; one per thread needs no lock).
dnnl::stream& ThreadStream();

// Buffers a thread reuses from call to call, one per purpose so that a part can hold several
// at once: avoiding an allocation (and its page faults) per call. Valid until the same thread
// asks for the same slot again; contents are not preserved across growth.
enum class ThreadBufferSlot { kScratchpad, kPatches, kOutput, kBfloat16Source, kCount };
float* ThreadBuffer(ThreadBufferSlot slot, size_t bytes);

// The options' residual sum ("sum" adds the result to what the output already holds) and
// activation, in that order.
dnnl::post_ops PostOps(const OneDnnConvOptions& options);

// Below this many multiply-adds (about 15–25 µs on one core) a kernel runs on one thread:
// handing a part to a pool thread costs tens of µs when the thread has to be woken (measured on
// MobileNetV2 at batch 1 on a 2-vCPU VM: 2.3 ms splitting from 2^18 multiply-adds, 1.3 ms from
// 2^21).
constexpr int64_t kMinMacsToSplit = int64_t{1} << 21;
// A matrix product splits regardless when its weights alone are this large: weights that do
// not stay in a core's cache stream from memory at about 10 GB/s per core, so one thread takes
// far longer than a hand-off (ResNet50's 8 MB classifier at batch 1, 2^21 multiply-adds less a
// few: 0.71 ms on one thread).
constexpr int64_t kMinWeightBytesToSplit = int64_t{1} << 20;

// How many of `device`'s threads a kernel may split over, given the oneDNN kernels running
// right now (`running` of them, this one included): concurrent requests already keep the pool
// busy, and a part queued behind them would leave its caller idle.
int FreeThreads(const Eigen::ThreadPoolDevice& device, int running);

// Counts the kernels in flight for FreeThreads while alive.
class RunningScope {
 public:
  RunningScope();
  ~RunningScope();
  int running() const { return running_; }

 private:
  int running_;
};

// A kernel's filters in the layouts its primitives want, reordered once and reused for as long
// as the same filter buffer comes in (tensor buffers are immutable once shared, and the cache
// holds a reference, so the same buffer means the same values: frozen weights hit every time; a
// filter computed per request is reordered per request). One copy per (layout, offset), shared
// with every other kernel that reorders the same bytes into the same layout while one of them
// holds it (several signatures or plans over one model pack its filters once). Thread-safe.
class WeightsCache {
 public:
  // `filter`'s floats from `offset` on, laid out as `user` describes, in layout `wanted`.
  std::shared_ptr<dnnl::memory> Get(const dnnl::memory::desc& user,
                                    const dnnl::memory::desc& wanted, const Tensor& filter,
                                    int64_t offset = 0);

 private:
  struct Entry {
    dnnl::memory::desc wanted;
    int64_t offset;
    Tensor source;  // the filter the reordered copy was made from
    std::shared_ptr<dnnl::memory> reordered;
  };
  std::mutex mu_;
  std::vector<Entry> entries_;  // guarded by mu_
};

// Runs part(i) for i in [0, parts) on the calling thread and `device`'s pool (RunShares);
// returns when all are done, with the first failure. oneDNN's exceptions (unsupported
// shapes, out of memory) become statuses: nothing escapes into the executor.
absl::Status RunParts(size_t parts, const Eigen::ThreadPoolDevice& device,
                      const std::function<void(size_t)>& part);

}  // namespace onednn
}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_UTIL_H_
