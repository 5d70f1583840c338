#include "clients/tensorctl/remote.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include "clients/tensorctl/server_args.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protos/serving/model_service.grpc.pb.h"
#include "protos/serving/prediction_service.grpc.pb.h"
#include "protos/tensord/model_repository.grpc.pb.h"

namespace tensord {
namespace tensorctl {
namespace {

namespace serving = ::tensorflow::serving;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Message>
Message FromText(const std::string& text) {
  Message m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

std::string WriteTempFile(const std::string& name, const std::string& contents) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << contents;
  return path;
}

// Records the requests it gets; answers with fixed results, or with `error` when it is set.
class FakePredictionService final : public serving::PredictionService::Service {
 public:
  grpc::Status Classify(grpc::ServerContext*, const serving::ClassificationRequest* request,
                        serving::ClassificationResponse* response) override {
    std::lock_guard<std::mutex> lock(mu_);
    classify_requests.push_back(*request);
    if (!error.ok()) return error;
    *response->mutable_result() = FromText<serving::ClassificationResult>(R"pb(
      classifications { classes { label: "big" score: 2.5 } classes { label: "small" score: 0.1 } }
    )pb");
    return grpc::Status::OK;
  }
  grpc::Status Regress(grpc::ServerContext*, const serving::RegressionRequest* request,
                       serving::RegressionResponse* response) override {
    std::lock_guard<std::mutex> lock(mu_);
    regress_requests.push_back(*request);
    if (!error.ok()) return error;
    response->mutable_result()->add_regressions()->set_value(0.1f);
    response->mutable_result()->add_regressions()->set_value(-3.0f);
    return grpc::Status::OK;
  }

  grpc::Status error;
  std::vector<serving::ClassificationRequest> classify_requests;
  std::vector<serving::RegressionRequest> regress_requests;

 private:
  std::mutex mu_;
};

class FakeModelService final : public serving::ModelService::Service {
 public:
  grpc::Status HandleReloadConfigRequest(grpc::ServerContext*,
                                         const serving::ReloadConfigRequest* request,
                                         serving::ReloadConfigResponse* response) override {
    std::lock_guard<std::mutex> lock(mu_);
    reload_requests.push_back(*request);
    *response->mutable_status() = response_status;
    return error;
  }

  grpc::Status error;
  serving::StatusProto response_status;
  std::vector<serving::ReloadConfigRequest> reload_requests;

 private:
  std::mutex mu_;
};

class FakeRepository final : public v1::ModelRepository::Service {
 public:
  grpc::Status ListModels(grpc::ServerContext*, const v1::ListModelsRequest*,
                          v1::ListModelsResponse* response) override {
    *response = FromText<v1::ListModelsResponse>(R"pb(
      models {
        name: "a"
        model_version_status { version: 2 state: AVAILABLE status {} }
        model_version_status { version: 1 state: END status {} }
      }
      models { name: "b" }
    )pb");
    return grpc::Status::OK;
  }
};

// A loopback server with `services`, and tensorctl runs against it.
class ServerCommandTest : public ::testing::Test {
 protected:
  void Start(const std::vector<grpc::Service*>& services) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    for (grpc::Service* service : services) builder.RegisterService(service);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = "127.0.0.1:" + std::to_string(port);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  // `tensorctl COMMAND --server ADDRESS FLAGS...`; stdout and stderr into out_ and err_.
  int Run(const std::string& command, const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {command, "--server", address_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    absl::StatusOr<ServerArgs> args = ParseServerArgs(argv);
    EXPECT_TRUE(args.ok()) << args.status();
    if (!args.ok()) return -1;
    std::ostringstream out, err;
    int rc = RunServerCommand(*args, out, err);
    out_ = out.str();
    err_ = err.str();
    return rc;
  }

  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::string out_, err_;
};

TEST_F(ServerCommandTest, ClassifySendsTheExamplesAndPrintsRestJson) {
  FakePredictionService prediction;
  Start({&prediction});
  ASSERT_EQ(Run("classify", {"--model=m", "--label=stable", "--signature_def=sig",
                             R"(--examples=[{"x": 1.0, "n": [1, 2]}, {"s": {"b64": "AP8="}}])",
                             R"(--context={"c": "shared"})"}),
            0)
      << err_;
  EXPECT_EQ(out_, "{\"results\": [[[\"big\", 2.5], [\"small\", 0.1]]]}\n");
  EXPECT_EQ(err_, "");
  ASSERT_EQ(prediction.classify_requests.size(), 1u);
  const auto expected = FromText<serving::ClassificationRequest>(R"pb(
    model_spec { name: "m" version_label: "stable" signature_name: "sig" }
    input {
      example_list_with_context {
        examples {
          features {
            feature { key: "x" value { float_list { value: 1 } } }
            feature { key: "n" value { int64_list { value: [ 1, 2 ] } } }
          }
        }
        examples { features { feature { key: "s" value { bytes_list { value: "\000\377" } } } } }
        context { features { feature { key: "c" value { bytes_list { value: "shared" } } } } }
      }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(prediction.classify_requests[0], expected))
      << prediction.classify_requests[0].DebugString();
}

TEST_F(ServerCommandTest, RegressReadsExamplesFromAFile) {
  FakePredictionService prediction;
  Start({&prediction});
  const std::string path = WriteTempFile("examples.json", R"([{"x": 0.5}, {"x": -1.5}])");
  ASSERT_EQ(Run("regress", {"--model", "m", "--version", "3", "--examples", "@" + path}), 0)
      << err_;
  EXPECT_EQ(out_, "{\"results\": [0.1, -3.0]}\n");
  ASSERT_EQ(prediction.regress_requests.size(), 1u);
  const auto expected = FromText<serving::RegressionRequest>(R"pb(
    model_spec { name: "m" version { value: 3 } signature_name: "serving_default" }
    input {
      example_list {
        examples { features { feature { key: "x" value { float_list { value: 0.5 } } } } }
        examples { features { feature { key: "x" value { float_list { value: -1.5 } } } } }
      }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(prediction.regress_requests[0], expected))
      << prediction.regress_requests[0].DebugString();
}

TEST_F(ServerCommandTest, BadExamplesFailBeforeAnyRpc) {
  FakePredictionService prediction;
  Start({&prediction});
  EXPECT_EQ(Run("classify", {"--model=m", R"(--examples=[{"x": 1}, {"x": [1, 2.5]}])"}), 1);
  EXPECT_EQ(err_,
            "tensorctl: example 1: Unexpected element type in feature: x expecting type: int64\n");
  EXPECT_EQ(out_, "");
  EXPECT_EQ(Run("regress", {"--model=m", "--examples=[{"}), 1);
  EXPECT_THAT(err_, StartsWith("tensorctl: --examples is not valid JSON: "));
  EXPECT_EQ(Run("regress", {"--model=m", "--examples=[{}]", "--context=@/nonexistent/c.json"}),
            1);
  EXPECT_EQ(err_, "tensorctl: --context: cannot read /nonexistent/c.json\n");
  const std::string bad_file = WriteTempFile("bad.json", "[{\"x\": nul}]");
  EXPECT_EQ(Run("regress", {"--model=m", "--examples=@" + bad_file}), 1);
  EXPECT_THAT(err_, StartsWith("tensorctl: " + bad_file + " is not valid JSON: "));
  EXPECT_TRUE(prediction.classify_requests.empty());
  EXPECT_TRUE(prediction.regress_requests.empty());
}

TEST_F(ServerCommandTest, ServerErrorsPrintTheirCode) {
  FakePredictionService prediction;
  prediction.error = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                  "No signature was found with the name: nope");
  Start({&prediction});
  EXPECT_EQ(Run("classify", {"--model=m", "--signature_def=nope", R"(--examples=[{"x": 1.0}])"}),
            1);
  EXPECT_EQ(err_, "tensorctl: INVALID_ARGUMENT: No signature was found with the name: nope\n");
  EXPECT_EQ(out_, "");
}

TEST_F(ServerCommandTest, ListPrintsATableOrJson) {
  FakeRepository repository;
  Start({&repository});
  ASSERT_EQ(Run("list", {}), 0) << err_;
  EXPECT_EQ(out_,
            "MODEL  VERSION  STATE\n"
            "a      2        AVAILABLE\n"
            "a      1        END\n"
            "b      -        no versions\n");
  ASSERT_EQ(Run("list", {"--json"}), 0) << err_;
  EXPECT_EQ(out_,
            "{\"models\":[{\"name\":\"a\",\"model_version_status\":["
            "{\"version\":\"2\",\"state\":\"AVAILABLE\",\"status\":{}},"
            "{\"version\":\"1\",\"state\":\"END\",\"status\":{}}]},{\"name\":\"b\"}]}\n");
}

TEST_F(ServerCommandTest, ListOnAServerWithoutTheRepositorySaysSo) {
  FakeModelService model_service;  // a TF Serving-like server: no tensord.v1 services
  Start({&model_service});
  EXPECT_EQ(Run("list", {}), 1);
  EXPECT_EQ(err_,
            "tensorctl: UNIMPLEMENTED: the server has no tensord.v1.ModelRepository service "
            "(a tensord addition to the TF Serving API)\n");
}

constexpr char kConfig[] = R"(model_config_list {
  config { name: "a" base_path: "/models/a" model_platform: "tensorflow" }
}
)";

TEST_F(ServerCommandTest, ReloadSendsTheConfigAndPrintsTheStatus) {
  FakeModelService model_service;
  Start({&model_service});
  ASSERT_EQ(Run("reload", {"--config", WriteTempFile("ok.config", kConfig)}), 0) << err_;
  EXPECT_EQ(out_, "{\"error_code\":\"OK\",\"error_message\":\"\"}\n");
  ASSERT_EQ(model_service.reload_requests.size(), 1u);
  EXPECT_TRUE(MessageDifferencer::Equals(model_service.reload_requests[0].config(),
                                         FromText<serving::ModelServerConfig>(kConfig)));
}

TEST_F(ServerCommandTest, ReloadErrorsExitNonZero) {
  FakeModelService model_service;
  model_service.error = grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                     "HandleReloadConfigRequest is not implemented by tensord yet");
  Start({&model_service});
  const std::string config = WriteTempFile("ok.config", kConfig);
  EXPECT_EQ(Run("reload", {"--config", config}), 1);
  EXPECT_EQ(err_,
            "tensorctl: UNIMPLEMENTED: HandleReloadConfigRequest is not implemented by tensord "
            "yet\n");
  EXPECT_EQ(out_, "");

  // An error in the response alone (the gRPC status OK) is an error too.
  model_service.error = grpc::Status::OK;
  model_service.response_status.set_error_code(::tensorflow::error::INVALID_ARGUMENT);
  model_service.response_status.set_error_message("bad base path");
  EXPECT_EQ(Run("reload", {"--config", config}), 1);
  EXPECT_EQ(err_, "tensorctl: INVALID_ARGUMENT: bad base path\n");
}

TEST_F(ServerCommandTest, ReloadRejectsABadConfigBeforeAnyRpc) {
  FakeModelService model_service;
  Start({&model_service});
  const std::string config =
      WriteTempFile("bad.config", "model_config_list {\n  config { nme: \"a\" }\n}\n");
  EXPECT_EQ(Run("reload", {"--config", config}), 1);
  EXPECT_THAT(err_, StartsWith("tensorctl: " + config + ":2:"));
  EXPECT_THAT(err_, HasSubstr("nme"));
  EXPECT_THAT(err_, HasSubstr("(expected a text-format ModelServerConfig)"));
  EXPECT_EQ(Run("reload", {"--config", "/nonexistent.config"}), 1);
  EXPECT_EQ(err_, "tensorctl: cannot read /nonexistent.config\n");
  EXPECT_TRUE(model_service.reload_requests.empty());
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
