// SegmentSum(data, segment_ids) and UnsortedSegmentSum(data, segment_ids, num_segments): sums of
// the slices of `data` that share a segment id.
//
// SegmentSum: ids are a sorted vector over dim 0; the output has max(id) + 1 rows, rows of ids
// that do not occur are 0. UnsortedSegmentSum: ids may have any shape that prefixes data's,
// negative ids are dropped and ids >= num_segments are an error, as in TensorFlow's CPU kernels.
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// Adds row `from` of `data` (inner elements each) into row `to` of `out`.
template <typename T>
void AddRow(const T* data, int64_t from, T* out, int64_t to, int64_t inner) {
  const T* src = data + from * inner;
  T* dst = out + to * inner;
  for (int64_t i = 0; i < inner; ++i) dst[i] += src[i];
}

template <typename T>
class SegmentSumOp : public OpKernel {
 public:
  explicit SegmentSumOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& data = c->input(0);
    const Tensor& ids_t = c->input(1);
    if (ids_t.dims() != 1) {
      return c->InvalidArgument(
          absl::StrCat("segment_ids should be a vector, got shape ", ids_t.shape().DebugString()));
    }
    if (data.dims() < 1 || data.dim_size(0) != ids_t.dim_size(0)) {
      return c->InvalidArgument(absl::StrCat(
          "segment_ids should be the same size as dimension 0 of input. data.shape = ",
          data.shape().DebugString(), " segment_ids.shape = ", ids_t.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ReadIndexValues(c, 1, "segment_ids"));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) {
        return c->InvalidArgument(absl::StrCat("segment ids must be >= 0, got ", ids[i]));
      }
      if (i > 0 && ids[i] < ids[i - 1]) {
        return c->InvalidArgument("segment ids are not increasing");
      }
    }
    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, ids.empty() ? 0 : ids.back() + 1);
    Tensor* out = c->allocate_output(0, data.dtype(), out_shape);  // zero-filled
    const int64_t inner = data.dim_size(0) == 0 ? 0 : data.NumElements() / data.dim_size(0);
    for (size_t i = 0; i < ids.size(); ++i) {
      AddRow(data.data<T>(), static_cast<int64_t>(i), out->data<T>(), ids[i], inner);
    }
    return absl::OkStatus();
  }
};

template <typename T>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  explicit UnsortedSegmentSumOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& data = c->input(0);
    const Tensor& ids_t = c->input(1);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> num, ReadIndexValues(c, 2, "num_segments"));
    if (c->input(2).dims() != 0 || num.size() != 1) {
      return c->InvalidArgument("num_segments should be a scalar");
    }
    if (num[0] < 0) return c->InvalidArgument("num_segments must be non-negative");
    bool prefix = ids_t.dims() <= data.dims();
    for (int d = 0; prefix && d < ids_t.dims(); ++d) prefix = ids_t.dim_size(d) == data.dim_size(d);
    if (!prefix) {
      return c->InvalidArgument(absl::StrCat(
          "data.shape = ", data.shape().DebugString(), " does not start with segment_ids.shape = ",
          ids_t.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> ids, ReadIndexValues(c, 1, "segment_ids"));
    TensorShape out_shape({num[0]});
    for (int d = ids_t.dims(); d < data.dims(); ++d) out_shape.AddDim(data.dim_size(d));
    Tensor* out = c->allocate_output(0, data.dtype(), out_shape);  // zero-filled
    const int64_t inner = ids.empty() ? 0 : data.NumElements() / static_cast<int64_t>(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      if (ids[i] >= num[0]) {
        return c->InvalidArgument(absl::StrCat("segment_ids[", i, "] = ", ids[i],
                                               " is out of range [0, ", num[0], ")"));
      }
      AddRow(data.data<T>(), static_cast<int64_t>(i), out->data<T>(), ids[i], inner);
    }
    return absl::OkStatus();
  }
};

#define REGISTER_SEGMENT_SUMS(T)                                                            \
  TENSORD_REGISTER_KERNEL(KernelDef("SegmentSum")                                           \
                              .Device(DeviceType::kCpu)                                     \
                              .TypeConstraint("T", DataTypeToEnum<T>::value)                \
                              .HostMemoryInput(1),                                          \
                          SegmentSumOp<T>);                                                 \
  TENSORD_REGISTER_KERNEL(KernelDef("UnsortedSegmentSum")                                   \
                              .Device(DeviceType::kCpu)                                     \
                              .TypeConstraint("T", DataTypeToEnum<T>::value)                \
                              .HostMemoryInput(1)                                           \
                              .HostMemoryInput(2),                                          \
                          UnsortedSegmentSumOp<T>)

REGISTER_SEGMENT_SUMS(float);
REGISTER_SEGMENT_SUMS(double);
REGISTER_SEGMENT_SUMS(int32_t);
REGISTER_SEGMENT_SUMS(int64_t);

#undef REGISTER_SEGMENT_SUMS

}  // namespace
}  // namespace math
}  // namespace tensord
