#include "clients/tensorctl/remote.h"

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/util/example_json.h"
#include "runtime/util/json.h"
#include "clients/common/tensor_json.h"
#include "clients/tensorctl/model_list.h"
#include "clients/tensorctl/run_io.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/model_server_config.pb.h"
#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "protos/tensord/model_repository.grpc.pb.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;

int Fail(std::ostream& err, const absl::Status& status) {
  err << "tensorctl: " << status.message() << "\n";
  return 1;
}

int FailRpc(std::ostream& err, const grpc::Status& status) {
  err << "tensorctl: " << GrpcCodeName(status.error_code()) << ": " << status.error_message()
      << "\n";
  return 1;
}

void SetDeadline(const ServerArgs& args, grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(args.timeout_ms));
}

}  // namespace

void FillModelSpec(const ServerArgs& args, serving::ModelSpec* spec) {
  spec->set_name(args.model);
  if (args.version) spec->mutable_version()->set_value(*args.version);
  if (!args.version_label.empty()) spec->set_version_label(args.version_label);
}

absl::StatusOr<serving::SignatureDefMap> FetchSignatureDefMap(
    const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = serving::PredictionService::NewStub(channel);
  serving::GetModelMetadataRequest request;
  FillModelSpec(args, request.mutable_model_spec());
  request.add_metadata_field("signature_def");
  serving::GetModelMetadataResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->GetModelMetadata(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat(GrpcCodeName(status.error_code()), ": ",
                                     status.error_message()));
  }
  serving::SignatureDefMap signatures;
  auto it = response.metadata().find("signature_def");
  if (it == response.metadata().end() || !it->second.UnpackTo(&signatures)) {
    return absl::InternalError("the server's GetModelMetadata response has no signature_def map");
  }
  return signatures;
}

namespace {

// `with_defaults`: also the fields that hold their default value (an OK status, say).
absl::StatusOr<std::string> ProtoJson(const google::protobuf::Message& message,
                                      bool with_defaults = false) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = with_defaults;
  std::string text;
  auto status = google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("converting the response to JSON failed: ", status.ToString()));
  }
  return text;
}

// FetchSignatureDefMap; on an error, writes it to `err` and returns false with *rc set.
bool GetSignatures(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
                   serving::SignatureDefMap* signatures, std::ostream& err, int* rc) {
  absl::StatusOr<serving::SignatureDefMap> fetched = FetchSignatureDefMap(args, channel);
  if (!fetched.ok()) {
    *rc = Fail(err, fetched.status());
    return false;
  }
  *signatures = *std::move(fetched);
  return true;
}

int Metadata(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
             std::ostream& out, std::ostream& err) {
  serving::SignatureDefMap signatures;
  int rc = 1;
  if (!GetSignatures(args, channel, &signatures, err, &rc)) return rc;
  absl::StatusOr<std::string> text = ProtoJson(signatures);
  if (!text.ok()) return Fail(err, text.status());
  out << *text << "\n";
  return 0;
}

int Status(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
           std::ostream& out, std::ostream& err) {
  auto stub = serving::ModelService::NewStub(channel);
  serving::GetModelStatusRequest request;
  FillModelSpec(args, request.mutable_model_spec());
  serving::GetModelStatusResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->GetModelStatus(&context, request, &response);
  if (!status.ok()) return FailRpc(err, status);
  absl::StatusOr<std::string> text = ProtoJson(response);
  if (!text.ok()) return Fail(err, text.status());
  out << *text << "\n";
  return 0;
}

int Predict(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
            std::ostream& out, std::ostream& err) {
  // Bad JSON or .npy input fails before any RPC.
  absl::StatusOr<std::vector<ParsedInput>> parsed = ReadInputs(args.inputs);
  if (!parsed.ok()) return Fail(err, parsed.status());

  serving::SignatureDefMap signature_map;
  int rc = 1;
  if (!GetSignatures(args, channel, &signature_map, err, &rc)) return rc;
  const std::map<std::string, ::tensorflow::SignatureDef> signatures(
      signature_map.signature_def().begin(), signature_map.signature_def().end());
  absl::StatusOr<const ::tensorflow::SignatureDef*> signature =
      FindSignature(signatures, args.signature_def);
  if (!signature.ok()) return Fail(err, signature.status());
  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BuildInputs(args.signature_def, **signature, *parsed);
  if (!inputs.ok()) return Fail(err, inputs.status());

  serving::PredictRequest request;
  FillModelSpec(args, request.mutable_model_spec());
  request.mutable_model_spec()->set_signature_name(args.signature_def);
  for (const auto& [alias, tensor] : *inputs) {
    TensorToProto(tensor, &(*request.mutable_inputs())[alias]);
  }
  for (const std::string& alias : args.output_filter) request.add_output_filter(alias);

  auto stub = serving::PredictionService::NewStub(channel);
  serving::PredictResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->Predict(&context, request, &response);
  if (!status.ok()) return FailRpc(err, status);

  json::Value spec = json::Value::Object();
  spec.Set("name", json::Value::String(response.model_spec().name()));
  spec.Set("version", response.model_spec().has_version()
                          ? json::Value::Int(response.model_spec().version().value())
                          : json::Value());
  spec.Set("signature_name", json::Value::String(response.model_spec().signature_name()));
  std::string text = "{\"model_spec\": ";
  text += json::Write(spec);
  text += ", \"outputs\": {";
  const std::map<std::string, ::tensorflow::TensorProto> outputs(response.outputs().begin(),
                                                                 response.outputs().end());
  bool first = true;
  for (const auto& [alias, proto] : outputs) {
    absl::StatusOr<Tensor> tensor = TensorFromProto(proto);
    if (!tensor.ok()) {
      return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                           "output '", alias, "' is invalid: ", tensor.status().message())));
    }
    if (!first) text += ", ";
    first = false;
    json::AppendQuoted(alias, &text);
    text += ": ";
    absl::Status appended = AppendTensorJson(*tensor, &text);
    if (!appended.ok()) return Fail(err, appended);
  }
  text += "}}";
  out << text << "\n";
  return 0;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A --examples / --context value: JSON text, or @FILE holding it.
absl::StatusOr<json::Value> ReadJsonFlag(const std::string& flag, const std::string& value) {
  std::string text = value;
  std::string where = absl::StrCat("--", flag);
  if (!value.empty() && value[0] == '@') {
    absl::StatusOr<std::string> file = ReadFile(value.substr(1));
    if (!file.ok()) {
      return absl::Status(file.status().code(),
                          absl::StrCat(where, ": ", file.status().message()));
    }
    text = *std::move(file);
    where = value.substr(1);
  }
  absl::StatusOr<json::Value> parsed = json::Parse(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is not valid JSON: ", parsed.status().message()));
  }
  return parsed;
}

// Classify and Regress: the same request but for its type, the same reply but for its result.
template <typename Request, typename Response, typename ResultJson>
int ExampleRpc(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
               grpc::Status (serving::PredictionService::Stub::*rpc)(grpc::ClientContext*,
                                                                     const Request&, Response*),
               ResultJson result_json, std::ostream& out, std::ostream& err) {
  // Bad examples fail before any RPC.
  absl::StatusOr<json::Value> examples = ReadJsonFlag("examples", args.examples);
  if (!examples.ok()) return Fail(err, examples.status());
  std::optional<json::Value> shared_features;
  if (args.context) {
    absl::StatusOr<json::Value> parsed = ReadJsonFlag("context", *args.context);
    if (!parsed.ok()) return Fail(err, parsed.status());
    shared_features = *std::move(parsed);
  }
  absl::StatusOr<serving::Input> input =
      InputFromJson(*examples, shared_features ? &*shared_features : nullptr);
  if (!input.ok()) return Fail(err, input.status());

  Request request;
  FillModelSpec(args, request.mutable_model_spec());
  request.mutable_model_spec()->set_signature_name(args.signature_def);
  *request.mutable_input() = *std::move(input);
  auto stub = serving::PredictionService::NewStub(channel);
  Response response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = (stub.get()->*rpc)(&context, request, &response);
  if (!status.ok()) return FailRpc(err, status);
  out << json::Write(result_json(response.result())) << "\n";
  return 0;
}

int List(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
         std::ostream& out, std::ostream& err) {
  auto stub = v1::ModelRepository::NewStub(channel);
  v1::ListModelsResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->ListModels(&context, v1::ListModelsRequest(), &response);
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED && status.error_message().empty()) {
    // What gRPC answers for a service the server lacks (TF Serving's, for one).
    return FailRpc(err, grpc::Status(status.error_code(),
                                     "the server has no tensord.v1.ModelRepository service "
                                     "(a tensord addition to the TF Serving API)"));
  }
  if (!status.ok()) return FailRpc(err, status);
  if (args.json) {
    absl::StatusOr<std::string> text = ProtoJson(response);
    if (!text.ok()) return Fail(err, text.status());
    out << *text << "\n";
  } else {
    out << ModelListText(response);
  }
  return 0;
}

// Collects the first error of a text-format parse, with its 1-based position.
class FirstParseError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

absl::StatusOr<serving::ModelServerConfig> ReadModelServerConfig(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  serving::ModelServerConfig config;
  FirstParseError error;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&error);
  if (!parser.ParseFromString(*text, &config)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ":", error.error(), " (expected a text-format ModelServerConfig)"));
  }
  return config;
}

int Reload(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
           std::ostream& out, std::ostream& err) {
  absl::StatusOr<serving::ModelServerConfig> config = ReadModelServerConfig(args.config);
  if (!config.ok()) return Fail(err, config.status());
  serving::ReloadConfigRequest request;
  *request.mutable_config() = *std::move(config);
  auto stub = serving::ModelService::NewStub(channel);
  serving::ReloadConfigResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->HandleReloadConfigRequest(&context, request, &response);
  if (!status.ok()) return FailRpc(err, status);
  // TF Serving reports a failed reload in the gRPC status as well; this catches servers that
  // put it in the response alone.
  if (response.status().error_code() != ::tensorflow::error::OK) {
    const auto code = static_cast<grpc::StatusCode>(response.status().error_code());
    return FailRpc(err, grpc::Status(code, response.status().error_message()));
  }
  absl::StatusOr<std::string> text = ProtoJson(response.status(), /*with_defaults=*/true);
  if (!text.ok()) return Fail(err, text.status());
  out << *text << "\n";
  return 0;
}

}  // namespace

const char* GrpcCodeName(int code) {
  static const char* const kNames[] = {
      "OK",        "CANCELLED",          "UNKNOWN",           "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",    "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",       "DATA_LOSS",
      "UNAUTHENTICATED"};
  if (code < 0 || code >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) {
    return "UNKNOWN";
  }
  return kNames[code];
}

int RunServerCommand(const ServerArgs& args, std::ostream& out, std::ostream& err) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(args.server, grpc::InsecureChannelCredentials());
  switch (args.command) {
    case ServerArgs::Command::kPredict: return Predict(args, channel, out, err);
    case ServerArgs::Command::kMetadata: return Metadata(args, channel, out, err);
    case ServerArgs::Command::kStatus: return Status(args, channel, out, err);
    case ServerArgs::Command::kClassify:
      return ExampleRpc(args, channel, &serving::PredictionService::Stub::Classify,
                        ClassificationResultToJson, out, err);
    case ServerArgs::Command::kRegress:
      return ExampleRpc(args, channel, &serving::PredictionService::Stub::Regress,
                        RegressionResultToJson, out, err);
    case ServerArgs::Command::kList: return List(args, channel, out, err);
    case ServerArgs::Command::kReload: return Reload(args, channel, out, err);
    case ServerArgs::Command::kHelp: out << kUsage; return 0;
  }
  return 1;
}

}  // namespace tensorctl
}  // namespace tensord
