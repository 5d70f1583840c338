#include "server/status/grpc_status.h"

#include <string>

namespace tensord {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  // 1..16 are the canonical error codes shared by absl, gRPC and TensorFlow.
  const grpc::StatusCode grpc_code = (code >= 1 && code <= 16)
                                         ? static_cast<grpc::StatusCode>(code)
                                         : grpc::StatusCode::UNKNOWN;
  return grpc::Status(grpc_code, std::string(status.message()));
}

}  // namespace tensord
