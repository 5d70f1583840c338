#include "server/health/health_service.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "server/status/grpc_status.h"

namespace tensord {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

bool ModelAvailable(const ModelManager& manager, const std::string& name) {
  return manager.GetServable(name, std::nullopt).ok();
}

}  // namespace

absl::StatusOr<HealthStatus> CheckHealth(const ModelManager& manager, const std::string& service) {
  const std::vector<std::string> models = manager.ModelNames();
  const bool whole_server = service.empty() ||
                            service == "tensorflow.serving.PredictionService" ||
                            service == "tensorflow.serving.ModelService";
  if (whole_server) {
    for (const std::string& name : models) {
      if (!ModelAvailable(manager, name)) return HealthCheckResponse::NOT_SERVING;
    }
    return HealthCheckResponse::SERVING;
  }
  for (const std::string& name : models) {
    if (name == service) {
      return ModelAvailable(manager, name) ? HealthCheckResponse::SERVING
                                           : HealthCheckResponse::NOT_SERVING;
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown service or model '", service, "'"));
}

::grpc::Status HealthServiceImpl::Check(::grpc::ServerContext*,
                                        const ::grpc::health::v1::HealthCheckRequest* request,
                                        ::grpc::health::v1::HealthCheckResponse* response) {
  auto status = CheckHealth(*manager_, request->service());
  if (!status.ok()) return ToGrpcStatus(status.status());
  response->set_status(*status);
  return ::grpc::Status::OK;
}

}  // namespace tensord
