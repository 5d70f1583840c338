// tensord: serves a SavedModel over TF Serving's gRPC API (first increment: one model,
// Predict / GetModelMetadata / GetModelStatus).
//
//   tensord --port=8500 --model_name=default --model_base_path=/models/default
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "server/model/model_manager.h"
#include "server/tfserving/services.h"

ABSL_FLAG(int, port, 8500, "Port for the gRPC API.");
ABSL_FLAG(int, rest_api_port, 0,
          "Port for the HTTP/REST API; 0 disables it. REST arrives in a later increment.");
ABSL_FLAG(std::string, model_name, "default", "Name of the served model.");
ABSL_FLAG(std::string, model_base_path, "",
          "Directory with numeric version subdirectories of the model (required).");
ABSL_FLAG(int, tensorflow_intra_op_parallelism, 0,
          "Threads inside one kernel; 0 = automatic.");
ABSL_FLAG(int, tensorflow_inter_op_parallelism, 0,
          "Threads running independent graph nodes; 0 = automatic.");

namespace {

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
  const int port = absl::GetFlag(FLAGS_port);
  if (base_path.empty()) {
    std::cerr << "tensord: --model_base_path is required\n";
    return 2;
  }
  if (port < 0 || port > 65535) {
    std::cerr << "tensord: --port must be in 0..65535\n";
    return 2;
  }
  if (absl::GetFlag(FLAGS_rest_api_port) != 0) {
    std::cerr << "tensord: warning: --rest_api_port=" << absl::GetFlag(FLAGS_rest_api_port)
              << " ignored; the REST API arrives in a later increment\n";
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
  if (absl::Status s = manager.AddModel(model_name, base_path); !s.ok()) {
    std::cerr << "tensord: cannot serve model " << model_name << ": " << s << "\n";
    return 1;
  }
  auto statuses = manager.GetVersionStatus(model_name, std::nullopt);
  if (!statuses.ok()) {
    std::cerr << "tensord: warning: no versions of model " << model_name << " under "
              << base_path << "\n";
  } else {
    for (const auto& vs : *statuses) {
      if (vs.status.ok()) {
        std::cerr << "tensord: model " << model_name << " version " << vs.version
                  << " AVAILABLE\n";
      } else {
        std::cerr << "tensord: model " << model_name << " version " << vs.version
                  << " failed to load (END): " << vs.status << "\n";
      }
    }
  }

  tensord::PredictionServiceImpl prediction_service(&manager);
  tensord::ModelServiceImpl model_service(&manager);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(absl::StrCat("0.0.0.0:", port), grpc::InsecureServerCredentials(),
                           &selected_port);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  builder.RegisterService(&prediction_service);
  builder.RegisterService(&model_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || selected_port == 0) {
    std::cerr << "tensord: cannot listen on 0.0.0.0:" << port << "\n";
    return 1;
  }
  std::cerr << "tensord: serving model " << model_name << " from " << base_path
            << "; gRPC (tensorflow.serving.PredictionService, ModelService) at 0.0.0.0:"
            << selected_port << std::endl;

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::cerr << "tensord: received signal " << signal_number << ", shutting down" << std::endl;
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
