// DenseBincount(input, size, weights) and RaggedBincount(splits, values, size, weights), with
// attrs Tidx, T and binary_output: per row (of a 1-D or 2-D `input`, or of the ragged rows
// values[splits[i]:splits[i+1]]), how often each value in [0, size) occurs (or the sum of its
// weights, or 1 with binary_output). Values >= size are ignored and negative values are an
// error, as in TensorFlow's CPU kernels (Keras' CategoryEncoding layer, and TextVectorization's
// multi_hot / count / tf_idf outputs).
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// Counts values[begin, end) into `row` (size bins): weights[i] each when `weights` is set, else
// 1, or just 1 per bin hit with `binary`.
template <typename T>
absl::Status CountIntoRow(const OpKernelContext* c, const std::vector<int64_t>& values,
                          int64_t begin, int64_t end, const T* weights, int64_t size, bool binary,
                          T* row) {
  for (int64_t i = begin; i < end; ++i) {
    if (values[i] < 0) return c->InvalidArgument("Input arr must be non-negative!");
    if (values[i] >= size) continue;
    T& bin = row[values[i]];
    if (binary) {
      bin = T(1);
    } else {
      bin += weights != nullptr ? weights[i] : T(1);
    }
  }
  return absl::OkStatus();
}

// The scalar `size` input (index `index`), checked non-negative.
absl::StatusOr<int64_t> ReadSize(const OpKernelContext* c, int index) {
  TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> size, ReadIndexValues(c, index, "size"));
  if (c->input(index).dims() != 0 || size.size() != 1) {
    return c->InvalidArgument("size should be a scalar");
  }
  if (size[0] < 0) {
    return c->InvalidArgument(absl::StrCat("size (", size[0], ") must be non-negative"));
  }
  return size[0];
}

// The weights input (index `index`) as T data, or null when it is empty (count each value once).
template <typename T>
absl::StatusOr<const T*> ReadWeights(const OpKernelContext* c, int index,
                                     const TensorShape& values_shape) {
  const Tensor& weights = c->input(index);
  if (weights.NumElements() == 0) return nullptr;
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, index, DataTypeToEnum<T>::value));
  if (weights.shape() != values_shape) {
    return c->InvalidArgument(absl::StrCat("Input and weights must have the same shape; got ",
                                           values_shape.DebugString(), " and ",
                                           weights.shape().DebugString()));
  }
  return weights.data<T>();
}

// The attr both ops share.
class BincountKernel : public OpKernel {
 public:
  explicit BincountKernel(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("binary_output", &binary_output_);
  }

 protected:
  bool binary_output_ = false;
};

template <typename T>
class DenseBincountOp : public BincountKernel {
 public:
  using BincountKernel::BincountKernel;

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(const int64_t size, ReadSize(c, 1));
    if (input.dims() != 1 && input.dims() != 2) {
      return c->InvalidArgument(absl::StrCat("input must be 1-D or 2-D, got shape ",
                                             input.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(const T* weights, ReadWeights<T>(c, 2, input.shape()));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexValues(c, 0, "input"));
    const int64_t rows = input.dims() == 2 ? input.dim_size(0) : 1;
    const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(values.size()) / rows;
    TensorShape out_shape = input.dims() == 2 ? TensorShape({rows, size}) : TensorShape({size});
    Tensor* output = c->allocate_output(0, DataTypeToEnum<T>::value, out_shape);  // zeros
    T* out = output->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      TENSORD_RETURN_IF_ERROR(CountIntoRow(c, values, r * cols, (r + 1) * cols, weights, size,
                                           binary_output_, out + r * size));
    }
    return absl::OkStatus();
  }
};

template <typename T>
class RaggedBincountOp : public BincountKernel {
 public:
  using BincountKernel::BincountKernel;

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& splits = c->input(0);
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_INT64));
    if (splits.dims() != 1 || splits.NumElements() < 1) {
      return c->InvalidArgument(absl::StrCat("splits must be a non-empty vector, got shape ",
                                             splits.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(const int64_t size, ReadSize(c, 2));
    TENSORD_ASSIGN_OR_RETURN(const T* weights, ReadWeights<T>(c, 3, c->input(1).shape()));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexValues(c, 1, "values"));
    const int64_t* bounds = splits.data<int64_t>();
    const int64_t rows = splits.NumElements() - 1;
    if (bounds[0] != 0) {
      return c->InvalidArgument(absl::StrCat("Splits must start with 0, not with ", bounds[0]));
    }
    if (bounds[rows] != static_cast<int64_t>(values.size())) {
      return c->InvalidArgument(absl::StrCat("Splits must end with the number of values, got ",
                                             bounds[rows], " instead of ", values.size()));
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (bounds[r + 1] < bounds[r]) {
        return c->InvalidArgument(absl::StrCat("Splits must be non-decreasing, got ", bounds[r],
                                               " before ", bounds[r + 1]));
      }
    }
    Tensor* output = c->allocate_output(0, DataTypeToEnum<T>::value, TensorShape({rows, size}));
    T* out = output->data<T>();  // zeros
    for (int64_t r = 0; r < rows; ++r) {
      TENSORD_RETURN_IF_ERROR(CountIntoRow(c, values, bounds[r], bounds[r + 1], weights, size,
                                           binary_output_, out + r * size));
    }
    return absl::OkStatus();
  }
};

#define REGISTER_BINCOUNT(T)                                                 \
  TENSORD_REGISTER_KERNEL(KernelDef("DenseBincount")                         \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                           \
                          DenseBincountOp<T>);                               \
  TENSORD_REGISTER_KERNEL(KernelDef("RaggedBincount")                        \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(2),                           \
                          RaggedBincountOp<T>)

REGISTER_BINCOUNT(float);
REGISTER_BINCOUNT(double);
REGISTER_BINCOUNT(int32_t);
REGISTER_BINCOUNT(int64_t);

#undef REGISTER_BINCOUNT

}  // namespace
}  // namespace math
}  // namespace tensord
