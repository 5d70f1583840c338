// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0) as tensord Tensors.
//
// Supported dtypes (descr):
//   '<f2' half, '<f4' float, '<f8' double, '<c8' complex64, '<c16' complex128,
//   '|i1' '<i2' '<i4' '<i8' signed, '|u1' '<u2' '<u4' '<u8' unsigned, '|b1' bool,
//   '|S<n>' fixed-width bytes (DT_STRING), and on reading also '<U<n>' (UTF-32 text, stored as
//   UTF-8 strings). Big-endian ('>') data is byte-swapped on reading; files are written
//   little-endian. Only C order: Fortran-ordered arrays, object arrays ('|O') and structured
//   dtypes are rejected with a message saying so.
//
// Strings: like numpy, '|S<n>' drops trailing NUL bytes of each element on reading, and the
// writer pads to the longest element (at least 1 byte), so a string ending in NUL does not
// round-trip.
#ifndef TENSORD_CLIENTS_COMMON_NPY_H_
#define TENSORD_CLIENTS_COMMON_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace npy {

// Parses the bytes of an .npy file.
absl::StatusOr<Tensor> Parse(std::string_view bytes);
absl::StatusOr<Tensor> ReadFile(const std::string& path);

// The .npy bytes of `tensor` (version 1.0 header, or 2.0 if the header needs more than 64 KiB).
absl::StatusOr<std::string> Serialize(const Tensor& tensor);
absl::Status WriteFile(const std::string& path, const Tensor& tensor);

// The numpy descr written for `dtype` ("<f4", "|b1", ...; strings: "|S"), or an error for
// dtypes .npy cannot hold (bfloat16, resource, variant).
absl::StatusOr<std::string> DescrForDataType(DataType dtype);

}  // namespace npy
}  // namespace tensord

#endif  // TENSORD_CLIENTS_COMMON_NPY_H_
