// DepthwiseConv2dNative on CPU (NHWC, float). Filter [k_rows, k_cols, depth, multiplier]; output
// channel c * multiplier + m sums input channel c times filter[.., .., c, m]. A direct loop,
// parallel over output rows: for each output pixel the filter taps are accumulated in row-major
// order, each tap a vector multiply-add across all channels.
#include "absl/strings/str_cat.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using Index = Eigen::Index;

// Computes output row `row` (flattened batch, out_row) into `out`.
template <typename T>
void DepthwiseRow(const Window2DGeometry& g, Index multiplier, const T* input, const T* filter,
                  Index row, T* out) {
  using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
  using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
  const Index out_depth = g.depth * multiplier;
  const Index orow = row % g.out_rows;
  const Index b = row / g.out_rows;
  for (Index oc = 0; oc < g.out_cols; ++oc, out += out_depth) {
    Vec acc(out, out_depth);
    acc.setZero();
    for (Index di = 0; di < g.k_rows; ++di) {
      const Index ir = orow * g.stride_rows + di * g.dil_rows - g.pad_top;
      if (ir < 0 || ir >= g.in_rows) continue;
      for (Index dj = 0; dj < g.k_cols; ++dj) {
        const Index ic = oc * g.stride_cols + dj * g.dil_cols - g.pad_left;
        if (ic < 0 || ic >= g.in_cols) continue;
        const T* pixel = input + ((b * g.in_rows + ir) * g.in_cols + ic) * g.depth;
        const T* taps = filter + (di * g.k_cols + dj) * out_depth;
        if (multiplier == 1) {
          acc += ConstVec(pixel, g.depth) * ConstVec(taps, g.depth);
        } else {
          for (Index c = 0; c < g.depth; ++c) {
            Vec(out + c * multiplier, multiplier) +=
                pixel[c] * ConstVec(taps + c * multiplier, multiplier);
          }
        }
      }
    }
  }
}

class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* c)
      : OpKernel(c), window_(Window2D::FromAttrs(c)) {}

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
    const int64_t multiplier = filter.dim_size(3);
    Tensor* output = c->allocate_output(
        0, DT_FLOAT, TensorShape{g.batch, g.out_rows, g.out_cols, g.depth * multiplier});
    if (output->NumElements() == 0) return absl::OkStatus();
    const float* in = input.data<float>();
    const float* f = filter.data<float>();
    float* out = output->data<float>();
    const Index row_size = g.out_cols * g.depth * multiplier;
    const Eigen::TensorOpCost cost(row_size * g.k_rows * g.k_cols * sizeof(float),
                                   row_size * sizeof(float), row_size * g.k_rows * g.k_cols * 2);
    c->eigen_cpu_device().parallelFor(g.batch * g.out_rows, cost, [&](Index begin, Index end) {
      for (Index row = begin; row < end; ++row) {
        DepthwiseRow(g, multiplier, in, f, row, out + row * row_size);
      }
    });
    return absl::OkStatus();
  }

 private:
  const Window2D window_;
};

TENSORD_REGISTER_KERNEL(
    KernelDef("DepthwiseConv2dNative").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    DepthwiseConv2dNativeOp);

}  // namespace
}  // namespace tensord
