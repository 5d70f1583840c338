// tensord.v1.ModelRepository (protos/tensord/model_repository.proto): ListModels names every
// configured model, sorted by name, with its versions' statuses as GetModelStatus reports them
// (highest version first). A configured model without any version directory is listed with no
// versions, so that a misconfigured base path shows up instead of the model going missing.
//
// The list is a snapshot taken one model at a time: a reload that runs concurrently may show
// in some entries and not yet in others. Thread-safe; the manager must outlive the service.
#ifndef TENSORD_SERVER_REPOSITORY_REPOSITORY_SERVICE_H_
#define TENSORD_SERVER_REPOSITORY_REPOSITORY_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "protos/tensord/model_repository.grpc.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

absl::StatusOr<v1::ListModelsResponse> ListModels(const ModelManager& manager);

class ModelRepositoryServiceImpl final : public v1::ModelRepository::Service {
 public:
  explicit ModelRepositoryServiceImpl(const ModelManager* manager) : manager_(manager) {}

  grpc::Status ListModels(grpc::ServerContext* context, const v1::ListModelsRequest* request,
                          v1::ListModelsResponse* response) override;

 private:
  const ModelManager* manager_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REPOSITORY_REPOSITORY_SERVICE_H_
