// Softmax and LogSoftmax on CPU (float) over the last dimension, stable like TensorFlow's:
// shifted = x - max(x); softmax = exp(shifted) * (1 / sum(exp(shifted)));
// log_softmax = shifted - log(sum(exp(shifted))). Rows are processed in parallel.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

using Index = Eigen::Index;
using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

template <bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& logits = c->input(0);
    if (logits.dims() < 1) {
      return c->InvalidArgument(absl::StrCat("logits must have at least 1 dimension, got shape ",
                                             logits.shape().DebugString()));
    }
    Tensor* output = c->allocate_output(0, DT_FLOAT, logits.shape());
    if (logits.NumElements() == 0) return absl::OkStatus();
    const Index cols = logits.dim_size(logits.dims() - 1);
    const Index rows = logits.NumElements() / cols;
    const float* in = logits.data<float>();
    float* out = output->data<float>();
    const Eigen::TensorOpCost cost(cols * sizeof(float), cols * sizeof(float), cols * 20);
    ParallelFor(c->eigen_cpu_device(), rows, cost, [&](Index begin, Index end) {
      for (Index r = begin; r < end; ++r) {
        const ConstVec x(in + r * cols, cols);
        Vec y(out + r * cols, cols);
        y = x - x.maxCoeff();
        if (kLog) {
          y -= std::log(y.exp().sum());
        } else {
          y = y.exp();
          y *= 1.0f / y.sum();
        }
      }
    });
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("Softmax").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        SoftmaxOp<false>);
TENSORD_REGISTER_KERNEL(
    KernelDef("LogSoftmax").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    SoftmaxOp<true>);

}  // namespace
}  // namespace tensord
