#include "kernels/math/op_util.h"

#include "absl/strings/str_cat.h"

namespace tensord {
namespace math {

absl::Status CheckInputType(const OpKernelContext* c, int index, DataType dtype) {
  const DataType actual = c->input(index).dtype();
  if (actual == dtype) return absl::OkStatus();
  return c->InvalidArgument(absl::StrCat("input ", index, " must be ", DataTypeString(dtype),
                                         ", got ", DataTypeString(actual)));
}

absl::StatusOr<std::vector<int64_t>> ReadIndexValues(const OpKernelContext* c, int index,
                                                     absl::string_view what) {
  const Tensor& t = c->input(index);
  const int64_t n = t.NumElements();
  std::vector<int64_t> values(n);
  if (t.dtype() == DT_INT32) {
    std::copy(t.data<int32_t>(), t.data<int32_t>() + n, values.begin());
  } else if (t.dtype() == DT_INT64) {
    std::copy(t.data<int64_t>(), t.data<int64_t>() + n, values.begin());
  } else {
    return c->InvalidArgument(
        absl::StrCat(what, " must be int32 or int64, got ", DataTypeString(t.dtype())));
  }
  return values;
}

}  // namespace math
}  // namespace tensord
