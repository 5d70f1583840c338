// grpc.health.v1.Health for tensord, on by default (TF Serving needs
// --enable_grpc_healthcheck_service; the flag is accepted for compatibility).
//
// Check("") is SERVING when every configured model has an AVAILABLE version, NOT_SERVING
// otherwise; Check("<model name>") reports that model alone, and the names of the served gRPC
// services report the whole server. Unknown names are NOT_FOUND, as the health protocol says.
// Thread-safe; the manager must outlive the service.
#ifndef TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_
#define TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_

#include <string>

#include "absl/status/statusor.h"
#include "protos/grpc_health/health.grpc.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

using HealthStatus = ::grpc::health::v1::HealthCheckResponse::ServingStatus;

// The health of `service` ("" = the whole server); NOT_FOUND for unknown names.
absl::StatusOr<HealthStatus> CheckHealth(const ModelManager& manager, const std::string& service);

class HealthServiceImpl final : public ::grpc::health::v1::Health::Service {
 public:
  explicit HealthServiceImpl(const ModelManager* manager) : manager_(manager) {}

  ::grpc::Status Check(::grpc::ServerContext* context,
                       const ::grpc::health::v1::HealthCheckRequest* request,
                       ::grpc::health::v1::HealthCheckResponse* response) override;

 private:
  const ModelManager* manager_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_
