#include "clients/tensorctl/bench.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>
#include <grpcpp/grpcpp.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protos/serving/get_model_metadata.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "runtime/util/json.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Predict only, like tests/bench/empty_predict_server; answers `error` when it is not OK and
// keeps the last request.
class PredictOnlyService : public serving::PredictionService::Service {
 public:
  grpc::Status Predict(grpc::ServerContext*, const serving::PredictRequest* request,
                       serving::PredictResponse*) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_request_ = *request;
    return error;
  }
  serving::PredictRequest last_request() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_request_;
  }

  grpc::Status error;

 private:
  std::mutex mu_;
  serving::PredictRequest last_request_;
};

// Also GetModelMetadata, with one signature taking x: float [-1, 3].
class MetadataService final : public PredictOnlyService {
 public:
  grpc::Status GetModelMetadata(grpc::ServerContext*, const serving::GetModelMetadataRequest*,
                                serving::GetModelMetadataResponse* response) override {
    serving::SignatureDefMap map;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
      signature_def {
        key: "serving_default"
        value {
          inputs {
            key: "x"
            value { dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 3 } } }
          }
        }
      }
    )pb", &map));
    (*response->mutable_metadata())["signature_def"].PackFrom(map);
    return grpc::Status::OK;
  }
};

class BenchTest : public ::testing::Test {
 protected:
  void Start(grpc::Service* service) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = "127.0.0.1:" + std::to_string(port);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  // `tensorctl bench` with short windows against the server, plus `flags`.
  int Run(const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {"bench", "--server", address_, "--model", "m",
                                     "--measurement_interval_ms=50", "--max_trials=3",
                                     "--stability_percentage=1000000", "--warmup_requests=2"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    absl::StatusOr<BenchArgs> args = ParseBenchArgs(argv);
    EXPECT_TRUE(args.ok()) << args.status();
    if (!args.ok()) return -1;
    std::ostringstream out, err;
    const int rc = RunBench(*args, out, err, /*err_is_tty=*/false);
    out_ = out.str();
    err_ = err.str();
    return rc;
  }

  static std::string TempPath(const std::string& name) {
    return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::string out_;
  std::string err_;
};

TEST_F(BenchTest, SynthesisesTheRequestAndReportsEveryLevel) {
  MetadataService service;
  Start(&service);
  const std::string json_path = TempPath("levels.json");
  const std::string csv_path = TempPath("levels.csv");
  ASSERT_EQ(Run({"--version=7", "--batch=4", "--output_filter=y", "--concurrency_range=1,2",
                 "--json", json_path, "--csv", csv_path}),
            0)
      << err_;

  const serving::PredictRequest request = service.last_request();
  EXPECT_EQ(request.model_spec().name(), "m");
  EXPECT_EQ(request.model_spec().version().value(), 7);
  EXPECT_EQ(request.model_spec().signature_name(), "serving_default");
  ASSERT_EQ(request.inputs().count("x"), 1u);
  const ::tensorflow::TensorProto& x = request.inputs().at("x");
  EXPECT_EQ(x.dtype(), ::tensorflow::DT_FLOAT);
  ASSERT_EQ(x.tensor_shape().dim_size(), 2);
  EXPECT_EQ(x.tensor_shape().dim(0).size(), 4);
  EXPECT_EQ(x.tensor_shape().dim(1).size(), 3);
  EXPECT_EQ(x.tensor_content().size(), 4u * 3 * sizeof(float));
  ASSERT_EQ(request.output_filter_size(), 1);
  EXPECT_EQ(request.output_filter(0), "y");

  EXPECT_THAT(err_, HasSubstr("inputs: x float [4,3] (random)"));
  EXPECT_THAT(err_, HasSubstr("concurrency 2: window 3/3: "));
  EXPECT_THAT(out_, StartsWith("concurrency  requests  infer/s"));
  EXPECT_THAT(out_, HasSubstr("rows/s  p50 ms"));

  absl::StatusOr<json::Value> levels = json::Parse(ReadFile(json_path));
  ASSERT_TRUE(levels.ok()) << levels.status();
  ASSERT_EQ(levels->size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const json::Value& level = levels->items()[i];
    EXPECT_EQ(level.Find("concurrency")->number(), i + 1);
    EXPECT_GT(level.Find("requests")->number(), 0);
    EXPECT_EQ(level.Find("errors")->number(), 0);
    // Both rounded to 0.01 on their own.
    EXPECT_NEAR(level.Find("throughput_rows_per_s")->number(),
                level.Find("throughput_infer_per_s")->number() * 4, 0.03);
  }
  const std::string csv = ReadFile(csv_path);
  EXPECT_THAT(csv, StartsWith("concurrency,request_rate,requests,"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
}

TEST_F(BenchTest, ServerWithoutMetadataTakesTheInputsAsGiven) {
  PredictOnlyService service;
  Start(&service);
  ASSERT_EQ(Run({"--input", "x=[1, 2]"}), 0) << err_;
  EXPECT_THAT(err_, HasSubstr("the server has no GetModelMetadata; sending the --input values"));
  EXPECT_THAT(err_, HasSubstr("inputs: x float [2] (--input)"));
  const ::tensorflow::TensorProto x = service.last_request().inputs().at("x");
  EXPECT_EQ(x.dtype(), ::tensorflow::DT_FLOAT);
  EXPECT_EQ(x.tensor_shape().dim(0).size(), 2);

  EXPECT_EQ(Run({}), 1);
  EXPECT_THAT(err_, HasSubstr("the server does not implement GetModelMetadata, so bench cannot "
                              "make up inputs; give every input with --input"));
}

TEST_F(BenchTest, LevelWithOnlyErrorsFailsAfterTheReport) {
  MetadataService service;
  service.error = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "no");
  Start(&service);
  EXPECT_EQ(Run({}), 1);
  EXPECT_THAT(out_, HasSubstr("(FAILED_PRECONDITION "));
  EXPECT_THAT(err_, HasSubstr("tensorctl: concurrency 1: every request failed"));
}

TEST_F(BenchTest, SetupErrors) {
  MetadataService service;
  Start(&service);
  EXPECT_EQ(Run({"--signature_def=nope"}), 1);
  EXPECT_THAT(err_, HasSubstr("signature 'nope' not found; the model has 'serving_default'"));
  EXPECT_TRUE(out_.empty());

  EXPECT_EQ(Run({"--shape=y=1"}), 1);
  EXPECT_THAT(err_, HasSubstr("--shape names 'y', which is not an input"));

  // A wrong metrics URL fails before any load.
  EXPECT_EQ(Run({"--metrics_url=http://127.0.0.1:1/metrics"}), 1);
  EXPECT_THAT(err_, HasSubstr("scraping http://127.0.0.1:1/metrics failed"));
  EXPECT_THAT(err_, Not(HasSubstr("warming up")));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
