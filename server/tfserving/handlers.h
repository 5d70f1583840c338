// TF Serving API request handling (Predict, Classify, Regress, MultiInference,
// GetModelMetadata, GetModelStatus) against a ModelManager. Errors are absl::Status with
// TF Serving's codes and messages; the gRPC layer (services.h) converts them.
#ifndef TENSORD_SERVER_TFSERVING_HANDLERS_H_
#define TENSORD_SERVER_TFSERVING_HANDLERS_H_

#include "absl/status/status.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/classification.pb.h"
#include "protos/serving/inference.pb.h"
#include "protos/serving/predict.pb.h"
#include "protos/serving/regression.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

absl::Status HandlePredict(const ModelManager& manager,
                           const ::tensorflow::serving::PredictRequest& request,
                           ::tensorflow::serving::PredictResponse* response);

// Classify/Regress feed the request's tf.Examples, serialized, as a DT_STRING [N] tensor to the
// signature's `inputs` alias. Signatures are selected by their input/output keys (`inputs`;
// `classes`/`scores`; `outputs`), not by method_name, since TF2 exports declare every
// signature as tensorflow/serving/predict.
absl::Status HandleClassify(const ModelManager& manager,
                            const ::tensorflow::serving::ClassificationRequest& request,
                            ::tensorflow::serving::ClassificationResponse* response);

absl::Status HandleRegress(const ModelManager& manager,
                           const ::tensorflow::serving::RegressionRequest& request,
                           ::tensorflow::serving::RegressionResponse* response);

// Runs each classify/regress task on the shared input; all tasks must name the same model.
absl::Status HandleMultiInference(const ModelManager& manager,
                                  const ::tensorflow::serving::MultiInferenceRequest& request,
                                  ::tensorflow::serving::MultiInferenceResponse* response);

absl::Status HandleGetModelMetadata(const ModelManager& manager,
                                    const ::tensorflow::serving::GetModelMetadataRequest& request,
                                    ::tensorflow::serving::GetModelMetadataResponse* response);

absl::Status HandleGetModelStatus(const ModelManager& manager,
                                  const ::tensorflow::serving::GetModelStatusRequest& request,
                                  ::tensorflow::serving::GetModelStatusResponse* response);

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_HANDLERS_H_
