#include "clients/tensorctl/bench_load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protos/serving/prediction_service.grpc.pb.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::Pair;

// Answers Predict after `delay`, with `error` when it is not OK, or, with `block`, only once
// the call is cancelled. Records the most calls it had in flight at once.
class FakePredictionService final : public serving::PredictionService::Service {
 public:
  grpc::Status Predict(grpc::ServerContext* context, const serving::PredictRequest* request,
                       serving::PredictResponse* response) override {
    const int now = ++in_flight_;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
    }
    if (!MessageDifferencer::Equals(*request, expected)) ++unexpected_requests;
    std::this_thread::sleep_for(delay);
    while (block && !context->IsCancelled()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    --in_flight_;
    if (!error.ok()) return error;
    response->mutable_model_spec()->set_name(request->model_spec().name());
    return grpc::Status::OK;
  }

  serving::PredictRequest expected;
  std::chrono::milliseconds delay{0};
  grpc::Status error;
  bool block = false;
  std::atomic<int> max_in_flight{0};
  std::atomic<int> unexpected_requests{0};

 private:
  std::atomic<int> in_flight_{0};
};

class RecordingObserver : public LevelObserver {
 public:
  void MeasurementStarted() override { events.push_back("started"); }
  void WindowMeasured(int trial, const Window& window) override {
    events.push_back(absl::StrCat("window ", trial));
    windows.push_back(window);
  }

  std::vector<std::string> events;
  std::vector<Window> windows;
};

class BenchLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    request_.mutable_model_spec()->set_name("m");
    (*request_.mutable_inputs())["x"].set_dtype(::tensorflow::DT_FLOAT);
    (*request_.mutable_inputs())["x"].add_float_val(1.5f);
    service_.expected = request_;
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    args_.target.server = absl::StrCat("127.0.0.1:", port);
    args_.target.model = "m";
    args_.warmup_requests = 2;
    args_.measurement_interval_ms = 100;
    args_.max_trials = 3;
    args_.stability_percentage = 1e6;  // stable at the first chance, unless a test says not
  }
  void TearDown() override { server_->Shutdown(); }

  serving::PredictRequest request_;
  FakePredictionService service_;
  std::unique_ptr<grpc::Server> server_;
  BenchArgs args_;
};

TEST_F(BenchLoadTest, ClosedLoopKeepsConcurrencyRequestsInFlight) {
  service_.delay = std::chrono::milliseconds(2);
  RecordingObserver observer;
  absl::StatusOr<LevelResult> result = RunLevel(args_, {2, 0}, request_, &observer);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(observer.events, ElementsAre("started", "window 1", "window 2", "window 3"));
  EXPECT_TRUE(result->stable);
  EXPECT_EQ(result->trials, 3);
  // Each worker completes at most one request per 2 ms.
  const Window& w = result->measured;
  EXPECT_GT(w.successes(), 0);
  EXPECT_LE(w.successes(), 2 * 300 / 2 + 2);
  EXPECT_TRUE(w.errors.empty());
  EXPECT_EQ(w.delayed, 0);
  EXPECT_NEAR(w.duration_s, 0.3, 0.05);
  int64_t window_sum = 0;
  for (const Window& window : observer.windows) window_sum += window.successes();
  EXPECT_EQ(w.successes(), window_sum);
  for (int64_t ns : w.latencies_ns) EXPECT_GE(ns, 2000000);
  EXPECT_EQ(service_.max_in_flight.load(), 2);
  EXPECT_EQ(service_.unexpected_requests.load(), 0);
}

TEST_F(BenchLoadTest, ErrorsAreCountedByCode) {
  service_.error = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "busy");
  RecordingObserver observer;
  absl::StatusOr<LevelResult> result = RunLevel(args_, {1, 0}, request_, &observer);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->measured.successes(), 0);
  EXPECT_THAT(result->measured.errors,
              ElementsAre(Pair(grpc::StatusCode::RESOURCE_EXHAUSTED, testing::Gt(0))));
  EXPECT_TRUE(result->stable);  // nothing but errors will not change
}

TEST_F(BenchLoadTest, UnstableRunsReportTheLastThreeWindows) {
  args_.stability_percentage = 0;
  args_.max_trials = 4;
  service_.delay = std::chrono::milliseconds(1);
  RecordingObserver observer;
  absl::StatusOr<LevelResult> result = RunLevel(args_, {1, 0}, request_, &observer);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->stable);
  EXPECT_EQ(result->trials, 4);
  ASSERT_EQ(observer.windows.size(), 4u);
  EXPECT_EQ(result->measured.successes(), observer.windows[1].successes() +
                                              observer.windows[2].successes() +
                                              observer.windows[3].successes());
}

TEST_F(BenchLoadTest, OpenLoopSendsAtTheRate) {
  args_.measurement_interval_ms = 500;
  args_.max_threads = 4;
  for (BenchArgs::Distribution distribution :
       {BenchArgs::Distribution::kConstant, BenchArgs::Distribution::kPoisson}) {
    args_.distribution = distribution;
    RecordingObserver observer;
    absl::StatusOr<LevelResult> result = RunLevel(args_, {0, 200}, request_, &observer);
    ASSERT_TRUE(result.ok()) << result.status();
    // 300 requests expected in 1.5 s; wide bounds for a loaded test machine and Poisson noise.
    EXPECT_GT(result->measured.throughput(), 120);
    EXPECT_LT(result->measured.throughput(), 280);
    EXPECT_LE(service_.max_in_flight.load(), 4);
  }
}

TEST_F(BenchLoadTest, StopCancelsCallsInFlight) {
  service_.block = true;
  args_.warmup_requests = 0;
  args_.target.timeout_ms = 60000;
  RecordingObserver observer;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<LevelResult> result = RunLevel(args_, {3, 0}, request_, &observer);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(result->measured.successes(), 0);
  EXPECT_TRUE(result->measured.errors.empty());  // cancelled calls are not counted
}

TEST(BenchLoadConnectTest, UnreachableServer) {
  BenchArgs args;
  args.target.server = "127.0.0.1:1";
  args.target.timeout_ms = 200;
  serving::PredictRequest request;
  RecordingObserver observer;
  absl::StatusOr<LevelResult> result = RunLevel(args, {1, 0}, request, &observer);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(result.status().message(), "cannot connect to 127.0.0.1:1 within 200 ms");
  EXPECT_TRUE(observer.events.empty());
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
