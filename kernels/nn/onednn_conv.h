// OneDnnConv2D: float32 NHWC Conv2D through oneDNN (Debian's libdnnl), optionally with a
// per-channel bias and an activation fused into the same pass over the output.
//
// Why oneDNN: on this project's reference machine (2-core Xeon with AVX-512) its convolutions
// reach 270–360 GFLOP/s on ResNet50's layer shapes against about 50 for the im2col + Eigen
// contraction path (which is built for AVX2 and cannot use the wider units); oneDNN picks its
// kernels for the CPU at run time, so the binary stays portable. See README.md ("Kernels").
//
// One object per kernel (per graph node). A oneDNN primitive is created per input shape on
// first use and cached; the filter is reordered once into oneDNN's blocked layout and reused
// for as long as the same filter buffer comes in (tensor buffers are immutable once shared, and
// the cache holds a reference, so the same buffer means the same values — frozen weights hit
// every time; a filter computed per request is reordered per request).
//
// Thread-safe: Run may be called concurrently; caches are guarded, primitives are reentrant.
#ifndef TENSORD_KERNELS_NN_ONEDNN_CONV_H_
#define TENSORD_KERNELS_NN_ONEDNN_CONV_H_

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/tensor.h"

namespace tensord {

enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu };

struct OneDnnConvOptions {
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;  // only for kLeakyRelu
};

class OneDnnConv2D {
 public:
  explicit OneDnnConv2D(OneDnnConvOptions options);
  ~OneDnnConv2D();

  // output = activation(conv(input, filter) + bias). `filter` is HWIO with in-depth equal to
  // the input's (no groups); `bias` is [out_depth] or null; `output` is allocated NHWC by the
  // caller. Runs on `threads` threads.
  absl::Status Run(const Window2DGeometry& g, const Tensor& input, const Tensor& filter,
                   const Tensor* bias, int threads, Tensor* output) const;

 private:
  struct Plan;
  // The cached plan for this geometry, created on first use (never removed while the kernel
  // lives, so the pointer stays valid).
  Plan* PlanFor(const Window2DGeometry& g, int64_t out_depth, bool with_bias) const;

  const OneDnnConvOptions options_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::unique_ptr<Plan>> plans_;  // guarded by mu_
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_CONV_H_
