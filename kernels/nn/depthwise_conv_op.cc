// DepthwiseConv2dNative and _FusedDepthwiseConv2dNative on CPU (NHWC, float), through oneDNN
// as a convolution with one group per input channel (onednn_conv.h). Filter [k_rows, k_cols,
// depth, multiplier]: output channel c * multiplier + m sums input channel c times
// filter[.., .., c, m]. The fused form adds the bias and activation in the same pass.
#include "absl/strings/str_cat.h"
#include "kernels/nn/onednn_conv.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* c)
      : OpKernel(c),
        window_(Window2D::FromAttrs(c)),
        onednn_(OneDnnOptionsFromAttrs(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    const Tensor& filter = c->input(1);
    if (filter.dims() != 4) {
      return c->InvalidArgument(
          absl::StrCat("filter must be 4-dimensional [rows, cols, depth, multiplier], got shape ",
                       filter.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(
        const Window2DGeometry g,
        window_.Geometry(*c, input.shape(), filter.dim_size(0), filter.dim_size(1)));
    if (filter.dim_size(2) != g.depth) {
      return c->InvalidArgument(absl::StrCat("input and filter must have the same depth: ", g.depth,
                                             " vs ", filter.dim_size(2)));
    }
    const int64_t out_depth = g.depth * filter.dim_size(3);
    return onednn_.Compute(c, g, input, filter, /*groups=*/g.depth, out_depth);
  }

 private:
  const Window2D window_;
  const OneDnnConv2D onednn_;
};

TENSORD_REGISTER_KERNEL(
    KernelDef("DepthwiseConv2dNative").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    DepthwiseConv2dNativeOp);
TENSORD_REGISTER_KERNEL(KernelDef("_FusedDepthwiseConv2dNative")
                            .Device(DeviceType::kCpu)
                            .TypeConstraint("T", DT_FLOAT),
                        DepthwiseConv2dNativeOp);

}  // namespace
}  // namespace tensord
