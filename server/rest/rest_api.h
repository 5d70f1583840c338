// TF Serving's REST API (port --rest_api_port) on cpp-httplib, routed to the absl::Status
// handlers in server/tfserving/handlers.h:
//
//   GET  /v1/models/<name>[/versions/<v>|/labels/<l>]            model status
//   GET  /v1/models/<name>[/versions/<v>|/labels/<l>]/metadata   signature defs
//   POST /v1/models/<name>[/versions/<v>|/labels/<l>]:predict|:classify|:regress
//   GET  /v1/models                                              all models' status (tensord)
//
// Errors are {"error": "<message>"} with the HTTP status of HttpStatusFromCode.
//
//   RestApi rest({.port = 8501});
//   TENSORD_RETURN_IF_ERROR(rest.Start(manager));   // serves on background threads
//   ...
//   rest.Stop();
#ifndef TENSORD_SERVER_REST_REST_API_H_
#define TENSORD_SERVER_REST_REST_API_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "server/model/model_manager.h"

namespace httplib {
class Server;
}

namespace tensord {

struct RestApiOptions {
  std::string host = "0.0.0.0";
  int port = 8501;       // 0: pick a free port (see RestApi::port()).
  int num_threads = 0;   // 0: 4 × hardware threads.
  int timeout_ms = 30000;  // socket read/write timeout.
};

// A routed request's result: HTTP status and JSON body.
struct RestResponse {
  int http_status = 200;
  std::string body;
};

class RestApi {
 public:
  explicit RestApi(RestApiOptions options = {});
  ~RestApi();  // Stops the server.
  RestApi(const RestApi&) = delete;
  RestApi& operator=(const RestApi&) = delete;

  // Binds the port and serves on background threads. `manager` must outlive Stop().
  // UNAVAILABLE when the port cannot be bound; FAILED_PRECONDITION when already started.
  absl::Status Start(const ModelManager& manager);
  // Stops accepting, finishes in-flight requests and joins the threads. Idempotent.
  void Stop();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_; }

  // Routing without HTTP, for tests and other transports. `path` excludes the query string.
  static RestResponse Dispatch(const ModelManager& manager, const std::string& method,
                               const std::string& path, const std::string& body);

 private:
  const RestApiOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listener_done_{false};
  int port_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_REST_API_H_
