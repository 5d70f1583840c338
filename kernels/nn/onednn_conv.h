// OneDnnConv2D: float32 NHWC Conv2D through oneDNN (Debian's libdnnl), optionally with a
// per-channel bias and an activation fused into the same pass over the output.
//
// Why oneDNN: on this project's reference machine (2-core Xeon with AVX-512) its convolutions
// reach 270–360 GFLOP/s on ResNet50's layer shapes against about 50 for the im2col + Eigen
// contraction path (which is built for AVX2 and cannot use the wider units); oneDNN picks its
// kernels for the CPU at run time, so the binary stays portable. See README.md ("Kernels").
//
// One object per kernel (per graph node). A oneDNN primitive is created per input shape (and
// per part, see Run) on first use and cached; the filter is reordered once into oneDNN's
// blocked layout (onednn::WeightsCache).
//
// oneDNN runs single-threaded per call (see onednn_util.h); Run spreads a convolution over
// the intra-op pool itself.
//
// With the options' precision bf16 the filter is packed as bfloat16 and each part's input is
// rounded to bfloat16 per call; the output, bias and epilogue stay float32.
//
// Thread-safe: Run may be called concurrently; caches are guarded, primitives are reentrant.
#ifndef TENSORD_KERNELS_NN_ONEDNN_CONV_H_
#define TENSORD_KERNELS_NN_ONEDNN_CONV_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"
#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/plan_cache.h"
#include "kernels/nn/onednn_gemm_conv.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace onednn {
class WeightsCache;
}  // namespace onednn

class OneDnnConv2D {
 public:
  explicit OneDnnConv2D(OneDnnConvOptions options);
  ~OneDnnConv2D();

  // output = activation(conv(input, filter) + bias), `groups` channel groups. `filter` is
  // TensorFlow's [k_rows, k_cols, in_depth / groups, out_depth] (Conv2D; output channel
  // g * out_depth / groups + o belongs to group g) or, for a depthwise convolution,
  // [k_rows, k_cols, in_depth, multiplier] with groups = in_depth — the same memory order.
  // `bias` is [out_depth] or null; `residual` (with options.add_residual) has the output's
  // shape and is added before the activation; `output` is allocated NHWC by the caller. Small
  // output planes run as one matrix product (OneDnnGemmConv); others as oneDNN convolutions,
  // large ones split across `device`'s threads by image, or for one image by bands of output
  // rows; each part is a single-threaded oneDNN call.
  // A kernel's whole computation: reads and checks the fused inputs its options call for
  // (bias, residual), allocates output 0 [batch, out_rows, out_cols, out_depth] and runs.
  // Errors name the node.
  absl::Status Compute(OpKernelContext* c, const Window2DGeometry& g, const Tensor& input,
                       const Tensor& filter, int64_t groups, int64_t out_depth) const;

  absl::Status Run(const Window2DGeometry& g, const Tensor& input, const Tensor& filter,
                   int64_t groups, int64_t out_depth, const Tensor* bias,
                   const Tensor* residual, const Eigen::ThreadPoolDevice& device,
                   Tensor* output) const;

 private:
  struct Plan;
  // The cached plan for this geometry, created on first use (never removed while the kernel
  // lives, so the reference stays valid).
  // `epilogue`: with the options' residual sum and activation as oneDNN post-ops.
  const Plan& PlanFor(const Window2DGeometry& g, int64_t groups, int64_t out_depth,
                      bool with_bias, bool epilogue) const;

  const OneDnnConvOptions options_;
  const OneDnnGemmConv gemm_;
  mutable PlanCache<Plan> plans_;
  const std::unique_ptr<onednn::WeightsCache> weights_;  // thread-safe
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_CONV_H_
