// gRPC services of the TF Serving API. Implemented RPCs delegate to handlers.h;
// HandleReloadConfigRequest answers UNIMPLEMENTED for now.
#ifndef TENSORD_SERVER_TFSERVING_SERVICES_H_
#define TENSORD_SERVER_TFSERVING_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

class PredictionServiceImpl final : public ::tensorflow::serving::PredictionService::Service {
 public:
  explicit PredictionServiceImpl(const ModelManager* manager) : manager_(manager) {}

  grpc::Status Predict(grpc::ServerContext* context,
                       const ::tensorflow::serving::PredictRequest* request,
                       ::tensorflow::serving::PredictResponse* response) override;
  grpc::Status GetModelMetadata(grpc::ServerContext* context,
                                const ::tensorflow::serving::GetModelMetadataRequest* request,
                                ::tensorflow::serving::GetModelMetadataResponse* response) override;
  grpc::Status Classify(grpc::ServerContext* context,
                        const ::tensorflow::serving::ClassificationRequest* request,
                        ::tensorflow::serving::ClassificationResponse* response) override;
  grpc::Status Regress(grpc::ServerContext* context,
                       const ::tensorflow::serving::RegressionRequest* request,
                       ::tensorflow::serving::RegressionResponse* response) override;
  grpc::Status MultiInference(grpc::ServerContext* context,
                              const ::tensorflow::serving::MultiInferenceRequest* request,
                              ::tensorflow::serving::MultiInferenceResponse* response) override;

 private:
  const ModelManager* manager_;
};

class ModelServiceImpl final : public ::tensorflow::serving::ModelService::Service {
 public:
  explicit ModelServiceImpl(const ModelManager* manager) : manager_(manager) {}

  grpc::Status GetModelStatus(grpc::ServerContext* context,
                              const ::tensorflow::serving::GetModelStatusRequest* request,
                              ::tensorflow::serving::GetModelStatusResponse* response) override;
  grpc::Status HandleReloadConfigRequest(
      grpc::ServerContext* context, const ::tensorflow::serving::ReloadConfigRequest* request,
      ::tensorflow::serving::ReloadConfigResponse* response) override;

 private:
  const ModelManager* manager_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_SERVICES_H_
