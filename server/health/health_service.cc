#include "server/health/health_service.h"

#include <chrono>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/status/grpc_status.h"

namespace tensord {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

bool ModelAvailable(const ModelManager& manager, const std::string& name) {
  return manager.GetServable(name, std::nullopt).ok();
}

}  // namespace

absl::StatusOr<HealthStatus> ServerHealth::Check(const std::string& service) const {
  const bool whole_server = service.empty() ||
                            service == "tensorflow.serving.PredictionService" ||
                            service == "tensorflow.serving.ModelService" ||
                            service == "tensord.v1.ModelRepository";
  if (whole_server) {
    return !draining() && UnavailableModels().empty() ? HealthCheckResponse::SERVING
                                                      : HealthCheckResponse::NOT_SERVING;
  }
  for (const std::string& name : manager_->ModelNames()) {
    if (name == service) {
      return !draining() && ModelAvailable(*manager_, name) ? HealthCheckResponse::SERVING
                                                            : HealthCheckResponse::NOT_SERVING;
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown service or model '", service, "'"));
}

std::vector<std::string> ServerHealth::UnavailableModels() const {
  std::vector<std::string> unavailable;
  for (const std::string& name : manager_->ModelNames()) {
    if (!ModelAvailable(*manager_, name)) unavailable.push_back(name);
  }
  return unavailable;
}

::grpc::Status HealthServiceImpl::Check(::grpc::ServerContext*,
                                        const ::grpc::health::v1::HealthCheckRequest* request,
                                        ::grpc::health::v1::HealthCheckResponse* response) {
  auto status = health_->Check(request->service());
  if (!status.ok()) return ToGrpcStatus(status.status());
  response->set_status(*status);
  return ::grpc::Status::OK;
}

::grpc::Status HealthServiceImpl::Watch(
    ::grpc::ServerContext* context, const ::grpc::health::v1::HealthCheckRequest* request,
    ::grpc::ServerWriter<::grpc::health::v1::HealthCheckResponse>* writer) {
  std::optional<HealthStatus> last;
  while (!context->IsCancelled() && !shutdown_.load()) {
    // The protocol reports unknown names as SERVICE_UNKNOWN on Watch, not as an error, since
    // the service may appear later.
    auto checked = health_->Check(request->service());
    const HealthStatus now =
        checked.ok() ? *checked : HealthCheckResponse::SERVICE_UNKNOWN;
    if (now != last) {
      HealthCheckResponse response;
      response.set_status(now);
      if (!writer->Write(response)) break;
      last = now;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ::grpc::Status::OK;
}

}  // namespace tensord
