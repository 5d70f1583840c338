#include "runtime/util/example_json.h"

#include <cmath>
#include <string>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "gtest/gtest.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;
using ::google::protobuf::util::MessageDifferencer;

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

TEST(ExampleJsonTest, TokenDecidesTheListType) {
  absl::StatusOr<tf::Example> example = ExampleFromJson(J(R"({
      "i": 1, "il": [1, -2, 9223372036854775807, -9223372036854775808], "bool": [true, false],
      "mixed_bool": [1, false], "f": 1.0, "fl": [0.5, 2e-3, -1E2, 3.0e0], "s": "abc",
      "b": {"b64": "AP8="}, "sl": ["a", {"b64": "aGk="}, ""], "empty": []})"));
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
      feature { key: "mixed_bool" value { int64_list { value: [ 1, 0 ] } } }
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

TEST(ExampleJsonTest, EmptyObjectIsAnExampleWithoutFeatures) {
  absl::StatusOr<tf::Example> example = ExampleFromJson(J("{}"));
  ASSERT_TRUE(example.ok()) << example.status();
  EXPECT_FALSE(example->has_features());
}

TEST(ExampleJsonTest, FloatsGoThroughDouble) {
  // The last value lies just above the midpoint between 1 and the next float: read straight to
  // float it would round up, but TF Serving and the Python client round it to a double first
  // (the midpoint itself), which then rounds to even, 1.
  absl::StatusOr<tf::Example> example = ExampleFromJson(J(
      R"({"x": [0.1, 16777217.0, 1e-45, NaN, Infinity, -Infinity, )"
      R"(1.000000059604644775390625001, 18446744073709551616]})"));
  ASSERT_TRUE(example.ok()) << example.status();
  const auto& values = example->features().feature().at("x").float_list().value();
  ASSERT_EQ(values.size(), 8);
  EXPECT_EQ(values[0], 0.1f);
  EXPECT_EQ(values[1], 16777216.0f);
  EXPECT_EQ(values[2], 1e-45f);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], INFINITY);
  EXPECT_EQ(values[5], -INFINITY);
  EXPECT_EQ(values[6], 1.0f);
  // An integer too wide for 64 bits is a double to TF Serving's JSON parser, so a float.
  EXPECT_EQ(values[7], 18446744073709551616.0f);
}

TEST(ExampleJsonTest, ErrorsNameTheFeature) {
  EXPECT_EQ(ExampleError(R"({"ok": 1, "x": [[1.0]]})"),
            "Feature: x has element with unexpected JSON type: Array");
  EXPECT_EQ(ExampleError(R"({"x": null})"),
            "Feature: x has element with unexpected JSON type: Null");
  EXPECT_EQ(ExampleError(R"({"x": [1, null]})"),
            "Feature: x has element with unexpected JSON type: Null");
  EXPECT_EQ(ExampleError(R"({"x": ["a", {"c": 1}]})"),
            "Feature: x has element with unexpected JSON type: Object");
  EXPECT_EQ(ExampleError(R"({"x": {"b64": 1}})"),
            "Feature: x has element with unexpected JSON type: Object");
  EXPECT_EQ(ExampleError(R"({"x": {"b64": "aGk=", "y": 1}})"),
            "Feature: x has element with unexpected JSON type: Object");
  // One feature holds one kind: 1 is int64 and 2.5 float, so [1, 2.5] is not a float list.
  EXPECT_EQ(ExampleError(R"({"x": [1, 2.5]})"),
            "Unexpected element type in feature: x expecting type: int64");
  EXPECT_EQ(ExampleError(R"({"x": [2.5, true]})"),
            "Unexpected element type in feature: x expecting type: float");
  EXPECT_EQ(ExampleError(R"({"x": ["a", 1]})"),
            "Unexpected element type in feature: x expecting type: bytes");
  EXPECT_EQ(ExampleError(R"({"x": [1, {"b64": "aGk="}]})"),
            "Unexpected element type in feature: x expecting type: int64");
  EXPECT_EQ(ExampleError(R"({"x": 9223372036854775808})"),
            "Feature: x has uint64 element. Only int64 is supported.");
  EXPECT_EQ(ExampleError(R"({"x": [1.0, 1e39]})"),
            "Feature: x: Cannot convert JSON value: 1e39 to float without loss of precision.");
  EXPECT_EQ(ExampleError(R"({"x": -1e400})"),
            "Feature: x: Cannot convert JSON value: -1e400 to float without loss of precision.");
  EXPECT_EQ(ExampleError(R"({"x": ["a", {"b64": "%%"}]})"),
            "Feature: x: Unable to base64 decode: \"%%\"");
  EXPECT_EQ(ExampleError("[1]"), "Example must be JSON object but got JSON Array");
  EXPECT_EQ(ExampleError("true"), "Example must be JSON object but got JSON True");
}

TEST(ExampleJsonTest, InputWithoutContext) {
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

TEST(ExampleJsonTest, InputWithContextKeepsFeaturesInBoth) {
  // "x" is in the context and in the first example: both stay, and the server's merge of the
  // two lets the example's value win.
  const json::Value context = J(R"({"c": "shared", "x": 10.0})");
  absl::StatusOr<serving::Input> input = InputFromJson(J(R"([{"x": 3.0}, {"y": true}])"), &context);
  ASSERT_TRUE(input.ok()) << input.status();
  const auto expected = FromText<serving::Input>(R"pb(
    example_list_with_context {
      examples { features { feature { key: "x" value { float_list { value: 3 } } } } }
      examples { features { feature { key: "y" value { int64_list { value: 1 } } } } }
      context {
        features {
          feature { key: "c" value { bytes_list { value: "shared" } } }
          feature { key: "x" value { float_list { value: 10 } } }
        }
      }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(*input, expected)) << input->DebugString();
}

TEST(ExampleJsonTest, InputErrorsNameTheExampleOrContext) {
  EXPECT_EQ(InputError(R"({"x": 1})"), "Expecting 'examples' value to be an list/array");
  EXPECT_EQ(InputError("[]"), "'examples' value is an empty array");
  EXPECT_EQ(InputError(R"([{"x": 1}, {"y": [[2]]}])"),
            "example 1: Feature: y has element with unexpected JSON type: Array");
  EXPECT_EQ(InputError(R"([{"x": 1}, 7])"),
            "example 1: Example must be JSON object but got JSON Number");
  const json::Value mixed = J(R"({"c": [1, "a"]})");
  EXPECT_EQ(InputError(R"([{"x": 1}])", &mixed),
            "context: Unexpected element type in feature: c expecting type: int64");
  const json::Value list = J("[]");
  EXPECT_EQ(InputError(R"([{"x": 1}])", &list),
            "context: Example must be JSON object but got JSON Array");
}

TEST(ExampleJsonTest, RequestBody) {
  absl::StatusOr<serving::Input> input = InputFromRequestJson(J(R"({"signature_name": "s",
      "examples": [{"x": 1.0, "n": [1, 2], "s": "a"}], "context": {"c": {"b64": "aGk="}}})"));
  ASSERT_TRUE(input.ok()) << input.status();
  const auto expected = FromText<serving::Input>(R"pb(
    example_list_with_context {
      examples {
        features {
          feature { key: "x" value { float_list { value: 1 } } }
          feature { key: "n" value { int64_list { value: [ 1, 2 ] } } }
          feature { key: "s" value { bytes_list { value: "a" } } }
        }
      }
      context { features { feature { key: "c" value { bytes_list { value: "hi" } } } } }
    }
  )pb");
  EXPECT_TRUE(MessageDifferencer::Equals(*input, expected)) << input->DebugString();

  input = InputFromRequestJson(J(R"({"examples": [{"x": 2}]})"));
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->example_list().examples_size(), 1);

  input = InputFromRequestJson(J(R"({"context": {}})"));
  EXPECT_EQ(input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(input.status().message(),
            "When method is classify, key 'examples' is expected and was not found");
  input = InputFromRequestJson(J(R"({"examples": {}})"));
  EXPECT_EQ(input.status().message(), "Expecting 'examples' value to be an list/array");
}

TEST(ExampleJsonTest, ClassificationResult) {
  const auto result = FromText<serving::ClassificationResult>(R"pb(
    classifications {
      classes { label: "big" score: 0.1 }
      classes { label: "small" score: 3 }
    }
    classifications { classes { score: 2.5 } }
    classifications { classes { label: "\377" score: -0.25 } }
  )pb");
  EXPECT_EQ(json::Write(ClassificationResultToJson(result)),
            R"({"results": [[["big", 0.1], ["small", 3.0]], [["", 2.5]], )"
            R"([[{"b64": "/w=="}, -0.25]]]})");
  EXPECT_EQ(json::Write(ClassificationResultToJson(serving::ClassificationResult())),
            R"({"results": []})");
}

TEST(ExampleJsonTest, RegressionResult) {
  serving::RegressionResult result;
  for (float v : {2.5f, 0.1f, 1e-7f, 4.0f, NAN}) result.add_regressions()->set_value(v);
  EXPECT_EQ(json::Write(RegressionResultToJson(result)),
            R"({"results": [2.5, 0.1, 1e-07, 4.0, NaN]})");
}

}  // namespace
}  // namespace tensord
