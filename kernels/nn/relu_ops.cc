// Elementwise activations on CPU (float): Relu, Relu6, LeakyRelu, Elu, Selu. Each is one Eigen
// expression, written as TensorFlow's functors write it (NaN propagates through Relu/Relu6, Elu
// and Selu use exp(x) - 1), evaluated over ranges of the elements split across the intra-op
// threads (ParallelFor).
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace {

using ConstFlat = TTypes<float>::ConstFlat;
using Flat = TTypes<float>::Flat;

// kCycles: compute cost per element, for splitting.
struct ReluFn {
  static constexpr double kCycles = 1;
  explicit ReluFn(OpKernelConstruction*) {}
  void operator()(ConstFlat x, Flat y) const { y = x.cwiseMax<Eigen::PropagateNaN>(0.0f); }
};

struct Relu6Fn {
  static constexpr double kCycles = 2;
  explicit Relu6Fn(OpKernelConstruction*) {}
  void operator()(ConstFlat x, Flat y) const {
    y = x.cwiseMax<Eigen::PropagateNaN>(0.0f).cwiseMin<Eigen::PropagateNaN>(6.0f);
  }
};

struct LeakyReluFn {
  static constexpr double kCycles = 2;
  explicit LeakyReluFn(OpKernelConstruction* c) { c->GetAttr("alpha", &alpha); }
  void operator()(ConstFlat x, Flat y) const {
    // A select, not a max: alpha may be above 1 or negative.
    y = (x > 0.0f).select(x, x * alpha);
  }
  float alpha = 0.2f;
};

struct EluFn {
  static constexpr double kCycles = 20;
  explicit EluFn(OpKernelConstruction*) {}
  void operator()(ConstFlat x, Flat y) const {
    y = (x < 0.0f).select(x.exp() - x.constant(1.0f), x);
  }
};

struct SeluFn {
  static constexpr double kCycles = 20;
  explicit SeluFn(OpKernelConstruction*) {}
  void operator()(ConstFlat x, Flat y) const {
    const float scale = 1.0507009873554804934193349852946f;
    const float scale_alpha = 1.7580993408473768599402175208123f;
    y = (x < 0.0f).select(scale_alpha * (x.exp() - x.constant(1.0f)), scale * x);
  }
};

template <typename Fn>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* c) : OpKernel(c), fn_(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
    const float* in = x.data<float>();
    float* out = y->data<float>();
    ParallelFor(c->eigen_cpu_device(), x.NumElements(),
                Eigen::TensorOpCost(sizeof(float), sizeof(float), Fn::kCycles),
                [&](Eigen::Index begin, Eigen::Index end) {
                  fn_(ConstFlat(in + begin, end - begin), Flat(out + begin, end - begin));
                });
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
