#include "server/rest/rest_api.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <filesystem>

#include "runtime/util/json.h"
#include "clients/common/npy.h"

namespace tensord {
namespace {

namespace fs = std::filesystem;

constexpr char kGolden[] = "tests/testdata/keras_mlp/golden/";

class RestApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    fs::path base = fs::path(tmp != nullptr ? tmp : "/tmp") / "rest_mlp";
    fs::remove_all(base);
    fs::create_directories(base);
    fs::create_directory_symlink(fs::absolute("tests/testdata/keras_mlp/1"), base / "7");
    manager_ = new ModelManager();
    ModelConfig config{"mlp", base.string()};
    config.labels = {{"stable", 7}};
    ASSERT_TRUE(manager_->ApplyConfig({config}).ok());
    health_ = new ServerHealth(manager_);
    registry_ = new MetricRegistry();
    metrics_ = new ServingMetrics(registry_);
    rest_ = new RestApi({.host = "127.0.0.1", .port = 0, .num_threads = 2},
                        {.manager = manager_, .health = health_, .metrics = metrics_,
                         .registry = registry_});
    absl::Status s = rest_->Start();
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_GT(rest_->port(), 0);
  }
  static void TearDownTestSuite() {
    delete rest_;
    delete metrics_;
    delete registry_;
    delete health_;
    delete manager_;
  }

  struct Reply {
    int status = 0;
    json::Value body;
  };

  static Reply Call(const std::string& method, const std::string& path,
                    const std::string& body = "", const RestApi* api = nullptr,
                    const char* content_type = "application/json") {
    httplib::Client client("127.0.0.1", (api != nullptr ? api : rest_)->port());
    // Asks for brotli: the server must answer uncompressed, not spend CPU-seconds on it.
    httplib::Headers headers = {{"Accept-Encoding", "br, gzip"}};
    httplib::Result r = method == "GET"
                            ? client.Get(path.c_str(), headers)
                            : client.Post(path.c_str(), headers, body, content_type);
    Reply reply;
    EXPECT_TRUE(r) << method << " " << path << ": " << httplib::to_string(r.error());
    if (!r) return reply;
    reply.status = r->status;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json; charset=utf-8");
    EXPECT_FALSE(r->has_header("Content-Encoding"));
    absl::StatusOr<json::Value> v = json::Parse(r->body);
    EXPECT_TRUE(v.ok()) << v.status() << "\n" << r->body;
    if (v.ok()) reply.body = *v;
    return reply;
  }

  // The golden input as a JSON row list and the golden output values.
  static void Golden(json::Value* rows, std::vector<float>* expected, int64_t* out_cols) {
    absl::StatusOr<Tensor> in = npy::ReadFile(std::string(kGolden) + "c0_in_features.npy");
    absl::StatusOr<Tensor> out = npy::ReadFile(std::string(kGolden) + "c0_out_output_0.npy");
    ASSERT_TRUE(in.ok() && out.ok());
    *rows = json::Value::Array();
    for (int64_t r = 0; r < in->dim_size(0); ++r) {
      json::Value row = json::Value::Array();
      for (int64_t c = 0; c < in->dim_size(1); ++c) {
        row.Append(json::Value::Number(in->data<float>()[r * in->dim_size(1) + c]));
      }
      rows->Append(std::move(row));
    }
    expected->assign(out->data<float>(), out->data<float>() + out->NumElements());
    *out_cols = out->dim_size(1);
  }

  static void ExpectMatches(const json::Value& rows, const std::vector<float>& expected,
                            int64_t cols) {
    ASSERT_TRUE(rows.is_array());
    ASSERT_EQ(rows.size() * cols, expected.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      ASSERT_EQ(rows.items()[r].size(), static_cast<size_t>(cols));
      for (int64_t c = 0; c < cols; ++c) {
        float want = expected[r * cols + c];
        EXPECT_NEAR(rows.items()[r].items()[c].number(), want, 1e-6 + 1e-5 * std::fabs(want));
      }
    }
  }

  static ModelManager* manager_;
  static ServerHealth* health_;
  static MetricRegistry* registry_;
  static ServingMetrics* metrics_;
  static RestApi* rest_;
};

ModelManager* RestApiTest::manager_ = nullptr;
ServerHealth* RestApiTest::health_ = nullptr;
MetricRegistry* RestApiTest::registry_ = nullptr;
ServingMetrics* RestApiTest::metrics_ = nullptr;
RestApi* RestApiTest::rest_ = nullptr;

TEST_F(RestApiTest, PredictRowFormat) {
  json::Value rows;
  std::vector<float> expected;
  int64_t cols = 0;
  Golden(&rows, &expected, &cols);
  json::Value body = json::Value::Object();
  body.Set("instances", rows);
  Reply r = Call("POST", "/v1/models/mlp:predict", json::Write(body));
  ASSERT_EQ(r.status, 200) << json::Write(r.body);
  const json::Value* predictions = r.body.Find("predictions");
  ASSERT_NE(predictions, nullptr);
  ExpectMatches(*predictions, expected, cols);

  // Named-input rows, a pinned version and the explicit signature name give the same result.
  json::Value named = json::Value::Array();
  for (const json::Value& row : rows.items()) {
    json::Value o = json::Value::Object();
    o.Set("features", row);
    named.Append(std::move(o));
  }
  body = json::Value::Object();
  body.Set("signature_name", json::Value::String("serving_default"));
  body.Set("instances", named);
  r = Call("POST", "/v1/models/mlp/versions/7:predict", json::Write(body));
  ASSERT_EQ(r.status, 200) << json::Write(r.body);
  ExpectMatches(*r.body.Find("predictions"), expected, cols);
}

// Regression: curl -d sends application/x-www-form-urlencoded, which httplib refused with 413
// above 8 KB; TF Serving reads JSON whatever the content type says.
TEST_F(RestApiTest, FormEncodedJsonBodiesOfAnySizeArePredicted) {
  json::Value rows;
  std::vector<float> expected;
  int64_t cols = 0;
  Golden(&rows, &expected, &cols);
  json::Value body = json::Value::Object();
  body.Set("instances", rows);
  std::string text = json::Write(body);
  text.append(16 << 10, ' ');  // past the 8 KB form limit
  Reply r = Call("POST", "/v1/models/mlp:predict", text, nullptr,
                 "application/x-www-form-urlencoded");
  ASSERT_EQ(r.status, 200) << json::Write(r.body);
  ExpectMatches(*r.body.Find("predictions"), expected, cols);
}

TEST_F(RestApiTest, SizeLimitsAnswer413) {
  RestApiOptions options{.host = "127.0.0.1", .port = 0, .num_threads = 2};
  options.max_body_bytes = 4096;
  options.max_json_depth = 4;
  options.limits.max_tensor_elements = 15;  // one row of the MLP has 16
  RestApi small(options, {.manager = manager_});
  ASSERT_TRUE(small.Start().ok());
  const auto expect_413 = [&](const std::string& body, const std::string& flag) {
    Reply r = Call("POST", "/v1/models/mlp:predict", body, &small);
    EXPECT_EQ(r.status, 413) << json::Write(r.body);
    const json::Value* error = r.body.Find("error");
    ASSERT_NE(error, nullptr);
    EXPECT_NE(error->string_value().find(flag), std::string::npos) << error->string_value();
  };
  expect_413(R"({"instances": [[[[[1]]]]]})", "--rest_api_max_json_depth");
  expect_413(R"({"instances": [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]]})",
             "--max_request_tensor_elements");
  // A body over max_body_bytes is refused by the HTTP layer before it is read.
  httplib::Client client("127.0.0.1", small.port());
  httplib::Result too_big =
      client.Post("/v1/models/mlp:predict", std::string(5000, ' '), "application/json");
  ASSERT_TRUE(too_big);
  EXPECT_EQ(too_big->status, 413);
  // The server keeps serving what fits.
  Reply ok = Call("GET", "/v1/models/mlp", "", &small);
  EXPECT_EQ(ok.status, 200);
}

TEST_F(RestApiTest, PredictColumnarFormat) {
  json::Value rows;
  std::vector<float> expected;
  int64_t cols = 0;
  Golden(&rows, &expected, &cols);
  json::Value inputs = json::Value::Object();
  inputs.Set("features", rows);
  json::Value body = json::Value::Object();
  body.Set("inputs", inputs);
  Reply r = Call("POST", "/v1/models/mlp:predict", json::Write(body));
  ASSERT_EQ(r.status, 200) << json::Write(r.body);
  const json::Value* outputs = r.body.Find("outputs");
  ASSERT_NE(outputs, nullptr);
  ExpectMatches(*outputs, expected, cols);
}

TEST_F(RestApiTest, PredictErrors) {
  Reply r = Call("POST", "/v1/models/nope:predict", R"({"instances": [[1]]})");
  EXPECT_EQ(r.status, 404);
  ASSERT_NE(r.body.Find("error"), nullptr);
  EXPECT_EQ(r.body.Find("error")->string_value(), "Servable not found for request: Latest(nope)");

  r = Call("POST", "/v1/models/mlp:predict", R"({"instances": [["a"]]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.Find("error")->string_value().find("Expected a number for DT_FLOAT"),
            std::string::npos);

  r = Call("POST", "/v1/models/mlp:predict", "{not json");
  EXPECT_EQ(r.status, 400);
  r = Call("POST", "/v1/models/mlp:predict", R"({"signature_name": "x", "instances": [[1]]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.Find("error")->string_value(), "Serving signature key \"x\" not found.");
  r = Call("POST", "/v1/models/mlp/versions/9:predict", R"({"instances": [[1]]})");
  EXPECT_EQ(r.status, 404);
  r = Call("POST", "/v1/models/mlp:explode", "{}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.Find("error")->string_value(), "Malformed request: POST /v1/models/mlp:explode");
}

TEST_F(RestApiTest, ClassifyRegressAndLabelsReportHandlerErrors) {
  // keras_mlp has no classify/regress signature and tensord has no version labels yet: the
  // handlers' errors come back as {"error": ...} with a 4xx/5xx status.
  Reply r = Call("POST", "/v1/models/mlp:regress", R"({"examples": [{"x": 1.0}]})");
  EXPECT_GE(r.status, 400);
  EXPECT_NE(r.body.Find("error"), nullptr);
  r = Call("POST", "/v1/models/mlp:classify", R"({"examples": [{"x": 1.0}]})");
  EXPECT_GE(r.status, 400);
  EXPECT_NE(r.body.Find("error"), nullptr);
  r = Call("POST", "/v1/models/mlp:regress", R"({"context": {}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.Find("error")->string_value(),
            "When method is classify, key 'examples' is expected and was not found");
  r = Call("POST", "/v1/models/mlp/labels/stable:predict", R"({"instances": [[1]]})");
  EXPECT_GE(r.status, 400);
  EXPECT_NE(r.body.Find("error"), nullptr);
}

TEST_F(RestApiTest, Status) {
  Reply r = Call("GET", "/v1/models/mlp");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::Write(r.body),
            R"({"model_version_status": [{"version": "7", "state": "AVAILABLE", )"
            R"("status": {"error_code": "OK", "error_message": ""}}]})");
  r = Call("GET", "/v1/models/mlp/versions/7");
  EXPECT_EQ(r.status, 200);
  r = Call("GET", "/v1/models/nope");
  EXPECT_EQ(r.status, 404);
  ASSERT_NE(r.body.Find("error"), nullptr);

  r = Call("GET", "/v1/models");
  ASSERT_EQ(r.status, 200);
  const json::Value* models = r.body.Find("models");
  ASSERT_NE(models, nullptr);
  ASSERT_EQ(models->size(), 1u);
  EXPECT_EQ(models->items()[0].Find("name")->string_value(), "mlp");
}

TEST_F(RestApiTest, Metadata) {
  Reply r = Call("GET", "/v1/models/mlp/metadata");
  ASSERT_EQ(r.status, 200) << json::Write(r.body);
  EXPECT_EQ(json::Write(*r.body.Find("model_spec")),
            R"({"name": "mlp", "signature_name": "", "version": "7"})");
  const json::Value* defs = r.body.Find("metadata");
  ASSERT_NE(defs, nullptr);
  defs = defs->Find("signature_def");
  ASSERT_NE(defs, nullptr);
  defs = defs->Find("signature_def");
  ASSERT_NE(defs, nullptr);
  const json::Value* sig = defs->Find("serving_default");
  ASSERT_NE(sig, nullptr);
  const json::Value* features = sig->Find("inputs")->Find("features");
  ASSERT_NE(features, nullptr);
  EXPECT_EQ(features->Find("dtype")->string_value(), "DT_FLOAT");
  EXPECT_EQ(sig->Find("method_name")->string_value(), "tensorflow/serving/predict");

  r = Call("GET", "/v1/models/nope/metadata");
  EXPECT_EQ(r.status, 404);
}

TEST_F(RestApiTest, DispatchWithoutHttp) {
  RestResponse r = rest_->Dispatch("GET", "/v1/models/nope", "");
  EXPECT_EQ(r.http_status, 404);
  EXPECT_EQ(r.body, R"({ "error": "Could not find any versions of model nope" })");
}

TEST_F(RestApiTest, PredictByLabel) {
  const std::string body = R"({"instances": [[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]})";
  Reply by_label = Call("POST", "/v1/models/mlp/labels/stable:predict", body);
  Reply by_version = Call("POST", "/v1/models/mlp/versions/7:predict", body);
  ASSERT_EQ(by_label.status, 200) << json::Write(by_label.body);
  EXPECT_EQ(json::Write(by_label.body), json::Write(by_version.body));
  Reply unknown = Call("POST", "/v1/models/mlp/labels/nope:predict", body);
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(json::Write(unknown.body),
            R"({"error": "Unrecognized servable version label: nope"})");
}

TEST_F(RestApiTest, HealthEndpoints) {
  Reply live = Call("GET", "/v2/health/live");
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(json::Write(live.body), R"({"live": true})");
  Reply ready = Call("GET", "/v2/health/ready");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(json::Write(ready.body), R"({"ready": true})");
  EXPECT_EQ(Call("GET", "/v2/models/mlp/ready").status, 200);
  EXPECT_EQ(Call("GET", "/v2/models/nope/ready").status, 404);
}

TEST_F(RestApiTest, MetricsCountRequestsAndExposeThem) {
  const std::string body = R"({"instances": [[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]})";
  const int64_t ok_before = metrics_->request_count->Value({"mlp", "OK"});
  const int64_t bad_before = metrics_->request_count->Value({"mlp", "INVALID_ARGUMENT"});
  ASSERT_EQ(Call("POST", "/v1/models/mlp:predict", body).status, 200);
  ASSERT_EQ(Call("POST", "/v1/models/mlp:predict", R"({"instances": "x"})").status, 400);
  EXPECT_EQ(metrics_->request_count->Value({"mlp", "OK"}), ok_before + 1);
  EXPECT_EQ(metrics_->request_count->Value({"mlp", "INVALID_ARGUMENT"}), bad_before + 1);
  EXPECT_GE(metrics_->request_latency->Count({"mlp", "predict", "REST"}), 1);
  EXPECT_GE(metrics_->runtime_duration->Count({"mlp", "7", "serving_default", "Predict"}), 1);
  EXPECT_EQ(metrics_->requests_in_flight->Value({"mlp", "Predict"}), 0);

  RestResponse exposition = rest_->Dispatch("GET", "/monitoring/prometheus/metrics", "");
  EXPECT_EQ(exposition.http_status, 200);
  EXPECT_EQ(exposition.content_type, "text/plain; version=0.0.4");
  EXPECT_NE(exposition.body.find(":tensorflow:serving:request_count{model_name=\"mlp\","
                                 "status=\"OK\"}"),
            std::string::npos)
      << exposition.body;
}

TEST_F(RestApiTest, TimeoutIsDeadlineExceeded) {
  RestApi no_time({.timeout_ms = 0}, {.manager = manager_});
  RestResponse r = no_time.Dispatch(
      "POST", "/v1/models/mlp:predict", R"({"instances": [[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]})");
  EXPECT_EQ(r.http_status, 504) << r.body;
}

TEST(RestApiStartTest, BindFailureIsUnavailable) {
  ModelManager manager;
  RestApi first({.host = "127.0.0.1", .port = 0}, {.manager = &manager});
  ASSERT_TRUE(first.Start().ok());
  RestApi second({.host = "127.0.0.1", .port = first.port()}, {.manager = &manager});
  EXPECT_EQ(second.Start().code(), absl::StatusCode::kUnavailable);
  first.Stop();
  first.Stop();
}

}  // namespace
}  // namespace tensord
