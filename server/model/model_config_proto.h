// ModelServerConfig (TF Serving's text-format model config file, and the payload of
// ModelService.HandleReloadConfigRequest) → the manager's ModelConfig list, with TF Serving's
// validation rules and messages.
//
//   TENSORD_ASSIGN_OR_RETURN(std::vector<ModelConfig> configs, ReadModelConfigFile(path));
//   TENSORD_RETURN_IF_ERROR(manager.ApplyConfig(configs));
#ifndef TENSORD_SERVER_MODEL_MODEL_CONFIG_PROTO_H_
#define TENSORD_SERVER_MODEL_MODEL_CONFIG_PROTO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/serving/model_server_config.pb.h"
#include "server/model/model_manager.h"

namespace tensord {

// INVALID_ARGUMENT for: no model_config_list, a model without a name, a duplicate name, a
// relative base path, a missing or non-"tensorflow" model_platform.
absl::StatusOr<std::vector<ModelConfig>> ModelConfigsFromProto(
    const ::tensorflow::serving::ModelServerConfig& config);

// Reads `path` as a text-format ModelServerConfig and converts it; errors name the file.
absl::StatusOr<std::vector<ModelConfig>> ReadModelConfigFile(const std::string& path);

}  // namespace tensord

#endif  // TENSORD_SERVER_MODEL_MODEL_CONFIG_PROTO_H_
