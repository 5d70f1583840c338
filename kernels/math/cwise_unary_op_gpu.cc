// GPU kernels (float) of the unary elementwise ops; the CPU ones are in cwise_unary_op.cc.
#include "kernels/math/cwise_gpu_op.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace math {
namespace {

TENSORD_REGISTER_GPU_UNARY("Abs", kAbs);
TENSORD_REGISTER_GPU_UNARY("Ceil", kCeil);
TENSORD_REGISTER_GPU_UNARY("Cos", kCos);
TENSORD_REGISTER_GPU_UNARY("Erf", kErf);
TENSORD_REGISTER_GPU_UNARY("Erfc", kErfc);
TENSORD_REGISTER_GPU_UNARY("Exp", kExp);
TENSORD_REGISTER_GPU_UNARY("Expm1", kExpm1);
TENSORD_REGISTER_GPU_UNARY("Floor", kFloor);
TENSORD_REGISTER_GPU_UNARY("Inv", kReciprocal);
TENSORD_REGISTER_GPU_UNARY("Log", kLog);
TENSORD_REGISTER_GPU_UNARY("Log1p", kLog1p);
TENSORD_REGISTER_GPU_UNARY("Neg", kNeg);
TENSORD_REGISTER_GPU_UNARY("Reciprocal", kReciprocal);
TENSORD_REGISTER_GPU_UNARY("Rint", kRint);
TENSORD_REGISTER_GPU_UNARY("Round", kRint);
TENSORD_REGISTER_GPU_UNARY("Rsqrt", kRsqrt);
TENSORD_REGISTER_GPU_UNARY("Sigmoid", kSigmoid);
TENSORD_REGISTER_GPU_UNARY("Sin", kSin);
TENSORD_REGISTER_GPU_UNARY("Softplus", kSoftplus);
TENSORD_REGISTER_GPU_UNARY("Sqrt", kSqrt);
TENSORD_REGISTER_GPU_UNARY("Square", kSquare);
TENSORD_REGISTER_GPU_UNARY("Tanh", kTanh);

}  // namespace
}  // namespace math
}  // namespace tensord
