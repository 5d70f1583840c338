#include "server/rest/json_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

json::Value J(const std::string& text) {
  absl::StatusOr<json::Value> v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : json::Value();
}

tf::SignatureDef Sig(std::initializer_list<std::pair<std::string, tf::DataType>> inputs) {
  tf::SignatureDef sig;
  for (const auto& [alias, dtype] : inputs) (*sig.mutable_inputs())[alias].set_dtype(dtype);
  return sig;
}

std::vector<int64_t> Dims(const tf::TensorProto& p) {
  std::vector<int64_t> d;
  for (const auto& x : p.tensor_shape().dim()) d.push_back(x.size());
  return d;
}

TEST(JsonTensorTest, RowFormatSingleInputStacksRows) {
  serving::PredictRequest req;
  JsonFormat format;
  ASSERT_TRUE(FillPredictRequestFromJson(J(R"({"instances": [[1, 2], [3.5, 4]]})"),
                                         Sig({{"x", tf::DT_FLOAT}}), &req, &format)
                  .ok());
  EXPECT_EQ(format, JsonFormat::kRow);
  const tf::TensorProto& x = req.inputs().at("x");
  EXPECT_EQ(x.dtype(), tf::DT_FLOAT);
  EXPECT_EQ(Dims(x), (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(x.float_val_size(), 4);
  EXPECT_EQ(x.float_val(2), 3.5f);
}

TEST(JsonTensorTest, RowFormatNamedInputs) {
  serving::PredictRequest req;
  JsonFormat format;
  absl::Status s = FillPredictRequestFromJson(
      J(R"({"instances": [{"a": 1, "s": "x"}, {"a": 2, "s": {"b64": "aGk="}}]})"),
      Sig({{"a", tf::DT_INT64}, {"s", tf::DT_STRING}}), &req, &format);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Dims(req.inputs().at("a")), (std::vector<int64_t>{2}));
  EXPECT_EQ(req.inputs().at("a").int64_val(1), 2);
  EXPECT_EQ(req.inputs().at("s").string_val(0), "x");
  EXPECT_EQ(req.inputs().at("s").string_val(1), "hi");
}

TEST(JsonTensorTest, ColumnarFormat) {
  serving::PredictRequest req;
  JsonFormat format;
  ASSERT_TRUE(FillPredictRequestFromJson(J(R"({"inputs": [[true, false]]})"),
                                         Sig({{"b", tf::DT_BOOL}}), &req, &format)
                  .ok());
  EXPECT_EQ(format, JsonFormat::kColumnar);
  EXPECT_EQ(Dims(req.inputs().at("b")), (std::vector<int64_t>{1, 2}));

  ASSERT_TRUE(FillPredictRequestFromJson(J(R"({"inputs": {"a": [1, 2, 3], "c": 7}})"),
                                         Sig({{"a", tf::DT_INT32}, {"c", tf::DT_UINT8}}), &req,
                                         &format)
                  .ok());
  EXPECT_EQ(Dims(req.inputs().at("a")), (std::vector<int64_t>{3}));
  EXPECT_EQ(req.inputs().at("a").int_val(2), 3);
  EXPECT_TRUE(Dims(req.inputs().at("c")).empty());
  EXPECT_EQ(req.inputs().at("c").int_val(0), 7);
}

TEST(JsonTensorTest, FloatConversionAndNonFinite) {
  absl::StatusOr<tf::TensorProto> t =
      JsonToTensorProto(J("[1435774380, NaN, -Infinity]"), tf::DT_FLOAT);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->float_val(0), 1435774336.0f);
  EXPECT_TRUE(std::isnan(t->float_val(1)));
  EXPECT_EQ(t->float_val(2), -std::numeric_limits<float>::infinity());
}

TEST(JsonTensorTest, Errors) {
  serving::PredictRequest req;
  JsonFormat format;
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  auto err = [&](const std::string& body, const tf::SignatureDef& s) {
    absl::Status st = FillPredictRequestFromJson(J(body), s, &req, &format);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << body;
    return std::string(st.message());
  };
  EXPECT_EQ(err(R"({"instances": [1], "inputs": [1]})", sig),
            "JSON Value: expecting only one of 'inputs' or 'instances' keys to exist");
  EXPECT_EQ(err(R"({"x": 1})", sig), "Missing 'inputs' or 'instances' key");
  EXPECT_EQ(err(R"({"instances": []})", sig), "No values in 'instances' array");
  EXPECT_EQ(err(R"({"instances": [[1, 2], [1, 2, 3]]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
            "Expecting tensor size: 2 but got: 3");
  EXPECT_EQ(err(R"({"inputs": [[1, 2], [3]]})", sig),
            "Ragged nested list: expected 2 elements at depth 1 but got 1");
  EXPECT_EQ(err(R"({"inputs": [[1, 2], 3]})", sig),
            "Ragged nested list: expected a list of 2 elements at depth 1 but got a number");
  EXPECT_EQ(err(R"({"inputs": ["a"]})", sig), "Expected a number for DT_FLOAT but got a string: \"a\"");
  EXPECT_EQ(err(R"({"inputs": [1.5]})", Sig({{"i", tf::DT_INT32}})),
            "Expected an integer for DT_INT32 but got a number: 1.5");
  EXPECT_EQ(err(R"({"inputs": [300]})", Sig({{"i", tf::DT_UINT8}})),
            "Value 300 is out of range for DT_UINT8");
  EXPECT_EQ(err(R"({"inputs": {"y": [1]}})", sig), "Input alias \"y\" is not in the signature");
  EXPECT_EQ(err(R"({"instances": [{"x": [1]}, {"x": [1, 2]}]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
            "Expecting tensor size: 1 but got: 2");
  EXPECT_EQ(err(R"({"inputs": [1]})", Sig({{"a", tf::DT_FLOAT}, {"b", tf::DT_FLOAT}})),
            "The signature has 2 inputs; name them with an object of named inputs");
}

tf::TensorProto FloatTensor(std::vector<int64_t> dims, std::vector<float> values) {
  tf::TensorProto p;
  p.set_dtype(tf::DT_FLOAT);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  for (float v : values) p.add_float_val(v);
  return p;
}

TEST(JsonTensorTest, PredictResponseRowAndColumnar) {
  serving::PredictResponse resp;
  (*resp.mutable_outputs())["y"] = FloatTensor({2, 2}, {0.1f, 1.0f, NAN, -INFINITY});
  absl::StatusOr<json::Value> row = PredictResponseToJson(resp, JsonFormat::kRow);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(json::Write(*row), R"({"predictions": [[0.1, 1.0], [NaN, -Infinity]]})");
  absl::StatusOr<json::Value> col = PredictResponseToJson(resp, JsonFormat::kColumnar);
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(json::Write(*col), R"({"outputs": [[0.1, 1.0], [NaN, -Infinity]]})");

  tf::TensorProto s;
  s.set_dtype(tf::DT_STRING);
  s.mutable_tensor_shape()->add_dim()->set_size(2);
  s.add_string_val("a");
  s.add_string_val("b");
  (*resp.mutable_outputs())["s_bytes"] = s;
  row = PredictResponseToJson(resp, JsonFormat::kRow);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(json::Write(*row),
            R"({"predictions": [{"s_bytes": {"b64": "YQ=="}, "y": [0.1, 1.0]}, )"
            R"({"s_bytes": {"b64": "Yg=="}, "y": [NaN, -Infinity]}]})");
  col = PredictResponseToJson(resp, JsonFormat::kColumnar);
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(json::Write(*col),
            R"({"outputs": {"s_bytes": [{"b64": "YQ=="}, {"b64": "Yg=="}], )"
            R"("y": [[0.1, 1.0], [NaN, -Infinity]]}})");

  (*resp.mutable_outputs())["z"] = FloatTensor({3}, {1, 2, 3});
  row = PredictResponseToJson(resp, JsonFormat::kRow);
  EXPECT_EQ(row.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(JsonTensorTest, DoublesPrintLikeTfServing) {
  serving::PredictResponse resp;
  tf::TensorProto d;
  d.set_dtype(tf::DT_DOUBLE);
  d.mutable_tensor_shape()->add_dim()->set_size(2);
  d.add_double_val(1.0);
  d.add_double_val(0.25);
  (*resp.mutable_outputs())["d"] = d;
  absl::StatusOr<json::Value> col = PredictResponseToJson(resp, JsonFormat::kColumnar);
  ASSERT_TRUE(col.ok()) << col.status();
  EXPECT_EQ(json::Write(*col), R"({"outputs": [1.0, 0.25]})");
}

}  // namespace
}  // namespace tensord
