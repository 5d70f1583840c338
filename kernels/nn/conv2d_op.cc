// Conv2D and _FusedConv2D on CPU (NHWC, HWIO filter, float). _FusedConv2D is the node the
// graph optimiser makes of Conv2D + BiasAdd [+ activation] (TensorFlow's Grappler op of the same
// name and attrs: fused_ops ["BiasAdd"] or ["BiasAdd", <activation>], the bias as its third
// input).
//
// Ordinary convolutions run through oneDNN (onednn_conv.h) with the bias and activation fused.
// Grouped convolutions (input depth a multiple of the filter's; rare in serving graphs) use
// im2col: each output position's receptive field is copied into a row of a patch matrix (zeros
// for padding) and multiplied by the group's filter with Eigen's threaded contraction.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/nn/onednn_conv.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using Index = Eigen::Index;

// Output positions are processed a chunk at a time so that the patch matrix is still in cache
// when the contraction reads it: about 512 KiB of floats per thread (each thread's share of a
// chunk fits its L2). Larger chunks measurably slow down big batches.
constexpr Index kPatchElementsPerThread = Index{1} << 17;

// Writes the receptive fields of output positions [begin, end) (flattened batch, row, col),
// restricted to input channels [channel0, channel0 + channels), as consecutive rows of
// `patches`. Row layout (filter row, filter col, channel) matches the HWIO filter.
template <typename T>
void Im2Col(const Window2DGeometry& g, const T* input, Index channel0, Index channels, Index begin,
            Index end, T* patches) {
  // Without dilation or channel groups, the taps of one filter row are adjacent input pixels:
  // copy them in one run when they are all in bounds (a big win for few channels, e.g. RGB).
  const bool contiguous_taps = g.dil_cols == 1 && channels == g.depth;
  for (Index pos = begin; pos < end; ++pos) {
    const Index oc = pos % g.out_cols;
    const Index orow_flat = pos / g.out_cols;
    const Index orow = orow_flat % g.out_rows;
    const Index b = orow_flat / g.out_rows;
    const Index ic0 = oc * g.stride_cols - g.pad_left;
    for (Index di = 0; di < g.k_rows; ++di) {
      const Index ir = orow * g.stride_rows + di * g.dil_rows - g.pad_top;
      if (ir < 0 || ir >= g.in_rows) {
        patches = std::fill_n(patches, g.k_cols * channels, T(0));
        continue;
      }
      const T* in_row = input + (b * g.in_rows + ir) * g.in_cols * g.depth + channel0;
      if (contiguous_taps && ic0 >= 0 && ic0 + g.k_cols <= g.in_cols) {
        patches = std::copy_n(in_row + ic0 * g.depth, g.k_cols * channels, patches);
        continue;
      }
      for (Index dj = 0; dj < g.k_cols; ++dj) {
        const Index ic = ic0 + dj * g.dil_cols;
        patches = (ic < 0 || ic >= g.in_cols)
                      ? std::fill_n(patches, channels, T(0))
                      : std::copy_n(in_row + ic * g.depth, channels, patches);
      }
    }
  }
}

template <typename T>
void RunConv2D(const Eigen::ThreadPoolDevice& d, const Window2DGeometry& g, const T* input,
               const T* filter, Index group_depth, Index out_depth, T* output) {
  using ConstMatrix = Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Index>>;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Index>>;
  const Eigen::array<Eigen::IndexPair<Index>, 1> contract_dims = {Eigen::IndexPair<Index>(1, 0)};
  const Index positions = g.batch * g.out_rows * g.out_cols;
  const Index groups = g.depth / group_depth;
  const Index group_out = out_depth / groups;
  const Index k = g.k_rows * g.k_cols * group_depth;

  // A 1x1 window with unit stride whose output is as large as the input has no padding.
  const bool input_is_patches = groups == 1 && g.k_rows == 1 && g.k_cols == 1 &&
                                g.stride_rows == 1 && g.stride_cols == 1 &&
                                g.out_rows == g.in_rows && g.out_cols == g.in_cols;
  if (input_is_patches) {
    Matrix(output, positions, out_depth).device(d) =
        ConstMatrix(input, positions, k).contract(ConstMatrix(filter, k, out_depth), contract_dims);
    return;
  }

  // With groups, each group's filter columns and results are gathered into dense scratch so
  // that every contraction sees plain row-major matrices.
  std::unique_ptr<T[]> group_filter, group_result;
  const Index chunk =
      std::min(positions, std::max<Index>(1, kPatchElementsPerThread * d.numThreads() / k));
  if (groups > 1) {
    group_filter.reset(new T[k * group_out]);
    group_result.reset(new T[chunk * group_out]);
  }
  std::unique_ptr<T[]> patches(new T[chunk * k]);
  const Eigen::TensorOpCost im2col_cost(k * sizeof(T), k * sizeof(T), 0);

  for (Index group = 0; group < groups; ++group) {
    const T* group_filter_data = filter;
    if (groups > 1) {
      for (Index row = 0; row < k; ++row) {
        std::copy_n(filter + row * out_depth + group * group_out, group_out,
                    group_filter.get() + row * group_out);
      }
      group_filter_data = group_filter.get();
    }
    const ConstMatrix filter_matrix(group_filter_data, k, group_out);
    for (Index start = 0; start < positions; start += chunk) {
      const Index rows = std::min(chunk, positions - start);
      d.parallelFor(rows, im2col_cost, [&](Index begin, Index end) {
        Im2Col(g, input, group * group_depth, group_depth, start + begin, start + end,
               patches.get() + begin * k);
      });
      const ConstMatrix patch_matrix(patches.get(), rows, k);
      if (groups == 1) {
        Matrix(output + start * out_depth, rows, out_depth).device(d) =
            patch_matrix.contract(filter_matrix, contract_dims);
        continue;
      }
      Matrix(group_result.get(), rows, group_out).device(d) =
          patch_matrix.contract(filter_matrix, contract_dims);
      for (Index row = 0; row < rows; ++row) {
        std::copy_n(group_result.get() + row * group_out, group_out,
                    output + (start + row) * out_depth + group * group_out);
      }
    }
  }
}

// Reads _FusedConv2D's fused_ops; Conv2D has none.
OneDnnConvOptions FusionFromAttrs(OpKernelConstruction* c, bool* with_bias) {
  OneDnnConvOptions options;
  *with_bias = false;
  if (c->op() != "_FusedConv2D") return options;
  std::vector<std::string> fused;
  if (!c->GetAttr("fused_ops", &fused)) return options;
  if (c->HasAttr("leakyrelu_alpha")) c->GetAttr("leakyrelu_alpha", &options.leakyrelu_alpha);
  static const auto* const kActivations = new std::map<std::string, FusedActivation>{
      {"Relu", FusedActivation::kRelu}, {"Relu6", FusedActivation::kRelu6},
      {"Elu", FusedActivation::kElu}, {"LeakyRelu", FusedActivation::kLeakyRelu}};
  const bool known = !fused.empty() && fused[0] == "BiasAdd" && fused.size() <= 2 &&
                     (fused.size() == 1 || kActivations->count(fused[1]) > 0);
  if (!known) {
    c->SetError(absl::UnimplementedError(
        absl::StrCat("fused_ops [", absl::StrJoin(fused, ", "), "] are not supported")));
    return options;
  }
  *with_bias = true;
  if (fused.size() == 2) options.activation = kActivations->at(fused[1]);
  return options;
}

// The fused ops after a grouped convolution (oneDNN fuses them for the others).
void ApplyBiasAndActivation(const OneDnnConvOptions& options, const Tensor& bias, Tensor* output) {
  const int64_t channels = bias.NumElements();
  float* y = output->data<float>();
  for (int64_t i = 0; i < output->NumElements(); ++i) {
    float v = y[i] + bias.data<float>()[i % channels];
    switch (options.activation) {
      case FusedActivation::kNone: break;
      case FusedActivation::kRelu: v = std::max(v, 0.0f); break;
      case FusedActivation::kRelu6: v = std::min(std::max(v, 0.0f), 6.0f); break;
      case FusedActivation::kElu: v = v > 0 ? v : std::expm1(v); break;
      case FusedActivation::kLeakyRelu: v = v > 0 ? v : options.leakyrelu_alpha * v; break;
    }
    y[i] = v;
  }
}

class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* c)
      : OpKernel(c),
        window_(Window2D::FromAttrs(c)),
        fusion_(FusionFromAttrs(c, &with_bias_)),
        onednn_(fusion_) {}

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
    const Tensor* bias = nullptr;
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
    if (groups == 1) {
      const absl::Status s = onednn_.Run(g, input, filter, bias,
                                         c->eigen_cpu_device().numThreads(), output);
      return s.ok() ? s : WithNodeName(c->node_name(), s);
    }
    RunConv2D<float>(c->eigen_cpu_device(), g, input.data<float>(), filter.data<float>(),
                     group_depth, out_depth, output->data<float>());
    if (bias != nullptr) ApplyBiasAndActivation(fusion_, *bias, output);
    return absl::OkStatus();
  }

 private:
  const Window2D window_;
  bool with_bias_ = false;  // set while fusion_ is initialised
  const OneDnnConvOptions fusion_;
  const OneDnnConv2D onednn_;
};

TENSORD_REGISTER_KERNEL(KernelDef("Conv2D").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        Conv2DOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedConv2D").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT), Conv2DOp);

}  // namespace
}  // namespace tensord
