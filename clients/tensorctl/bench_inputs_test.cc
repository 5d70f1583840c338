#include "clients/tensorctl/bench_inputs.h"

#include <google/protobuf/text_format.h>

#include "Eigen/Core"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace tensorctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

::tensorflow::SignatureDef Signature(const std::string& text) {
  ::tensorflow::SignatureDef signature;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &signature)) << text;
  return signature;
}

// Every dtype family, known and unknown dims, a scalar.
const char kSignature[] = R"pb(
  inputs {
    key: "features"
    value { dtype: DT_FLOAT tensor_shape { dim { size: -1 } dim { size: 16 } } }
  }
  inputs {
    key: "ids"
    value { dtype: DT_INT64 tensor_shape { dim { size: -1 } dim { size: -1 } } }
  }
  inputs { key: "flag" value { dtype: DT_BOOL tensor_shape {} } }
  inputs { key: "text" value { dtype: DT_STRING tensor_shape { dim { size: -1 } } } }
  inputs {
    key: "h"
    value { dtype: DT_HALF tensor_shape { dim { size: 2 } dim { size: 3 } } }
  }
  inputs {
    key: "u8"
    value { dtype: DT_UINT8 tensor_shape { dim { size: -1 } dim { size: 2 } dim { size: -1 } } }
  }
  inputs { key: "c" value { dtype: DT_COMPLEX64 tensor_shape { dim { size: 3 } } } }
)pb";

std::vector<ParsedInput> Given(const std::vector<InputSpec>& specs) {
  absl::StatusOr<std::vector<ParsedInput>> parsed = ReadInputs(specs);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : std::vector<ParsedInput>{};
}

TEST(BenchInputsTest, SynthesisesEveryInputWithExactShapesAndDtypes) {
  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BenchInputs("serving_default", Signature(kSignature), {}, {});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 7u);
  auto expect = [&](const std::string& alias, DataType dtype, TensorShape shape) {
    const Tensor& t = inputs->at(alias);
    EXPECT_EQ(t.dtype(), dtype) << alias;
    EXPECT_EQ(t.shape(), shape) << alias << " " << t.shape().DebugString();
  };
  expect("features", DT_FLOAT, TensorShape{1, 16});
  expect("ids", DT_INT64, TensorShape{1, 1});
  expect("flag", DT_BOOL, TensorShape{});
  expect("text", DT_STRING, TensorShape{1});
  expect("h", DT_HALF, TensorShape{2, 3});
  expect("u8", DT_UINT8, TensorShape{1, 2, 1});
  expect("c", DT_COMPLEX64, TensorShape{3});

  const Tensor& features = inputs->at("features");
  for (int64_t i = 0; i < features.NumElements(); ++i) {
    EXPECT_GE(features.data<float>()[i], 0.0f);
    EXPECT_LT(features.data<float>()[i], 1.0f);
  }
  // Not all one value: the data is random, not zeros.
  EXPECT_NE(features.data<float>()[0], features.data<float>()[1]);
  const int64_t id = inputs->at("ids").scalar<int64_t>();
  EXPECT_GE(id, 0);
  EXPECT_LT(id, 100);
  const std::string& text = inputs->at("text").data<std::string>()[0];
  EXPECT_EQ(text.size(), 8u);
  for (char c : text) EXPECT_TRUE(c >= 'a' && c <= 'z') << text;
  for (int64_t i = 0; i < 6; ++i) {
    const float h = static_cast<float>(inputs->at("h").data<Eigen::half>()[i]);
    EXPECT_GE(h, 0.0f);
    EXPECT_LE(h, 1.0f);  // [0, 1) rounded to half precision may reach 1
  }
}

TEST(BenchInputsTest, BatchFillsUnknownDimZeroOnly) {
  SynthesisOptions options;
  options.batch = 8;
  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BenchInputs("serving_default", Signature(kSignature), {}, options);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("features").shape(), (TensorShape{8, 16}));
  EXPECT_EQ(inputs->at("ids").shape(), (TensorShape{8, 1}));
  EXPECT_EQ(inputs->at("text").shape(), (TensorShape{8}));
  EXPECT_EQ(inputs->at("u8").shape(), (TensorShape{8, 2, 1}));
  EXPECT_EQ(inputs->at("h").shape(), (TensorShape{2, 3}));  // known dims stay
  EXPECT_EQ(inputs->at("flag").shape(), TensorShape{});
}

TEST(BenchInputsTest, ShapeFlagOverridesUnknownDims) {
  SynthesisOptions options;
  options.batch = 8;
  options.shapes["ids"] = {4, 128};
  options.shapes["h"] = {2, 3};
  absl::StatusOr<std::map<std::string, Tensor>> inputs =
      BenchInputs("serving_default", Signature(kSignature), {}, options);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("ids").shape(), (TensorShape{4, 128}));
  EXPECT_EQ(inputs->at("h").shape(), (TensorShape{2, 3}));
  EXPECT_EQ(inputs->at("features").shape(), (TensorShape{8, 16}));
}

TEST(BenchInputsTest, ShapeFlagMustFitTheSignature) {
  const ::tensorflow::SignatureDef signature = Signature(kSignature);
  for (const auto& [alias, dims, message] :
       std::vector<std::tuple<std::string, std::vector<int64_t>, std::string>>{
           {"features", {4, 15},
            "--shape features=4,15 does not fit the signature's shape [-1,16]"},
           {"features", {4}, "does not fit the signature's shape [-1,16]"},
           {"flag", {1}, "does not fit the signature's shape []"},
           {"nope", {1}, "--shape names 'nope', which is not an input of signature 'sig'"},
       }) {
    SynthesisOptions options;
    options.shapes[alias] = dims;
    absl::StatusOr<std::map<std::string, Tensor>> inputs =
        BenchInputs("sig", signature, {}, options);
    ASSERT_FALSE(inputs.ok()) << alias;
    EXPECT_EQ(inputs.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(inputs.status().message(), HasSubstr(message));
  }
}

TEST(BenchInputsTest, UnknownRankNeedsShape) {
  const ::tensorflow::SignatureDef signature = Signature(R"pb(
    inputs { key: "x" value { dtype: DT_INT32 tensor_shape { unknown_rank: true } } }
  )pb");
  absl::StatusOr<std::map<std::string, Tensor>> inputs = BenchInputs("s", signature, {}, {});
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(),
              HasSubstr("input 'x' has an unknown rank; give its shape with --shape x=D0,D1,..."));

  SynthesisOptions options;
  options.shapes["x"] = {2, 5, 3};
  inputs = BenchInputs("s", signature, {}, options);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("x").dtype(), DT_INT32);
  EXPECT_EQ(inputs->at("x").shape(), (TensorShape{2, 5, 3}));
}

TEST(BenchInputsTest, GivenInputsAreConvertedAndTheRestSynthesised) {
  const ::tensorflow::SignatureDef signature = Signature(kSignature);
  absl::StatusOr<std::map<std::string, Tensor>> inputs = BenchInputs(
      "serving_default", signature,
      Given({{"ids", "[[7, 8, 9]]"}, {"text", "[\"hello\", \"world\"]"}}), {});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 7u);
  const Tensor& ids = inputs->at("ids");
  EXPECT_EQ(ids.dtype(), DT_INT64);
  EXPECT_EQ(ids.shape(), (TensorShape{1, 3}));
  EXPECT_THAT(std::vector<int64_t>(ids.data<int64_t>(), ids.data<int64_t>() + 3),
              ElementsAre(7, 8, 9));
  EXPECT_EQ(inputs->at("text").data<std::string>()[1], "world");
  EXPECT_EQ(inputs->at("features").shape(), (TensorShape{1, 16}));

  inputs = BenchInputs("serving_default", signature, Given({{"other", "[1.0]"}}), {});
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(), HasSubstr("has no input 'other'"));
}

TEST(BenchInputsTest, SameDataEveryRun) {
  const ::tensorflow::SignatureDef signature = Signature(kSignature);
  absl::StatusOr<std::map<std::string, Tensor>> a = BenchInputs("s", signature, {}, {});
  absl::StatusOr<std::map<std::string, Tensor>> b = BenchInputs("s", signature, {}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(a->at("features").data<float>()[i], b->at("features").data<float>()[i]);
  }
  EXPECT_EQ(a->at("text").data<std::string>()[0], b->at("text").data<std::string>()[0]);
}

TEST(BenchInputsTest, UnsynthesisableDtype) {
  const ::tensorflow::SignatureDef signature = Signature(R"pb(
    inputs { key: "r" value { dtype: DT_RESOURCE tensor_shape {} } }
  )pb");
  absl::StatusOr<std::map<std::string, Tensor>> inputs = BenchInputs("s", signature, {}, {});
  ASSERT_FALSE(inputs.ok());
  EXPECT_THAT(inputs.status().message(),
              HasSubstr("input 'r' has dtype resource, which bench cannot make up"));
}

TEST(BenchInputsTest, UntypedSignatureKeepsGivenValues) {
  std::vector<ParsedInput> given = Given({{"x", "[[1, 2]]"}});
  const ::tensorflow::SignatureDef signature = UntypedSignature(given);
  ASSERT_EQ(signature.inputs().size(), 1u);
  absl::StatusOr<std::map<std::string, Tensor>> inputs = BenchInputs("s", signature, given, {});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(inputs->at("x").dtype(), DT_FLOAT);
  EXPECT_EQ(inputs->at("x").shape(), (TensorShape{1, 2}));
}

}  // namespace
}  // namespace tensorctl
}  // namespace tensord
