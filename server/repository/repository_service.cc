#include "server/repository/repository_service.h"

#include <string>

#include "protos/serving/get_model_status.pb.h"
#include "server/status/grpc_status.h"
#include "server/tfserving/handlers.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

absl::StatusOr<v1::ListModelsResponse> ListModels(const ModelManager& manager) {
  v1::ListModelsResponse response;
  // ModelNames is sorted; each entry goes through GetModelStatus's own handler so that both
  // RPCs report versions identically.
  for (const std::string& name : manager.ModelNames()) {
    serving::GetModelStatusRequest request;
    request.mutable_model_spec()->set_name(name);
    serving::GetModelStatusResponse status;
    absl::Status s = HandleGetModelStatus(manager, request, &status);
    // NOT_FOUND: the model has no versions (yet), or a concurrent reload just removed it.
    if (!s.ok() && s.code() != absl::StatusCode::kNotFound) return s;
    v1::ModelEntry* entry = response.add_models();
    entry->set_name(name);
    entry->mutable_model_version_status()->Swap(status.mutable_model_version_status());
    for (const serving::ModelVersionStatus& version : entry->model_version_status()) {
      if (version.state() != serving::ModelVersionStatus::AVAILABLE) continue;
      // NOT_FOUND: unloaded since the status was read.
      absl::StatusOr<ServableHandle> handle = manager.GetServable(name, version.version());
      if (!handle.ok()) continue;
      (*entry->mutable_device_memory_bytes())[version.version()] =
          handle->bundle->session()->device_memory_bytes();
    }
  }
  return response;
}

grpc::Status ModelRepositoryServiceImpl::ListModels(grpc::ServerContext*,
                                                    const v1::ListModelsRequest*,
                                                    v1::ListModelsResponse* response) {
  absl::StatusOr<v1::ListModelsResponse> models = tensord::ListModels(*manager_);
  if (!models.ok()) return ToGrpcStatus(models.status());
  *response = *std::move(models);
  return grpc::Status::OK;
}

}  // namespace tensord
