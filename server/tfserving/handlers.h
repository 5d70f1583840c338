// TF Serving API request handling (Predict, GetModelMetadata, GetModelStatus) against a
// ModelManager. Errors are absl::Status with TF Serving's codes and messages; the gRPC layer
// (services.h) converts them.
#ifndef TENSORD_SERVER_TFSERVING_HANDLERS_H_
#define TENSORD_SERVER_TFSERVING_HANDLERS_H_

#include "absl/status/status.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/predict.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

absl::Status HandlePredict(const ModelManager& manager,
                           const ::tensorflow::serving::PredictRequest& request,
                           ::tensorflow::serving::PredictResponse* response);

absl::Status HandleGetModelMetadata(const ModelManager& manager,
                                    const ::tensorflow::serving::GetModelMetadataRequest& request,
                                    ::tensorflow::serving::GetModelMetadataResponse* response);

absl::Status HandleGetModelStatus(const ModelManager& manager,
                                  const ::tensorflow::serving::GetModelStatusRequest& request,
                                  ::tensorflow::serving::GetModelStatusResponse* response);

}  // namespace tensord

#endif  // TENSORD_SERVER_TFSERVING_HANDLERS_H_
