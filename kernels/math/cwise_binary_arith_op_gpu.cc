// GPU kernels (float) of the broadcasting arithmetic ops; the CPU ones are in
// cwise_binary_arith_op.cc.
#include "kernels/math/cwise_gpu_op.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace math {
namespace {

TENSORD_REGISTER_GPU_BINARY("Add", kAdd);
TENSORD_REGISTER_GPU_BINARY("AddV2", kAdd);
TENSORD_REGISTER_GPU_BINARY("Maximum", kMaximum);
TENSORD_REGISTER_GPU_BINARY("Minimum", kMinimum);
TENSORD_REGISTER_GPU_BINARY("Mul", kMul);
TENSORD_REGISTER_GPU_BINARY("MulNoNan", kMulNoNan);
TENSORD_REGISTER_GPU_BINARY("SquaredDifference", kSquaredDifference);
TENSORD_REGISTER_GPU_BINARY("Sub", kSub);

}  // namespace
}  // namespace math
}  // namespace tensord
