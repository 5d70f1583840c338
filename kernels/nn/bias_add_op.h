// What the CPU and GPU kernels of BiasAdd and BiasAddV1 share: the data_format attr and the
// checks of the input and bias shapes (bias_add_op.cc, bias_add_op_gpu.cc).
#ifndef TENSORD_KERNELS_NN_BIAS_ADD_OP_H_
#define TENSORD_KERNELS_NN_BIAS_ADD_OP_H_

#include "absl/status/statusor.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {

// True for data_format "NCHW" (the channel is dimension 1), false for "NHWC" and for
// BiasAddV1, which has no data_format (the channel is the last dimension). Any other
// data_format is an error recorded on `c`.
bool BiasAddChannelsFirst(OpKernelConstruction* c);

// Checks input 0 (the value, at least 2-D) and input 1 (the bias, one value per channel) and
// returns the bias's shape as a NumPy broadcast against the value sees it: [C] channels last,
// [C, 1, ..., 1] channels first.
absl::StatusOr<TensorShape> BiasBroadcastShape(const OpKernelContext* c, bool channels_first);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_BIAS_ADD_OP_H_
