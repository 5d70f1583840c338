#include "kernels/nn/onednn_util.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/host_allocator.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace onednn {
namespace {

std::atomic<int> running_kernels{0};

// Packed copies shared by every kernel that reorders the same filter bytes into the same
// layout: a model served through several signatures or plans (a TF1 export's predict and
// classify signatures, the two Keras 3 writes) packs each filter once. Weak on both sides: a
// copy lives while some kernel's WeightsCache holds it, and the filter's buffer is named
// without being kept alive.
class SharedPackedWeights {
 public:
  static SharedPackedWeights& Global() {
    static auto* const shared = new SharedPackedWeights();
    return *shared;
  }

  // The live copy of `source` (within `filter`'s buffer) from `user` into `wanted`, or null.
  std::shared_ptr<dnnl::memory> Find(const Tensor& filter, const float* source,
                                     const dnnl::memory::desc& user,
                                     const dnnl::memory::desc& wanted) {
    std::lock_guard<std::mutex> lock(mu_);
    return FindLocked(filter, source, user, wanted);
  }

  // Shares `packed` unless another kernel shared a live copy meanwhile, which is returned.
  std::shared_ptr<dnnl::memory> Add(const Tensor& filter, const float* source,
                                    const dnnl::memory::desc& user,
                                    const dnnl::memory::desc& wanted,
                                    std::shared_ptr<dnnl::memory> packed) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [](const Entry& e) { return e.packed.expired(); }),
                   entries_.end());
    if (auto shared = FindLocked(filter, source, user, wanted)) return shared;
    entries_.push_back(Entry{filter.WeakBuffer(), source, user, wanted, packed});
    return packed;
  }

 private:
  // With mu_ held.
  std::shared_ptr<dnnl::memory> FindLocked(const Tensor& filter, const float* source,
                                           const dnnl::memory::desc& user,
                                           const dnnl::memory::desc& wanted) {
    for (const Entry& e : entries_) {
      if (e.Matches(filter.WeakBuffer(), source, user, wanted)) return e.packed.lock();
    }
    return nullptr;
  }

  struct Entry {
    bool Matches(const std::weak_ptr<const TensorBuffer>& other_buffer, const float* other_source,
                 const dnnl::memory::desc& other_user,
                 const dnnl::memory::desc& other_wanted) const {
      const bool same_buffer =
          !buffer.owner_before(other_buffer) && !other_buffer.owner_before(buffer);
      return same_buffer && source == other_source && user == other_user &&
             wanted == other_wanted && !packed.expired();
    }
    std::weak_ptr<const TensorBuffer> buffer;
    const float* source;
    dnnl::memory::desc user;
    dnnl::memory::desc wanted;
    std::weak_ptr<dnnl::memory> packed;
  };
  std::mutex mu_;
  std::vector<Entry> entries_;  // guarded by mu_
};

}  // namespace

const dnnl::engine& Engine() {
  static const auto* const kEngine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *kEngine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

float* ThreadBuffer(ThreadBufferSlot slot, size_t bytes) {
  struct Buffer {
    ~Buffer() { std::free(data); }
    void* data = nullptr;
    size_t size = 0;
  };
  thread_local Buffer buffers[static_cast<int>(ThreadBufferSlot::kCount)];
  Buffer& buffer = buffers[static_cast<int>(slot)];
  if (bytes > buffer.size) {
    std::free(buffer.data);
    buffer.size = (bytes + 63) / 64 * 64;
    buffer.data = std::aligned_alloc(64, buffer.size);
    if (buffer.data == nullptr) {
      buffer.size = 0;
      throw std::bad_alloc();
    }
  }
  return static_cast<float*>(buffer.data);
}

dnnl::post_ops PostOps(const OneDnnConvOptions& options) {
  dnnl::post_ops ops;
  if (options.add_residual) ops.append_sum(1.0f);
  switch (options.activation) {
    case FusedActivation::kNone:
      break;
    case FusedActivation::kRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      break;
    case FusedActivation::kRelu6:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
      break;
    case FusedActivation::kElu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_elu, 1.0f, 0.0f);
      break;
    case FusedActivation::kLeakyRelu:
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, options.leakyrelu_alpha, 0.0f);
      break;
  }
  return ops;
}

std::shared_ptr<dnnl::memory> WeightsCache::Get(const dnnl::memory::desc& user,
                                                const dnnl::memory::desc& wanted,
                                                const Tensor& filter, int64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry* slot = nullptr;
  for (Entry& e : entries_) {
    if (e.wanted == wanted && e.offset == offset) slot = &e;
  }
  if (slot != nullptr && slot->source.SharesBufferWith(filter) &&
      slot->source.raw_data() == filter.raw_data()) {
    return slot->reordered;  // in-flight runs keep theirs if another filter replaces it
  }
  const float* source = filter.data<float>() + offset;
  std::shared_ptr<dnnl::memory> reordered =
      SharedPackedWeights::Global().Find(filter, source, user, wanted);
  if (reordered == nullptr) {
    dnnl::memory from(user, Engine(), const_cast<float*>(source));
    reordered = std::make_shared<dnnl::memory>(wanted, Engine());
    PrefaultForWrite(reordered->get_data_handle(), wanted.get_size());
    dnnl::reorder(from, *reordered).execute(ThreadStream(), from, *reordered);
    ThreadStream().wait();
    reordered = SharedPackedWeights::Global().Add(filter, source, user, wanted, reordered);
  }
  if (slot == nullptr) slot = &entries_.emplace_back(Entry{wanted, offset, Tensor(), nullptr});
  slot->source = filter;
  slot->reordered = reordered;
  return reordered;
}

RunningScope::RunningScope() : running_(++running_kernels) {}
RunningScope::~RunningScope() { --running_kernels; }

int FreeThreads(const Eigen::ThreadPoolDevice& device, int running) {
  return std::max(1, device.numThreads() / std::max(1, running));
}

absl::Status RunParts(size_t parts, const Eigen::ThreadPoolDevice& device,
                      const std::function<void(size_t)>& part) {
  if (parts == 0) return absl::OkStatus();
  std::vector<absl::Status> statuses(parts);
  auto run = [&](size_t i) {
    try {
      // One thread per oneDNN call: parallelism comes from the parts on our own pool.
      omp_set_num_threads(1);
      part(i);
    } catch (const dnnl::error& e) {
      statuses[i] = absl::InternalError(absl::StrCat("oneDNN failed: ", e.what()));
    } catch (const std::bad_alloc&) {
      statuses[i] = absl::ResourceExhaustedError("out of memory for oneDNN scratch space");
    }
  };
  RunShares(device, static_cast<int>(parts), run);
  for (const absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace tensord
