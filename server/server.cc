#include "server/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "runtime/framework/device.h"
#include "runtime/util/status_macros.h"
#include "server/batching/batch_scheduler.h"
#include "server/batching/batching_runner.h"
#include "server/health/health_service.h"
#include "server/logging/log.h"
#include "server/metrics/serving_metrics.h"
#include "server/model/model_config_proto.h"
#include "server/repository/repository_service.h"
#include "server/rest/rest_api.h"
#include "server/tfserving/services.h"
#include "server/tfserving/warmup.h"

namespace tensord {
namespace {

// TF Serving's per-model batching file, in the version directory.
constexpr char kBatchingParamsFile[] = "batching_params.pbtxt";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// TF Serving's mapping of SSLConfig: client_verify requires and verifies client certificates
// against custom_ca; otherwise none are requested.
std::shared_ptr<grpc::ServerCredentials> GrpcCredentials(const ServerOptions& options) {
  if (!options.grpc_ssl.has_value()) return grpc::InsecureServerCredentials();
  const ::tensorflow::serving::SSLConfig& ssl = *options.grpc_ssl;
  grpc::SslServerCredentialsOptions credentials(
      ssl.client_verify() ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                          : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  credentials.pem_root_certs = ssl.custom_ca();
  credentials.pem_key_cert_pairs.push_back({ssl.server_key(), ssl.server_cert()});
  return grpc::SslServerCredentials(credentials);
}

bool HasArgument(const ServerOptions& options, const std::string& key) {
  for (const auto& [k, v] : options.grpc_channel_arguments) {
    if (k == key) return true;
  }
  return false;
}

// One line naming the devices models run on, or why there is no GPU.
void LogDevices(const DeviceSet& devices, const DeviceSetOptions& options) {
  const CpuDevice& cpu = *devices.cpu();
  std::vector<std::string> gpus;
  for (const GpuDevice* gpu : devices.gpus()) {
    gpus.push_back(absl::StrCat(gpu->name(), " (", gpu->Describe(), ")"));
  }
  const std::string cpu_line = absl::StrCat(cpu.name(), " (", cpu.num_threads(),
                                            " threads per kernel, ",
                                            cpu.inter_op_threads(), " inter-op)");
  if (!gpus.empty()) {
    LogEvent(LogLevel::kInfo, "devices",
             {{"cpu", cpu_line}, {"gpus", absl::StrJoin(gpus, ", ")},
              {"per_process_gpu_memory_fraction", absl::StrCat(options.gpu.memory_fraction)}});
    return;
  }
  if (options.gpu.memory_fraction > 0.0) {
    LogEvent(LogLevel::kWarning,
             absl::StrCat("--per_process_gpu_memory_fraction has no effect: no GPU device (",
                          devices.gpus_unavailable(), "); every model runs on the CPU"),
             {{"cpu", cpu_line},
              {"per_process_gpu_memory_fraction", absl::StrCat(options.gpu.memory_fraction)}});
    return;
  }
  LogEvent(LogLevel::kInfo,
           absl::StrCat("devices: no GPU device (", devices.gpus_unavailable(),
                        "); every model runs on the CPU"),
           {{"cpu", cpu_line}});
}

}  // namespace

Server::Server(ServerOptions options)
    : options_(std::move(options)), devices_(std::make_unique<DeviceSet>(options_.devices)) {
  LogDevices(*devices_, options_.devices);
  ModelManagerOptions manager_options = options_.manager;
  manager_options.load.session.devices = devices_.get();
  manager_options.metrics = &ServingMetrics::Global();
  if (options_.enable_model_warmup) {
    WarmupOptions warmup;
    warmup.iterations = options_.warmup_iterations;
    warmup.metrics = &ServingMetrics::Global();
    manager_options.on_loaded = [warmup](const ServableHandle& handle) {
      return ReplayWarmupRequests(handle, warmup);
    };
  }
  if (options_.batching.has_value()) {
    for (const Device* device : devices_->devices()) {
      batch_schedulers_[device->name()] =
          std::make_unique<BatchScheduler>(options_.batching->num_batch_threads);
    }
    manager_options.make_runner = [this](const ServableHandle& handle)
        -> absl::StatusOr<std::shared_ptr<const SignatureRunner>> {
      BatchingOptions batching = *options_.batching;
      if (options_.per_model_batching) {
        const std::string file =
            (std::filesystem::path(handle.bundle->export_dir()) / kBatchingParamsFile).string();
        std::error_code ec;
        if (!std::filesystem::exists(file, ec)) return nullptr;
        TENSORD_ASSIGN_OR_RETURN(batching, ReadBatchingParametersFile(file));
        batching.pad_value = options_.batching->pad_value;
      }
      auto scheduler = batch_schedulers_.find(handle.bundle->placement().PrimaryDevice());
      if (scheduler == batch_schedulers_.end()) {
        return absl::InternalError("no batch threads for the device of model " + handle.name);
      }
      return MakeBatchingRunner(handle, scheduler->second.get(), batching,
                                &ServingMetrics::Global());
    };
  }
  manager_ = std::make_unique<ModelManager>(std::move(manager_options));
  health_ = std::make_unique<ServerHealth>(manager_.get());
  admission_ = std::make_unique<Admission>(options_.admission);
}

Server::~Server() {
  Drain();
  // Drain only told it to stop: a config reload may still be finishing a load.
  if (config_thread_.joinable()) config_thread_.join();
}

int Server::rest_port() const { return rest_ != nullptr ? rest_->port() : 0; }

absl::Status Server::Start() {
  if (absl::Status s = manager_->ApplyConfig(options_.models); !s.ok()) return s;
  for (const ModelConfig& config : options_.models) {
    auto statuses = manager_->GetVersionStatus(config.name, std::nullopt);
    if (!statuses.ok()) {
      LogEvent(LogLevel::kWarning, "model has no versions yet",
               {{"model", config.name}, {"base_path", config.base_path}});
    }
  }
  manager_->StartPolling(options_.file_system_poll_seconds);

  prediction_service_ = std::make_unique<PredictionServiceImpl>(
      manager_.get(), &ServingMetrics::Global(), options_.request_limits, admission_.get());
  ModelManagementAccess management;
  management.enabled = options_.enable_model_management;
  management.required_header = options_.management_header;
  model_service_ = std::make_unique<ModelServiceImpl>(manager_.get(), management);
  health_service_ = std::make_unique<HealthServiceImpl>(health_.get());
  repository_service_ = std::make_unique<ModelRepositoryServiceImpl>(manager_.get());

  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  if (options_.grpc_port > 0) {
    builder.AddListeningPort(absl::StrCat("0.0.0.0:", options_.grpc_port),
                             GrpcCredentials(options_), &grpc_port_);
  }
  if (!options_.grpc_socket_path.empty()) {
    builder.AddListeningPort("unix:" + options_.grpc_socket_path,
                             grpc::InsecureServerCredentials());
  }
  // Every waiting call holds a thread (the server is synchronous, and batched calls wait in
  // their queue), so the default leaves room for many concurrent clients even on small CPUs.
  const int max_threads = options_.grpc_max_threads > 0 ? options_.grpc_max_threads
                                                        : std::max(256, 4 * AvailableCpus());
  grpc::ResourceQuota quota("tensord");
  quota.SetMaxThreads(max_threads);
  builder.SetResourceQuota(quota);
  if (!HasArgument(options_, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH)) {
    builder.SetMaxReceiveMessageSize(options_.grpc_max_receive_message_bytes);
  }
  if (!HasArgument(options_, GRPC_ARG_MAX_SEND_MESSAGE_LENGTH)) {
    builder.SetMaxSendMessageSize(options_.grpc_max_send_message_bytes);
  }
  for (const auto& [key, value] : options_.grpc_channel_arguments) {
    int as_int = 0;
    if (absl::SimpleAtoi(value, &as_int)) {
      builder.AddChannelArgument(key, as_int);
    } else {
      builder.AddChannelArgument(key, value);
    }
  }
  builder.RegisterService(prediction_service_.get());
  builder.RegisterService(model_service_.get());
  builder.RegisterService(health_service_.get());
  builder.RegisterService(repository_service_.get());
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr || (options_.grpc_port > 0 && grpc_port_ == 0)) {
    manager_->StopPolling();
    return absl::UnavailableError(absl::StrCat(
        "cannot listen for gRPC on 0.0.0.0:", options_.grpc_port,
        options_.grpc_socket_path.empty() ? "" : " / unix:" + options_.grpc_socket_path,
        options_.grpc_ssl.has_value()
            ? " (or the --ssl_config_file key and certificate are invalid)"
            : ""));
  }
  serving_ = true;
  std::vector<std::string> listeners;
  if (grpc_port_ > 0) listeners.push_back(absl::StrCat("0.0.0.0:", grpc_port_));
  if (!options_.grpc_socket_path.empty()) listeners.push_back("unix:" + options_.grpc_socket_path);
  LogEvent(LogLevel::kInfo,
           absl::StrCat("Running gRPC ModelServer at ", absl::StrJoin(listeners, " and "), " ..."),
           {{"services",
             "tensorflow.serving.PredictionService,tensorflow.serving.ModelService,"
             "grpc.health.v1.Health,tensord.v1.ModelRepository,grpc.reflection"},
            {"tls", !options_.grpc_ssl.has_value()       ? "off"
                    : options_.grpc_ssl->client_verify() ? "mutual"
                                                         : "on"},
            {"grpc_max_threads", absl::StrCat(max_threads)}});

  if (options_.rest_port > 0) {
    RestApiOptions rest_options;
    rest_options.port = options_.rest_port;
    rest_options.num_threads = options_.rest_num_threads;
    rest_options.num_io_threads = options_.rest_num_io_threads;
    rest_options.timeout_ms = options_.rest_timeout_ms;
    rest_options.metrics_path = options_.metrics_path;
    rest_options.max_body_bytes = options_.rest_max_body_bytes;
    rest_options.max_json_depth = options_.rest_max_json_depth;
    rest_options.gzip_min_bytes = options_.rest_gzip_min_bytes;
    rest_options.limits = options_.request_limits;
    rest_options.ssl = options_.rest_ssl;
    RestServices services;
    services.manager = manager_.get();
    services.health = health_.get();
    services.metrics = &ServingMetrics::Global();
    services.registry = &MetricRegistry::Global();
    services.admission = admission_.get();
    rest_ = std::make_unique<RestApi>(rest_options, services);
    if (absl::Status s = rest_->Start(); !s.ok()) {
      Drain();
      return s;
    }
    LogEvent(LogLevel::kInfo,
             absl::StrCat("Exporting HTTP/REST API at:0.0.0.0:", rest_->port(), " ..."),
             {{"metrics", options_.metrics_path.empty() ? "off" : options_.metrics_path},
              {"health", "/v2/health/live,/v2/health/ready"}});
  }

  if (!options_.model_config_file.empty() && options_.model_config_file_poll_seconds > 0) {
    config_text_ = ReadFile(options_.model_config_file);
    config_thread_ = std::thread([this]() { PollConfigFile(); });
  }
  return absl::OkStatus();
}

void Server::PollConfigFile() {
  std::unique_lock<std::mutex> lock(config_mu_);
  while (!config_cv_.wait_for(lock, std::chrono::seconds(options_.model_config_file_poll_seconds),
                              [this]() { return stop_config_poll_; })) {
    const std::string text = ReadFile(options_.model_config_file);
    if (text == config_text_) continue;
    config_text_ = text;
    lock.unlock();
    // A broken file is logged and ignored; the models of the last good one keep serving.
    absl::Status status;
    auto configs = ReadModelConfigFile(options_.model_config_file);
    status = configs.ok() ? manager_->ApplyConfig(*configs) : configs.status();
    if (status.ok()) {
      LogEvent(LogLevel::kInfo, "model config file applied",
               {{"file", options_.model_config_file},
                {"models", absl::StrJoin(manager_->ModelNames(), ",")}});
    } else {
      LogEvent(LogLevel::kError, "model config file not applied",
               {{"file", options_.model_config_file}, {"error", status.ToString()}});
    }
    lock.lock();
  }
}

void Server::Drain() {
  if (!serving_) return;
  serving_ = false;
  const absl::Time start = absl::Now();
  LogEvent(LogLevel::kInfo, "draining",
           {{"timeout_s", absl::StrCat(absl::ToDoubleSeconds(options_.drain_timeout))}});
  health_->SetDraining();
  // Queued requests run now instead of when their batch timers fire.
  for (auto& [device, scheduler] : batch_schedulers_) scheduler->Flush();
  // Give health watchers one poll period to see NOT_SERVING before their streams end.
  absl::SleepFor(absl::Milliseconds(200));
  health_service_->Shutdown();
  {
    std::lock_guard<std::mutex> lock(config_mu_);
    stop_config_poll_ = true;
  }
  config_cv_.notify_all();
  // gRPC and REST drain side by side; gRPC cancels what is left at the deadline.
  std::thread rest_stop([this]() {
    if (rest_ != nullptr) rest_->Stop();
  });
  grpc_server_->Shutdown(absl::ToChronoTime(start + options_.drain_timeout));
  grpc_server_->Wait();
  rest_stop.join();
  // Loads in progress (a version that arrived, a config reload) are not waited for here.
  manager_->StopPolling();
  LogEvent(LogLevel::kInfo, "stopped",
           {{"drain_ms", absl::StrCat(absl::ToInt64Milliseconds(absl::Now() - start))}});
}

}  // namespace tensord
