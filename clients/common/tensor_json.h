// Tensors as JSON nested lists, the way TensorFlow Serving's REST API writes them in
// "inputs" / "outputs": [[1.0, 2.0], [3.0, 4.0]] is a float [2,2]; a bare value is a scalar.
//
// Reading takes the element dtype from the caller (a signature's declared input dtype):
//   floating point  JSON numbers, plus NaN / Infinity / -Infinity
//   integers        JSON numbers that are exact integers in the dtype's range (2.0 is fine)
//   bool            true / false
//   string          JSON strings (their UTF-8 bytes), or {"b64": "<base64>"} for binary data
// Lists must be rectangular; ragged nesting and mixed lists/values are errors that name the
// offending element. Complex, resource and variant dtypes are not representable.
//
// Writing prints floats with the shortest text that reads back as the same value (and always
// with a '.', an exponent or NaN/Infinity, so they look like floats), integers in decimal,
// bools as true/false, strings as JSON strings when they are valid UTF-8 and as
// {"b64": "..."} otherwise, complex numbers as [real, imag].
#ifndef TENSORD_CLIENTS_COMMON_TENSOR_JSON_H_
#define TENSORD_CLIENTS_COMMON_TENSOR_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/util/json.h"
#include "runtime/framework/tensor.h"

namespace tensord {

absl::StatusOr<Tensor> TensorFromJson(const json::Value& value, DataType dtype);

// Appends `tensor` as nested JSON lists (a scalar for rank 0) to `out`.
absl::Status AppendTensorJson(const Tensor& tensor, std::string* out);

}  // namespace tensord

#endif  // TENSORD_CLIENTS_COMMON_TENSOR_JSON_H_
