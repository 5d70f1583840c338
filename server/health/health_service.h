// Server health for readiness probes and load balancers, and grpc.health.v1.Health on top of it
// (on by default; TF Serving needs --enable_grpc_healthcheck_service, accepted for
// compatibility).
//
// ServerHealth::Check("") is SERVING when the server is not draining and every configured model
// has an AVAILABLE version, NOT_SERVING otherwise; Check("<model name>") reports that model alone
// (NOT_SERVING while draining too), and the names of the served gRPC services report the whole
// server. Unknown names are NOT_FOUND, as the health protocol says.
//
// Watch streams the status of a name: the current one at once, then every change (checked every
// 100 ms), until the client cancels or the service is shut down.
//
// Thread-safe; the manager must outlive ServerHealth, ServerHealth the service.
#ifndef TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_
#define TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/grpc_health/health.grpc.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

using HealthStatus = ::grpc::health::v1::HealthCheckResponse::ServingStatus;

class ServerHealth {
 public:
  explicit ServerHealth(const ModelManager* manager) : manager_(manager) {}

  // From now on the server reports NOT_SERVING (it is shutting down). Irreversible.
  void SetDraining() { draining_.store(true); }
  bool draining() const { return draining_.load(); }

  // The health of `service` ("" = the whole server); NOT_FOUND for unknown names.
  absl::StatusOr<HealthStatus> Check(const std::string& service) const;

  // Configured models without an AVAILABLE version (still loading, being retried, or failed),
  // sorted: what holds the whole server's readiness back.
  std::vector<std::string> UnavailableModels() const;

 private:
  const ModelManager* manager_;
  std::atomic<bool> draining_{false};
};

class HealthServiceImpl final : public ::grpc::health::v1::Health::Service {
 public:
  explicit HealthServiceImpl(const ServerHealth* health) : health_(health) {}

  ::grpc::Status Check(::grpc::ServerContext* context,
                       const ::grpc::health::v1::HealthCheckRequest* request,
                       ::grpc::health::v1::HealthCheckResponse* response) override;
  ::grpc::Status Watch(
      ::grpc::ServerContext* context, const ::grpc::health::v1::HealthCheckRequest* request,
      ::grpc::ServerWriter<::grpc::health::v1::HealthCheckResponse>* writer) override;

  // Ends every Watch stream (call before shutting the gRPC server down, so it need not wait).
  void Shutdown() { shutdown_.store(true); }

 private:
  const ServerHealth* health_;
  std::atomic<bool> shutdown_{false};
};

}  // namespace tensord

#endif  // TENSORD_SERVER_HEALTH_HEALTH_SERVICE_H_
