#include "server/tfserving/handlers.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/saved_model/loader.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

namespace {

std::optional<int64_t> RequestedVersion(const serving::ModelSpec& spec) {
  if (spec.has_version()) return spec.version().value();
  return std::nullopt;
}

absl::Status CheckNoLabel(const serving::ModelSpec& spec) {
  if (spec.version_choice_case() == serving::ModelSpec::kVersionLabel) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unrecognized servable version label: ", spec.version_label()));
  }
  return absl::OkStatus();
}

// TF Serving's input-count check, with its message format.
absl::Status CheckInputAliases(const serving::PredictRequest& request,
                               const ::tensorflow::SignatureDef& signature) {
  std::set<std::string> sent, expected;
  for (const auto& [alias, unused] : request.inputs()) sent.insert(alias);
  for (const auto& [alias, unused] : signature.inputs()) expected.insert(alias);
  std::vector<std::string> extra, missing;
  for (const auto& alias : sent) {
    if (expected.count(alias) == 0) extra.push_back(alias);
  }
  for (const auto& alias : expected) {
    if (sent.count(alias) == 0 && signature.defaults().count(alias) == 0) missing.push_back(alias);
  }
  const bool size_mismatch =
      sent.size() > expected.size() ||
      (sent.size() < expected.size() && signature.defaults().empty());
  if (size_mismatch) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input size does not match signature: ", sent.size(), "!=", expected.size(),
        " len({", absl::StrJoin(sent, ","), "}) != len({", absl::StrJoin(expected, ","),
        "}). Sent extra: {", absl::StrJoin(extra, ","), "}. Missing but required: {",
        absl::StrJoin(missing, ","), "}."));
  }
  if (!extra.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input tensor alias not found in signature: ", extra.front(),
        ". Inputs expected to be in the set {", absl::StrJoin(expected, ","), "}."));
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Missing but required input: ", absl::StrJoin(missing, ","), "."));
  }
  return absl::OkStatus();
}

absl::Status CheckOutputFilter(const serving::PredictRequest& request,
                               const ::tensorflow::SignatureDef& signature) {
  std::set<std::string> seen, expected;
  for (const auto& [alias, unused] : signature.outputs()) expected.insert(alias);
  for (const auto& alias : request.output_filter()) {
    if (expected.count(alias) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output tensor alias not found in signature: ", alias,
          " Outputs expected to be in the set {", absl::StrJoin(expected, ","), "}."));
    }
    if (!seen.insert(alias).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate output tensor alias: ", alias));
    }
  }
  return absl::OkStatus();
}

void FillModelSpec(const ServableHandle& handle, const std::string& signature_name,
                   serving::ModelSpec* spec) {
  spec->set_name(handle.name);
  spec->mutable_version()->set_value(handle.version);
  spec->set_signature_name(signature_name);
}

}  // namespace

absl::Status HandlePredict(const ModelManager& manager, const serving::PredictRequest& request,
                           serving::PredictResponse* response) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  const serving::ModelSpec& spec = request.model_spec();
  if (absl::Status s = CheckNoLabel(spec); !s.ok()) return s;
  absl::StatusOr<ServableHandle> handle = manager.GetServable(spec.name(), RequestedVersion(spec));
  if (!handle.ok()) return handle.status();

  const std::string signature_name =
      spec.signature_name().empty() ? kDefaultServingSignature : spec.signature_name();
  const auto& signature_defs = handle->bundle->meta_graph_def().signature_def();
  auto sig_it = signature_defs.find(signature_name);
  if (sig_it == signature_defs.end() || signature_name == kInitOpSignature) {
    return absl::FailedPreconditionError(
        absl::StrCat("Serving signature key \"", signature_name, "\" not found."));
  }
  if (absl::Status s = CheckInputAliases(request, sig_it->second); !s.ok()) return s;
  if (absl::Status s = CheckOutputFilter(request, sig_it->second); !s.ok()) return s;

  std::map<std::string, Tensor> inputs;
  for (const auto& [alias, proto] : request.inputs()) {
    absl::StatusOr<Tensor> tensor = TensorFromProto(proto);
    if (!tensor.ok()) {
      return absl::Status(tensor.status().code(),
                          absl::StrCat("input ", alias, ": ", tensor.status().message()));
    }
    inputs.emplace(alias, *std::move(tensor));
  }
  std::vector<std::string> output_filter(request.output_filter().begin(),
                                         request.output_filter().end());
  absl::StatusOr<std::map<std::string, Tensor>> outputs =
      handle->bundle->RunSignature(signature_name, inputs, output_filter);
  if (!outputs.ok()) return outputs.status();

  response->Clear();
  FillModelSpec(*handle, signature_name, response->mutable_model_spec());
  auto* out_map = response->mutable_outputs();
  for (const auto& [alias, tensor] : *outputs) {
    TensorToProto(tensor, &(*out_map)[alias], /*use_tensor_content=*/true);
  }
  return absl::OkStatus();
}

absl::Status HandleGetModelMetadata(const ModelManager& manager,
                                    const serving::GetModelMetadataRequest& request,
                                    serving::GetModelMetadataResponse* response) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  if (request.metadata_field_size() == 0) {
    return absl::InvalidArgumentError(
        "GetModelMetadataRequest must specify at least one metadata_field");
  }
  for (const std::string& field : request.metadata_field()) {
    if (field != "signature_def") {
      return absl::InvalidArgumentError(
          absl::StrCat("Metadata field ", field, " is not supported"));
    }
  }
  const serving::ModelSpec& spec = request.model_spec();
  if (absl::Status s = CheckNoLabel(spec); !s.ok()) return s;
  absl::StatusOr<ServableHandle> handle = manager.GetServable(spec.name(), RequestedVersion(spec));
  if (!handle.ok()) return handle.status();

  serving::SignatureDefMap signature_map;
  // All SignatureDefs, including __saved_model_init_op, as TF Serving reports them.
  for (const auto& [key, def] : handle->bundle->meta_graph_def().signature_def()) {
    (*signature_map.mutable_signature_def())[key] = def;
  }
  response->Clear();
  response->mutable_model_spec()->set_name(handle->name);
  response->mutable_model_spec()->mutable_version()->set_value(handle->version);
  (*response->mutable_metadata())["signature_def"].PackFrom(signature_map);
  return absl::OkStatus();
}

absl::Status HandleGetModelStatus(const ModelManager& manager,
                                  const serving::GetModelStatusRequest& request,
                                  serving::GetModelStatusResponse* response) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  const serving::ModelSpec& spec = request.model_spec();
  absl::StatusOr<std::vector<VersionStatus>> statuses =
      manager.GetVersionStatus(spec.name(), RequestedVersion(spec));
  if (!statuses.ok()) return statuses.status();
  response->Clear();
  for (const VersionStatus& vs : *statuses) {
    serving::ModelVersionStatus* out = response->add_model_version_status();
    out->set_version(vs.version);
    out->set_state(static_cast<serving::ModelVersionStatus::State>(static_cast<int>(vs.state)));
    out->mutable_status()->set_error_code(
        static_cast<::tensorflow::error::Code>(static_cast<int>(vs.status.code())));
    out->mutable_status()->set_error_message(std::string(vs.status.message()));
  }
  return absl::OkStatus();
}

}  // namespace tensord
