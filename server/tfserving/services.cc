#include "server/tfserving/services.h"

#include "absl/status/status.h"
#include "server/status/grpc_status.h"
#include "server/tfserving/handlers.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

namespace {
grpc::Status NotYet(const char* rpc) {
  return ToGrpcStatus(absl::UnimplementedError(
      std::string(rpc) + " is not implemented by tensord yet"));
}
}  // namespace

grpc::Status PredictionServiceImpl::Predict(grpc::ServerContext*,
                                            const serving::PredictRequest* request,
                                            serving::PredictResponse* response) {
  return ToGrpcStatus(HandlePredict(*manager_, *request, response));
}

grpc::Status PredictionServiceImpl::GetModelMetadata(
    grpc::ServerContext*, const serving::GetModelMetadataRequest* request,
    serving::GetModelMetadataResponse* response) {
  return ToGrpcStatus(HandleGetModelMetadata(*manager_, *request, response));
}

grpc::Status PredictionServiceImpl::Classify(grpc::ServerContext*,
                                             const serving::ClassificationRequest* request,
                                             serving::ClassificationResponse* response) {
  return ToGrpcStatus(HandleClassify(*manager_, *request, response));
}

grpc::Status PredictionServiceImpl::Regress(grpc::ServerContext*,
                                            const serving::RegressionRequest* request,
                                            serving::RegressionResponse* response) {
  return ToGrpcStatus(HandleRegress(*manager_, *request, response));
}

grpc::Status PredictionServiceImpl::MultiInference(grpc::ServerContext*,
                                                   const serving::MultiInferenceRequest* request,
                                                   serving::MultiInferenceResponse* response) {
  return ToGrpcStatus(HandleMultiInference(*manager_, *request, response));
}

grpc::Status ModelServiceImpl::GetModelStatus(grpc::ServerContext*,
                                              const serving::GetModelStatusRequest* request,
                                              serving::GetModelStatusResponse* response) {
  return ToGrpcStatus(HandleGetModelStatus(*manager_, *request, response));
}

grpc::Status ModelServiceImpl::HandleReloadConfigRequest(grpc::ServerContext*,
                                                         const serving::ReloadConfigRequest*,
                                                         serving::ReloadConfigResponse*) {
  return NotYet("HandleReloadConfigRequest");
}

}  // namespace tensord
