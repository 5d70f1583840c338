#include "server/tfserving/handlers.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/framework/types.h"
#include "runtime/saved_model/loader.h"
#include "runtime/util/status_macros.h"
#include "server/tfserving/request_limits.h"

namespace tensord {

namespace serving = ::tensorflow::serving;

namespace {

std::optional<int64_t> RequestedVersion(const serving::ModelSpec& spec) {
  if (spec.has_version()) return spec.version().value();
  return std::nullopt;
}

// ModelSpec → servable: version, version_label (via the model's version_labels), or latest.
absl::StatusOr<ServableHandle> ResolveServable(const ModelManager& manager,
                                               const serving::ModelSpec& spec) {
  if (spec.version_choice_case() == serving::ModelSpec::kVersionLabel) {
    return manager.GetServableByLabel(spec.name(), spec.version_label());
  }
  return manager.GetServable(spec.name(), RequestedVersion(spec));
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

// ---- Classify / Regress / MultiInference ----

constexpr char kClassifyMethod[] = "tensorflow/serving/classify";
constexpr char kRegressMethod[] = "tensorflow/serving/regress";
constexpr char kInputsKey[] = "inputs";
constexpr char kClassesKey[] = "classes";
constexpr char kScoresKey[] = "scores";
constexpr char kOutputsKey[] = "outputs";

std::string ShapeString(const Tensor& t) {
  std::vector<int64_t> dims;
  for (int i = 0; i < t.dims(); ++i) dims.push_back(t.dim_size(i));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The request's Examples as a DT_STRING [N] tensor. With a context, the context's bytes are
// prepended to each example's (protobuf concatenation merges; example features win).
absl::StatusOr<Tensor> SerializeInput(const serving::Input& input) {
  std::vector<std::string> serialized;
  if (input.kind_case() == serving::Input::kExampleList) {
    for (const auto& example : input.example_list().examples()) {
      serialized.push_back(example.SerializeAsString());
    }
  } else if (input.kind_case() == serving::Input::kExampleListWithContext) {
    const auto& with_context = input.example_list_with_context();
    const std::string context = with_context.has_context()
                                    ? with_context.context().SerializeAsString()
                                    : std::string();
    for (const auto& example : with_context.examples()) {
      serialized.push_back(context + example.SerializeAsString());
    }
  }
  if (serialized.empty()) return absl::InvalidArgumentError("Input is empty.");
  Tensor tensor(DT_STRING, TensorShape{static_cast<int64_t>(serialized.size())});
  std::string* data = tensor.data<std::string>();
  for (size_t i = 0; i < serialized.size(); ++i) data[i] = std::move(serialized[i]);
  return tensor;
}

std::string SignatureName(const serving::ModelSpec& spec) {
  return spec.signature_name().empty() ? kDefaultServingSignature : spec.signature_name();
}

absl::StatusOr<const ::tensorflow::SignatureDef*> FindSignature(const ServableHandle& handle,
                                                                const std::string& name) {
  const auto& defs = handle.bundle->meta_graph_def().signature_def();
  auto it = defs.find(name);
  if (it == defs.end() || name == kInitOpSignature) {
    return absl::InvalidArgumentError(
        absl::StrCat("No signature was found with the name: ", name));
  }
  return &it->second;
}

absl::Status CheckSingleInput(const ::tensorflow::SignatureDef& signature, const char* kind) {
  if (signature.inputs().size() != 1) {
    return absl::InvalidArgumentError("Expected one input Tensor.");
  }
  if (signature.inputs().count(kInputsKey) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("No ", kind, " inputs found in SignatureDef: ", signature.DebugString()));
  }
  return absl::OkStatus();
}

// Feeds the serialized Examples to the signature's `inputs` tensor and fetches `output_aliases`.
// Like TF Serving, the signature's declared input dtype is not trusted (old exports declare
// DT_FLOAT for the string placeholder); the graph's own dtype for that tensor decides.
absl::StatusOr<std::map<std::string, Tensor>> RunOnExamples(
    const ServableHandle& handle, const std::string& signature_name,
    const ::tensorflow::SignatureDef& signature, const Tensor& examples,
    const std::vector<std::string>& output_aliases, RequestContext& context) {
  const ::tensorflow::TensorInfo& input = signature.inputs().at(kInputsKey);
  if (input.encoding_case() != ::tensorflow::TensorInfo::kName) {
    return absl::InvalidArgumentError("Expected a dense input Tensor named inputs.");
  }
  DataType input_dtype = handle.bundle->GraphInputDtype(input.name());
  if (input_dtype == DT_INVALID) input_dtype = BaseType(input.dtype());
  if (input_dtype != DT_STRING) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 'inputs' of signature '", signature_name, "' expects ",
        DataTypeString(input_dtype), " but Classify/Regress feed serialized tf.Examples (string)"));
  }
  std::vector<std::string> fetches;
  for (const std::string& alias : output_aliases) {
    const ::tensorflow::TensorInfo& info = signature.outputs().at(alias);
    if (info.encoding_case() != ::tensorflow::TensorInfo::kName) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected a dense output Tensor for ", alias));
    }
    fetches.push_back(info.name());
  }
  std::vector<Tensor> values;
  RunOptions run_options;
  run_options.cancellation = context.cancellation;
  const absl::Time start = absl::Now();
  absl::Status s = handle.bundle->session()->Run({{input.name(), examples}}, fetches, {},
                                                 run_options, &values);
  context.runtime += absl::Now() - start;
  if (!s.ok()) return s;
  if (values.size() != fetches.size()) {
    return absl::InternalError("Session returned a wrong number of outputs");
  }
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < output_aliases.size(); ++i) out[output_aliases[i]] = std::move(values[i]);
  return out;
}

absl::Status RunClassify(const ServableHandle& handle, const std::string& signature_name,
                         const Tensor& examples, serving::ClassificationResult* result,
                         RequestContext& context) {
  absl::StatusOr<const ::tensorflow::SignatureDef*> signature =
      FindSignature(handle, signature_name);
  if (!signature.ok()) return signature.status();
  if (absl::Status s = CheckSingleInput(**signature, "classification"); !s.ok()) return s;
  const auto& outputs_def = (*signature)->outputs();
  if (outputs_def.size() != 1 && outputs_def.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected one or two output Tensors, found ", outputs_def.size()));
  }
  std::vector<std::string> filter;
  if (outputs_def.count(kClassesKey) != 0) filter.push_back(kClassesKey);
  if (outputs_def.count(kScoresKey) != 0) filter.push_back(kScoresKey);
  if (filter.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected classification signature outputs to contain at least one of {\"",
        kClassesKey, "\", \"", kScoresKey, "\"}."));
  }
  absl::StatusOr<std::map<std::string, Tensor>> outputs =
      RunOnExamples(handle, signature_name, **signature, examples, filter, context);
  if (!outputs.ok()) return outputs.status();

  const int64_t batch = examples.NumElements();
  const Tensor* classes = nullptr;
  const Tensor* scores = nullptr;
  int64_t num_classes = -1;
  if (auto it = outputs->find(kClassesKey); it != outputs->end()) {
    classes = &it->second;
    if (classes->dtype() != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat("Expected classes Tensor of DT_STRING. Got: ",
                                                     DataTypeString(classes->dtype())));
    }
    if (classes->dims() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected Tensor shape: [batch_size num_classes] but got ", ShapeString(*classes)));
    }
    if (classes->dim_size(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat("Expected classes output batch size of ",
                                                     batch, ". Got: ", classes->dim_size(0)));
    }
    num_classes = classes->dim_size(1);
  }
  if (auto it = outputs->find(kScoresKey); it != outputs->end()) {
    scores = &it->second;
    if (scores->dtype() != DT_FLOAT) {
      return absl::InvalidArgumentError(absl::StrCat("Expected scores Tensor of DT_FLOAT. Got: ",
                                                     DataTypeString(scores->dtype())));
    }
    if (scores->dims() != 1 && scores->dims() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected Tensor shape: [batch_size num_classes] but got ", ShapeString(*scores)));
    }
    if (scores->dim_size(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat("Expected scores output batch size of ",
                                                     batch, ". Got: ", scores->dim_size(0)));
    }
    const int64_t score_classes = scores->dims() == 2 ? scores->dim_size(1) : 1;
    if (num_classes >= 0 && score_classes != num_classes) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensors class and score should match in shape. classes: ",
                       ShapeString(*classes), " scores: ", ShapeString(*scores)));
    }
    num_classes = score_classes;
  }

  result->Clear();
  const std::string* class_data = classes != nullptr ? classes->data<std::string>() : nullptr;
  const float* score_data = scores != nullptr ? scores->data<float>() : nullptr;
  for (int64_t i = 0; i < batch; ++i) {
    serving::Classifications* per_example = result->add_classifications();
    for (int64_t j = 0; j < num_classes; ++j) {
      serving::Class* c = per_example->add_classes();
      if (class_data != nullptr) c->set_label(class_data[i * num_classes + j]);
      if (score_data != nullptr) c->set_score(score_data[i * num_classes + j]);
    }
  }
  return absl::OkStatus();
}

absl::Status RunRegress(const ServableHandle& handle, const std::string& signature_name,
                        const Tensor& examples, serving::RegressionResult* result,
                        RequestContext& context) {
  absl::StatusOr<const ::tensorflow::SignatureDef*> signature =
      FindSignature(handle, signature_name);
  if (!signature.ok()) return signature.status();
  if (absl::Status s = CheckSingleInput(**signature, "regression"); !s.ok()) return s;
  if ((*signature)->outputs().size() != 1) {
    return absl::InvalidArgumentError("Expected one output Tensor.");
  }
  if ((*signature)->outputs().count(kOutputsKey) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "No regression outputs found in SignatureDef: ", (*signature)->DebugString()));
  }
  absl::StatusOr<std::map<std::string, Tensor>> outputs =
      RunOnExamples(handle, signature_name, **signature, examples, {kOutputsKey}, context);
  if (!outputs.ok()) return outputs.status();
  const Tensor& out = outputs->at(kOutputsKey);
  const int64_t batch = examples.NumElements();
  if (out.dtype() != DT_FLOAT) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected output Tensor of DT_FLOAT.  Got: ", DataTypeString(out.dtype())));
  }
  const bool shape_ok = (out.dims() == 1 && out.dim_size(0) == batch) ||
                        (out.dims() == 2 && out.dim_size(0) == batch && out.dim_size(1) == 1);
  if (!shape_ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got ",
        ShapeString(out)));
  }
  result->Clear();
  const float* values = out.data<float>();
  for (int64_t i = 0; i < batch; ++i) result->add_regressions()->set_value(values[i]);
  return absl::OkStatus();
}

// Resolves the request's servable, records it in `context`, and runs `on` against it.
template <typename Request, typename Response>
absl::Status OnResolved(const ModelManager& manager, const serving::ModelSpec& spec,
                        const Request& request, Response* response, RequestContext* context,
                        absl::Status (*on)(const ServableHandle&, const Request&, Response*,
                                           RequestContext*)) {
  if (context != nullptr) context->model = spec.name();
  absl::StatusOr<ServableHandle> handle = ResolveServable(manager, spec);
  if (!handle.ok()) return handle.status();
  TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, AdmitRequest(*handle, context));
  return on(*handle, request, response, context);
}

// The context a handler writes to: the caller's, or a scratch one.
RequestContext& ContextOrScratch(RequestContext* context, RequestContext* scratch) {
  return context != nullptr ? *context : *scratch;
}

void RecordResolved(const ServableHandle& handle, const std::string& signature_name,
                    RequestContext& context) {
  context.model = handle.name;
  context.version = handle.version;
  context.signature = signature_name;
}

// TF Serving's MultiInference checks that need no model.
absl::Status CheckMultiInferenceTasks(const serving::MultiInferenceRequest& request,
                                      std::set<std::string>* signature_names) {
  if (request.tasks_size() == 0) {
    return absl::InvalidArgumentError("Expected at least one task in a MultiInferenceRequest.");
  }
  const std::string& model_name = request.tasks(0).model_spec().name();
  for (const serving::InferenceTask& task : request.tasks()) {
    if (task.model_spec().name().empty()) {
      return absl::InvalidArgumentError("Found ModelSpec with an empty model name.");
    }
    if (task.model_spec().name() != model_name) {
      return absl::InvalidArgumentError(
          "All ModelSpecs in a MultiInferenceRequest must access the same model name.");
    }
    const std::string signature_name = SignatureName(task.model_spec());
    if (!signature_names->insert(signature_name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Duplicate evaluation of signature: ", signature_name));
    }
    if (task.method_name() != kClassifyMethod && task.method_name() != kRegressMethod) {
      return absl::UnimplementedError(
          absl::StrCat("Unsupported signature method_name: ", task.method_name()));
    }
  }
  return absl::OkStatus();
}

// Classify or Regress on `handle`: `run` turns the serialized examples into the result.
template <typename Request, typename Response, typename Result>
absl::Status ExamplesOn(const ServableHandle& handle, const Request& request, Response* response,
                        RequestContext* context,
                        absl::Status (*run)(const ServableHandle&, const std::string&,
                                            const Tensor&, Result*, RequestContext&)) {
  RequestContext scratch;
  RequestContext& ctx = ContextOrScratch(context, &scratch);
  const std::string signature_name = SignatureName(request.model_spec());
  RecordResolved(handle, signature_name, ctx);
  TENSORD_ASSIGN_OR_RETURN(Tensor examples, SerializeInput(request.input()));
  Result result;
  TENSORD_RETURN_IF_ERROR(run(handle, signature_name, examples, &result, ctx));
  response->Clear();
  *response->mutable_result() = std::move(result);
  FillModelSpec(handle, signature_name, response->mutable_model_spec());
  return absl::OkStatus();
}

}  // namespace

absl::Status ClassifyOn(const ServableHandle& handle, const serving::ClassificationRequest& request,
                        serving::ClassificationResponse* response, RequestContext* context) {
  return ExamplesOn(handle, request, response, context, &RunClassify);
}

absl::Status RegressOn(const ServableHandle& handle, const serving::RegressionRequest& request,
                       serving::RegressionResponse* response, RequestContext* context) {
  return ExamplesOn(handle, request, response, context, &RunRegress);
}

absl::Status MultiInferenceOn(const ServableHandle& handle,
                              const serving::MultiInferenceRequest& request,
                              serving::MultiInferenceResponse* response,
                              RequestContext* context) {
  RequestContext scratch;
  RequestContext& ctx = ContextOrScratch(context, &scratch);
  std::set<std::string> signature_names;
  TENSORD_RETURN_IF_ERROR(CheckMultiInferenceTasks(request, &signature_names));
  RecordResolved(handle, SignatureName(request.tasks(0).model_spec()), ctx);
  const auto& defs = handle.bundle->meta_graph_def().signature_def();
  for (const std::string& name : signature_names) {
    if (defs.count(name) == 0 || name == kInitOpSignature) {
      return absl::InvalidArgumentError(
          absl::StrCat("Requested signature not found in model graph: ", name));
    }
  }
  absl::StatusOr<Tensor> examples = SerializeInput(request.input());
  if (!examples.ok()) return examples.status();

  serving::MultiInferenceResponse out;
  for (const serving::InferenceTask& task : request.tasks()) {
    const std::string signature_name = SignatureName(task.model_spec());
    serving::InferenceResult* result = out.add_results();
    FillModelSpec(handle, signature_name, result->mutable_model_spec());
    absl::Status s = task.method_name() == kClassifyMethod
                         ? RunClassify(handle, signature_name, *examples,
                                       result->mutable_classification_result(), ctx)
                         : RunRegress(handle, signature_name, *examples,
                                      result->mutable_regression_result(), ctx);
    if (!s.ok()) return s;
  }
  *response = std::move(out);
  return absl::OkStatus();
}

absl::Status PredictOn(const ServableHandle& handle, const serving::PredictRequest& request,
                       serving::PredictResponse* response, RequestContext* context) {
  RequestContext scratch;
  RequestContext& ctx = ContextOrScratch(context, &scratch);
  const serving::ModelSpec& spec = request.model_spec();
  const std::string signature_name = SignatureName(spec);
  RecordResolved(handle, signature_name, ctx);
  const auto& signature_defs = handle.bundle->meta_graph_def().signature_def();
  auto sig_it = signature_defs.find(signature_name);
  if (sig_it == signature_defs.end() || signature_name == kInitOpSignature) {
    return absl::FailedPreconditionError(
        absl::StrCat("Serving signature key \"", signature_name, "\" not found."));
  }
  RequestBudget budget(ctx.limits != nullptr ? *ctx.limits : RequestLimits());
  TENSORD_RETURN_IF_ERROR(budget.CheckInputCount(request.inputs_size()));
  if (absl::Status s = CheckInputAliases(request, sig_it->second); !s.ok()) return s;
  if (absl::Status s = CheckOutputFilter(request, sig_it->second); !s.ok()) return s;

  std::map<std::string, Tensor> inputs;
  for (const auto& [alias, proto] : request.inputs()) {
    TENSORD_ASSIGN_OR_RETURN(
        Tensor tensor,
        budget.Decode(alias, proto, sig_it->second.inputs().at(alias), signature_name));
    inputs.emplace(alias, std::move(tensor));
  }
  std::vector<std::string> output_filter(request.output_filter().begin(),
                                         request.output_filter().end());
  RunOptions run_options;
  run_options.cancellation = ctx.cancellation;
  const absl::Time start = absl::Now();
  RunStats stats;
  absl::StatusOr<std::map<std::string, Tensor>> outputs =
      handle.runner != nullptr
          ? handle.runner->Run(signature_name, inputs, output_filter, run_options, &stats)
          : handle.bundle->RunSignature(signature_name, inputs, output_filter, run_options);
  ctx.runtime += absl::Now() - start - stats.queued;
  if (!outputs.ok()) return outputs.status();

  response->Clear();
  FillModelSpec(handle, signature_name, response->mutable_model_spec());
  auto* out_map = response->mutable_outputs();
  for (const auto& [alias, tensor] : *outputs) {
    TensorToProto(tensor, &(*out_map)[alias], /*use_tensor_content=*/true);
  }
  return absl::OkStatus();
}

absl::StatusOr<Admission::Slot> AdmitRequest(const ServableHandle& handle,
                                             RequestContext* context) {
  if (context == nullptr || context->admission == nullptr) return Admission::Slot();
  return context->admission->Admit(handle.name, context->cancellation,
                                   context->admission_ticket);
}

absl::Status HandlePredict(const ModelManager& manager, const serving::PredictRequest& request,
                           serving::PredictResponse* response, RequestContext* context) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  return OnResolved(manager, request.model_spec(), request, response, context, &PredictOn);
}

absl::Status HandleClassify(const ModelManager& manager,
                            const serving::ClassificationRequest& request,
                            serving::ClassificationResponse* response, RequestContext* context) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  return OnResolved(manager, request.model_spec(), request, response, context, &ClassifyOn);
}

absl::Status HandleRegress(const ModelManager& manager, const serving::RegressionRequest& request,
                           serving::RegressionResponse* response, RequestContext* context) {
  if (!request.has_model_spec()) return absl::InvalidArgumentError("Missing ModelSpec");
  return OnResolved(manager, request.model_spec(), request, response, context, &RegressOn);
}

absl::Status HandleMultiInference(const ModelManager& manager,
                                  const serving::MultiInferenceRequest& request,
                                  serving::MultiInferenceResponse* response,
                                  RequestContext* context) {
  std::set<std::string> signature_names;
  TENSORD_RETURN_IF_ERROR(CheckMultiInferenceTasks(request, &signature_names));
  // The servable is resolved once from the first task's spec, so every task sees one version.
  return OnResolved(manager, request.tasks(0).model_spec(), request, response, context,
                    &MultiInferenceOn);
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
  absl::StatusOr<ServableHandle> handle = ResolveServable(manager, spec);
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
