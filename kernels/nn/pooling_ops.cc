// MaxPool, MaxPoolV2 and AvgPool on CPU (NHWC, float). A direct loop parallel over output rows;
// each window is reduced with vector operations across channels. Only in-bounds input pixels
// take part: padded positions never win a max, and AvgPool divides by the number of in-bounds
// pixels of each window (TensorFlow's rule).
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using Index = Eigen::Index;

template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

struct MaxReducer {
  template <typename T>
  static void Init(Vec<T> acc) {
    acc.setConstant(std::numeric_limits<T>::lowest());
  }
  template <typename T>
  static void Accumulate(Vec<T> acc, ConstVec<T> x) {
    acc = acc.max(x);
  }
  template <typename T>
  static void Finish(Vec<T>, Index) {}
};

struct AvgReducer {
  template <typename T>
  static void Init(Vec<T> acc) {
    acc.setZero();
  }
  template <typename T>
  static void Accumulate(Vec<T> acc, ConstVec<T> x) {
    acc += x;
  }
  template <typename T>
  static void Finish(Vec<T> acc, Index count) {
    acc /= static_cast<T>(count);
  }
};

// ksize in NHWC order: positive, and 1 in the batch and depth dimensions.
absl::Status ValidateKsize(const std::vector<int64_t>& ksize) {
  if (ksize.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("ksize must have 4 elements, got [", absl::StrJoin(ksize, ","), "]"));
  }
  for (int64_t k : ksize) {
    if (k <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ksize must be positive, got [", absl::StrJoin(ksize, ","), "]"));
    }
  }
  if (ksize[0] != 1) {
    return absl::InvalidArgumentError("pooling over the batch dimension is not supported");
  }
  if (ksize[3] != 1) {
    return absl::UnimplementedError("pooling over the depth dimension is not supported");
  }
  return absl::OkStatus();
}

template <typename Reducer, typename T>
absl::Status Pool2D(OpKernelContext* c, const Window2D& window, const std::vector<int64_t>& ksize) {
  const Tensor& input = c->input(0);
  TENSORD_ASSIGN_OR_RETURN(const Window2DGeometry g,
                           window.Geometry(*c, input.shape(), ksize[1], ksize[2]));
  Tensor* output = c->allocate_output_for_overwrite(
      0, DataTypeToEnum<T>::value, TensorShape{g.batch, g.out_rows, g.out_cols, g.depth});
  if (output->NumElements() == 0) return absl::OkStatus();
  const T* in = input.data<T>();
  T* out = output->data<T>();
  const Index row_size = g.out_cols * g.depth;
  // The window is reduced a vector of channels at a time (Vec), from cache: costed as such, so
  // a batch-1 pool (ResNet50's, 20 µs) is not split and left waiting for a woken thread.
  const Eigen::TensorOpCost cost(row_size * g.k_rows * g.k_cols * sizeof(T), row_size * sizeof(T),
                                 row_size * g.k_rows * g.k_cols, /*vectorized=*/true,
                                 Eigen::internal::packet_traits<T>::size);
  ParallelFor(c->eigen_cpu_device(), g.batch * g.out_rows, cost, [&](Index begin, Index end) {
    for (Index row = begin; row < end; ++row) {
      const Index orow = row % g.out_rows;
      const Index b = row / g.out_rows;
      const Index r0 = orow * g.stride_rows - g.pad_top;
      const Index r_begin = std::max<Index>(r0, 0);
      const Index r_end = std::min<Index>(r0 + g.k_rows, g.in_rows);
      for (Index oc = 0; oc < g.out_cols; ++oc) {
        const Index c0 = oc * g.stride_cols - g.pad_left;
        const Index c_begin = std::max<Index>(c0, 0);
        const Index c_end = std::min<Index>(c0 + g.k_cols, g.in_cols);
        Vec<T> acc(out + row * row_size + oc * g.depth, g.depth);
        Reducer::Init(acc);
        for (Index r = r_begin; r < r_end; ++r) {
          for (Index col = c_begin; col < c_end; ++col) {
            Reducer::Accumulate(
                acc, ConstVec<T>(in + ((b * g.in_rows + r) * g.in_cols + col) * g.depth, g.depth));
          }
        }
        Reducer::Finish(acc,
                        std::max<Index>(r_end - r_begin, 0) * std::max<Index>(c_end - c_begin, 0));
      }
    }
  });
  return absl::OkStatus();
}

// MaxPool / AvgPool: window from attrs.
template <typename Reducer>
class Pool2DOp : public OpKernel {
 public:
  explicit Pool2DOp(OpKernelConstruction* c) : OpKernel(c), window_(Window2D::FromAttrs(c)) {
    if (c->GetAttr("ksize", &ksize_)) {
      absl::Status status = ValidateKsize(ksize_);
      if (!status.ok()) c->SetError(WithNodeName(c->name(), status));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    return Pool2D<Reducer, float>(c, window_, ksize_);
  }

 private:
  const Window2D window_;
  std::vector<int64_t> ksize_;
};

// MaxPoolV2: ksize and strides are int32 inputs 1 and 2.
class MaxPoolV2Op : public OpKernel {
 public:
  explicit MaxPoolV2Op(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("padding", &padding_);
    c->GetAttr("data_format", &data_format_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    std::vector<int64_t> ksize, strides;
    TENSORD_RETURN_IF_ERROR(ReadVector(c, 1, "ksize", &ksize));
    TENSORD_RETURN_IF_ERROR(ReadVector(c, 2, "strides", &strides));
    TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), ValidateKsize(ksize)));
    absl::StatusOr<Window2D> window = Window2D::Create(strides, {}, padding_, {}, data_format_);
    TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), window.status()));
    return Pool2D<MaxReducer, float>(c, *window, ksize);
  }

 private:
  static absl::Status ReadVector(OpKernelContext* c, int index, const char* name,
                                 std::vector<int64_t>* values) {
    const Tensor& t = c->input(index);
    if (t.dtype() != DT_INT32 || t.dims() != 1 || t.NumElements() != 4) {
      return c->InvalidArgument(absl::StrCat(name, " must be an int32 vector of 4 elements, got ",
                                             DataTypeString(t.dtype()), " ",
                                             t.shape().DebugString()));
    }
    values->assign(t.data<int32_t>(), t.data<int32_t>() + 4);
    return absl::OkStatus();
  }

  std::string padding_;
  std::string data_format_;
};

TENSORD_REGISTER_KERNEL(KernelDef("MaxPool").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        Pool2DOp<MaxReducer>);
TENSORD_REGISTER_KERNEL(KernelDef("AvgPool").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        Pool2DOp<AvgReducer>);
TENSORD_REGISTER_KERNEL(KernelDef("MaxPoolV2")
                            .Device(DeviceType::kCpu)
                            .TypeConstraint("T", DT_FLOAT)
                            .HostMemoryInput(1)
                            .HostMemoryInput(2),
                        MaxPoolV2Op);

}  // namespace
}  // namespace tensord
