// Conversion of the server's absl::Status errors to grpc::Status. This is the only place
// where that conversion happens; everything below the gRPC service layer uses absl::Status.
#ifndef TENSORD_SERVER_STATUS_GRPC_STATUS_H_
#define TENSORD_SERVER_STATUS_GRPC_STATUS_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace tensord {

// Same numeric code (absl and gRPC share TensorFlow's canonical codes), message unchanged.
// Codes outside the canonical range become UNKNOWN.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace tensord

#endif  // TENSORD_SERVER_STATUS_GRPC_STATUS_H_
