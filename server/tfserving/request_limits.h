// RequestLimits: what one inference request may make the server allocate, and the running
// totals that enforce them across a request's input tensors.
//
// Every input is measured on its wire form (MeasureTensorProto) and checked against the limits
// and the signature's dtype before any tensor is built, so a request of a few bytes cannot make
// the server allocate or compute at the size its shape field claims. Shapes are not checked
// against the signature's: TF Serving accepts what the graph accepts (its half_plus_two
// examples send [3] to an input declared [?,1]), and existing clients rely on that.
// Violations are RESOURCE_EXHAUSTED naming the flag that sets the limit; signature mismatches
// are INVALID_ARGUMENT naming the input.
//
// RequestBudget is used by one request on one thread.
#ifndef TENSORD_SERVER_TFSERVING_REQUEST_LIMITS_H_
#define TENSORD_SERVER_TFSERVING_REQUEST_LIMITS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "protos/tensorflow/tensor.pb.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {

struct RequestLimits {
  // Named inputs of one request (--max_request_inputs).
  int64_t max_inputs = 1024;
  // Elements of all input tensors of one request together (--max_request_tensor_elements).
  int64_t max_tensor_elements = int64_t{1} << 28;
  // Host bytes of all decoded input tensors together; a string element counts its length
  // plus 32 bytes (--max_request_tensor_bytes).
  int64_t max_tensor_bytes = int64_t{1} << 30;
  // Bytes of one string element (--max_request_string_bytes).
  int64_t max_string_bytes = int64_t{64} << 20;
};

class RequestBudget {
 public:
  explicit RequestBudget(const RequestLimits& limits) : limits_(limits) {}

  // RESOURCE_EXHAUSTED when a request names more inputs than allowed.
  absl::Status CheckInputCount(int64_t inputs) const;

  // Validates `proto`, the input `alias` described by `info` in signature `signature_name`: its
  // dtype against the signature's, then its size against what is left of the limits, which it
  // then uses up. On success returns the tensor, decoded.
  absl::StatusOr<Tensor> Decode(const std::string& alias, const ::tensorflow::TensorProto& proto,
                                const ::tensorflow::TensorInfo& info,
                                const std::string& signature_name);

 private:
  const RequestLimits limits_;
  int64_t elements_ = 0;  // used so far
  int64_t bytes_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_REQUEST_LIMITS_H_
