#include "server/rest/json_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/util/json.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

tf::TensorProto FloatTensor(std::vector<int64_t> dims, std::vector<float> values) {
  tf::TensorProto p;
  p.set_dtype(tf::DT_FLOAT);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  for (float v : values) p.add_float_val(v);
  return p;
}

tf::TensorProto StringTensor(std::vector<std::string> values) {
  tf::TensorProto p;
  p.set_dtype(tf::DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (const std::string& v : values) p.add_string_val(v);
  return p;
}

std::string Write(const serving::PredictResponse& response, JsonFormat format) {
  absl::StatusOr<std::string> text = PredictResponseJson(response, format);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// The text must also be exactly what json::Write(tree, 4) writes for the same tree, the layout
// every REST response has.
void ExpectLikeTreeWriter(const std::string& text) {
  absl::StatusOr<json::Value> tree = json::Parse(text);
  ASSERT_TRUE(tree.ok()) << tree.status() << "\n" << text;
  EXPECT_EQ(json::Write(*tree, 4), text);
}

TEST(JsonTensorTest, RowAndColumnarSingleOutput) {
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["y"] = FloatTensor({2, 2}, {0.1f, 1.0f, NAN, -INFINITY});
  std::string row = Write(resp, JsonFormat::kRow);
  EXPECT_EQ(row,
            "{\n"
            "    \"predictions\": [\n"
            "        [0.1, 1.0],\n"
            "        [NaN, -Infinity]\n"
            "    ]\n"
            "}");
  ExpectLikeTreeWriter(row);
  std::string col = Write(resp, JsonFormat::kColumnar);
  EXPECT_EQ(col,
            "{\n"
            "    \"outputs\": [\n"
            "        [0.1, 1.0],\n"
            "        [NaN, -Infinity]\n"
            "    ]\n"
            "}");
  ExpectLikeTreeWriter(col);
}

TEST(JsonTensorTest, RowsOfScalarsStayOnOneLine) {
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["y"] = FloatTensor({3}, {2.5f, 3.0f, 4.5f});
  EXPECT_EQ(Write(resp, JsonFormat::kRow), "{\n    \"predictions\": [2.5, 3.0, 4.5]\n}");
  (*resp.mutable_outputs())["y"] = FloatTensor({}, {7});
  EXPECT_EQ(Write(resp, JsonFormat::kColumnar), "{\n    \"outputs\": 7.0\n}");
}

TEST(JsonTensorTest, SeveralOutputsAndBinaryStrings) {
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["y"] = FloatTensor({2, 2}, {0.1f, 1.0f, NAN, -INFINITY});
  (*resp.mutable_outputs())["s_bytes"] = StringTensor({"a", "b"});
  std::string row = Write(resp, JsonFormat::kRow);
  EXPECT_EQ(row,
            "{\n"
            "    \"predictions\": [\n"
            "        {\n"
            "            \"s_bytes\": {\n"
            "                \"b64\": \"YQ==\"\n"
            "            },\n"
            "            \"y\": [0.1, 1.0]\n"
            "        },\n"
            "        {\n"
            "            \"s_bytes\": {\n"
            "                \"b64\": \"Yg==\"\n"
            "            },\n"
            "            \"y\": [NaN, -Infinity]\n"
            "        }\n"
            "    ]\n"
            "}");
  ExpectLikeTreeWriter(row);
  std::string col = Write(resp, JsonFormat::kColumnar);
  EXPECT_EQ(col,
            "{\n"
            "    \"outputs\": {\n"
            "        \"s_bytes\": [\n"
            "            {\n"
            "                \"b64\": \"YQ==\"\n"
            "            },\n"
            "            {\n"
            "                \"b64\": \"Yg==\"\n"
            "            }\n"
            "        ],\n"
            "        \"y\": [\n"
            "            [0.1, 1.0],\n"
            "            [NaN, -Infinity]\n"
            "        ]\n"
            "    }\n"
            "}");
  ExpectLikeTreeWriter(col);

  (*resp.mutable_outputs())["z"] = FloatTensor({3}, {1, 2, 3});
  absl::StatusOr<std::string> bad = PredictResponseJson(resp, JsonFormat::kRow);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "Output tensors must have the same size in dimension 0 for row format: \"z\" has 3, "
            "expected 2");
}

TEST(JsonTensorTest, TextStringsAndInvalidUtf8) {
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["s"] = StringTensor({"a\"\n\xc3\xa9", std::string("\xff\0", 2)});
  std::string col = Write(resp, JsonFormat::kColumnar);
  EXPECT_EQ(col,
            "{\n"
            "    \"outputs\": [\n"
            "        \"a\\\"\\n\xc3\xa9\",\n"
            "        {\n"
            "            \"b64\": \"/wA=\"\n"
            "        }\n"
            "    ]\n"
            "}");
  ExpectLikeTreeWriter(col);
  (*resp.mutable_outputs())["s"] = StringTensor({"x", "y"});
  EXPECT_EQ(Write(resp, JsonFormat::kRow), "{\n    \"predictions\": [\"x\", \"y\"]\n}");
}

TEST(JsonTensorTest, EveryDtypeAndEmptyShapes) {
  serving::PredictResponse resp;
  auto& out = *resp.mutable_outputs();
  tf::TensorProto d;
  d.set_dtype(tf::DT_DOUBLE);
  d.mutable_tensor_shape()->add_dim()->set_size(3);
  d.add_double_val(1.0);
  d.add_double_val(0.25);
  d.add_double_val(1e300);
  out["d"] = d;
  tf::TensorProto i8;
  i8.set_dtype(tf::DT_INT8);
  i8.mutable_tensor_shape()->add_dim()->set_size(2);
  i8.add_int_val(-128);
  i8.add_int_val(127);
  out["i8"] = i8;
  tf::TensorProto u64;
  u64.set_dtype(tf::DT_UINT64);
  u64.mutable_tensor_shape()->add_dim()->set_size(1);
  u64.add_uint64_val(std::numeric_limits<uint64_t>::max());
  out["u64"] = u64;
  tf::TensorProto i64;
  i64.set_dtype(tf::DT_INT64);
  i64.mutable_tensor_shape()->add_dim()->set_size(1);
  i64.add_int64_val(std::numeric_limits<int64_t>::min());
  out["i64"] = i64;
  tf::TensorProto b;
  b.set_dtype(tf::DT_BOOL);
  b.mutable_tensor_shape()->add_dim()->set_size(2);
  b.add_bool_val(true);
  b.add_bool_val(false);
  out["b"] = b;
  out["e"] = FloatTensor({2, 0}, {});
  out["f"] = FloatTensor({0}, {});
  out["g"] = FloatTensor({1}, {1e-5f});
  std::string col = Write(resp, JsonFormat::kColumnar);
  EXPECT_EQ(col,
            "{\n"
            "    \"outputs\": {\n"
            "        \"b\": [true, false],\n"
            "        \"d\": [1.0, 0.25, 1e+300],\n"
            "        \"e\": [\n"
            "            [],\n"
            "            []\n"
            "        ],\n"
            "        \"f\": [],\n"
            "        \"g\": [1e-05],\n"
            "        \"i64\": [-9223372036854775808],\n"
            "        \"i8\": [-128, 127],\n"
            "        \"u64\": [18446744073709551615]\n"
            "    }\n"
            "}");
  ExpectLikeTreeWriter(col);
}

TEST(JsonTensorTest, FloatsRoundTripExactly) {
  std::vector<float> values = {0.1f, 1.0f / 3, 16777217.0f, 1e-45f, 3.4028235e38f, -0.0f};
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["y"] = FloatTensor({static_cast<int64_t>(values.size())}, values);
  absl::StatusOr<json::Value> tree = json::Parse(Write(resp, JsonFormat::kColumnar));
  ASSERT_TRUE(tree.ok());
  const json::Value* outputs = tree->Find("outputs");
  ASSERT_NE(outputs, nullptr);
  ASSERT_EQ(outputs->size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(static_cast<float>(outputs->items()[i].number()), values[i]);
  }
}

TEST(JsonTensorTest, RowFormatErrorsAndEmptyResponses) {
  serving::PredictResponse resp;
  EXPECT_EQ(Write(resp, JsonFormat::kRow), "{\n    \"predictions\": []\n}");
  EXPECT_EQ(Write(resp, JsonFormat::kColumnar), "{\n    \"outputs\": {}\n}");
  (*resp.mutable_outputs())["s"] = FloatTensor({}, {1});
  EXPECT_EQ(PredictResponseJson(resp, JsonFormat::kRow).status().message(),
            "Output \"s\" is a scalar; row format needs a batch dimension");
  tf::TensorProto h;
  h.set_dtype(tf::DT_HALF);
  h.mutable_tensor_shape()->add_dim()->set_size(1);
  h.add_half_val(0);
  (*resp.mutable_outputs())["s"] = h;
  EXPECT_EQ(PredictResponseJson(resp, JsonFormat::kColumnar).status().message(),
            "Conversion of DT_HALF tensors to JSON is not supported");
}

}  // namespace
}  // namespace tensord
