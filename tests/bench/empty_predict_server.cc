// empty_predict_server: tensorflow.serving.PredictionService with a Predict that answers at
// once with an empty OK response, on the gRPC library tensord links and with tensord's server
// settings (thread cap 4 x CPUs, no message size limit).
// It is the ceiling for `tensorctl bench`: the QPS of an empty handler bounds what any model
// server can reach on the machine, so tensord's Predict QPS on a tiny model (half_plus_two at
// --concurrency 32, say) against it shows tensord's own overhead.
//
//   empty_predict_server --port 8600
//   tensorctl bench --server localhost:8600 --model any --input 'x=[1.0]' --concurrency 32
//
// It has no GetModelMetadata (UNIMPLEMENTED), so bench sends the --input values as given.
// Ctrl-C or SIGTERM stops it.
#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "protos/serving/prediction_service.grpc.pb.h"

ABSL_FLAG(int, port, 8600, "gRPC port to listen on (all interfaces); 0 picks a free one");

namespace tensord {
namespace {

namespace serving = ::tensorflow::serving;

class EmptyPredictionService final : public serving::PredictionService::Service {
 public:
  grpc::Status Predict(grpc::ServerContext*, const serving::PredictRequest*,
                       serving::PredictResponse*) override {
    return grpc::Status::OK;
  }
};

// Nothing to drain or flush, so the process just ends (_Exit is async-signal-safe).
void Stop(int) { std::_Exit(0); }

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Serves an empty PredictionService.Predict; flags: --port");
  absl::ParseCommandLine(argc, argv);
  EmptyPredictionService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("0.0.0.0:" + std::to_string(absl::GetFlag(FLAGS_port)),
                           grpc::InsecureServerCredentials(), &port);
  // As tensord sets up its server (server/server.cc), which counts CPUs by the cgroup quota;
  // on a machine without one that is hardware_concurrency.
  grpc::ResourceQuota quota("empty_predict_server");
  quota.SetMaxThreads(4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  builder.SetResourceQuota(quota);
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "empty_predict_server: cannot listen on port %d\n",
                 absl::GetFlag(FLAGS_port));
    return 1;
  }
  std::signal(SIGINT, Stop);
  std::signal(SIGTERM, Stop);
  std::printf("empty_predict_server listening on port %d\n", port);
  std::fflush(stdout);
  server->Wait();
  return 0;
}

}  // namespace
}  // namespace tensord

int main(int argc, char** argv) { return tensord::Main(argc, argv); }
