// Conversion between Tensor and the wire TensorProto.
//
// Parsing accepts every encoding TensorFlow writes: `tensor_content` (little-endian raw bytes),
// the typed repeated fields (float_val, int_val, int64_val, half_val, string_val, ...) where
// fewer values than elements repeat the last one (a single value fills the tensor, no value
// means zeros), and half/bfloat16 stored as uint16 bits in half_val. Invalid input (unknown
// dtype, bad shape, wrong byte count, too many values) is an INVALID_ARGUMENT naming the problem.
//
// A TensorProto is hostile input (a client's request, a model file): its shape alone can ask
// for any amount of memory, and a single value can fill any shape. Sizes are therefore measured
// with overflow-checked arithmetic, and checked against a bound, before anything is allocated.
#ifndef TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_
#define TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "protos/tensorflow/tensor.pb.h"
#include "runtime/framework/tensor.h"

namespace tensord {

// What decoding a TensorProto will build, measured without allocating.
struct TensorProtoSize {
  TensorShape shape;
  int64_t elements = 0;
  // Host bytes of the decoded tensor: elements times the element size, and for strings also
  // every element's length (a repeated last value counted each time it is repeated).
  int64_t bytes = 0;
  int64_t longest_string = 0;  // bytes of the longest string element; 0 for other dtypes
};

// Validates dtype, shape and encoding sizes (tensor_content length, value counts, string
// varints) and measures the result. INVALID_ARGUMENT for malformed protos, including sizes
// that overflow int64.
absl::StatusOr<TensorProtoSize> MeasureTensorProto(const ::tensorflow::TensorProto& proto);

// Default bound of TensorFromProto: larger than any tensor a 2 GiB protobuf can carry without
// repetition, far below what would exhaust a server.
inline constexpr int64_t kDefaultMaxTensorProtoBytes = int64_t{4} << 30;

// Decodes `proto`; RESOURCE_EXHAUSTED when the decoded tensor would exceed max_bytes.
absl::StatusOr<Tensor> TensorFromProto(const ::tensorflow::TensorProto& proto,
                                       int64_t max_bytes = kDefaultMaxTensorProtoBytes);

// Writes dtype, shape and values. Numbers go to `tensor_content` when use_tensor_content is
// true (compact, what TF Serving clients send), else to the typed *_val fields (what
// tf.make_tensor_proto and JSON tooling expect for small tensors). Strings always use string_val.
void TensorToProto(const Tensor& tensor, ::tensorflow::TensorProto* proto,
                   bool use_tensor_content = true);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_
