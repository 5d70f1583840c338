#include "server/rest/rest_api.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <chrono>
#include <regex>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "runtime/util/example_json.h"
#include "runtime/util/json.h"
#include "runtime/util/status_macros.h"
#include "server/rest/http_status.h"
#include "server/rest/json_tensor.h"
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

absl::StatusOr<json::Value> Predict(const ModelManager& manager, const PathSpec& p,
                                    const std::string& text, int max_depth,
                                    RequestContext* context) {
  TENSORD_ASSIGN_OR_RETURN(json::Value body, ParseBody(text, max_depth));
  TENSORD_ASSIGN_OR_RETURN(std::string signature_name, SignatureNameOf(body));
  serving::PredictRequest request;
  *request.mutable_model_spec() = ToModelSpec(p);
  request.mutable_model_spec()->set_signature_name(signature_name);

  // JSON values are typed by the signature, so the version is resolved first and then pinned;
  // lookup errors (unknown model, version, label) are the handlers' usual ones.
  absl::StatusOr<ServableHandle> handle =
      p.label.empty()
          ? manager.GetServable(p.name, request.model_spec().has_version()
                                            ? std::optional<int64_t>(
                                                  request.model_spec().version().value())
                                            : std::nullopt)
          : manager.GetServableByLabel(p.name, p.label);
  TENSORD_RETURN_IF_ERROR(handle.status());
  const auto& defs = handle->bundle->meta_graph_def().signature_def();
  auto it = defs.find(signature_name.empty() ? std::string(kDefaultServingSignature)
                                             : signature_name);
  if (it == defs.end() || it->first == kInitOpSignature) {
    serving::PredictResponse unused;
    TENSORD_RETURN_IF_ERROR(PredictOn(*handle, request, &unused, context));
    return absl::InternalError("Signature lookup failed");
  }
  JsonFormat format = JsonFormat::kRow;
  TENSORD_RETURN_IF_ERROR(FillPredictRequestFromJson(body, it->second, &request, &format));
  TENSORD_ASSIGN_OR_RETURN(Admission::Slot slot, AdmitRequest(*handle, context));
  serving::PredictResponse response;
  TENSORD_RETURN_IF_ERROR(PredictOn(*handle, request, &response, context));
  return PredictResponseToJson(response, format);
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

// OpenSSL objects from inline PEM text; null when the text holds none.
struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
std::unique_ptr<BIO, BioDeleter> PemBio(const std::string& pem) {
  return std::unique_ptr<BIO, BioDeleter>(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// An HTTPS server for `ssl`, or INVALID_ARGUMENT naming the field that does not parse.
absl::StatusOr<std::unique_ptr<httplib::Server>> MakeSslServer(
    const ::tensorflow::serving::SSLConfig& ssl) {
  auto cert_bio = PemBio(ssl.server_cert());
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  auto key_bio = PemBio(ssl.server_key());
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  X509_STORE* client_cas = nullptr;
  absl::Status status;
  if (cert == nullptr) {
    status = absl::InvalidArgumentError("REST TLS: server_cert is not a PEM certificate");
  } else if (key == nullptr) {
    status = absl::InvalidArgumentError("REST TLS: server_key is not a PEM private key");
  }
  if (status.ok() && ssl.client_verify()) {
    client_cas = X509_STORE_new();
    auto ca_bio = PemBio(ssl.custom_ca());
    int added = 0;
    while (X509* ca = PEM_read_bio_X509(ca_bio.get(), nullptr, nullptr, nullptr)) {
      added += X509_STORE_add_cert(client_cas, ca);
      X509_free(ca);
    }
    ERR_clear_error();  // the loop ends on "no start line"
    if (added == 0) {
      status = absl::InvalidArgumentError(
          "REST TLS: client_verify needs custom_ca with at least one PEM certificate");
    }
  }
  std::unique_ptr<httplib::Server> server;
  if (status.ok()) {
    // The server takes the CA store; it references the certificate and key itself.
    auto https = std::make_unique<httplib::SSLServer>(cert, key, client_cas);
    client_cas = nullptr;
    if (!https->is_valid()) {
      status = absl::InvalidArgumentError(
          "REST TLS: server_key does not match server_cert, or they are unusable");
    }
    server = std::move(https);
  }
  if (client_cas != nullptr) X509_STORE_free(client_cas);
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!status.ok()) return status;
  return server;
}

}  // namespace

RestResponse RestApi::Dispatch(const std::string& method, const std::string& path,
                               const std::string& body) const {
  static const std::regex kMethodPath(
      "/v1/models/([^/:]+)(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?:(classify|regress|"
      "predict)",
      std::regex::icase);
  static const std::regex kInfoPath(
      "/v1/models(?:/([^/:]+))?(?:(?:/versions/(\\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?",
      std::regex::icase);
  static const std::regex kModelReadyPath("/v2/models/([^/]+)/ready");
  const ModelManager& manager = *services_.manager;
  std::smatch m;
  if (method == "POST" && std::regex_match(path, m, kMethodPath)) {
    PathSpec p{m[1], m[2], m[3], m[4]};
    if (p.version.size() > 18) {
      return ErrorResponse(absl::InvalidArgumentError("Version number is out of range"));
    }
    std::string verb = p.suffix;
    for (char& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const char* api = verb == "predict" ? "Predict" : verb == "classify" ? "Classify" : "Regress";
    RequestMetrics request_metrics(services_.metrics, api, Protocol::kRest, p.name, &manager);
    const CancellationToken token(absl::Now() + absl::Milliseconds(options_.timeout_ms));
    RequestContext context;
    context.cancellation = &token;
    context.limits = &options_.limits;
    context.admission = services_.admission;
    const int depth = options_.max_json_depth;
    int64_t examples = -1;
    absl::StatusOr<json::Value> result;
    if (verb == "predict") {
      result = Predict(manager, p, body, depth, &context);
    } else if (verb == "classify") {
      result = ExampleMethod<serving::ClassificationRequest, serving::ClassificationResponse>(
          manager, p, body, depth, &context, &examples, &HandleClassify,
          ClassificationResultToJson);
    } else {
      result = ExampleMethod<serving::RegressionRequest, serving::RegressionResponse>(
          manager, p, body, depth, &context, &examples, &HandleRegress, RegressionResultToJson);
    }
    RestResponse response = result.ok() ? JsonResponse(*result) : ErrorResponse(result.status());
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
  if (method == "GET" && std::regex_match(path, m, kModelReadyPath)) {
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
  std::unique_ptr<httplib::Server> server;
  if (options_.ssl.has_value()) {
    TENSORD_ASSIGN_OR_RETURN(server, MakeSslServer(*options_.ssl));
  } else {
    server = std::make_unique<httplib::Server>();
  }
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
  auto respond = [](const RestResponse& r, httplib::Response& res) {
    res.status = r.http_status;
    res.set_content(r.body, r.content_type.c_str());
  };
  auto handle = [this, respond](const httplib::Request& req, httplib::Response& res) {
    respond(Dispatch(req.method, req.path, req.body), res);
  };
  // Bodies are read here rather than by httplib, which caps form-encoded ones (curl -d's
  // default type) at 8 KB and has no per-request limit with a message.
  auto handle_with_body = [this, respond](const httplib::Request& req, httplib::Response& res,
                                          const httplib::ContentReader& read) {
    const absl::Status too_large = RequestTooLargeError(
        absl::StrCat("request body is larger than the limit of ", options_.max_body_bytes,
                     " bytes (--rest_api_max_body_bytes)"));
    uint64_t declared = 0;
    if (req.has_header("Content-Length") &&
        (!absl::SimpleAtoi(req.get_header_value("Content-Length"), &declared) ||
         declared > static_cast<uint64_t>(options_.max_body_bytes))) {
      res.set_header("Connection", "close");  // the unread body must not be taken as a request
      respond(ErrorResponse(too_large), res);
      return;
    }
    std::string body;
    body.reserve(declared);
    const bool complete = read([&](const char* data, size_t length) {
      if (body.size() + length > static_cast<uint64_t>(options_.max_body_bytes)) return false;
      body.append(data, length);
      return true;
    });
    if (!complete) {
      res.set_header("Connection", "close");
      respond(ErrorResponse(body.size() >= static_cast<uint64_t>(options_.max_body_bytes)
                                ? too_large
                                : absl::InvalidArgumentError("request body could not be read")),
              res);
      return;
    }
    respond(Dispatch(req.method, req.path, body), res);
  };
  // Every path goes through Dispatch, so unknown ones get the JSON error body too.
  server->Get(".*", handle);
  server->Post(".*", handle_with_body);
  server->Put(".*", handle_with_body);
  server->Delete(".*", handle);
  server->Patch(".*", handle_with_body);

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
