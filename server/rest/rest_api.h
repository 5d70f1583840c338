// TF Serving's REST API (port --rest_api_port) on cpp-httplib, routed to the absl::Status
// handlers in server/tfserving/handlers.h:
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
// -d sends application/x-www-form-urlencoded), up to options.max_body_bytes. Inference calls
// run with a deadline of options.timeout_ms (TF Serving's RunOptions.timeout_in_ms for REST) and
// are recorded in the request metrics.
//
//   RestApi rest({.port = 8501}, {.manager = &manager, .health = &health});
//   TENSORD_RETURN_IF_ERROR(rest.Start());   // serves on background threads
//   ...
//   rest.Stop();
#ifndef TENSORD_SERVER_REST_REST_API_H_
#define TENSORD_SERVER_REST_REST_API_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "protos/serving/ssl_config.pb.h"
#include "server/health/health_service.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_manager.h"
#include "server/tfserving/admission.h"
#include "server/tfserving/request_limits.h"

namespace httplib {
class Server;
}

namespace tensord {

struct RestApiOptions {
  std::string host = "0.0.0.0";
  int port = 8501;       // 0: pick a free port (see RestApi::port()).
  int num_threads = 0;   // 0: 4 × hardware threads.
  int timeout_ms = 30000;  // socket read/write timeout, and the deadline of inference calls.
  // Where the Prometheus exposition is served (TF Serving's MonitoringConfig path); empty = not
  // served.
  std::string metrics_path = "/monitoring/prometheus/metrics";
  // Largest request body; larger ones get 413 before they are read (--rest_api_max_body_bytes).
  int64_t max_body_bytes = int64_t{64} << 20;
  // Deepest nesting of arrays and objects in a JSON body (--rest_api_max_json_depth).
  int max_json_depth = 64;
  // Bounds on the decoded input tensors of one request.
  RequestLimits limits;
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
struct RestResponse {
  int http_status = 200;
  std::string body;
  // With the charset: httplib compresses bodies of exactly "application/json" for clients
  // that accept br or gzip, at a cost of CPU-seconds per megabyte.
  std::string content_type = "application/json; charset=utf-8";
};

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
  // Stops accepting, finishes in-flight requests and joins the threads. Idempotent.
  void Stop();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_; }

  // Routing without HTTP, for tests and other transports. `path` excludes the query string.
  // Thread-safe.
  RestResponse Dispatch(const std::string& method, const std::string& path,
                        const std::string& body) const;

 private:
  const RestApiOptions options_;
  const RestServices services_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listener_done_{false};
  int port_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_REST_API_H_
