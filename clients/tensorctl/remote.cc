#include "clients/tensorctl/remote.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/util/json.h"
#include "clients/common/tensor_json.h"
#include "clients/tensorctl/run_io.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/get_model_status.pb.h"
#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
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

void FillModelSpec(const ServerArgs& args, serving::ModelSpec* spec) {
  spec->set_name(args.model);
  if (args.version) spec->mutable_version()->set_value(*args.version);
}

absl::StatusOr<std::string> ProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string text;
  auto status = google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("converting the response to JSON failed: ", status.ToString()));
  }
  return text;
}

// GetModelMetadata(signature_def), unpacked. On an RPC error, writes it to `err` and returns
// false with *rc set.
bool GetSignatures(const ServerArgs& args, const std::shared_ptr<grpc::Channel>& channel,
                   serving::SignatureDefMap* signatures, std::ostream& err, int* rc) {
  auto stub = serving::PredictionService::NewStub(channel);
  serving::GetModelMetadataRequest request;
  FillModelSpec(args, request.mutable_model_spec());
  request.add_metadata_field("signature_def");
  serving::GetModelMetadataResponse response;
  grpc::ClientContext context;
  SetDeadline(args, &context);
  grpc::Status status = stub->GetModelMetadata(&context, request, &response);
  if (!status.ok()) {
    *rc = FailRpc(err, status);
    return false;
  }
  auto it = response.metadata().find("signature_def");
  if (it == response.metadata().end() || !it->second.UnpackTo(signatures)) {
    *rc = Fail(err, absl::InternalError(
                        "the server's GetModelMetadata response has no signature_def map"));
    return false;
  }
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
    case ServerArgs::Command::kHelp: out << kUsage; return 0;
  }
  return 1;
}

}  // namespace tensorctl
}  // namespace tensord
