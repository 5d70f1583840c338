// Helpers shared by the string kernels.
#ifndef TENSORD_KERNELS_STRING_STRING_UTIL_H_
#define TENSORD_KERNELS_STRING_STRING_UTIL_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {

// Records an InvalidArgument attr error "<node>: <message>" on the kernel under construction.
void SetAttrError(OpKernelConstruction* c, absl::string_view message);

// The `unit` attr of StringLength and Substr: positions count bytes or UTF-8 characters.
enum class CharUnit { kByte, kUtf8Char };
// Reads `unit` ("BYTE" or "UTF8_CHAR"), recording an attr error for anything else.
CharUnit GetUnitAttr(OpKernelConstruction* c);

// True for bytes that begin a UTF-8 character, i.e. all but continuation bytes 10xxxxxx.
// Invalid sequences thus count one character per non-continuation byte, as in TensorFlow.
inline bool IsUtf8CharStart(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }

// InvalidArgument naming the node unless input `index` has dtype `want`.
absl::Status CheckInputType(const OpKernelContext& c, int index, DataType want);

// Runs fn(i) for every i in [0, n), spread over the CPU pool when the work is large enough.
// `cost_per_element` estimates the CPU cycles of one call. When several calls fail, the error of
// the lowest index is returned, so the result does not depend on scheduling.
absl::Status ParallelForWithStatus(const OpKernelContext& c, int64_t n, double cost_per_element,
                                   const std::function<absl::Status(int64_t)>& fn);

// Average byte length of a string tensor's elements (0 for an empty tensor), for cost estimates.
double AverageStringLength(const Tensor& strings);

// The elementwise string kernels: output 0 has input `index`'s shape and element type Out, with
// output[i] computed by fn(const std::string& in, Out* out) -> absl::Status.
template <typename Out, typename Fn>
absl::Status MapStrings(OpKernelContext* c, int index, Fn fn) {
  TENSORD_RETURN_IF_ERROR(CheckInputType(*c, index, DT_STRING));
  const Tensor& input = c->input(index);
  Tensor* output = c->allocate_output(0, DataTypeToEnum<Out>::value, input.shape());
  const std::string* in = input.data<std::string>();
  Out* out = output->data<Out>();
  return ParallelForWithStatus(*c, input.NumElements(), 4 * AverageStringLength(input) + 20,
                               [&](int64_t i) { return fn(in[i], &out[i]); });
}

}  // namespace string_ops
}  // namespace tensord

#endif  // TENSORD_KERNELS_STRING_STRING_UTIL_H_
