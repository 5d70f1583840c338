#include "server/model/model_config_proto.h"

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"

namespace tensord {

absl::StatusOr<std::vector<ModelConfig>> ModelConfigsFromProto(
    const ::tensorflow::serving::ModelServerConfig& config) {
  if (!config.has_model_config_list()) {
    return absl::InvalidArgumentError(
        "only model_config_list is supported (custom_model_config is not)");
  }
  std::vector<ModelConfig> configs;
  std::set<std::string> names;
  for (const auto& model : config.model_config_list().config()) {
    if (model.name().empty()) return absl::InvalidArgumentError("a model config has no name");
    if (!names.insert(model.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Illegal to list model ", model.name(), " multiple times in config list"));
    }
    if (model.base_path().empty() || model.base_path()[0] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected model ", model.name(),
                       " to have an absolute path or URI; got base_path()=", model.base_path()));
    }
    if (model.model_platform().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Illegal setting neither ModelServerConfig::model_type (deprecated) nor "
          "ModelServerConfig::model_platform, model name is ",
          model.name()));
    }
    if (model.model_platform() != "tensorflow") {
      return absl::InvalidArgumentError(absl::StrCat("model ", model.name(),
                                                     ": unsupported model_platform '",
                                                     model.model_platform(),
                                                     "' (only 'tensorflow' is served)"));
    }
    ModelConfig out;
    out.name = model.name();
    out.base_path = model.base_path();
    const auto& policy = model.model_version_policy();
    if (policy.has_all()) {
      out.policy = VersionPolicy::kAll;
    } else if (policy.has_specific()) {
      out.policy = VersionPolicy::kSpecific;
      out.versions.assign(policy.specific().versions().begin(),
                          policy.specific().versions().end());
    } else {
      out.policy = VersionPolicy::kLatest;
      out.num_versions = policy.has_latest() ? static_cast<int>(policy.latest().num_versions()) : 1;
    }
    for (const auto& [label, version] : model.version_labels()) out.labels[label] = version;
    if (!model.device_policy().empty()) {
      absl::StatusOr<DevicePolicy> device = ParseDevicePolicy(model.device_policy());
      if (!device.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("model ", model.name(), ": ", device.status().message()));
      }
      out.device_policy = *device;
    }
    if (!model.precision().empty()) {
      absl::StatusOr<ComputePrecision> precision = ParsePrecision(model.precision());
      if (!precision.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("model ", model.name(), ": ", precision.status().message()));
      }
      out.precision = *precision;
    }
    configs.push_back(std::move(out));
  }
  return configs;
}

absl::StatusOr<std::vector<ModelConfig>> ReadModelConfigFile(const std::string& path) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("invalid model config file ", path, ": ", why));
  };
  std::ifstream in(path);
  if (!in) return fail("cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  ::tensorflow::serving::ModelServerConfig config;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &config)) {
    return fail("not a text-format ModelServerConfig");
  }
  auto configs = ModelConfigsFromProto(config);
  if (!configs.ok()) return fail(configs.status().message());
  return configs;
}

}  // namespace tensord
