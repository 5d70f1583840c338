#include "kernels/array/array_util.h"

#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace array {

absl::StatusOr<std::vector<int64_t>> ReadIndexValues(const OpKernelContext* c, const Tensor& t,
                                                     const char* what) {
  // Kernels on a GPU take their index operands in host memory (HostMemoryInput); a kernel
  // registered without it would read device memory here.
  if (t.memory_space() != MemorySpace::kHost) {
    return absl::InternalError(absl::StrCat(c->node_name(), ": ", what,
                                            " is in device memory; the kernel must take it in "
                                            "host memory"));
  }
  std::vector<int64_t> values(t.NumElements());
  bool is_integer = false;
  DispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      is_integer = true;
      const T* data = t.data<T>();
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(data[i]);
    }
  });
  if (!is_integer) {
    return c->InvalidArgument(
        absl::StrCat(what, " must be an integer tensor, got ", DataTypeString(t.dtype())));
  }
  return values;
}

absl::StatusOr<int64_t> ReadIndexScalar(const OpKernelContext* c, const Tensor& t,
                                        const char* what) {
  if (t.dims() != 0) {
    return c->InvalidArgument(
        absl::StrCat(what, " must be a scalar, but got shape ", t.shape().DebugString()));
  }
  TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexValues(c, t, what));
  return values[0];
}

absl::StatusOr<TensorShape> MakeShape(const OpKernelContext* c, absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    if (d < 0) return c->InvalidArgument(absl::StrCat("Dimension ", d, " must be >= 0"));
  }
  auto shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return c->InvalidArgument(shape.status().message());
  return *std::move(shape);
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims());
  int64_t stride = 1;
  for (int i = shape.dims() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape.dim_size(i);
  }
  return strides;
}

std::string BracketList(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ","), "]");
}

}  // namespace array
}  // namespace tensord
