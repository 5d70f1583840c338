// Conversion between Tensor and the wire TensorProto.
//
// Parsing accepts every encoding TensorFlow writes: `tensor_content` (little-endian raw bytes),
// the typed repeated fields (float_val, int_val, int64_val, half_val, string_val, ...) where
// fewer values than elements repeat the last one (a single value fills the tensor, no value
// means zeros), and half/bfloat16 stored as uint16 bits in half_val. Invalid input (unknown
// dtype, bad shape, wrong byte count, too many values) is an INVALID_ARGUMENT naming the problem.
#ifndef TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_
#define TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_

#include "absl/status/statusor.h"
#include "protos/tensorflow/tensor.pb.h"
#include "runtime/framework/tensor.h"

namespace tensord {

absl::StatusOr<Tensor> TensorFromProto(const ::tensorflow::TensorProto& proto);

// Writes dtype, shape and values. Numbers go to `tensor_content` when use_tensor_content is
// true (compact, what TF Serving clients send), else to the typed *_val fields (what
// tf.make_tensor_proto and JSON tooling expect for small tensors). Strings always use string_val.
void TensorToProto(const Tensor& tensor, ::tensorflow::TensorProto* proto,
                   bool use_tensor_content = true);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TENSOR_PROTO_H_
