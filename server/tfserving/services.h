// gRPC services of the TF Serving API, delegating to handlers.h. Inference RPCs run under the
// client's deadline (DEADLINE_EXCEEDED when it passes) and stop when the client cancels; they are
// recorded in ServingMetrics (may be null = not recorded; not owned, must outlive the service).
// HandleReloadConfigRequest applies the new model list at once and answers when the resulting
// states are known.
#ifndef TENSORD_SERVER_TFSERVING_SERVICES_H_
#define TENSORD_SERVER_TFSERVING_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"

namespace tensord {

class PredictionServiceImpl final : public ::tensorflow::serving::PredictionService::Service {
 public:
  PredictionServiceImpl(const ModelManager* manager, ServingMetrics* metrics)
      : manager_(manager), metrics_(metrics) {}

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
  ServingMetrics* metrics_;
};

class ModelServiceImpl final : public ::tensorflow::serving::ModelService::Service {
 public:
  explicit ModelServiceImpl(ModelManager* manager) : manager_(manager) {}

  grpc::Status GetModelStatus(grpc::ServerContext* context,
                              const ::tensorflow::serving::GetModelStatusRequest* request,
                              ::tensorflow::serving::GetModelStatusResponse* response) override;
  grpc::Status HandleReloadConfigRequest(
      grpc::ServerContext* context, const ::tensorflow::serving::ReloadConfigRequest* request,
      ::tensorflow::serving::ReloadConfigResponse* response) override;

 private:
  ModelManager* manager_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_SERVICES_H_
