// GPU kernels (float) of the activations whose CPU kernels are in relu_ops.cc.
#include "kernels/math/cwise_gpu_op.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

TENSORD_REGISTER_GPU_UNARY("Elu", kElu);
TENSORD_REGISTER_GPU_UNARY("LeakyRelu", kLeakyRelu);
TENSORD_REGISTER_GPU_UNARY("Relu", kRelu);
TENSORD_REGISTER_GPU_UNARY("Relu6", kRelu6);
TENSORD_REGISTER_GPU_UNARY("Selu", kSelu);

}  // namespace
}  // namespace tensord
