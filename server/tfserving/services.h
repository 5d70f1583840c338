// gRPC services of the TF Serving API, delegating to handlers.h. Inference RPCs run under the
// client's deadline (DEADLINE_EXCEEDED when it passes) and stop when the client cancels; they are
// recorded in ServingMetrics (may be null = not recorded; not owned, must outlive the service).
// HandleReloadConfigRequest applies the new model list at once and answers when the resulting
// states are known.
#ifndef TENSORD_SERVER_TFSERVING_SERVICES_H_
#define TENSORD_SERVER_TFSERVING_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <utility>

#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"
#include "server/tfserving/admission.h"
#include "server/tfserving/request_limits.h"

namespace tensord {

class PredictionServiceImpl final : public ::tensorflow::serving::PredictionService::Service {
 public:
  // `manager`, `metrics` and `admission` (both may be null) must outlive the service.
  PredictionServiceImpl(const ModelManager* manager, ServingMetrics* metrics,
                        RequestLimits limits = {}, Admission* admission = nullptr)
      : manager_(manager), metrics_(metrics), limits_(limits), admission_(admission) {}

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
  const RequestLimits limits_;
  Admission* const admission_;
};

// Who may call the model-management RPCs (HandleReloadConfigRequest), as Triton's restricted
// protocols: everyone, nobody, or calls carrying one metadata header.
struct ModelManagementAccess {
  bool enabled = true;          // false: PERMISSION_DENIED
  // "key=value": calls without metadata `key` equal to `value` get UNAUTHENTICATED. Empty =
  // no header needed. gRPC metadata keys are lower case.
  std::string required_header;
};

class ModelServiceImpl final : public ::tensorflow::serving::ModelService::Service {
 public:
  // `manager` must outlive the service.
  explicit ModelServiceImpl(ModelManager* manager, ModelManagementAccess access = {})
      : manager_(manager), access_(std::move(access)) {}

  grpc::Status GetModelStatus(grpc::ServerContext* context,
                              const ::tensorflow::serving::GetModelStatusRequest* request,
                              ::tensorflow::serving::GetModelStatusResponse* response) override;
  grpc::Status HandleReloadConfigRequest(
      grpc::ServerContext* context, const ::tensorflow::serving::ReloadConfigRequest* request,
      ::tensorflow::serving::ReloadConfigResponse* response) override;

 private:
  // OK when `context` may manage models.
  grpc::Status CheckManagementAccess(const grpc::ServerContext& context) const;

  ModelManager* manager_;
  const ModelManagementAccess access_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_SERVICES_H_
