// Server: the tensord daemon assembled from its parts — model manager (with warmup), gRPC
// services (TF Serving's PredictionService and ModelService, grpc.health.v1, tensord's
// ModelRepository, server reflection), REST API with metrics and health endpoints, and the
// model-config-file poller.
//
//   Server server(options);
//   TENSORD_RETURN_IF_ERROR(server.Start());   // models loaded, ports listening
//   ... wait for SIGTERM ...
//   server.Drain();                            // not ready, stop accepting, finish in-flight
//
// Start and Drain are called from one thread; everything else the server does runs on its own
// threads.
#ifndef TENSORD_SERVER_SERVER_H_
#define TENSORD_SERVER_SERVER_H_

#include <climits>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/batching/batching_options.h"
#include "protos/serving/ssl_config.pb.h"
#include "runtime/framework/device_set.h"
#include "server/model/model_manager.h"
#include "server/tfserving/admission.h"
#include "server/tfserving/request_limits.h"

namespace grpc {
class Server;
}

namespace tensord {

class BatchScheduler;
class HealthServiceImpl;
class ModelRepositoryServiceImpl;
class ModelServiceImpl;
class PredictionServiceImpl;
class RestApi;
class ServerHealth;

struct ServerOptions {
  // gRPC on 0.0.0.0:grpc_port (0 = no TCP listener) and/or unix:grpc_socket_path.
  int grpc_port = 8500;
  std::string grpc_socket_path;
  // Synchronous-server thread cap (grpc ResourceQuota); beyond it calls get RESOURCE_EXHAUSTED.
  // 0 = max(256, 4 × available CPUs); gRPC counts its polling threads against the cap too.
  int grpc_max_threads = 0;
  // Extra channel arguments (--grpc_channel_arguments); a value that parses as an integer is
  // passed as one. grpc.max_receive_message_length / grpc.max_send_message_length given here
  // override the two sizes below.
  std::vector<std::pair<std::string, std::string>> grpc_channel_arguments;
  // Largest gRPC message received / sent; larger ones fail RESOURCE_EXHAUSTED.
  int grpc_max_receive_message_bytes = 256 << 20;
  int grpc_max_send_message_bytes = INT_MAX;
  // TLS for gRPC (--ssl_config_file): PEM key and certificate, and with client_verify a CA that
  // client certificates must chain to. Unset = plaintext.
  std::optional<::tensorflow::serving::SSLConfig> grpc_ssl;
  // TLS for REST (--rest_api_ssl_config_file), same fields. Unset = plain HTTP.
  std::optional<::tensorflow::serving::SSLConfig> rest_ssl;
  // ModelService.HandleReloadConfigRequest: refused (PERMISSION_DENIED) when false; when
  // management_header is "key=value", only calls carrying that metadata header are served
  // (UNAUTHENTICATED otherwise).
  bool enable_model_management = true;
  std::string management_header;
  // Bounds on one inference request's input tensors, for gRPC and REST.
  RequestLimits request_limits;
  // Per-model bounds on running and waiting inference requests, for gRPC and REST together;
  // the default sets none.
  AdmissionOptions admission;

  // REST on 0.0.0.0:rest_port; 0 = no REST API (and so no metrics endpoint), as TF Serving.
  int rest_port = 0;
  int rest_num_threads = 0;    // 0 = 4 × hardware threads
  int rest_num_io_threads = 0;  // REST event loops; 0 = one per CPU available, 4 to 16
  int rest_timeout_ms = 30000;
  // Prometheus exposition path on the REST port; empty = not served.
  std::string metrics_path = "/monitoring/prometheus/metrics";
  int64_t rest_max_body_bytes = int64_t{64} << 20;
  int rest_max_json_depth = 64;
  int64_t rest_gzip_min_bytes = 0;  // 0 = REST responses are never compressed

  // The models to serve at startup, and where later versions of that list come from.
  std::vector<ModelConfig> models;
  std::string model_config_file;          // re-read when model_config_file_poll_seconds > 0
  int model_config_file_poll_seconds = 0;
  int file_system_poll_seconds = 1;       // version-directory rescans; 0 = only at startup

  // The process's devices (--tensorflow_intra_op_parallelism and friends): built once by the
  // server and shared by every model version's session.
  DeviceSetOptions devices;
  ModelManagerOptions manager;  // its on_loaded, make_runner, metrics and devices are set by the server
  // Request batching for Predict (--enable_batching): every model with these settings, unless
  // per_model_batching, where only versions with a batching_params.pbtxt are batched (with
  // theirs) and these settings only size the shared thread pool. Models whose signatures write
  // variables are never batched.
  std::optional<BatchingOptions> batching;
  bool per_model_batching = false;
  bool enable_model_warmup = true;
  int warmup_iterations = 1;

  // Longest wait for in-flight requests on Drain(); what is still running then is cancelled.
  absl::Duration drain_timeout = absl::Seconds(25);
};

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();  // Drains if still serving.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the configured models (failed versions are logged and reported, not fatal), then
  // listens. Errors: an invalid model list (bad name, unreadable base path, labels on versions
  // that did not load), or a port that cannot be bound.
  absl::Status Start();

  // Readiness goes false (health NOT_SERVING), new calls are refused, in-flight ones finish
  // within drain_timeout; then everything stops, except that loads in progress (a new version,
  // a config reload) are not waited for: the destructor waits for them. Idempotent.
  void Drain();

  int grpc_port() const { return grpc_port_; }
  int rest_port() const;

 private:
  void PollConfigFile();

  ServerOptions options_;
  std::unique_ptr<DeviceSet> devices_;  // before the manager: its sessions borrow the devices
  // Batch threads per device (keyed by device name), so that batches of a CPU-placed model and
  // of a GPU-placed one never wait for each other's threads. Declared before the manager: they
  // outlive its queues.
  std::map<std::string, std::unique_ptr<BatchScheduler>> batch_schedulers_;
  std::unique_ptr<ModelManager> manager_;
  std::unique_ptr<ServerHealth> health_;
  std::unique_ptr<Admission> admission_;
  std::unique_ptr<PredictionServiceImpl> prediction_service_;
  std::unique_ptr<ModelServiceImpl> model_service_;
  std::unique_ptr<HealthServiceImpl> health_service_;
  std::unique_ptr<ModelRepositoryServiceImpl> repository_service_;
  std::unique_ptr<grpc::Server> grpc_server_;
  std::unique_ptr<RestApi> rest_;
  int grpc_port_ = 0;
  bool serving_ = false;

  std::mutex config_mu_;
  std::condition_variable config_cv_;
  bool stop_config_poll_ = false;  // guarded by config_mu_
  std::string config_text_;        // the file content last applied
  std::thread config_thread_;
};

}  // namespace tensord

#endif  // TENSORD_SERVER_SERVER_H_
