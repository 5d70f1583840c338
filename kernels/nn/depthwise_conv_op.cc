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
        fusion_(FusionFromAttrs(c, &with_bias_)),
        onednn_(fusion_) {}

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
    const Tensor* bias = nullptr;
    if (c->num_inputs() < (fusion_.add_residual ? 4 : with_bias_ ? 3 : 2)) {
      return c->InvalidArgument("has fewer inputs than its fused_ops need");
    }
    const Tensor* residual = fusion_.add_residual ? &c->input(3) : nullptr;
    if (with_bias_) {
      bias = &c->input(2);
      if (bias->dims() != 1 || bias->dim_size(0) != out_depth) {
        return c->InvalidArgument(absl::StrCat("bias must be a vector of ", out_depth,
                                               " values, got shape ",
                                               bias->shape().DebugString()));
      }
    }
    Tensor* output =
        c->allocate_output(0, DT_FLOAT, TensorShape{g.batch, g.out_rows, g.out_cols, out_depth});
    if (output->NumElements() == 0) return absl::OkStatus();
    const absl::Status s = onednn_.Run(g, input, filter, /*groups=*/g.depth, out_depth, bias,
                                       residual, c->eigen_cpu_device(), output);
    return s.ok() ? s : WithNodeName(c->node_name(), s);
  }

 private:
  const Window2D window_;
  bool with_bias_ = false;  // set while fusion_ is initialised
  const OneDnnConvOptions fusion_;
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
