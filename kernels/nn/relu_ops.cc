// Elementwise activations on CPU (float): Relu, Relu6, LeakyRelu, Elu, Selu. Each is one Eigen
// expression, written as TensorFlow's functors write it (NaN propagates through Relu/Relu6, Elu
// and Selu use exp(x) - 1), evaluated on the CPU device's thread pool.
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

using ConstFlat = TTypes<float>::ConstFlat;
using Flat = TTypes<float>::Flat;

struct ReluFn {
  explicit ReluFn(OpKernelConstruction*) {}
  void operator()(const Eigen::ThreadPoolDevice& d, ConstFlat x, Flat y) const {
    y.device(d) = x.cwiseMax<Eigen::PropagateNaN>(0.0f);
  }
};

struct Relu6Fn {
  explicit Relu6Fn(OpKernelConstruction*) {}
  void operator()(const Eigen::ThreadPoolDevice& d, ConstFlat x, Flat y) const {
    y.device(d) = x.cwiseMax<Eigen::PropagateNaN>(0.0f).cwiseMin<Eigen::PropagateNaN>(6.0f);
  }
};

struct LeakyReluFn {
  explicit LeakyReluFn(OpKernelConstruction* c) { c->GetAttr("alpha", &alpha); }
  void operator()(const Eigen::ThreadPoolDevice& d, ConstFlat x, Flat y) const {
    // A select, not a max: alpha may be above 1 or negative.
    y.device(d) = (x > 0.0f).select(x, x * alpha);
  }
  float alpha = 0.2f;
};

struct EluFn {
  explicit EluFn(OpKernelConstruction*) {}
  void operator()(const Eigen::ThreadPoolDevice& d, ConstFlat x, Flat y) const {
    y.device(d) = (x < 0.0f).select(x.exp() - x.constant(1.0f), x);
  }
};

struct SeluFn {
  explicit SeluFn(OpKernelConstruction*) {}
  void operator()(const Eigen::ThreadPoolDevice& d, ConstFlat x, Flat y) const {
    const float scale = 1.0507009873554804934193349852946f;
    const float scale_alpha = 1.7580993408473768599402175208123f;
    y.device(d) = (x < 0.0f).select(scale_alpha * (x.exp() - x.constant(1.0f)), scale * x);
  }
};

template <typename Fn>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* c) : OpKernel(c), fn_(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
    fn_(c->eigen_cpu_device(), ConstFlat(x.data<float>(), x.NumElements()), y->flat<float>());
    return absl::OkStatus();
  }

 private:
  const Fn fn_;
};

#define TENSORD_REGISTER_ACTIVATION(OP, FN)                                                     \
  TENSORD_REGISTER_KERNEL(KernelDef(OP).Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT), \
                          ActivationOp<FN>)

TENSORD_REGISTER_ACTIVATION("Relu", ReluFn);
TENSORD_REGISTER_ACTIVATION("Relu6", Relu6Fn);
TENSORD_REGISTER_ACTIVATION("LeakyRelu", LeakyReluFn);
TENSORD_REGISTER_ACTIVATION("Elu", EluFn);
TENSORD_REGISTER_ACTIVATION("Selu", SeluFn);

#undef TENSORD_REGISTER_ACTIVATION

}  // namespace
}  // namespace tensord
