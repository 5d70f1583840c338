#include "server/tfserving/handlers.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tensord {
namespace {

namespace fs = std::filesystem;
namespace serving = ::tensorflow::serving;

class HandlersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    fs::path base = fs::path(tmp != nullptr ? tmp : "/tmp") / "handlers_mlp";
    fs::remove_all(base);
    fs::create_directories(base);
    fs::create_directory_symlink(fs::absolute("tests/testdata/keras_mlp/1"), base / "7");
    manager_ = new ModelManager();
    ASSERT_TRUE(manager_->AddModel("mlp", base.string()).ok());
  }
  static void TearDownTestSuite() { delete manager_; }

  static serving::PredictRequest MlpRequest() {
    serving::PredictRequest request;
    request.mutable_model_spec()->set_name("mlp");
    auto& x = (*request.mutable_inputs())["features"];
    x.set_dtype(::tensorflow::DT_FLOAT);
    x.mutable_tensor_shape()->add_dim()->set_size(2);
    x.mutable_tensor_shape()->add_dim()->set_size(16);
    for (int i = 0; i < 32; ++i) x.add_float_val(0.1f * i);
    return request;
  }

  static ModelManager* manager_;
};

ModelManager* HandlersTest::manager_ = nullptr;

TEST_F(HandlersTest, PredictFillsSpecAndOutputs) {
  serving::PredictResponse response;
  absl::Status s = HandlePredict(*manager_, MlpRequest(), &response);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(response.model_spec().name(), "mlp");
  EXPECT_EQ(response.model_spec().version().value(), 7);
  EXPECT_EQ(response.model_spec().signature_name(), "serving_default");
  ASSERT_EQ(response.outputs().count("output_0"), 1u);
  const auto& out = response.outputs().at("output_0");
  EXPECT_EQ(out.dtype(), ::tensorflow::DT_FLOAT);
  ASSERT_EQ(out.tensor_shape().dim_size(), 2);
  EXPECT_EQ(out.tensor_shape().dim(0).size(), 2);
  EXPECT_EQ(out.tensor_content().size(), out.tensor_shape().dim(1).size() * 2 * sizeof(float));
}

TEST_F(HandlersTest, PredictErrors) {
  serving::PredictResponse response;
  serving::PredictRequest request = MlpRequest();
  request.mutable_model_spec()->set_name("nope");
  absl::Status s = HandlePredict(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "Servable not found for request: Latest(nope)");

  request = MlpRequest();
  request.mutable_model_spec()->set_signature_name("nope");
  s = HandlePredict(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "Serving signature key \"nope\" not found.");

  request = MlpRequest();
  (*request.mutable_inputs())["extra"] = request.inputs().at("features");
  s = HandlePredict(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "input size does not match signature: 2!=1 len({extra,features}) != "
            "len({features}). Sent extra: {extra}. Missing but required: {}.");

  request = MlpRequest();
  request.add_output_filter("bogus");
  s = HandlePredict(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);

  request = MlpRequest();
  auto& x = (*request.mutable_inputs())["features"];
  x.clear_float_val();
  x.set_dtype(::tensorflow::DT_STRING);
  x.add_string_val("a");
  s = HandlePredict(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  request.clear_model_spec();
  EXPECT_EQ(HandlePredict(*manager_, request, &response).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HandlersTest, MetadataAndStatus) {
  serving::GetModelMetadataRequest request;
  request.mutable_model_spec()->set_name("mlp");
  serving::GetModelMetadataResponse response;
  EXPECT_EQ(HandleGetModelMetadata(*manager_, request, &response).code(),
            absl::StatusCode::kInvalidArgument);
  request.add_metadata_field("signature_def");
  ASSERT_TRUE(HandleGetModelMetadata(*manager_, request, &response).ok());
  EXPECT_EQ(response.model_spec().version().value(), 7);
  serving::SignatureDefMap map;
  ASSERT_TRUE(response.metadata().at("signature_def").UnpackTo(&map));
  EXPECT_EQ(map.signature_def().count("serving_default"), 1u);

  serving::GetModelStatusRequest status_request;
  status_request.mutable_model_spec()->set_name("mlp");
  serving::GetModelStatusResponse status_response;
  ASSERT_TRUE(HandleGetModelStatus(*manager_, status_request, &status_response).ok());
  ASSERT_EQ(status_response.model_version_status_size(), 1);
  EXPECT_EQ(status_response.model_version_status(0).version(), 7);
  EXPECT_EQ(status_response.model_version_status(0).state(),
            serving::ModelVersionStatus::AVAILABLE);
  EXPECT_EQ(status_response.model_version_status(0).status().error_code(), 0);
}

}  // namespace
}  // namespace tensord
