// tensord: serves TensorFlow SavedModels over TF Serving's gRPC and REST APIs. The flags are
// tensorflow_model_server's (same names and defaults); tensord's additions are marked so in
// --help.
//
//   tensord --port=8500 --rest_api_port=8501 --model_name=NAME --model_base_path=/models/NAME
//   tensord --model_config_file=/etc/models.config --model_config_file_poll_wait_seconds=60
#include <signal.h>

#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "protos/serving/monitoring_config.pb.h"
#include "protos/serving/ssl_config.pb.h"
#include "runtime/exec/precision.h"
#include "runtime/util/process_setup.h"
#include "runtime/util/status_macros.h"
#include "server/batching/batching_options.h"
#include "server/logging/log.h"
#include "server/model/model_config_proto.h"
#include "server/server.h"

// --- tensorflow_model_server's flags ---
ABSL_FLAG(int, port, 8500, "Port for the gRPC API (0.0.0.0); 0 = no TCP listener.");
ABSL_FLAG(std::string, grpc_socket_path, "", "Also serve gRPC on this UNIX socket.");
ABSL_FLAG(int, rest_api_port, 0,
          "Port for the HTTP/REST API, Prometheus metrics and health endpoints; 0 = off.");
ABSL_FLAG(int, rest_api_num_threads, 0,
          "Worker threads running REST requests (socket I/O runs on the event loops of "
          "--rest_api_num_io_threads); 0 = 4 x CPUs.");
ABSL_FLAG(int, rest_api_timeout_in_ms, 30000,
          "Deadline of REST inference calls, and the REST idle-connection timeout.");
ABSL_FLAG(std::string, model_name, "default", "Name of the served model.");
ABSL_FLAG(std::string, model_base_path, "",
          "Directory with numeric version subdirectories of the model.");
ABSL_FLAG(std::string, model_config_file, "",
          "Text-format ModelServerConfig (model_config_list) naming the models to serve; "
          "overrides --model_name/--model_base_path.");
ABSL_FLAG(int, model_config_file_poll_wait_seconds, 0,
          "Re-read --model_config_file this often and apply changes; 0 = read once.");
ABSL_FLAG(int, file_system_poll_wait_seconds, 1,
          "Period of the version-directory rescans; 0 = scan only at startup.");
ABSL_FLAG(std::string, monitoring_config_file, "",
          "Text-format MonitoringConfig: prometheus_config { enable, path }. tensord serves "
          "metrics at /monitoring/prometheus/metrics on the REST port without it; "
          "enable: false turns them off.");
ABSL_FLAG(bool, enable_batching, false,
          "Merge concurrent Predict requests of a model into batches (models whose signatures "
          "write variables are never batched).");
ABSL_FLAG(std::string, batching_parameters_file, "",
          "Text-format BatchingParameters (max_batch_size, batch_timeout_micros, ...); needs "
          "--enable_batching. Without it TF Serving's defaults apply.");
ABSL_FLAG(bool, enable_per_model_batching_parameters, false,
          "Batch only versions with a batching_params.pbtxt in their directory, with its "
          "settings; --batching_parameters_file then only sizes the shared thread pool.");
ABSL_FLAG(int, tensorflow_session_parallelism, 0,
          "Sets both intra- and inter-op threads unless those are given; 0 = automatic.");
ABSL_FLAG(int, tensorflow_intra_op_parallelism, 0,
          "Threads inside one kernel; 0 = automatic (the CPU quota of the container).");
ABSL_FLAG(int, tensorflow_inter_op_parallelism, 0,
          "Threads running independent graph nodes; 0 = automatic.");
ABSL_FLAG(double, per_process_gpu_memory_fraction, 0.0,
          "Share of each GPU's memory the process may take, 0..1; 0 = grow on demand. "
          "Without a GPU device a non-zero value is logged as having no effect.");
ABSL_FLAG(std::string, device_policy, "auto",
          "Which device models' nodes ask for: auto (GPU 0 where there is a GPU, else the "
          "CPU), cpu (every node, pinned ones too), gpu or gpu:N (nodes the graph does not "
          "pin). A model's device_policy field in --model_config_file wins. A node whose "
          "device or kernel is missing runs on the CPU (soft placement).");
ABSL_FLAG(std::string, precision, "fp32",
          "Arithmetic of the models' CPU matrix products and convolutions: fp32, or bf16 "
          "(inputs and weights rounded to bfloat16, float32 accumulation; on AMX or "
          "AVX512_BF16, else fp32 with a warning). A model's precision field in "
          "--model_config_file wins.");
ABSL_FLAG(std::string, saved_model_tags, "serve",
          "Comma-separated tag set of the MetaGraphDef to load.");
ABSL_FLAG(bool, enable_model_warmup, true,
          "Replay assets.extra/tf_serving_warmup_requests before a version becomes AVAILABLE.");
ABSL_FLAG(int, num_request_iterations_for_warmup, 1, "Times each warmup record is replayed.");
ABSL_FLAG(int, num_load_threads, 0, "Versions loading at once; 0 = one at a time.");
ABSL_FLAG(int, num_unload_threads, 0, "Versions unloading at once; 0 = one at a time.");
ABSL_FLAG(int, max_num_load_retries, 5, "Retries after a failed version load.");
ABSL_FLAG(int64_t, load_retry_interval_micros, 60 * 1000 * 1000,
          "Wait between load retries, in microseconds.");
ABSL_FLAG(int, grpc_max_threads, 0,
          "Cap on gRPC server threads (one per call in progress, queued batch calls included); "
          "0 = max(256, 4 x CPUs): gRPC counts its pollers too.");
ABSL_FLAG(std::string, grpc_channel_arguments, "",
          "Comma-separated gRPC server channel arguments key=value (integers passed as ints), "
          "e.g. grpc.max_connection_age_ms=60000.");
ABSL_FLAG(bool, enable_grpc_healthcheck_service, true,
          "Accepted for compatibility: grpc.health.v1.Health is always served by tensord.");
ABSL_FLAG(bool, allow_version_labels_for_unavailable_models, false,
          "Let a new version label point to a version that is not AVAILABLE yet.");
// Accepted so that existing command lines keep working; tensord has nothing to switch.
ABSL_FLAG(bool, flush_filesystem_caches, true, "Accepted for compatibility; no effect.");
ABSL_FLAG(bool, enable_profiler, true, "Accepted for compatibility; no effect.");
ABSL_FLAG(bool, enable_serialization_as_tensor_content, false,
          "Accepted for compatibility: numeric outputs always use tensor_content.");
ABSL_FLAG(bool, remove_unused_fields_from_bundle_metagraph, true,
          "Accepted for compatibility; no effect.");

ABSL_FLAG(std::string, ssl_config_file, "",
          "Text-format SSLConfig (server_key, server_cert PEM text; custom_ca and client_verify "
          "for mutual TLS): serve gRPC on --port over TLS.");

// --- tensord's additions ---
ABSL_FLAG(std::string, rest_api_ssl_config_file, "",
          "[tensord] Text-format SSLConfig, as --ssl_config_file: serve REST (and metrics, "
          "health) over HTTPS, with client certificates when client_verify.");
ABSL_FLAG(bool, enable_model_management, true,
          "[tensord] Serve ModelService.HandleReloadConfigRequest; false refuses it with "
          "PERMISSION_DENIED.");
ABSL_FLAG(std::string, model_management_header, "",
          "[tensord] key=value: HandleReloadConfigRequest needs this gRPC metadata header "
          "(key in lower case), else UNAUTHENTICATED.");
ABSL_FLAG(int64_t, grpc_max_receive_message_size, 256 << 20,
          "[tensord] Largest gRPC request in bytes (at most 2147483647); larger ones fail "
          "RESOURCE_EXHAUSTED. grpc.max_receive_message_length in --grpc_channel_arguments "
          "overrides it.");
ABSL_FLAG(int64_t, grpc_max_send_message_size, INT_MAX,
          "[tensord] Largest gRPC response in bytes (at most 2147483647).");
ABSL_FLAG(int, rest_api_num_io_threads, 0,
          "[tensord] Event-loop threads reading REST requests and writing replies; 0 = one per "
          "CPU this process may use, at least 4 and at most 16.");
ABSL_FLAG(int64_t, rest_api_max_body_bytes, int64_t{64} << 20,
          "[tensord] Largest REST request body; larger ones get HTTP 413 unread.");
ABSL_FLAG(int64_t, rest_api_gzip_min_bytes, 0,
          "[tensord] gzip (level 1) REST responses of at least this many bytes, up to 16 MiB, "
          "for clients that send Accept-Encoding: gzip; 0 = never.");
ABSL_FLAG(int, rest_api_max_json_depth, 64,
          "[tensord] Deepest nesting of JSON arrays and objects in a REST body (HTTP 413).");
ABSL_FLAG(int64_t, max_request_inputs, 1024,
          "[tensord] Most named input tensors in one request (RESOURCE_EXHAUSTED / HTTP 413).");
ABSL_FLAG(int64_t, max_request_tensor_elements, int64_t{1} << 28,
          "[tensord] Most elements of one request's input tensors together.");
ABSL_FLAG(int64_t, max_request_tensor_bytes, int64_t{1} << 30,
          "[tensord] Most bytes of one request's decoded input tensors together (a string "
          "element counts its length plus 32).");
ABSL_FLAG(int64_t, max_request_string_bytes, int64_t{64} << 20,
          "[tensord] Longest string element of a request's input tensors, in bytes.");
ABSL_FLAG(int, max_inflight_requests_per_model, 0,
          "[tensord] Inference requests of one model running at once (gRPC and REST together); "
          "0 = no limit. Beyond it requests wait (--max_queued_requests_per_model) or are "
          "refused with RESOURCE_EXHAUSTED / HTTP 429.");
ABSL_FLAG(int, max_queued_requests_per_model, 0,
          "[tensord] Requests of one model that wait for a running slot when "
          "--max_inflight_requests_per_model are running; the rest are refused at once.");
ABSL_FLAG(int, drain_timeout_seconds, 25,
          "[tensord] On SIGTERM/SIGINT: readiness goes false, new calls are refused and "
          "in-flight ones get this long to finish.");
ABSL_FLAG(std::string, log_format, "text", "[tensord] Log lines as 'text' or 'json'.");
ABSL_FLAG(double, batching_pad_value, 0,
          "[tensord] Value of the elements pad_variable_length_inputs adds (\"\" for strings); "
          "TF Serving repeats each tensor's first element instead.");

namespace {

using tensord::LogEvent;
using tensord::LogLevel;

constexpr char kVersion[] = "0.1.0";
// Past --drain_timeout_seconds, the time cancelled work and the server's threads get to stop
// before the process exits regardless.
constexpr absl::Duration kShutdownGrace = absl::Seconds(3);

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

absl::Status CheckPort(const char* flag, int port) {
  if (port < 0 || port > 65535) return Invalid(absl::StrCat("--", flag, " must be in 0..65535"));
  return absl::OkStatus();
}

absl::Status CheckNonNegative(const char* flag, int64_t value) {
  if (value < 0) return Invalid(absl::StrCat("--", flag, " must not be negative"));
  return absl::OkStatus();
}

// Parses the text proto `file` named by --`flag` into `message`; errors name flag and file.
absl::Status ReadTextProtoFlag(const char* flag, const std::string& file,
                               google::protobuf::Message* message) {
  std::ifstream in(file);
  if (!in) return Invalid(absl::StrCat("invalid --", flag, " ", file, ": cannot open the file"));
  std::stringstream text;
  text << in.rdbuf();
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), message)) {
    return Invalid(absl::StrCat("invalid --", flag, " ", file, ": not a text-format ",
                                message->GetDescriptor()->name()));
  }
  return absl::OkStatus();
}

// The metrics path from a MonitoringConfig file; "" when it disables Prometheus.
absl::StatusOr<std::string> MetricsPath(const std::string& file) {
  const std::string kDefault = "/monitoring/prometheus/metrics";
  if (file.empty()) return kDefault;
  tensorflow::serving::MonitoringConfig config;
  TENSORD_RETURN_IF_ERROR(ReadTextProtoFlag("monitoring_config_file", file, &config));
  if (!config.prometheus_config().enable()) return std::string();
  const std::string& path = config.prometheus_config().path();
  if (path.empty()) return kDefault;
  if (path[0] != '/') {
    return Invalid("invalid --monitoring_config_file " + file +
                   ": prometheus_config.path must start with '/'");
  }
  return path;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ChannelArguments(
    const std::string& text) {
  std::vector<std::pair<std::string, std::string>> arguments;
  if (text.empty()) return arguments;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty()) {
      return Invalid(absl::StrCat("--grpc_channel_arguments: expected key=value, got '",
                                  std::string(item), "'"));
    }
    arguments.emplace_back(kv[0], kv[1]);
  }
  return arguments;
}

absl::StatusOr<std::optional<tensorflow::serving::SSLConfig>> SslConfig(const char* flag,
                                                                        const std::string& file) {
  if (file.empty()) return std::nullopt;
  tensorflow::serving::SSLConfig config;
  TENSORD_RETURN_IF_ERROR(ReadTextProtoFlag(flag, file, &config));
  if (config.server_key().empty() || config.server_cert().empty()) {
    return Invalid(
        absl::StrCat("invalid --", flag, " ", file, ": server_key and server_cert are required"));
  }
  if (config.client_verify() && config.custom_ca().empty()) {
    return Invalid(absl::StrCat("invalid --", flag, " ", file, ": client_verify needs custom_ca"));
  }
  return config;
}

absl::StatusOr<int> MessageSize(const char* flag, int64_t value) {
  if (value <= 0 || value > INT_MAX) {
    return Invalid(absl::StrCat("--", flag, " must be in 1..", INT_MAX));
  }
  return static_cast<int>(value);
}

constexpr int kMaxJsonDepth = 1000;

absl::Status CheckPositive(const char* flag, int64_t value) {
  if (value <= 0) return Invalid(absl::StrCat("--", flag, " must be positive"));
  return absl::OkStatus();
}

// Request size limits and access control.
absl::Status HardeningFromFlags(tensord::ServerOptions* options) {
  TENSORD_ASSIGN_OR_RETURN(options->grpc_ssl,
                           SslConfig("ssl_config_file", absl::GetFlag(FLAGS_ssl_config_file)));
  TENSORD_ASSIGN_OR_RETURN(
      options->rest_ssl,
      SslConfig("rest_api_ssl_config_file", absl::GetFlag(FLAGS_rest_api_ssl_config_file)));
  options->enable_model_management = absl::GetFlag(FLAGS_enable_model_management);
  options->management_header = absl::GetFlag(FLAGS_model_management_header);
  if (!options->management_header.empty()) {
    const size_t eq = options->management_header.find('=');
    if (eq == 0 || eq == std::string::npos ||
        absl::AsciiStrToLower(options->management_header.substr(0, eq)) !=
            options->management_header.substr(0, eq)) {
      return Invalid("--model_management_header must be key=value with a lower-case key");
    }
  }
  TENSORD_ASSIGN_OR_RETURN(options->grpc_max_receive_message_bytes,
                           MessageSize("grpc_max_receive_message_size",
                                       absl::GetFlag(FLAGS_grpc_max_receive_message_size)));
  TENSORD_ASSIGN_OR_RETURN(
      options->grpc_max_send_message_bytes,
      MessageSize("grpc_max_send_message_size", absl::GetFlag(FLAGS_grpc_max_send_message_size)));
  options->rest_max_body_bytes = absl::GetFlag(FLAGS_rest_api_max_body_bytes);
  options->rest_max_json_depth = absl::GetFlag(FLAGS_rest_api_max_json_depth);
  options->rest_gzip_min_bytes = absl::GetFlag(FLAGS_rest_api_gzip_min_bytes);
  TENSORD_RETURN_IF_ERROR(
      CheckNonNegative("rest_api_gzip_min_bytes", options->rest_gzip_min_bytes));
  tensord::RequestLimits& limits = options->request_limits;
  limits.max_inputs = absl::GetFlag(FLAGS_max_request_inputs);
  limits.max_tensor_elements = absl::GetFlag(FLAGS_max_request_tensor_elements);
  limits.max_tensor_bytes = absl::GetFlag(FLAGS_max_request_tensor_bytes);
  limits.max_string_bytes = absl::GetFlag(FLAGS_max_request_string_bytes);
  TENSORD_RETURN_IF_ERROR(CheckPositive("rest_api_max_body_bytes", options->rest_max_body_bytes));
  TENSORD_RETURN_IF_ERROR(CheckPositive("rest_api_max_json_depth", options->rest_max_json_depth));
  // The JSON readers recurse once per level, on worker threads' stacks.
  if (options->rest_max_json_depth > kMaxJsonDepth) {
    return Invalid(absl::StrCat("--rest_api_max_json_depth must be at most ", kMaxJsonDepth));
  }
  TENSORD_RETURN_IF_ERROR(CheckPositive("max_request_inputs", limits.max_inputs));
  TENSORD_RETURN_IF_ERROR(CheckPositive("max_request_tensor_elements", limits.max_tensor_elements));
  TENSORD_RETURN_IF_ERROR(CheckPositive("max_request_tensor_bytes", limits.max_tensor_bytes));
  TENSORD_RETURN_IF_ERROR(CheckPositive("max_request_string_bytes", limits.max_string_bytes));
  return absl::OkStatus();
}

// Flags → ServerOptions, with TF Serving's validation rules.
absl::StatusOr<tensord::ServerOptions> OptionsFromFlags() {
  tensord::ServerOptions options;
  options.grpc_port = absl::GetFlag(FLAGS_port);
  options.grpc_socket_path = absl::GetFlag(FLAGS_grpc_socket_path);
  options.rest_port = absl::GetFlag(FLAGS_rest_api_port);
  TENSORD_RETURN_IF_ERROR(CheckPort("port", options.grpc_port));
  TENSORD_RETURN_IF_ERROR(CheckPort("rest_api_port", options.rest_port));
  if (options.grpc_port == 0 && options.grpc_socket_path.empty()) {
    return Invalid(
        "At least one of server_options.grpc_port or server_options.grpc_socket_path must be "
        "set.");
  }
  if (options.rest_port != 0 && options.rest_port == options.grpc_port) {
    return Invalid("--rest_api_port must differ from --port");
  }
  options.rest_num_threads = absl::GetFlag(FLAGS_rest_api_num_threads);
  options.rest_num_io_threads = absl::GetFlag(FLAGS_rest_api_num_io_threads);
  options.rest_timeout_ms = absl::GetFlag(FLAGS_rest_api_timeout_in_ms);
  options.grpc_max_threads = absl::GetFlag(FLAGS_grpc_max_threads);
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("rest_api_num_threads", options.rest_num_threads));
  TENSORD_RETURN_IF_ERROR(
      CheckNonNegative("rest_api_num_io_threads", options.rest_num_io_threads));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("rest_api_timeout_in_ms", options.rest_timeout_ms));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("grpc_max_threads", options.grpc_max_threads));
  TENSORD_ASSIGN_OR_RETURN(options.grpc_channel_arguments,
                           ChannelArguments(absl::GetFlag(FLAGS_grpc_channel_arguments)));
  TENSORD_ASSIGN_OR_RETURN(options.metrics_path,
                           MetricsPath(absl::GetFlag(FLAGS_monitoring_config_file)));
  TENSORD_RETURN_IF_ERROR(HardeningFromFlags(&options));

  const std::string base_path = absl::GetFlag(FLAGS_model_base_path);
  options.model_config_file = absl::GetFlag(FLAGS_model_config_file);
  if (base_path.empty() && options.model_config_file.empty()) {
    return Invalid(
        "--model_base_path or --model_config_file is required (Both "
        "server_options.model_base_path and server_options.model_config_file are empty!)");
  }
  if (!options.model_config_file.empty()) {
    TENSORD_ASSIGN_OR_RETURN(options.models,
                             tensord::ReadModelConfigFile(options.model_config_file));
    if (!base_path.empty()) {
      LogEvent(LogLevel::kWarning,
               "--model_config_file overrides --model_name/--model_base_path, as in TF Serving");
    }
  } else {
    tensord::ModelConfig single;
    single.name = absl::GetFlag(FLAGS_model_name);
    single.base_path = base_path;
    options.models.push_back(single);
  }
  options.model_config_file_poll_seconds = absl::GetFlag(FLAGS_model_config_file_poll_wait_seconds);
  options.file_system_poll_seconds = absl::GetFlag(FLAGS_file_system_poll_wait_seconds);
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("model_config_file_poll_wait_seconds",
                                           options.model_config_file_poll_seconds));
  TENSORD_RETURN_IF_ERROR(
      CheckNonNegative("file_system_poll_wait_seconds", options.file_system_poll_seconds));

  const std::string batching_file = absl::GetFlag(FLAGS_batching_parameters_file);
  if (!batching_file.empty() && !absl::GetFlag(FLAGS_enable_batching)) {
    return Invalid(
        "server_options.batching_parameters_file is set without setting "
        "server_options.enable_batching to true.");
  }
  if (absl::GetFlag(FLAGS_enable_batching)) {
    if (batching_file.empty()) {
      options.batching = tensord::BatchingOptions();
    } else {
      TENSORD_ASSIGN_OR_RETURN(options.batching,
                               tensord::ReadBatchingParametersFile(batching_file));
    }
    options.batching->pad_value = absl::GetFlag(FLAGS_batching_pad_value);
    options.per_model_batching = absl::GetFlag(FLAGS_enable_per_model_batching_parameters);
  }

  tensord::ModelManagerOptions& manager = options.manager;
  const int session = absl::GetFlag(FLAGS_tensorflow_session_parallelism);
  const int intra = absl::GetFlag(FLAGS_tensorflow_intra_op_parallelism);
  const int inter = absl::GetFlag(FLAGS_tensorflow_inter_op_parallelism);
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("tensorflow_session_parallelism", session));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("tensorflow_intra_op_parallelism", intra));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("tensorflow_inter_op_parallelism", inter));
  if (session > 0 && intra > 0 && inter > 0) {
    return Invalid(
        "Either configure server_options.tensorflow_session_parallelism or "
        "(server_options.tensorflow_intra_op_parallelism, "
        "server_options.tensorflow_inter_op_parallelism), not both.");
  }
  const double gpu_fraction = absl::GetFlag(FLAGS_per_process_gpu_memory_fraction);
  // Written as a negation so that NaN is refused too.
  if (!(gpu_fraction >= 0.0 && gpu_fraction <= 1.0)) {
    return Invalid(absl::StrCat("--per_process_gpu_memory_fraction must be in 0..1, not ",
                                gpu_fraction));
  }
  options.devices.gpu.memory_fraction = gpu_fraction;
  absl::StatusOr<tensord::DevicePolicy> policy =
      tensord::ParseDevicePolicy(absl::GetFlag(FLAGS_device_policy));
  if (!policy.ok()) return Invalid(absl::StrCat("--device_policy: ", policy.status().message()));
  manager.load.placement.policy = *policy;
  absl::StatusOr<tensord::ComputePrecision> precision =
      tensord::ParsePrecision(absl::GetFlag(FLAGS_precision));
  if (!precision.ok()) return Invalid(absl::StrCat("--precision: ", precision.status().message()));
  manager.load.precision = *precision;
  options.devices.intra_op_threads = intra > 0 || inter > 0 ? intra : session;
  options.devices.inter_op_threads = intra > 0 || inter > 0 ? inter : session;
  manager.load.tags.clear();
  for (absl::string_view tag : absl::StrSplit(absl::GetFlag(FLAGS_saved_model_tags), ',',
                                              absl::SkipWhitespace())) {
    manager.load.tags.insert(std::string(tag));
  }
  manager.num_load_threads = absl::GetFlag(FLAGS_num_load_threads);
  manager.num_unload_threads = absl::GetFlag(FLAGS_num_unload_threads);
  manager.max_num_load_retries = absl::GetFlag(FLAGS_max_num_load_retries);
  const int64_t retry_micros = absl::GetFlag(FLAGS_load_retry_interval_micros);
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("num_load_threads", manager.num_load_threads));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("num_unload_threads", manager.num_unload_threads));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("max_num_load_retries", manager.max_num_load_retries));
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("load_retry_interval_micros", retry_micros));
  manager.load_retry_interval = absl::Microseconds(retry_micros);
  manager.allow_version_labels_for_unavailable_models =
      absl::GetFlag(FLAGS_allow_version_labels_for_unavailable_models);

  options.enable_model_warmup = absl::GetFlag(FLAGS_enable_model_warmup);
  options.warmup_iterations = absl::GetFlag(FLAGS_num_request_iterations_for_warmup);
  options.admission.max_in_flight = absl::GetFlag(FLAGS_max_inflight_requests_per_model);
  options.admission.max_queued = absl::GetFlag(FLAGS_max_queued_requests_per_model);
  TENSORD_RETURN_IF_ERROR(
      CheckNonNegative("max_inflight_requests_per_model", options.admission.max_in_flight));
  TENSORD_RETURN_IF_ERROR(
      CheckNonNegative("max_queued_requests_per_model", options.admission.max_queued));
  const int drain = absl::GetFlag(FLAGS_drain_timeout_seconds);
  TENSORD_RETURN_IF_ERROR(CheckNonNegative("drain_timeout_seconds", drain));
  options.drain_timeout = absl::Seconds(drain);
  return options;
}

int Run(int argc, char** argv) {
  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = []() {
    return absl::StrCat("TensorFlow ModelServer: tensord ", kVersion, "\n",
                        "TensorFlow Library: none (tensord runs SavedModels itself)\n");
  };
  // --help lists tensord's own flags only, not those of the libraries it links.
  usage_config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "server/main.cc");
  };
  absl::SetFlagsUsageConfig(usage_config);
  absl::SetProgramUsageMessage(
      "tensord --model_base_path=DIR [--model_name=NAME] [--port=8500] [--rest_api_port=8501]\n"
      "        or --model_config_file=FILE. Flags are tensorflow_model_server's; [tensord] "
      "marks additions.");
  absl::ParseCommandLine(argc, argv);  // Unknown flags and malformed values: message, exit 1.

  tensord::LogFormat format;
  if (!tensord::ParseLogFormat(absl::GetFlag(FLAGS_log_format), &format)) {
    std::cerr << "tensord: --log_format must be 'text' or 'json'\n";
    return 2;
  }
  tensord::SetLogFormat(format);

  absl::StatusOr<tensord::ServerOptions> options = OptionsFromFlags();
  if (!options.ok()) {
    std::cerr << "tensord: " << options.status().message() << "\n";
    return 2;
  }
  // Block the shutdown signals before any thread starts, so that only sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Signals are awaited from the start: loading the models (with retries, minutes by default)
  // must not make SIGTERM wait. Before the server serves there is nothing to drain, so a signal
  // then ends the process at once; loads in progress write nothing that a restart must clean up.
  std::mutex mu;
  std::condition_variable signalled;
  bool started = false;   // guarded by mu
  int signal_number = 0;  // guarded by mu
  std::thread waiter([&]() {
    int received = 0;
    sigwait(&signals, &received);
    std::lock_guard<std::mutex> lock(mu);
    if (!started) {
      LogEvent(LogLevel::kInfo, "shutting down before serving", {{"signal", strsignal(received)}});
      std::_Exit(0);
    }
    signal_number = received;
    signalled.notify_all();
  });
  const absl::Duration drain_timeout = options->drain_timeout;
  tensord::Server server(*std::move(options));
  if (absl::Status s = server.Start(); !s.ok()) {
    LogEvent(LogLevel::kError, "cannot start", {{"error", s.ToString()}});
    std::_Exit(1);  // the waiter thread is blocked in sigwait and cannot be joined
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    started = true;
    signalled.wait(lock, [&]() { return signal_number != 0; });
    LogEvent(LogLevel::kInfo, "shutting down", {{"signal", strsignal(signal_number)}});
  }
  waiter.join();
  // The drain deadline bounds the whole shutdown: what still runs past it (a REST client
  // trickling its body, a kernel that does not check for cancellation) is abandoned.
  const absl::Duration shutdown_limit = drain_timeout + kShutdownGrace;
  std::thread([shutdown_limit]() {
    absl::SleepFor(shutdown_limit);
    LogEvent(LogLevel::kWarning, "shutdown took too long; exiting with work in progress",
             {{"limit_s", absl::StrCat(absl::ToDoubleSeconds(shutdown_limit))}});
    std::_Exit(0);
  }).detach();
  server.Drain();
  // A load still in progress (a version that arrived during shutdown) is not waited for, as
  // ~Server would: nothing it produces is needed, and it only reads the model's files.
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  tensord::SetUpProcess();
  return Run(argc, argv);
}
