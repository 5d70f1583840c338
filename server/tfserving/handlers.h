// TF Serving API request handling (Predict, Classify, Regress, MultiInference,
// GetModelMetadata, GetModelStatus) against a ModelManager. Errors are absl::Status with
// TF Serving's codes and messages; the gRPC and REST layers convert them.
//
// Each inference handler takes an optional RequestContext: its cancellation token stops the run
// (deadline, client gone) and the handler fills in what it resolved (model, version, signature,
// time spent in the runtime) for metrics. The *On forms run a request against one given version,
// ignoring the version choice in the request's ModelSpec (warmup uses them on a version that is
// not AVAILABLE yet).
#ifndef TENSORD_SERVER_TFSERVING_HANDLERS_H_
#define TENSORD_SERVER_TFSERVING_HANDLERS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/framework/cancellation.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/classification.pb.h"
#include "protos/serving/inference.pb.h"
#include "protos/serving/predict.pb.h"
#include "protos/serving/regression.pb.h"
#include "server/model/model_manager.h"
#include "server/tfserving/admission.h"
#include "server/tfserving/request_limits.h"

namespace tensord {

// Per-request settings, and what the handler resolved.
struct RequestContext {
  // Stops the run early when it fires; null = never. Not owned.
  const CancellationToken* cancellation = nullptr;
  // Bounds on the request's input tensors; null = RequestLimits' defaults. Not owned.
  const RequestLimits* limits = nullptr;
  // Per-model bounds on running and waiting requests, applied once the model is resolved;
  // null = none. Not owned.
  Admission* admission = nullptr;
  // The request's place in admission's line, taken when it arrived (REST); null = none. Used
  // up by AdmitRequest. Not owned.
  Admission::Ticket* admission_ticket = nullptr;
  // Filled in by the handler as far as it got (version -1 = not resolved).
  std::string model;
  int64_t version = -1;
  std::string signature;
  absl::Duration runtime = absl::ZeroDuration();  // time inside the graph runtime
};

absl::Status HandlePredict(const ModelManager& manager,
                           const ::tensorflow::serving::PredictRequest& request,
                           ::tensorflow::serving::PredictResponse* response,
                           RequestContext* context = nullptr);

// Classify/Regress feed the request's tf.Examples, serialized, as a DT_STRING [N] tensor to the
// signature's `inputs` alias. Signatures are selected by their input/output keys (`inputs`;
// `classes`/`scores`; `outputs`), not by method_name, since TF2 exports declare every
// signature as tensorflow/serving/predict.
absl::Status HandleClassify(const ModelManager& manager,
                            const ::tensorflow::serving::ClassificationRequest& request,
                            ::tensorflow::serving::ClassificationResponse* response,
                            RequestContext* context = nullptr);

absl::Status HandleRegress(const ModelManager& manager,
                           const ::tensorflow::serving::RegressionRequest& request,
                           ::tensorflow::serving::RegressionResponse* response,
                           RequestContext* context = nullptr);

// Runs each classify/regress task on the shared input; all tasks must name the same model.
absl::Status HandleMultiInference(const ModelManager& manager,
                                  const ::tensorflow::serving::MultiInferenceRequest& request,
                                  ::tensorflow::serving::MultiInferenceResponse* response,
                                  RequestContext* context = nullptr);

// A slot of context->admission for the request's model, held by the caller while the request
// runs (an empty slot when there is no context or admission). The Handle* forms take it
// themselves; front doors that resolve the servable and call an *On form take it first.
absl::StatusOr<Admission::Slot> AdmitRequest(const ServableHandle& handle,
                                             RequestContext* context);

absl::Status PredictOn(const ServableHandle& handle,
                       const ::tensorflow::serving::PredictRequest& request,
                       ::tensorflow::serving::PredictResponse* response,
                       RequestContext* context = nullptr);
absl::Status ClassifyOn(const ServableHandle& handle,
                        const ::tensorflow::serving::ClassificationRequest& request,
                        ::tensorflow::serving::ClassificationResponse* response,
                        RequestContext* context = nullptr);
absl::Status RegressOn(const ServableHandle& handle,
                       const ::tensorflow::serving::RegressionRequest& request,
                       ::tensorflow::serving::RegressionResponse* response,
                       RequestContext* context = nullptr);
absl::Status MultiInferenceOn(const ServableHandle& handle,
                              const ::tensorflow::serving::MultiInferenceRequest& request,
                              ::tensorflow::serving::MultiInferenceResponse* response,
                              RequestContext* context = nullptr);

absl::Status HandleGetModelMetadata(const ModelManager& manager,
                                    const ::tensorflow::serving::GetModelMetadataRequest& request,
                                    ::tensorflow::serving::GetModelMetadataResponse* response);

absl::Status HandleGetModelStatus(const ModelManager& manager,
                                  const ::tensorflow::serving::GetModelStatusRequest& request,
                                  ::tensorflow::serving::GetModelStatusResponse* response);

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_HANDLERS_H_
