// Load-time pass: Conv2D -> BiasAdd [-> Add(residual)] [-> Relu | Relu6 | Elu | LeakyRelu]
// becomes one _FusedConv2D node (TensorFlow's fused-convolution op: fused_ops ["BiasAdd",
// ["Add",] <activation>], the bias as third input and the residual as fourth), which the
// kernel runs as one pass over the output instead of up to four; DepthwiseConv2dNative likewise
// becomes _FusedDepthwiseConv2dNative, and MatMul (Keras's Dense) _FusedMatMul. The residual
// add is ResNet's shortcut connection.
//
// Only when the convolution and the bias add feed nothing else and no signature reads them.
// The fused node takes the name of the chain's last node, so references to it stay valid.
#ifndef TENSORD_RUNTIME_OPTIMIZER_FUSE_BIAS_ACTIVATION_H_
#define TENSORD_RUNTIME_OPTIMIZER_FUSE_BIAS_ACTIVATION_H_

#include "absl/status/statusor.h"
#include "runtime/optimizer/graph_view.h"

namespace tensord {

// Returns the number of fused nodes made.
absl::StatusOr<int> FuseBiasActivation(const GraphPassContext& context);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_FUSE_BIAS_ACTIVATION_H_
