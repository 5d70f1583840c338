#include "server/tfserving/services.h"

#include <chrono>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "server/model/model_config_proto.h"
#include "server/status/grpc_status.h"
#include "server/tfserving/handlers.h"
#include "server/tfserving/request_metrics.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

namespace {

// The client's deadline (gRPC reports "none" as the far future), and its cancellation.
CancellationToken TokenFor(grpc::ServerContext* context) {
  const auto deadline = context->deadline();
  const absl::Time until = deadline == std::chrono::system_clock::time_point::max()
                               ? absl::InfiniteFuture()
                               : absl::FromChrono(deadline);
  return CancellationToken(until, [context]() { return context->IsCancelled(); });
}

// "key=value" -> (key, value).
std::pair<std::string, std::string> SplitHeader(const std::string& header) {
  const size_t eq = header.find('=');
  return {header.substr(0, eq), eq == std::string::npos ? "" : header.substr(eq + 1)};
}

int64_t ExampleCount(const serving::Input& input) {
  return input.has_example_list_with_context()
             ? input.example_list_with_context().examples_size()
             : input.example_list().examples_size();
}

// What every inference RPC is served with.
struct ServeEnv {
  const ModelManager* manager;
  ServingMetrics* metrics;
  const RequestLimits* limits;
  Admission* admission;
};

// Runs `handle` for one inference RPC with the client's deadline, and records its metrics.
template <typename Request, typename Response, typename Handler>
grpc::Status Serve(const ServeEnv& env, const char* method, const std::string& model,
                   grpc::ServerContext* context, const Request& request, Response* response,
                   int64_t examples, Handler handle) {
  RequestMetrics request_metrics(env.metrics, method, Protocol::kGrpc, model, env.manager);
  const CancellationToken token = TokenFor(context);
  RequestContext request_context;
  request_context.cancellation = &token;
  request_context.limits = env.limits;
  request_context.admission = env.admission;
  absl::Status status = token.Check();
  if (status.ok()) status = handle(&request_context);
  request_metrics.Finish(status, request_context, request.ByteSizeLong(),
                         status.ok() ? response->ByteSizeLong() : 0, examples);
  return ToGrpcStatus(status);
}

}  // namespace

grpc::Status PredictionServiceImpl::Predict(grpc::ServerContext* context,
                                            const serving::PredictRequest* request,
                                            serving::PredictResponse* response) {
  return Serve({manager_, metrics_, &limits_, admission_}, "Predict", request->model_spec().name(), context,
               *request, response, -1, [&](RequestContext* rc) {
                 return HandlePredict(*manager_, *request, response, rc);
               });
}

grpc::Status PredictionServiceImpl::GetModelMetadata(
    grpc::ServerContext*, const serving::GetModelMetadataRequest* request,
    serving::GetModelMetadataResponse* response) {
  return ToGrpcStatus(HandleGetModelMetadata(*manager_, *request, response));
}

grpc::Status PredictionServiceImpl::Classify(grpc::ServerContext* context,
                                             const serving::ClassificationRequest* request,
                                             serving::ClassificationResponse* response) {
  return Serve({manager_, metrics_, &limits_, admission_}, "Classify", request->model_spec().name(), context,
               *request, response, ExampleCount(request->input()), [&](RequestContext* rc) {
                 return HandleClassify(*manager_, *request, response, rc);
               });
}

grpc::Status PredictionServiceImpl::Regress(grpc::ServerContext* context,
                                            const serving::RegressionRequest* request,
                                            serving::RegressionResponse* response) {
  return Serve({manager_, metrics_, &limits_, admission_}, "Regress", request->model_spec().name(), context,
               *request, response, ExampleCount(request->input()), [&](RequestContext* rc) {
                 return HandleRegress(*manager_, *request, response, rc);
               });
}

grpc::Status PredictionServiceImpl::MultiInference(grpc::ServerContext* context,
                                                   const serving::MultiInferenceRequest* request,
                                                   serving::MultiInferenceResponse* response) {
  const std::string model =
      request->tasks_size() > 0 ? request->tasks(0).model_spec().name() : std::string();
  return Serve({manager_, metrics_, &limits_, admission_}, "MultiInference", model, context, *request, response,
               ExampleCount(request->input()), [&](RequestContext* rc) {
                 return HandleMultiInference(*manager_, *request, response, rc);
               });
}

grpc::Status ModelServiceImpl::GetModelStatus(grpc::ServerContext*,
                                              const serving::GetModelStatusRequest* request,
                                              serving::GetModelStatusResponse* response) {
  return ToGrpcStatus(HandleGetModelStatus(*manager_, *request, response));
}

grpc::Status ModelServiceImpl::CheckManagementAccess(const grpc::ServerContext& context) const {
  if (!access_.enabled) {
    return ToGrpcStatus(absl::PermissionDeniedError(
        "model management is disabled on this server (--enable_model_management=false)"));
  }
  if (access_.required_header.empty()) return grpc::Status::OK;
  const auto [key, value] = SplitHeader(access_.required_header);
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  if (it == metadata.end() || absl::string_view(it->second.data(), it->second.size()) != value) {
    return ToGrpcStatus(absl::UnauthenticatedError(
        absl::StrCat("model management needs the '", key, "' header (--model_management_header)")));
  }
  return grpc::Status::OK;
}

grpc::Status ModelServiceImpl::HandleReloadConfigRequest(
    grpc::ServerContext* context, const serving::ReloadConfigRequest* request,
    serving::ReloadConfigResponse* response) {
  if (grpc::Status access = CheckManagementAccess(*context); !access.ok()) return access;
  absl::Status status;
  if (!request->config().has_model_config_list()) {
    status = absl::InvalidArgumentError(
        "ServerModelConfig type not supported by HandleReloadConfigRequest. Only "
        "ModelConfigList is currently supported");
  } else if (absl::StatusOr<std::vector<ModelConfig>> configs =
                 ModelConfigsFromProto(request->config());
             !configs.ok()) {
    status = configs.status();
  } else {
    status = manager_->ApplyConfig(*configs);
  }
  // TF Serving reports the outcome twice: in the response body and as the RPC status.
  response->mutable_status()->set_error_code(
      static_cast<::tensorflow::error::Code>(static_cast<int>(status.code())));
  response->mutable_status()->set_error_message(std::string(status.message()));
  return ToGrpcStatus(status);
}

}  // namespace tensord
