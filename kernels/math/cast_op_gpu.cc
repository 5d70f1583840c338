// Cast on a GPU between bool, float, int32 and int64, converting as the CPU kernel does
// (cast_op.cc; cast_gpu.h spells the rules out). Other pairs have no GPU kernel, so they run on
// the CPU. Truncate only matters for half and bfloat16 destinations, none of them here.
#include <optional>

#include "kernels/math/cast_gpu.h"
#include "kernels/math/cast_op.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

std::optional<GpuCastType> ToGpuCastType(DataType dtype) {
  switch (dtype) {
    case DT_BOOL: return GpuCastType::kBool;
    case DT_FLOAT: return GpuCastType::kFloat;
    case DT_INT32: return GpuCastType::kInt32;
    case DT_INT64: return GpuCastType::kInt64;
    default: return std::nullopt;
  }
}

class GpuCastOp : public OpKernel {
 public:
  // SrcT and DstT are among ToGpuCastType's: only those pairs are registered.
  explicit GpuCastOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("SrcT", &src_);
    c->GetAttr("DstT", &dst_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, src_));
    const Tensor& x = c->input(0);
    if (src_ == dst_) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    Tensor* y = c->allocate_output_for_overwrite(0, dst_, x.shape());
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(c->node_name(), device,
                        LaunchGpuCast(StreamOf(device), *ToGpuCastType(src_),
                                      *ToGpuCastType(dst_), x.raw_data(), y->raw_data(),
                                      x.NumElements()));
  }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
};

const bool kGpuCastRegistered =
    RegisterCastPairs<GpuCastOp>(DeviceType::kGpu, {DT_BOOL, DT_FLOAT, DT_INT32, DT_INT64});

}  // namespace
}  // namespace math
}  // namespace tensord
