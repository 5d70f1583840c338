// Conv2D and _FusedConv2D on CPU (NHWC, HWIO filter, float), through oneDNN
// (onednn_conv.h). _FusedConv2D is the node the graph optimiser makes of Conv2D + BiasAdd
// [+ activation]; the bias and activation run in the same pass over the output. Grouped
// convolutions (input depth a multiple of the filter's) are oneDNN groups.
#include "absl/strings/str_cat.h"
#include "kernels/nn/onednn_conv.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* c)
      : OpKernel(c),
        window_(Window2D::FromAttrs(c)),
        onednn_(OneDnnOptionsFromAttrs(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    const Tensor& filter = c->input(1);
    if (filter.dims() != 4) {
      return c->InvalidArgument(absl::StrCat("filter must be 4-dimensional (HWIO), got shape ",
                                             filter.shape().DebugString()));
    }
    if (filter.NumElements() == 0) {
      return c->InvalidArgument(absl::StrCat("filter must not have zero elements, got shape ",
                                             filter.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(
        const Window2DGeometry g,
        window_.Geometry(*c, input.shape(), filter.dim_size(0), filter.dim_size(1)));
    const int64_t group_depth = filter.dim_size(2);
    const int64_t out_depth = filter.dim_size(3);
    if (g.depth < group_depth || g.depth % group_depth != 0) {
      return c->InvalidArgument(absl::StrCat(
          "input depth must be evenly divisible by filter depth: ", g.depth, " vs ", group_depth));
    }
    const int64_t groups = g.depth / group_depth;
    if (out_depth % groups != 0) {
      return c->InvalidArgument(
          absl::StrCat("output depth must be evenly divisible by the number of groups: ", out_depth,
                       " vs ", groups));
    }
    return onednn_.Compute(c, g, input, filter, groups, out_depth);
  }

 private:
  const Window2D window_;
  const OneDnnConv2D onednn_;
};

TENSORD_REGISTER_KERNEL(KernelDef("Conv2D").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        Conv2DOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedConv2D").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT), Conv2DOp);

}  // namespace
}  // namespace tensord
