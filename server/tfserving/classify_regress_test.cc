// Classify, Regress and MultiInference handlers. The TF Serving half_plus_two models come from
// $TENSORD_SHARED_DIR (tests needing them skip without it); request validation runs everywhere
// against the committed keras_mlp model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "server/tfserving/handlers.h"

namespace tensord {
namespace {

namespace fs = std::filesystem;
namespace serving = ::tensorflow::serving;

std::string SharedModels() {
  const char* env = std::getenv("TENSORD_SHARED_DIR");
  if (env == nullptr || *env == '\0') return "";
  const std::string dir = std::string(env) + "/testdata/tfserving/servables/tensorflow/testdata/";
  return fs::exists(dir) ? dir : "";
}

::tensorflow::Example XExample(const char* key, float value) {
  ::tensorflow::Example example;
  (*example.mutable_features()->mutable_feature())[key].mutable_float_list()->add_value(value);
  return example;
}

void AddExample(serving::Input* input, const ::tensorflow::Example& example) {
  *input->mutable_example_list()->add_examples() = example;
}

serving::RegressionRequest Regression(const std::string& model, const std::string& signature,
                                      const std::vector<float>& xs) {
  serving::RegressionRequest request;
  request.mutable_model_spec()->set_name(model);
  request.mutable_model_spec()->set_signature_name(signature);
  for (float x : xs) AddExample(request.mutable_input(), XExample("x", x));
  return request;
}

std::vector<float> Values(const serving::RegressionResponse& response) {
  std::vector<float> out;
  for (const auto& r : response.result().regressions()) out.push_back(r.value());
  return out;
}

class ClassifyRegressTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    manager_ = new ModelManager();
    ASSERT_TRUE(manager_->AddModel("mlp", fs::absolute("tests/testdata/keras_mlp").string()).ok());
    const std::string shared = SharedModels();
    if (!shared.empty()) {
      ASSERT_TRUE(
          manager_->AddModel("half_plus_two", shared + "saved_model_half_plus_two_cpu").ok());
      ASSERT_TRUE(manager_->AddModel("tf2", shared + "saved_model_half_plus_two_tf2_cpu").ok());
      ASSERT_TRUE(
          manager_->AddModel("half_plus_three", shared + "saved_model_half_plus_three").ok());
    }
  }
  static void TearDownTestSuite() { delete manager_; }
  void SetUp() override { have_shared_ = !SharedModels().empty(); }

  static ModelManager* manager_;
  bool have_shared_ = false;
};

ModelManager* ClassifyRegressTest::manager_ = nullptr;

#define REQUIRE_SHARED()                                                       \
  if (!have_shared_) GTEST_SKIP() << "TENSORD_SHARED_DIR (TF Serving testdata) not set"

TEST_F(ClassifyRegressTest, RegressHalfPlusTwo) {
  REQUIRE_SHARED();
  for (const char* model : {"half_plus_two", "tf2"}) {
    SCOPED_TRACE(model);
    serving::RegressionResponse response;
    absl::Status s =
        HandleRegress(*manager_, Regression(model, "regress_x_to_y2", {1, 2}), &response);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(Values(response), (std::vector<float>{3.5f, 4.0f}));
    EXPECT_EQ(response.model_spec().name(), model);
    EXPECT_EQ(response.model_spec().version().value(), 123);
    EXPECT_EQ(response.model_spec().signature_name(), "regress_x_to_y2");

    s = HandleRegress(*manager_, Regression(model, "regress_x_to_y", {1, 2}), &response);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(Values(response), (std::vector<float>{2.5f, 3.0f}));
  }
}

// The TF 1.0 export declares its string placeholder as DT_FLOAT; the graph's dtype decides.
TEST_F(ClassifyRegressTest, RegressHalfPlusThreeIgnoresDeclaredDtype) {
  REQUIRE_SHARED();
  serving::RegressionResponse response;
  absl::Status s = HandleRegress(
      *manager_, Regression("half_plus_three", "tensorflow/serving/regress", {1, 2}), &response);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Values(response), (std::vector<float>{3.5f, 4.0f}));
}

TEST_F(ClassifyRegressTest, ClassifyHalfPlusTwo) {
  REQUIRE_SHARED();
  for (const char* model : {"half_plus_two", "tf2"}) {
    SCOPED_TRACE(model);
    serving::ClassificationRequest request;
    request.mutable_model_spec()->set_name(model);
    request.mutable_model_spec()->set_signature_name("classify_x_to_y");
    AddExample(request.mutable_input(), XExample("x", 1));
    serving::ClassificationResponse response;
    absl::Status s = HandleClassify(*manager_, request, &response);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(response.result().classifications_size(), 1);
    ASSERT_EQ(response.result().classifications(0).classes_size(), 1);
    EXPECT_EQ(response.result().classifications(0).classes(0).label(), "");
    EXPECT_FLOAT_EQ(response.result().classifications(0).classes(0).score(), 2.5f);
    EXPECT_EQ(response.model_spec().signature_name(), "classify_x_to_y");
  }
}

TEST_F(ClassifyRegressTest, ContextFeaturesAreMergedExampleWins) {
  REQUIRE_SHARED();
  serving::RegressionRequest request = Regression("half_plus_two", "regress_x_to_y", {});
  auto* with_context = request.mutable_input()->mutable_example_list_with_context();
  *with_context->mutable_context() = XExample("x", 10);
  *with_context->add_examples() = XExample("x", 2);        // overrides the context's x
  *with_context->add_examples() = XExample("other", 7);    // takes x from the context
  serving::RegressionResponse response;
  absl::Status s = HandleRegress(*manager_, request, &response);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Values(response), (std::vector<float>{3.0f, 7.0f}));
}

TEST_F(ClassifyRegressTest, RegressErrors) {
  REQUIRE_SHARED();
  serving::RegressionResponse response;
  // An example without the required feature x.
  serving::RegressionRequest request = Regression("half_plus_two", "regress_x_to_y", {});
  AddExample(request.mutable_input(), XExample("z", 1));
  absl::Status s = HandleRegress(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  // Serialized Examples fed into a float-input signature.
  for (const char* model : {"half_plus_two", "tf2"}) {
    s = HandleRegress(*manager_, Regression(model, "regress_x2_to_y3", {1}), &response);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << model << ": " << s;
  }

  s = HandleRegress(*manager_, Regression("half_plus_two", "nope", {1}), &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "No signature was found with the name: nope");

  // serving_default has input x, not inputs.
  s = HandleRegress(*manager_, Regression("half_plus_two", "", {1}), &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  // A classify signature has no `outputs`.
  s = HandleRegress(*manager_, Regression("half_plus_two", "classify_x_to_y", {1}), &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST_F(ClassifyRegressTest, MultiInferenceHalfPlusTwo) {
  REQUIRE_SHARED();
  serving::MultiInferenceRequest request;
  for (auto [signature, method] :
       {std::pair{"regress_x_to_y", "tensorflow/serving/regress"},
        std::pair{"regress_x_to_y2", "tensorflow/serving/regress"},
        std::pair{"classify_x_to_y", "tensorflow/serving/classify"}}) {
    serving::InferenceTask* task = request.add_tasks();
    task->mutable_model_spec()->set_name("tf2");
    task->mutable_model_spec()->set_signature_name(signature);
    task->set_method_name(method);
  }
  AddExample(request.mutable_input(), XExample("x", 1));
  AddExample(request.mutable_input(), XExample("x", 2));
  serving::MultiInferenceResponse response;
  absl::Status s = HandleMultiInference(*manager_, request, &response);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(response.results_size(), 3);
  EXPECT_EQ(response.results(0).model_spec().name(), "tf2");
  EXPECT_EQ(response.results(0).model_spec().version().value(), 123);
  EXPECT_EQ(response.results(0).model_spec().signature_name(), "regress_x_to_y");
  ASSERT_EQ(response.results(0).regression_result().regressions_size(), 2);
  EXPECT_FLOAT_EQ(response.results(0).regression_result().regressions(1).value(), 3.0f);
  EXPECT_FLOAT_EQ(response.results(1).regression_result().regressions(0).value(), 3.5f);
  const auto& classes = response.results(2).classification_result();
  ASSERT_EQ(classes.classifications_size(), 2);
  EXPECT_FLOAT_EQ(classes.classifications(1).classes(0).score(), 3.0f);

  request.mutable_tasks(1)->mutable_model_spec()->set_signature_name("missing");
  s = HandleMultiInference(*manager_, request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "Requested signature not found in model graph: missing");
}

TEST_F(ClassifyRegressTest, RequestValidation) {
  serving::RegressionResponse regression;
  serving::RegressionRequest request = Regression("mlp", "serving_default", {});
  EXPECT_EQ(HandleRegress(*manager_, request, &regression).message(), "Input is empty.");
  request.mutable_model_spec()->set_name("nope");
  EXPECT_EQ(HandleRegress(*manager_, request, &regression).code(), absl::StatusCode::kNotFound);
  request.clear_model_spec();
  EXPECT_EQ(HandleRegress(*manager_, request, &regression).code(),
            absl::StatusCode::kInvalidArgument);

  serving::ClassificationRequest classify;
  classify.mutable_model_spec()->set_name("mlp");
  AddExample(classify.mutable_input(), XExample("x", 1));
  serving::ClassificationResponse classification;
  absl::Status s = HandleClassify(*manager_, classify, &classification);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  serving::MultiInferenceRequest multi;
  serving::MultiInferenceResponse multi_response;
  EXPECT_EQ(HandleMultiInference(*manager_, multi, &multi_response).code(),
            absl::StatusCode::kInvalidArgument);
  for (const char* model : {"mlp", "other"}) {
    serving::InferenceTask* task = multi.add_tasks();
    task->mutable_model_spec()->set_name(model);
    task->set_method_name("tensorflow/serving/regress");
  }
  s = HandleMultiInference(*manager_, multi, &multi_response);
  EXPECT_EQ(s.message(),
            "All ModelSpecs in a MultiInferenceRequest must access the same model name.");
  multi.mutable_tasks(1)->mutable_model_spec()->set_name("");
  s = HandleMultiInference(*manager_, multi, &multi_response);
  EXPECT_EQ(s.message(), "Found ModelSpec with an empty model name.");
  multi.mutable_tasks(1)->mutable_model_spec()->set_name("mlp");
  s = HandleMultiInference(*manager_, multi, &multi_response);
  EXPECT_EQ(s.message(), "Duplicate evaluation of signature: serving_default");
  multi.mutable_tasks(1)->mutable_model_spec()->set_signature_name("other");
  multi.mutable_tasks(1)->set_method_name("tensorflow/serving/predict");
  s = HandleMultiInference(*manager_, multi, &multi_response);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "Unsupported signature method_name: tensorflow/serving/predict");
}

}  // namespace
}  // namespace tensord
