// tensord: serves a SavedModel over TF Serving's gRPC API (first increment: one model,
// Predict / GetModelMetadata / GetModelStatus).
//
//   tensord --port=8500 --model_name=default --model_base_path=/models/default
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "protos/serving/model_server_config.pb.h"
#include "server/health/health_service.h"
#include "server/model/model_manager.h"
#include "server/rest/rest_api.h"
#include "server/tfserving/services.h"

ABSL_FLAG(int, port, 8500, "Port for the gRPC API.");
ABSL_FLAG(int, rest_api_port, 0, "Port for the HTTP/REST API; 0 disables it.");
ABSL_FLAG(bool, enable_grpc_healthcheck_service, true,
          "Accepted for compatibility: grpc.health.v1.Health is always served.");
ABSL_FLAG(int, rest_api_num_threads, 0, "Threads serving REST requests; 0 = 4 x CPUs.");
ABSL_FLAG(int, rest_api_timeout_in_ms, 30000, "Timeout for REST socket reads and writes.");
ABSL_FLAG(std::string, model_name, "default", "Name of the served model.");
ABSL_FLAG(std::string, model_base_path, "",
          "Directory with numeric version subdirectories of the model (required).");
ABSL_FLAG(std::string, model_config_file, "",
          "Text-format ModelServerConfig (model_config_list) naming the models to serve; "
          "overrides --model_name/--model_base_path.");
ABSL_FLAG(int, file_system_poll_wait_seconds, 1,
          "Period of the version-directory rescans; 0 = scan only at startup.");
ABSL_FLAG(int, tensorflow_intra_op_parallelism, 0,
          "Threads inside one kernel; 0 = automatic.");
ABSL_FLAG(int, tensorflow_inter_op_parallelism, 0,
          "Threads running independent graph nodes; 0 = automatic.");

namespace {

// Reads and validates a text-format ModelServerConfig into `configs`; the error names the file.
absl::Status ReadModelConfigFile(const std::string& path,
                                 std::vector<tensord::ModelConfig>* configs) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid --model_config_file ", path, ": ", why));
  };
  std::ifstream in(path);
  if (!in) return fail("cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  tensorflow::serving::ModelServerConfig config;
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &config)) {
    return fail("not a text-format ModelServerConfig");
  }
  if (!config.has_model_config_list()) {
    return fail("only model_config_list is supported");
  }
  std::set<std::string> names;
  for (const auto& model : config.model_config_list().config()) {
    if (model.name().empty()) return fail("a model config has no name");
    if (!names.insert(model.name()).second) {
      return fail(absl::StrCat("Illegal to list model ", model.name(),
                               " multiple times in config list"));
    }
    if (model.base_path().empty() || model.base_path()[0] != '/') {
      return fail(absl::StrCat("Expected model ", model.name(),
                               " to have an absolute path or URI; got base_path()=",
                               model.base_path()));
    }
    if (model.model_platform().empty()) {
      return fail(absl::StrCat("Illegal setting neither ModelServerConfig::model_type "
                               "(deprecated) nor ModelServerConfig::model_platform, model name "
                               "is ",
                               model.name()));
    }
    if (model.model_platform() != "tensorflow") {
      return fail(absl::StrCat("model ", model.name(), ": unsupported model_platform '",
                               model.model_platform(), "' (only 'tensorflow' is served)"));
    }
    tensord::ModelConfig out;
    out.name = model.name();
    out.base_path = model.base_path();
    const auto& policy = model.model_version_policy();
    if (policy.has_all()) {
      out.policy = tensord::VersionPolicy::kAll;
    } else if (policy.has_specific()) {
      out.policy = tensord::VersionPolicy::kSpecific;
      out.versions.assign(policy.specific().versions().begin(),
                          policy.specific().versions().end());
    } else {
      out.policy = tensord::VersionPolicy::kLatest;
      out.num_versions = policy.has_latest() ? static_cast<int>(policy.latest().num_versions()) : 1;
    }
    for (const auto& [label, version] : model.version_labels()) out.labels[label] = version;
    configs->push_back(std::move(out));
  }
  return absl::OkStatus();
}

constexpr char kVersion[] = "tensord 0.1.0 (gRPC: PredictionService, ModelService)";

int Run(int argc, char** argv) {
  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = []() { return std::string(kVersion) + "\n"; };
  absl::SetFlagsUsageConfig(usage_config);
  absl::SetProgramUsageMessage(
      "tensord --model_base_path=DIR [--model_name=NAME] [--port=8500]");
  absl::ParseCommandLine(argc, argv);  // Unknown flags: message and exit 1.

  const std::string base_path = absl::GetFlag(FLAGS_model_base_path);
  const std::string model_name = absl::GetFlag(FLAGS_model_name);
  const std::string config_file = absl::GetFlag(FLAGS_model_config_file);
  const int port = absl::GetFlag(FLAGS_port);
  const int poll_seconds = absl::GetFlag(FLAGS_file_system_poll_wait_seconds);
  if (base_path.empty() && config_file.empty()) {
    std::cerr << "tensord: --model_base_path is required (Both server_options.model_base_path "
                 "and server_options.model_config_file are empty!)\n";
    return 2;
  }
  std::vector<tensord::ModelConfig> configs;
  if (!config_file.empty()) {
    if (absl::Status s = ReadModelConfigFile(config_file, &configs); !s.ok()) {
      std::cerr << "tensord: " << s.message() << "\n";
      return 1;
    }
    if (!base_path.empty()) {
      std::cerr << "tensord: warning: --model_config_file overrides --model_name/"
                   "--model_base_path, as in TF Serving\n";
    }
  } else {
    tensord::ModelConfig single;
    single.name = model_name;
    single.base_path = base_path;
    configs.push_back(single);
  }
  if (port < 0 || port > 65535) {
    std::cerr << "tensord: --port must be in 0..65535\n";
    return 2;
  }
  const int rest_port = absl::GetFlag(FLAGS_rest_api_port);
  if (rest_port < 0 || rest_port > 65535) {
    std::cerr << "tensord: --rest_api_port must be in 0..65535\n";
    return 2;
  }

  // Block the shutdown signals before any thread starts, so that only sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  tensord::ModelManagerOptions options;
  options.load.session.intra_op_threads = absl::GetFlag(FLAGS_tensorflow_intra_op_parallelism);
  options.load.session.inter_op_threads = absl::GetFlag(FLAGS_tensorflow_inter_op_parallelism);
  tensord::ModelManager manager(options);
  for (const tensord::ModelConfig& config : configs) {
    if (absl::Status s = manager.AddModel(config); !s.ok()) {
      std::cerr << "tensord: cannot serve model " << config.name << ": " << s << "\n";
      return 1;
    }
    auto statuses = manager.GetVersionStatus(config.name, std::nullopt);
    if (!statuses.ok()) {
      std::cerr << "tensord: warning: No versions of servable " << config.name
                << " found under base path " << config.base_path << "\n";
      continue;
    }
    for (const auto& vs : *statuses) {
      if (vs.status.ok()) {
        std::cerr << "tensord: model " << config.name << " version " << vs.version
                  << (vs.state == tensord::VersionState::kAvailable ? " AVAILABLE\n" : " END\n");
      } else {
        std::cerr << "tensord: model " << config.name << " version " << vs.version
                  << " failed to load (END): " << vs.status << "\n";
      }
    }
  }
  manager.StartPolling(poll_seconds);

  tensord::PredictionServiceImpl prediction_service(&manager);
  tensord::ModelServiceImpl model_service(&manager);
  tensord::HealthServiceImpl health_service(&manager);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(absl::StrCat("0.0.0.0:", port), grpc::InsecureServerCredentials(),
                           &selected_port);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  builder.RegisterService(&prediction_service);
  builder.RegisterService(&model_service);
  builder.RegisterService(&health_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || selected_port == 0) {
    std::cerr << "tensord: cannot listen on 0.0.0.0:" << port << "\n";
    return 1;
  }
  std::cerr << "tensord: serving " << configs.size() << " model(s)"
            << "; gRPC (tensorflow.serving.PredictionService, ModelService, grpc.health.v1.Health) at 0.0.0.0:"
            << selected_port << std::endl;

  // TF Serving's convention: --rest_api_port=0 means no REST API.
  std::unique_ptr<tensord::RestApi> rest;
  if (rest_port > 0) {
    tensord::RestApiOptions rest_options;
    rest_options.port = rest_port;
    rest_options.num_threads = absl::GetFlag(FLAGS_rest_api_num_threads);
    rest_options.timeout_ms = absl::GetFlag(FLAGS_rest_api_timeout_in_ms);
    rest = std::make_unique<tensord::RestApi>(rest_options);
    if (absl::Status s = rest->Start(manager); !s.ok()) {
      std::cerr << "tensord: cannot start the REST API: " << s << "\n";
      server->Shutdown();
      manager.StopPolling();
      return 1;
    }
    std::cerr << "tensord: REST API (/v1/models/...) at 0.0.0.0:" << rest->port() << std::endl;
  }

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::cerr << "tensord: received signal " << signal_number << ", shutting down" << std::endl;
  if (rest != nullptr) rest->Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  manager.StopPolling();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
