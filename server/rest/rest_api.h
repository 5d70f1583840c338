// TF Serving's REST API (port --rest_api_port) on the event-driven HttpServer (libevent), routed
// to the absl::Status handlers in server/tfserving/handlers.h:
//
//   GET  /v1/models/<name>[/versions/<v>|/labels/<l>]            model status
//   GET  /v1/models/<name>[/versions/<v>|/labels/<l>]/metadata   signature defs
//   POST /v1/models/<name>[/versions/<v>|/labels/<l>]:predict|:classify|:regress
//   GET  /v1/models                                              all models' status (tensord)
//   GET  /v2/health/live                                         200 while the process serves
//   GET  /v2/health/ready                                        200 ready / 503 not (draining,
//                                                                a model without a version)
//   GET  /v2/models/<name>/ready                                 200 / 503 / 404 for one model
//   GET  <options.metrics_path>                                  Prometheus text exposition
//
// Errors are {"error": "<message>"} with the HTTP status of HttpStatusFor (a request over a size
// limit is 413). JSON bodies are read whatever their Content-Type says, as TF Serving does (curl
// -d sends application/x-www-form-urlencoded); a body over options.max_body_bytes is refused
// with 413 by the HTTP layer before it is read (libevent's own error page, Connection: close).
// Inference calls run on worker threads with a deadline of options.timeout_ms (TF Serving's
// RunOptions.timeout_in_ms for REST) and are recorded in the request metrics; health probes are
// answered by the event loop itself, so they answer while every worker is busy.
//
//   RestApi rest({.port = 8501}, {.manager = &manager, .health = &health});
//   TENSORD_RETURN_IF_ERROR(rest.Start());   // serves on background threads
//   ...
//   rest.Stop();
#ifndef TENSORD_SERVER_REST_REST_API_H_
#define TENSORD_SERVER_REST_REST_API_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "protos/serving/ssl_config.pb.h"
#include "server/health/health_service.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"
#include "server/rest/http_server.h"
#include "server/tfserving/admission.h"
#include "server/tfserving/request_limits.h"

namespace tensord {

struct RestApiOptions {
  std::string host = "0.0.0.0";
  int port = 8501;       // 0: pick a free port (see RestApi::port()).
  int num_threads = 0;   // workers running requests; 0: 4 × hardware threads.
  // Event loops doing the socket I/O; 0: one per CPU available, 4 to 16 (HttpServerOptions).
  int num_io_threads = 0;
  // Idle-connection timeout, and the deadline of inference calls.
  int timeout_ms = 30000;
  // Where the Prometheus exposition is served (TF Serving's MonitoringConfig path); empty = not
  // served.
  std::string metrics_path = "/monitoring/prometheus/metrics";
  // Largest request body; larger ones get 413 before they are read (--rest_api_max_body_bytes).
  int64_t max_body_bytes = int64_t{64} << 20;
  // Deepest nesting of arrays and objects in a JSON body (--rest_api_max_json_depth).
  int max_json_depth = 64;
  // Bounds on the decoded input tensors of one request.
  RequestLimits limits;
  // Responses of at least this many bytes are gzip-compressed (level 1) for clients that accept
  // gzip, up to HttpServerOptions::kMaxGzipBytes; 0 = never (--rest_api_gzip_min_bytes).
  int64_t gzip_min_bytes = 0;
  // HTTPS with this key and certificate (PEM); with client_verify, clients must present a
  // certificate that chains to custom_ca (mutual TLS). Unset = plain HTTP.
  std::optional<::tensorflow::serving::SSLConfig> ssl;
};

// What the API serves from. Not owned; everything must outlive the RestApi.
struct RestServices {
  const ModelManager* manager = nullptr;      // required
  const ServerHealth* health = nullptr;       // readiness; null = ready whenever live
  ServingMetrics* metrics = nullptr;          // request metrics; null = not recorded
  const MetricRegistry* registry = nullptr;   // exposition source; null = no metrics endpoint
  Admission* admission = nullptr;             // per-model request bounds; null = none
};

// A routed request's result: HTTP status, body and its content type.
using RestResponse = HttpResponse;

class RestApi {
 public:
  RestApi(RestApiOptions options, RestServices services);
  ~RestApi();  // Stops the server.
  RestApi(const RestApi&) = delete;
  RestApi& operator=(const RestApi&) = delete;

  // Binds the port and serves on background threads. UNAVAILABLE when the port cannot be
  // bound; INVALID_ARGUMENT for unusable TLS keys or certificates; FAILED_PRECONDITION when
  // already started.
  absl::Status Start();
  // Stops accepting, answers in-flight requests and joins the threads (HttpServer::Stop).
  // Idempotent.
  void Stop();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const { return server_ != nullptr ? server_->port() : 0; }

  // Routing without HTTP, for tests and other transports. `path` excludes the query string.
  // `ticket`: the request's place in its model's admission line, taken on arrival (used up by
  // an inference call); null = it joins the line when it gets there. Thread-safe.
  RestResponse Dispatch(const std::string& method, const std::string& path,
                        const std::string& body, Admission::Ticket* ticket = nullptr) const;

 private:
  const RestApiOptions options_;
  const RestServices services_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_REST_API_H_
