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
//
// With --hold_micros T each call is held T µs before its answer, waited as tensord's batch
// queue waits for a batch timeout (sleep, then spin the last 60 µs): the latency a server
// cannot avoid when it holds a lone request for a timeout, which the batching report compares
// tensord's concurrency-1 latency with.
// Ctrl-C or SIGTERM stops it.
#include <grpcpp/grpcpp.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "protos/serving/prediction_service.grpc.pb.h"

ABSL_FLAG(int, port, 8600, "gRPC port to listen on (all interfaces); 0 picks a free one");
ABSL_FLAG(int, hold_micros, 0, "how long Predict holds each call before it answers");

namespace tensord {
namespace {

namespace serving = ::tensorflow::serving;

class EmptyPredictionService final : public serving::PredictionService::Service {
 public:
  explicit EmptyPredictionService(std::chrono::microseconds hold) : hold_(hold) {}

  grpc::Status Predict(grpc::ServerContext*, const serving::PredictRequest*,
                       serving::PredictResponse*) override {
    if (hold_.count() > 0) {
      const auto until = std::chrono::steady_clock::now() + hold_;
      std::this_thread::sleep_until(until - std::chrono::microseconds(60));
      while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
    }
    return grpc::Status::OK;
  }

 private:
  const std::chrono::microseconds hold_;
};

// Nothing to drain or flush, so the process just ends (_Exit is async-signal-safe).
void Stop(int) { std::_Exit(0); }

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Serves an empty PredictionService.Predict; flags: --port, --hold_micros");
  absl::ParseCommandLine(argc, argv);
  // tensord's batch threads and waiting callers use 1 ns timer slack; gRPC's threads,
  // created below, inherit it.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  EmptyPredictionService service(std::chrono::microseconds(absl::GetFlag(FLAGS_hold_micros)));
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
