#include "server/rest/rest_api.h"

#include <httplib.h>

#include <chrono>
#include <regex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/util/json.h"
#include "google/protobuf/util/json_util.h"
#include "server/rest/http_status.h"
#include "server/rest/json_tensor.h"
#include "server/tfserving/handlers.h"

namespace tensord {
namespace {

namespace serving = ::tensorflow::serving;

RestResponse ErrorResponse(const absl::Status& status) {
  std::string body = "{ \"error\": ";
  json::AppendQuoted(std::string(status.message()), &body);
  body += " }";
  return {HttpStatusFromCode(status.code()), std::move(body)};
}

RestResponse JsonResponse(const json::Value& value) { return {200, json::Write(value, 4)}; }

absl::StatusOr<json::Value> ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string text;
  auto s = google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!s.ok()) return absl::InternalError(std::string(s.message()));
  return json::Parse(text);
}

// The model_spec named by the path (name, optional version or label).
struct PathSpec {
  std::string name, version, label, suffix;
};

serving::ModelSpec ToModelSpec(const PathSpec& p) {
  serving::ModelSpec spec;
  spec.set_name(p.name);
  if (!p.version.empty()) spec.mutable_version()->set_value(std::stoll(p.version));
  if (!p.label.empty()) spec.set_version_label(p.label);
  return spec;
}

absl::StatusOr<json::Value> ParseBody(const std::string& body) {
  absl::StatusOr<json::Value> v = json::Parse(body);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON Parse error: ", v.status().message()));
  }
  if (!v->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Request body must be a JSON object, got ", v->TypeName()));
  }
  return v;
}

absl::StatusOr<std::string> SignatureNameOf(const json::Value& body) {
  const json::Value* name = body.Find("signature_name");
  if (name == nullptr) return std::string();
  if (!name->is_string()) {
    return absl::InvalidArgumentError("'signature_name' must be a string");
  }
  return name->string_value();
}

RestResponse Status(const ModelManager& manager, const PathSpec& p) {
  serving::GetModelStatusRequest request;
  *request.mutable_model_spec() = ToModelSpec(p);
  serving::GetModelStatusResponse response;
  if (absl::Status s = HandleGetModelStatus(manager, request, &response); !s.ok()) {
    return ErrorResponse(s);
  }
  absl::StatusOr<json::Value> v = ProtoToJson(response);
  if (!v.ok()) return ErrorResponse(v.status());
  return JsonResponse(*v);
}

RestResponse ListModels(const ModelManager& manager) {
  json::Value models = json::Value::Array();
  for (const std::string& name : manager.ModelNames()) {
    serving::GetModelStatusRequest request;
    request.mutable_model_spec()->set_name(name);
    serving::GetModelStatusResponse response;
    if (absl::Status s = HandleGetModelStatus(manager, request, &response); !s.ok()) continue;
    absl::StatusOr<json::Value> v = ProtoToJson(response);
    if (!v.ok()) return ErrorResponse(v.status());
    json::Value entry = json::Value::Object();
    entry.Set("name", json::Value::String(name));
    const json::Value* versions = v->Find("model_version_status");
    entry.Set("model_version_status", versions != nullptr ? *versions : json::Value::Array());
    models.Append(std::move(entry));
  }
  json::Value out = json::Value::Object();
  out.Set("models", std::move(models));
  return JsonResponse(out);
}

RestResponse Metadata(const ModelManager& manager, const PathSpec& p) {
  serving::GetModelMetadataRequest request;
  *request.mutable_model_spec() = ToModelSpec(p);
  request.add_metadata_field("signature_def");
  serving::GetModelMetadataResponse response;
  if (absl::Status s = HandleGetModelMetadata(manager, request, &response); !s.ok()) {
    return ErrorResponse(s);
  }
  // Assembled by hand, as TF Serving does, so the Any prints without "@type".
  absl::StatusOr<json::Value> spec = ProtoToJson(response.model_spec());
  if (!spec.ok()) return ErrorResponse(spec.status());
  json::Value metadata = json::Value::Object();
  for (const auto& [key, any] : response.metadata()) {
    serving::SignatureDefMap map;
    if (!any.UnpackTo(&map)) {
      return ErrorResponse(absl::InternalError("Could not unpack the signature_def metadata"));
    }
    absl::StatusOr<json::Value> v = ProtoToJson(map);
    if (!v.ok()) return ErrorResponse(v.status());
    metadata.Set(key, *std::move(v));
  }
  json::Value out = json::Value::Object();
  out.Set("model_spec", *std::move(spec));
  out.Set("metadata", std::move(metadata));
  return JsonResponse(out);
}

RestResponse Predict(const ModelManager& manager, const PathSpec& p, const std::string& text) {
  absl::StatusOr<json::Value> body = ParseBody(text);
  if (!body.ok()) return ErrorResponse(body.status());
  absl::StatusOr<std::string> signature_name = SignatureNameOf(*body);
  if (!signature_name.ok()) return ErrorResponse(signature_name.status());

  serving::PredictRequest request;
  *request.mutable_model_spec() = ToModelSpec(p);
  request.mutable_model_spec()->set_signature_name(*signature_name);
  serving::PredictResponse response;

  // The input dtypes come from the signature. When it cannot be found, the handler reports why
  // (unknown model, label, signature) with its usual message.
  const ::tensorflow::SignatureDef* signature = nullptr;
  absl::StatusOr<ServableHandle> handle =
      p.label.empty() ? manager.GetServable(p.name, request.model_spec().has_version()
                                                        ? std::optional<int64_t>(
                                                              request.model_spec().version().value())
                                                        : std::nullopt)
                      : absl::StatusOr<ServableHandle>(absl::UnavailableError(""));
  if (handle.ok()) {
    const auto& defs = handle->bundle->meta_graph_def().signature_def();
    auto it = defs.find(signature_name->empty() ? std::string(kDefaultServingSignature)
                                                : *signature_name);
    if (it != defs.end()) signature = &it->second;
  }
  if (signature == nullptr) {
    absl::Status s = HandlePredict(manager, request, &response);
    return ErrorResponse(s.ok() ? absl::InternalError("Signature lookup failed") : s);
  }
  JsonFormat format = JsonFormat::kRow;
  if (absl::Status s = FillPredictRequestFromJson(*body, *signature, &request, &format); !s.ok()) {
    return ErrorResponse(s);
  }
  // Pin the version we read the signature from.
  request.mutable_model_spec()->mutable_version()->set_value(handle->version);
  if (absl::Status s = HandlePredict(manager, request, &response); !s.ok()) {
    return ErrorResponse(s);
  }
  absl::StatusOr<json::Value> out = PredictResponseToJson(response, format);
  if (!out.ok()) return ErrorResponse(out.status());
  return JsonResponse(*out);
}

template <typename Request, typename Response, typename Handler, typename ToJson>
RestResponse ExampleMethod(const ModelManager& manager, const PathSpec& p,
                           const std::string& text, Handler handler, ToJson to_json) {
  absl::StatusOr<json::Value> body = ParseBody(text);
  if (!body.ok()) return ErrorResponse(body.status());
  absl::StatusOr<std::string> signature_name = SignatureNameOf(*body);
  if (!signature_name.ok()) return ErrorResponse(signature_name.status());
  Request request;
  *request.mutable_model_spec() = ToModelSpec(p);
  request.mutable_model_spec()->set_signature_name(*signature_name);
  if (absl::Status s = FillInputFromJson(*body, request.mutable_input()); !s.ok()) {
    return ErrorResponse(s);
  }
  Response response;
  if (absl::Status s = handler(manager, request, &response); !s.ok()) return ErrorResponse(s);
  return JsonResponse(to_json(response.result()));
}

}  // namespace

RestResponse RestApi::Dispatch(const ModelManager& manager, const std::string& method,
                               const std::string& path, const std::string& body) {
  static const std::regex kMethodPath(
      "/v1/models/([^/:]+)(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?:(classify|regress|"
      "predict)",
      std::regex::icase);
  static const std::regex kInfoPath(
      "/v1/models(?:/([^/:]+))?(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?",
      std::regex::icase);
  std::smatch m;
  if (method == "POST" && std::regex_match(path, m, kMethodPath)) {
    PathSpec p{m[1], m[2], m[3], m[4]};
    if (p.version.size() > 18) {
      return ErrorResponse(absl::InvalidArgumentError("Version number is out of range"));
    }
    std::string verb = p.suffix;
    for (char& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (verb == "predict") return Predict(manager, p, body);
    if (verb == "classify") {
      return ExampleMethod<serving::ClassificationRequest, serving::ClassificationResponse>(
          manager, p, body, HandleClassify, ClassificationResultToJson);
    }
    return ExampleMethod<serving::RegressionRequest, serving::RegressionResponse>(
        manager, p, body, HandleRegress, RegressionResultToJson);
  }
  if (method == "GET" && std::regex_match(path, m, kInfoPath)) {
    PathSpec p{m[1], m[2], m[3], m[4]};
    if (p.version.size() > 18) {
      return ErrorResponse(absl::InvalidArgumentError("Version number is out of range"));
    }
    if (p.name.empty()) {
      if (!p.version.empty() || !p.label.empty() || !p.suffix.empty()) {
        return ErrorResponse(absl::InvalidArgumentError("Missing model name in request."));
      }
      return ListModels(manager);
    }
    if (!p.suffix.empty()) return Metadata(manager, p);
    return Status(manager, p);
  }
  return ErrorResponse(
      absl::InvalidArgumentError(absl::StrCat("Malformed request: ", method, " ", path)));
}

RestApi::RestApi(RestApiOptions options) : options_(std::move(options)) {}

RestApi::~RestApi() { Stop(); }

absl::Status RestApi::Start(const ModelManager& manager) {
  if (server_ != nullptr) return absl::FailedPreconditionError("RestApi already started");
  auto server = std::make_unique<httplib::Server>();
  int threads = options_.num_threads;
  if (threads <= 0) threads = 4 * std::max(1u, std::thread::hardware_concurrency());
  server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  const time_t sec = options_.timeout_ms / 1000;
  const time_t usec = (options_.timeout_ms % 1000) * 1000;
  server->set_read_timeout(sec, usec);
  server->set_write_timeout(sec, usec);
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which would let a second
  // server bind the same port silently.
  server->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  const ModelManager* m = &manager;
  auto handle = [m](const httplib::Request& req, httplib::Response& res) {
    RestResponse r = Dispatch(*m, req.method, req.path, req.body);
    res.status = r.http_status;
    res.set_content(r.body, "application/json");
  };
  server->Get("/v1/.*", handle);
  server->Post("/v1/.*", handle);
  server->Put("/v1/.*", handle);
  server->Delete("/v1/.*", handle);
  server->Patch("/v1/.*", handle);

  int port = options_.port;
  if (port == 0) {
    port = server->bind_to_any_port(options_.host);
  } else if (!server->bind_to_port(options_.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("Could not bind the REST API to ", options_.host, ":", options_.port));
  }
  port_ = port;
  server_ = std::move(server);
  listener_done_ = false;
  thread_ = std::thread([this, s = server_.get()] {
    s->listen_after_bind();
    listener_done_ = true;
  });
  // httplib's stop() is a no-op until the accept loop runs, so Stop() right after Start()
  // would hang in join(); wait for the loop (or its early exit).
  while (!server_->is_running() && !listener_done_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!server_->is_running()) {
    Stop();
    return absl::UnavailableError("The REST API listener exited at startup");
  }
  return absl::OkStatus();
}

void RestApi::Stop() {
  if (server_ == nullptr) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  port_ = 0;
}

}  // namespace tensord
