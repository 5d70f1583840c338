// What the CPU and GPU kernels of Cast share (cast_op.cc, cast_op_gpu.cc): their registration.
#ifndef TENSORD_KERNELS_MATH_CAST_OP_H_
#define TENSORD_KERNELS_MATH_CAST_OP_H_

#include <memory>

#include "absl/types/span.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace math {

// Registers `Op` as Cast on `device` once per (SrcT, DstT) pair of `types`, so that a pair
// without a kernel is reported when a graph is loaded rather than when it runs. Returns true,
// for use in a static initialiser.
template <typename Op>
bool RegisterCastPairs(DeviceType device, absl::Span<const DataType> types) {
  for (DataType src : types) {
    for (DataType dst : types) {
      KernelRegistry::Global().Register(
          KernelDef("Cast").Device(device).TypeConstraint("SrcT", src).TypeConstraint("DstT", dst),
          [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
            return std::make_unique<Op>(c);
          });
    }
  }
  return true;
}

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CAST_OP_H_
