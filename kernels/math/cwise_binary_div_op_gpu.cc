// GPU kernels (float) of the broadcasting division and power ops; the CPU ones are in
// cwise_binary_div_op.cc.
#include "kernels/math/cwise_gpu_op.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace math {
namespace {

TENSORD_REGISTER_GPU_BINARY("Div", kDiv);
TENSORD_REGISTER_GPU_BINARY("DivNoNan", kDivNoNan);
TENSORD_REGISTER_GPU_BINARY("Pow", kPow);
TENSORD_REGISTER_GPU_BINARY("RealDiv", kDiv);

}  // namespace
}  // namespace math
}  // namespace tensord
