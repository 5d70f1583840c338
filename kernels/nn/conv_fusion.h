// The fusion a convolution node carries: TensorFlow's Grappler ops _FusedConv2D and
// _FusedDepthwiseConv2dNative (attr fused_ops ["BiasAdd", optionally "Add", optionally
// "Relu" | "Relu6" | "Elu" | "LeakyRelu"], the bias as third input and the residual as fourth).
#ifndef TENSORD_KERNELS_NN_CONV_FUSION_H_
#define TENSORD_KERNELS_NN_CONV_FUSION_H_

#include "absl/status/status.h"
#include "runtime/exec/precision.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace tensord {

enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu };

struct OneDnnConvOptions {
  // Adds a per-output-channel bias (the fused node's third input).
  bool bias = false;
  // Adds a tensor of the output's shape (a residual connection) before the activation.
  bool add_residual = false;
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;  // only for kLeakyRelu
  // The arithmetic of the product (runtime/exec/precision.h); the epilogue and the tensors
  // read and written stay float32.
  ComputePrecision precision = ComputePrecision::kFloat32;
};

// The options of a node: its fusion (plain convolutions and products get none) and the
// precision the load marked it for (kPrecisionAttr; fp32 where the CPU has no bfloat16
// arithmetic). Errors are recorded on `c`.
OneDnnConvOptions OneDnnOptionsFromAttrs(OpKernelConstruction* c);

// `v` through the options' activation: the element-wise fallback where oneDNN's post-op
// cannot be used.
float Activate(const OneDnnConvOptions& options, float v);

// NumPy broadcasting of `residual` to `output`'s shape (dims aligned from the right, each 1 or
// equal), which a residual add the kernel cannot fuse must satisfy; InvalidArgument otherwise.
absl::Status CheckBroadcastable(const Tensor& residual, const Tensor& output);

// output = activation(output + broadcast(residual)), element by element: the rare shapes a
// fused kernel's own pass cannot take.
void AddBroadcastAndActivate(const OneDnnConvOptions& options, const Tensor& residual,
                             Tensor* output);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_CONV_FUSION_H_
