#include "clients/common/classify_regress_json.h"

#include <cmath>
#include <string>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

json::Value J(const std::string& text) {
  absl::StatusOr<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : json::Value();
}

template <typename Message>
Message FromText(const std::string& text) {
  Message m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

std::string ExampleError(const std::string& json_text) {
  absl::StatusOr<tf::Example> example = ExampleFromJson(J(json_text));
  EXPECT_FALSE(example.ok()) << json_text;
  EXPECT_EQ(example.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(example.status().message());
}

std::string InputError(const std::string& examples, const json::Value* context = nullptr) {
  absl::StatusOr<serving::Input> input = InputFromJson(J(examples), context);
  EXPECT_FALSE(input.ok()) << examples;
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(input.status().message());
}

TEST(ClassifyRegressJsonTest, TokenDecidesTheListType) {
  absl::StatusOr<tf::Example> example = ExampleFromJson(J(R"({
      "i": 1, "il": [1, -2, 9223372036854775807, -9223372036854775808], "bool": [true, false],
      "f": 1.0, "fl": [0.5, 2e-3, -1E2, 3.0e0], "s": "abc", "b": {"b64": "AP8="},
      "sl": ["a", {"b64": "aGk="}, ""], "empty": []})"));
  ASSERT_TRUE(example.ok()) << example.status();
  const auto expected = FromText<tf::Example>(R"pb(
    features {
      feature { key: "i" value { int64_list { value: 1 } } }
      feature {
        key: "il"
        value {
          int64_list {
            value: [ 1, -2, 9223372036854775807, -9223372036854775808 ]
          }
        }
      }
      feature { key: "bool" value { int64_list { value: [ 1, 0 ] } } }
      feature { key: "f" value { float_list { value: 1 } } }
      feature { key: "fl" value { float_list { value: [ 0.5, 0.002, -100, 3 ] } } }
      feature { key: "s" value { bytes_list { value: "abc" } } }
      feature { key: "b" value { bytes_list { value: "\000\377" } } }
      feature { key: "sl" value { bytes_list { value: [ "a", "hi", "" ] } } }
      feature { key: "empty" value {} }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(*example, expected)) << example->DebugString();
}

TEST(ClassifyRegressJsonTest, FloatsParseStraightToFloat) {
  absl::StatusOr<tf::Example> example =
      ExampleFromJson(J(R"({"x": [0.1, 16777217.0, 1e-45, NaN, Infinity, -Infinity]})"));
  ASSERT_TRUE(example.ok()) << example.status();
  const auto& values = example->features().feature().at("x").float_list().value();
  ASSERT_EQ(values.size(), 6);
  EXPECT_EQ(values[0], 0.1f);
  EXPECT_EQ(values[1], 16777216.0f);
  EXPECT_EQ(values[2], 1e-45f);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], INFINITY);
  EXPECT_EQ(values[5], -INFINITY);
}

TEST(ClassifyRegressJsonTest, ErrorsNameTheFeature) {
  EXPECT_EQ(ExampleError(R"({"ok": 1, "x": [[1.0]]})"),
            "feature \"x\": nested lists are not allowed (a feature is one value or a flat list)");
  EXPECT_EQ(ExampleError(R"({"x": null})"),
            "feature \"x\": null is not a number, a string or {\"b64\": ...}");
  EXPECT_EQ(ExampleError(R"({"x": ["a", {"c": 1}]})"),
            "feature \"x\": {\"c\": 1} is not a number, a string or {\"b64\": ...}");
  EXPECT_EQ(ExampleError(R"({"x": {"b64": 1}})"),
            "feature \"x\": {\"b64\": 1} is not a number, a string or {\"b64\": ...}");
  EXPECT_EQ(ExampleError(R"({"x": [1, 2.5]})"),
            "feature \"x\": mixes value kinds: 1 is int64, 2.5 is float "
            "(write 1.0, not 1, in a float feature)");
  EXPECT_EQ(ExampleError(R"({"x": [2.5, true]})"),
            "feature \"x\": mixes value kinds: 2.5 is float, true is int64 "
            "(write 1.0, not 1, in a float feature)");
  EXPECT_EQ(ExampleError(R"({"x": ["a", 1]})"),
            "feature \"x\": mixes value kinds: \"a\" is bytes, 1 is int64");
  EXPECT_EQ(ExampleError(R"({"x": 9223372036854775808})"),
            "feature \"x\": 9223372036854775808 is out of the int64 range");
  EXPECT_EQ(ExampleError(R"({"x": [1.0, 1e39]})"),
            "feature \"x\": 1e39 is out of the float range");
  EXPECT_THAT(ExampleError(R"({"x": ["a", {"b64": "%%"}]})"),
              HasSubstr("feature \"x\": element [1]: \"b64\" is not valid base64"));
  EXPECT_EQ(ExampleError("[1]"), "expected an object of feature: value, got a list");
}

TEST(ClassifyRegressJsonTest, InputWithoutContext) {
  absl::StatusOr<serving::Input> input = InputFromJson(J(R"([{"x": 1.5}, {"x": -2.0}])"), nullptr);
  ASSERT_TRUE(input.ok()) << input.status();
  const auto expected = FromText<serving::Input>(R"pb(
    example_list {
      examples { features { feature { key: "x" value { float_list { value: 1.5 } } } } }
      examples { features { feature { key: "x" value { float_list { value: -2 } } } } }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(*input, expected)) << input->DebugString();
}

TEST(ClassifyRegressJsonTest, InputWithContext) {
  const json::Value context = J(R"({"c": "shared"})");
  absl::StatusOr<serving::Input> input = InputFromJson(J(R"([{"x": 3}])"), &context);
  ASSERT_TRUE(input.ok()) << input.status();
  const auto expected = FromText<serving::Input>(R"pb(
    example_list_with_context {
      examples { features { feature { key: "x" value { int64_list { value: 3 } } } } }
      context { features { feature { key: "c" value { bytes_list { value: "shared" } } } } }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(*input, expected)) << input->DebugString();
}

TEST(ClassifyRegressJsonTest, InputErrorsNameTheExampleOrContext) {
  EXPECT_EQ(InputError(R"({"x": 1})"), "examples must be a list of objects, got an object");
  EXPECT_EQ(InputError("[]"), "examples is an empty list");
  EXPECT_EQ(InputError(R"([{"x": 1}, {"y": [[2]]}])"),
            "example 1: feature \"y\": nested lists are not allowed (a feature is one value or "
            "a flat list)");
  EXPECT_EQ(InputError(R"([{"x": 1}, 7])"),
            "example 1: expected an object of feature: value, got a number");
  const json::Value context = J(R"({"c": [1, "a"]})");
  EXPECT_EQ(InputError(R"([{"x": 1}])", &context),
            "context: feature \"c\": mixes value kinds: 1 is int64, \"a\" is bytes");
}

TEST(ClassifyRegressJsonTest, ClassificationResult) {
  const auto result = FromText<serving::ClassificationResult>(R"pb(
    classifications {
      classes { label: "big" score: 0.1 }
      classes { label: "small" score: 3 }
    }
    classifications { classes { score: 2.5 } }
    classifications { classes { label: "\377" score: -0.25 } }
  )pb");
  EXPECT_EQ(ClassificationResultJson(result),
            R"({"results": [[["big", 0.1], ["small", 3.0]], [["", 2.5]], )"
            R"([[{"b64": "/w=="}, -0.25]]]})");
  EXPECT_EQ(ClassificationResultJson(serving::ClassificationResult()), R"({"results": []})");
}

TEST(ClassifyRegressJsonTest, RegressionResult) {
  serving::RegressionResult result;
  for (float v : {2.5f, 0.1f, 1e-7f, NAN}) result.add_regressions()->set_value(v);
  EXPECT_EQ(RegressionResultJson(result), R"({"results": [2.5, 0.1, 1e-07, NaN]})");
}

}  // namespace
}  // namespace tensord
