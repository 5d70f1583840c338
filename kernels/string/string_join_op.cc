// StringJoin: joins N string tensors elementwise with `separator`. Inputs are scalars or share
// one shape (scalars repeat); the output takes that shape (a scalar when all inputs are).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("separator", &separator_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const int n = c->num_inputs();
    const TensorShape* shape = nullptr;
    for (int i = 0; i < n; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(*c, i, DT_STRING));
      const Tensor& in = c->input(i);
      if (in.dims() == 0) continue;
      if (shape == nullptr) {
        shape = &in.shape();
      } else if (*shape != in.shape()) {
        return c->InvalidArgument(absl::StrCat("Input shapes do not match: ", shape->DebugString(),
                                               " vs. ", in.shape().DebugString()));
      }
    }
    Tensor* output = c->allocate_output(0, DT_STRING, shape ? *shape : TensorShape{});
    std::string* out = output->data<std::string>();
    double cost = 20;
    for (int i = 0; i < n; ++i) cost += 2 * AverageStringLength(c->input(i));
    return ParallelForWithStatus(*c, output->NumElements(), cost, [&](int64_t e) {
      std::string& joined = out[e];
      for (int i = 0; i < n; ++i) {
        const Tensor& in = c->input(i);
        if (i > 0) joined += separator_;
        joined += in.data<std::string>()[in.dims() == 0 ? 0 : e];
      }
      return absl::OkStatus();
    });
  }

 private:
  std::string separator_;
};

TENSORD_REGISTER_KERNEL(KernelDef("StringJoin").Device(DeviceType::kCpu), StringJoinOp);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
