// Input checks and small readers shared by the math kernels.
#ifndef TENSORD_KERNELS_MATH_OP_UTIL_H_
#define TENSORD_KERNELS_MATH_OP_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"

namespace tensord {
namespace math {

// InvalidArgument naming the node when input `index` is not of type `dtype`.
absl::Status CheckInputType(const OpKernelContext* c, int index, DataType dtype);

// The values of an int32 or int64 tensor of any shape (axes, dimensions), in order.
// `what` names the input in errors.
absl::StatusOr<std::vector<int64_t>> ReadIndexValues(const OpKernelContext* c, int index,
                                                     absl::string_view what);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_OP_UTIL_H_
