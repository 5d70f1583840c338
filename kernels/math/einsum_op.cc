// Einsum on the CPU: the plan of einsum_plan.h carried out with strided copies, row sums and
// a batched product: oneDNN's for float (kernels/nn/onednn_batch_matmul.h, float32 whatever
// the model's precision: these are products of activations, attention's among them), the GEMM
// of matmul_util.h for other types. The GPU kernel is in einsum_op_gpu.cc.
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/math/einsum_plan.h"
#include "kernels/nn/onednn_batch_matmul.h"
#include "kernels/math/matmul_util.h"
#include "kernels/math/op_util.h"
#include "kernels/math/transpose_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// `src` laid out by `layout` into `dest`, or into `scratch` (resized) when `dest` is null.
// Returns the dense values: `src` itself when no copy is needed and `dest` is null.
template <typename T>
const T* Materialize(const OpKernelContext* c, const T* src, const EinsumLayout& layout, T* dest,
                     std::vector<T>* scratch = nullptr) {
  if (!layout.copy_needed && dest == nullptr) return src;
  if (dest == nullptr) {
    scratch->resize(layout.rows);
    dest = scratch->data();
  }
  if (layout.cols == 1) {
    StridedCopy(c->eigen_cpu_device(), src, layout.dims, layout.strides, sizeof(T), dest);
    return dest;
  }
  std::vector<T> gathered(layout.rows * layout.cols);
  StridedCopy(c->eigen_cpu_device(), src, layout.dims, layout.strides, sizeof(T),
              gathered.data());
  for (int64_t r = 0; r < layout.rows; ++r) {
    const T* row = gathered.data() + r * layout.cols;
    dest[r] = std::accumulate(row, row + layout.cols, T(0));
  }
  return dest;
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("equation", &equation_);
    c->GetAttr("N", &num_inputs_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < c->num_inputs(); ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
    }
    TENSORD_ASSIGN_OR_RETURN(const EinsumPlan plan, MakeEinsumPlan(c, equation_, num_inputs_));
    Tensor* output = c->allocate_output(0, c->input(0).dtype(), plan.output_shape);
    if (output->NumElements() == 0) return absl::OkStatus();
    T* out = output->data<T>();
    if (plan.num_operands == 1) {
      Materialize(c, c->input(0).data<T>(), plan.x, out);
      return absl::OkStatus();
    }
    std::vector<T> x_scratch, y_scratch, result;
    const T* x = Materialize<T>(c, c->input(plan.left).data<T>(), plan.x, nullptr, &x_scratch);
    const T* y = Materialize<T>(c, c->input(1 - plan.left).data<T>(), plan.y, nullptr, &y_scratch);
    T* product = out;
    if (plan.result) {
      result.resize(plan.batches * plan.dims.m * plan.dims.n);
      product = result.data();
    }
    if constexpr (std::is_same_v<T, float>) {
      if (plan.dims.k > 0) {  // (oneDNN rejects an empty inner dimension)
        BatchMatMulOperands p;
        p.batches = plan.batches;
        p.rows = plan.dims.m;
        p.inner = plan.dims.k;
        p.columns = plan.dims.n;
        p.a_transposed = plan.dims.transpose_a;
        p.b_transposed = plan.dims.transpose_b;
        p.a = x;
        p.b = y;
        p.c = product;
        TENSORD_RETURN_IF_ERROR(batched_.Compute(c, p));
        if (plan.result) Materialize(c, static_cast<const T*>(product), *plan.result, out);
        return absl::OkStatus();
      }
    }
    std::vector<int64_t> index(plan.batches);
    std::iota(index.begin(), index.end(), 0);
    BatchMatMul(c->eigen_cpu_device(), plan.dims, x, y, product, index, index);
    if (plan.result) Materialize(c, static_cast<const T*>(product), *plan.result, out);
    return absl::OkStatus();
  }

 private:
  std::string equation_;
  int num_inputs_ = 0;
  const OneDnnBatchMatMul batched_{OneDnnConvOptions()};  // float32: see the file comment
};

#define REGISTER_EINSUM(T)                                                                        \
  TENSORD_REGISTER_KERNEL(                                                                        \
      KernelDef("Einsum").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      EinsumOp<T>)

REGISTER_EINSUM(float);
REGISTER_EINSUM(double);
REGISTER_EINSUM(int32_t);
#undef REGISTER_EINSUM

}  // namespace
}  // namespace math
}  // namespace tensord
