// Substr(input, pos, len) [unit]: the substring of `len` bytes (or UTF-8 characters) starting at
// `pos`; a negative pos counts from the end. pos must lie in [-length, length]; the substring is
// cut at the end of the string. pos and len share one shape, which broadcasts against input
// with NumPy rules (TensorFlow itself only broadcasts up to rank 2).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

// Byte offset of the start of the `n`-th UTF-8 character of s (s.size() when past the end).
size_t Utf8Offset(absl::string_view s, int64_t n) {
  size_t i = 0;
  for (; n > 0 && i < s.size(); --n) {
    ++i;
    while (i < s.size() && !IsUtf8CharStart(s[i])) ++i;
  }
  return i;
}

// Broadcasts `a` and `b` (NumPy rules) and returns the output shape, or an error.
absl::StatusOr<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.dims() - rank + i;
    const int ib = b.dims() - rank + i;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible shapes: ", a.DebugString(), " vs. ", b.DebugString()));
    }
    dims[i] = da == 1 ? db : da;
  }
  return TensorShape(std::move(dims));
}

// For each flat output index, the flat index into a tensor of `shape` broadcast to `out`.
std::vector<int64_t> BroadcastIndex(const TensorShape& shape, const TensorShape& out) {
  const int rank = out.dims();
  std::vector<int64_t> strides(rank, 0);  // 0 along broadcast dims
  int64_t stride = 1;
  for (int i = shape.dims() - 1; i >= 0; --i) {
    const int o = rank - shape.dims() + i;
    if (shape.dim_size(i) != 1) strides[o] = stride;
    stride *= shape.dim_size(i);
  }
  std::vector<int64_t> index(out.num_elements());
  std::vector<int64_t> coord(rank, 0);
  int64_t offset = 0;
  for (int64_t e = 0; e < static_cast<int64_t>(index.size()); ++e) {
    index[e] = offset;
    for (int d = rank - 1; d >= 0; --d) {  // odometer increment
      offset += strides[d];
      if (++coord[d] < out.dim_size(d)) break;
      offset -= strides[d] * coord[d];
      coord[d] = 0;
    }
  }
  return index;
}

template <typename T>
class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* c) : OpKernel(c), unit_(GetUnitAttr(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 0, DT_STRING));
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 1, DataTypeToEnum<T>::value));
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 2, DataTypeToEnum<T>::value));
    const Tensor& input = c->input(0);
    const Tensor& pos = c->input(1);
    const Tensor& len = c->input(2);
    if (pos.shape() != len.shape()) {
      return c->InvalidArgument(
          absl::StrCat("pos and len should have the same shape, got: ", pos.shape().DebugString(),
                       " vs. ", len.shape().DebugString()));
    }
    auto out_shape = BroadcastShapes(input.shape(), pos.shape());
    if (!out_shape.ok()) return c->InvalidArgument(out_shape.status().message());
    Tensor* output = c->allocate_output(0, DT_STRING, *out_shape);
    const std::vector<int64_t> in_index = BroadcastIndex(input.shape(), *out_shape);
    const std::vector<int64_t> pos_index = BroadcastIndex(pos.shape(), *out_shape);
    const std::string* in = input.data<std::string>();
    const T* p = pos.data<T>();
    const T* l = len.data<T>();
    std::string* out = output->data<std::string>();
    return ParallelForWithStatus(
        *c, output->NumElements(), 2 * AverageStringLength(input) + 20, [&](int64_t e) {
          return Cut(*c, in[in_index[e]], p[pos_index[e]], l[pos_index[e]], e, &out[e]);
        });
  }

 private:
  absl::Status Cut(const OpKernelContext& c, const std::string& s, int64_t pos, int64_t len,
                   int64_t index, std::string* out) const {
    const int64_t length = unit_ == CharUnit::kByte
                               ? static_cast<int64_t>(s.size())
                               : std::count_if(s.begin(), s.end(), IsUtf8CharStart);
    if (pos < -length || pos > length) {
      return c.InvalidArgument(
          unit_ == CharUnit::kByte
              ? absl::StrCat("pos ", pos, " out of range for string b'", s, "' at index ", index)
              : absl::StrCat("pos ", pos, " out of range for string at index ", index));
    }
    if (pos < 0) pos += length;
    if (unit_ == CharUnit::kByte) {
      // A negative len takes the rest of the string, like std::string::substr with npos.
      *out = s.substr(pos, len < 0 ? std::string::npos : static_cast<size_t>(len));
      return absl::OkStatus();
    }
    // In UTF8_CHAR units a negative len selects nothing (TensorFlow's behaviour).
    const size_t begin = Utf8Offset(s, pos);
    const size_t end =
        begin + Utf8Offset(absl::string_view(s).substr(begin), std::max<int64_t>(len, 0));
    *out = s.substr(begin, end - begin);
    return absl::OkStatus();
  }

  const CharUnit unit_;
};

TENSORD_REGISTER_KERNEL(KernelDef("Substr").Device(DeviceType::kCpu).TypeConstraint("T", DT_INT32),
                        SubstrOp<int32_t>);
TENSORD_REGISTER_KERNEL(KernelDef("Substr").Device(DeviceType::kCpu).TypeConstraint("T", DT_INT64),
                        SubstrOp<int64_t>);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
