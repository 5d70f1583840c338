#include "server/rest/rest_api.h"

#include <optional>
#include <regex>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "runtime/util/example_json.h"
#include "runtime/util/json.h"
#include "runtime/util/status_macros.h"
#include "server/rest/http_status.h"
#include "server/rest/json_tensor.h"
#include "server/rest/predict_json.h"
#include "server/status/request_too_large.h"
#include "server/tfserving/handlers.h"
#include "server/tfserving/request_metrics.h"

namespace tensord {
namespace {

namespace serving = ::tensorflow::serving;

RestResponse ErrorResponse(const absl::Status& status) {
  std::string body = "{ \"error\": ";
  json::AppendQuoted(std::string(status.message()), &body);
  body += " }";
  return {HttpStatusFor(status), std::move(body)};
}

RestResponse JsonResponse(const json::Value& value) { return {200, json::Write(value, 4)}; }

absl::StatusOr<std::string> JsonText(const absl::StatusOr<json::Value>& value) {
  if (!value.ok()) return value.status();
  return json::Write(*value, 4);
}

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

absl::StatusOr<json::Value> ParseBody(const std::string& body, int max_depth) {
  json::ParseOptions options;
  options.max_depth = max_depth;
  absl::StatusOr<json::Value> v = json::Parse(body, options);
  if (v.status().code() == absl::StatusCode::kResourceExhausted) {
    return RequestTooLargeError(absl::StrCat("JSON body nests deeper than the limit of ", max_depth,
                                             " (--rest_api_max_json_depth)"));
  }
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

// The response text, written from the output tensors (no json::Value in between: a large
// request or response would cost many times its size as a tree).
absl::StatusOr<std::string> Predict(const ModelManager& manager, const PathSpec& p,
                                    const std::string& text, int max_depth,
                                    RequestContext* context) {
  serving::PredictRequest request;
  *request.mutable_model_spec() = ToModelSpec(p);
  PredictJsonOptions options;
  options.max_depth = max_depth;
  if (context->limits != nullptr) options.limits = *context->limits;
  // JSON values are typed by the signature, so the version is resolved first and then pinned;
  // lookup errors (unknown model, version, label) are the handlers' usual ones.
  std::optional<ServableHandle> handle;
  auto resolve = [&](const std::string& signature_name)
      -> absl::StatusOr<const ::tensorflow::SignatureDef*> {
    request.mutable_model_spec()->set_signature_name(signature_name);
    absl::StatusOr<ServableHandle> found =
        p.label.empty()
            ? manager.GetServable(p.name, request.model_spec().has_version()
                                              ? std::optional<int64_t>(
                                                    request.model_spec().version().value())
                                              : std::nullopt)
            : manager.GetServableByLabel(p.name, p.label);
    TENSORD_RETURN_IF_ERROR(found.status());
    handle = *std::move(found);
    const auto& defs = handle->bundle->meta_graph_def().signature_def();
    auto it = defs.find(signature_name.empty() ? std::string(kDefaultServingSignature)
                                               : signature_name);
    if (it == defs.end() || it->first == kInitOpSignature) {
      serving::PredictResponse unused;
      TENSORD_RETURN_IF_ERROR(PredictOn(*handle, request, &unused, context));
      return absl::InternalError("Signature lookup failed");
    }
    return &it->second;
  };
  JsonFormat format = JsonFormat::kRow;
  TENSORD_RETURN_IF_ERROR(ParsePredictJson(text, options, resolve, &request, &format));
  TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, AdmitRequest(*handle, context));
  serving::PredictResponse response;
  TENSORD_RETURN_IF_ERROR(PredictOn(*handle, request, &response, context));
  return PredictResponseJson(response, format);
}

template <typename Request, typename Response, typename Handler, typename ToJson>
absl::StatusOr<json::Value> ExampleMethod(const ModelManager& manager, const PathSpec& p,
                                          const std::string& text, int max_depth,
                                          RequestContext* context, int64_t* examples,
                                          Handler handler, ToJson to_json) {
  TENSORD_ASSIGN_OR_RETURN(json::Value body, ParseBody(text, max_depth));
  TENSORD_ASSIGN_OR_RETURN(std::string signature_name, SignatureNameOf(body));
  Request request;
  *request.mutable_model_spec() = ToModelSpec(p);
  request.mutable_model_spec()->set_signature_name(signature_name);
  TENSORD_ASSIGN_OR_RETURN(*request.mutable_input(), InputFromRequestJson(body));
  const serving::Input& input = request.input();
  *examples = input.has_example_list_with_context()
                  ? input.example_list_with_context().examples_size()
                  : input.example_list().examples_size();
  Response response;
  TENSORD_RETURN_IF_ERROR(handler(manager, request, &response, context));
  return to_json(response.result());
}

// Probes are answered on the event loop: cheap, and never stuck behind busy workers.
const std::regex& ModelReadyPath() {
  static const std::regex* path = new std::regex("/v2/models/([^/]+)/ready");
  return *path;
}

bool IsHealthProbe(const std::string& method, const std::string& path) {
  return method == "GET" && (path == "/v2/health/live" || path == "/v2/health/ready" ||
                             std::regex_match(path, ModelReadyPath()));
}

RestResponse Liveness() { return JsonResponse(json::Parse("{\"live\": true}").value()); }

RestResponse Readiness(const ServerHealth* health, const std::string& model) {
  HealthStatus status = ::grpc::health::v1::HealthCheckResponse::SERVING;
  if (health != nullptr) {
    absl::StatusOr<HealthStatus> checked = health->Check(model);
    if (!checked.ok()) return ErrorResponse(checked.status());
    status = *checked;
  }
  const bool ready = status == ::grpc::health::v1::HealthCheckResponse::SERVING;
  json::Value body = json::Value::Object();
  body.Set("ready", json::Value::Bool(ready));
  // Whole-server readiness says which models hold it back (loading, retrying or failed).
  if (!ready && model.empty() && health != nullptr) {
    json::Value names = json::Value::Array();
    for (const std::string& name : health->UnavailableModels()) {
      names.Append(json::Value::String(name));
    }
    body.Set("models_not_ready", std::move(names));
    if (health->draining()) body.Set("draining", json::Value::Bool(true));
  }
  RestResponse r = JsonResponse(body);
  if (!ready) r.http_status = 503;
  return r;
}

// POST paths of the inference methods: model, version, label, method.
const std::regex& MethodPath() {
  static const std::regex* path = new std::regex(
      "/v1/models/([^/:]+)(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?:(classify|regress|"
      "predict)",
      std::regex::icase);
  return *path;
}

// "Predict", "Classify" or "Regress" for the method part of a MethodPath match, as gRPC names
// them (the metrics' API label).
const char* ApiName(const std::string& verb) {
  return absl::EqualsIgnoreCase(verb, "predict")    ? "Predict"
         : absl::EqualsIgnoreCase(verb, "classify") ? "Classify"
                                                    : "Regress";
}

}  // namespace

RestResponse RestApi::Dispatch(const std::string& method, const std::string& path,
                               const std::string& body, Admission::Ticket* ticket) const {
  const std::regex& kMethodPath = MethodPath();
  static const std::regex kInfoPath(
      "/v1/models(?:/([^/:]+))?(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?",
      std::regex::icase);
  const ModelManager& manager = *services_.manager;
  std::smatch m;
  if (method == "POST" && std::regex_match(path, m, kMethodPath)) {
    PathSpec p{m[1], m[2], m[3], m[4]};
    if (p.version.size() > 18) {
      return ErrorResponse(absl::InvalidArgumentError("Version number is out of range"));
    }
    const char* api = ApiName(p.suffix);
    const std::string verb = absl::AsciiStrToLower(p.suffix);
    RequestMetrics request_metrics(services_.metrics, api, Protocol::kRest, p.name, &manager);
    const CancellationToken token(absl::Now() + absl::Milliseconds(options_.timeout_ms));
    RequestContext context;
    context.cancellation = &token;
    context.limits = &options_.limits;
    context.admission = services_.admission;
    context.admission_ticket = ticket;
    const int depth = options_.max_json_depth;
    int64_t examples = -1;
    absl::StatusOr<std::string> result;
    if (verb == "predict") {
      result = Predict(manager, p, body, depth, &context);
    } else if (verb == "classify") {
      result = JsonText(ExampleMethod<serving::ClassificationRequest, serving::ClassificationResponse>(
          manager, p, body, depth, &context, &examples, &HandleClassify,
          ClassificationResultToJson));
    } else {
      result = JsonText(ExampleMethod<serving::RegressionRequest, serving::RegressionResponse>(
          manager, p, body, depth, &context, &examples, &HandleRegress, RegressionResultToJson));
    }
    RestResponse response =
        result.ok() ? RestResponse{200, *std::move(result)} : ErrorResponse(result.status());
    request_metrics.Finish(result.status(), context, body.size(), response.body.size(),
                           examples);
    return response;
  }
  if (method == "GET" && !options_.metrics_path.empty() && path == options_.metrics_path &&
      services_.registry != nullptr) {
    return {200, services_.registry->ExportPrometheus(), "text/plain; version=0.0.4"};
  }
  if (method == "GET" && path == "/v2/health/live") return Liveness();
  if (method == "GET" && path == "/v2/health/ready") return Readiness(services_.health, "");
  if (method == "GET" && std::regex_match(path, m, ModelReadyPath())) {
    return Readiness(services_.health, m[1]);
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

RestApi::RestApi(RestApiOptions options, RestServices services)
    : options_(std::move(options)), services_(services) {}

RestApi::~RestApi() { Stop(); }

absl::Status RestApi::Start() {
  if (server_ != nullptr) return absl::FailedPreconditionError("RestApi already started");
  HttpServerOptions http;
  http.host = options_.host;
  http.port = options_.port;
  http.num_threads = options_.num_threads;
  http.num_io_threads = options_.num_io_threads;
  http.timeout_ms = options_.timeout_ms;
  http.max_body_bytes = options_.max_body_bytes;
  http.gzip_min_bytes = options_.gzip_min_bytes;
  http.ssl = options_.ssl;
  http.run_inline = IsHealthProbe;
  http.error_response = [](const std::string& message) {
    return ErrorResponse(absl::UnavailableError(message));
  };
  Admission* admission = services_.admission;
  if (admission != nullptr && admission->options().max_in_flight > 0) {
    // A model's REST request takes its place in the model's admission line as it arrives, as a
    // gRPC call does, and goes to a worker only once a slot is its: one line per model in
    // arrival order whatever the protocol, no worker held by a request that waits, and a model
    // at capacity answered 429 at once, its body unparsed.
    HttpServerOptions::QueueGroups groups;
    groups.group = [this](const std::string& method, const std::string& path) {
      std::smatch m;
      if (method != "POST" || !std::regex_match(path, m, MethodPath())) return std::string();
      std::string model = m[1];
      return services_.manager->HasModel(model) ? model : std::string();  // a bounded set
    };
    groups.admit = [this, admission](HttpRequest* request, int64_t body_bytes,
                                     const std::string& model,
                                     std::function<void()> ready) -> std::optional<RestResponse> {
      // `ready` may run before Reserve returns: the server then queues the request at once.
      absl::StatusOr<Admission::Ticket> ticket = admission->Reserve(model, std::move(ready));
      if (ticket.ok()) {
        request->hold = std::make_shared<Admission::Ticket>(*std::move(ticket));
        return std::nullopt;
      }
      std::smatch m;
      std::regex_match(request->path, m, MethodPath());
      RequestMetrics metrics(services_.metrics, ApiName(m[4]), Protocol::kRest, model,
                             services_.manager);
      RestResponse response = ErrorResponse(ticket.status());
      metrics.Finish(ticket.status(), RequestContext(), body_bytes, response.body.size());
      return response;
    };
    http.queue_groups = std::move(groups);
  }
  auto server = std::make_unique<HttpServer>(
      std::move(http), [this](const HttpRequest& request) {
        // The admission ticket taken on arrival, if any (queue_groups.admit).
        return Dispatch(request.method, request.path, request.body,
                        static_cast<Admission::Ticket*>(request.hold.get()));
      });
  TENSORD_RETURN_IF_ERROR(server->Start());
  server_ = std::move(server);
  return absl::OkStatus();
}

void RestApi::Stop() {
  if (server_ == nullptr) return;
  server_->Stop();
  server_.reset();
}

}  // namespace tensord
