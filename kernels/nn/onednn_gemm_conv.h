// OneDnnGemmConv: a float32 NHWC convolution (one group) as one matrix product
// (OneDnnMatMul): rows are output pixels of every image (batch × out_rows × out_cols), columns
// output channels, the inner dimension the filter window (k_rows × k_cols × depth, read from the
// input by im2col unless the convolution is a plain 1×1).
//
// Why: oneDNN's direct convolution computes an output row at a time, so on small output planes
// (the last ResNet stages: 2×2 or 4×4 pixels) it re-reads the whole filter for every few
// pixels; a matrix product over all images' pixels reads it once. Measured on ResNet50's
// 2×2 stage at batch 32 with filters that do not stay in cache: 43–51 GFLOP/s direct against
// 134–139 as a product; equal on planes of 7×7 and larger. `Prefers` encodes that.
//
// Thread-safe: Run may be called concurrently.
#ifndef TENSORD_KERNELS_NN_ONEDNN_GEMM_CONV_H_
#define TENSORD_KERNELS_NN_ONEDNN_GEMM_CONV_H_

#include "absl/status/status.h"
#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/onednn_matmul.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

class OneDnnGemmConv {
 public:
  explicit OneDnnGemmConv(OneDnnConvOptions options) : matmul_(options) {}

  // Whether the product beats the direct convolution for this geometry.
  static bool Prefers(const Window2DGeometry& g, int64_t groups);

  // output = activation(conv(input, filter) + bias [+ output]): `filter` is TensorFlow's
  // [k_rows, k_cols, depth, out_depth], `bias` [out_depth] or null. With `epilogue`, the
  // options' residual sum (over what `output` holds) and activation are applied; without, the
  // caller applies them. `threads`: how many of `device`'s threads to split over.
  absl::Status Run(const Window2DGeometry& g, const Tensor& input, const Tensor& filter,
                   int64_t out_depth, const Tensor* bias, bool epilogue, int threads,
                   const Eigen::ThreadPoolDevice& device, Tensor* output) const;

 private:
  const OneDnnMatMul matmul_;
};

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_ONEDNN_GEMM_CONV_H_
