#include "server/rest/predict_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "server/status/request_too_large.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

tf::SignatureDef Sig(std::initializer_list<std::pair<std::string, tf::DataType>> inputs) {
  tf::SignatureDef sig;
  for (const auto& [alias, dtype] : inputs) (*sig.mutable_inputs())[alias].set_dtype(dtype);
  return sig;
}

struct Parsed {
  absl::Status status;
  serving::PredictRequest request;
  JsonFormat format = JsonFormat::kRow;
  std::string signature_name;  // as the resolver saw it
};

Parsed Parse(std::string body, const tf::SignatureDef& sig, PredictJsonOptions options = {}) {
  Parsed p;
  p.status = ParsePredictJson(
      body, options,
      [&](const std::string& name) -> absl::StatusOr<const tf::SignatureDef*> {
        p.signature_name = name;
        return &sig;
      },
      &p.request, &p.format);
  return p;
}

// The error text of a body that must fail with INVALID_ARGUMENT.
std::string Error(const std::string& body, const tf::SignatureDef& sig) {
  Parsed p = Parse(body, sig);
  EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument) << body << ": " << p.status;
  return std::string(p.status.message());
}

std::vector<int64_t> Dims(const tf::TensorProto& p) {
  std::vector<int64_t> d;
  for (const auto& x : p.tensor_shape().dim()) d.push_back(x.size());
  return d;
}

template <typename T>
std::vector<T> Values(const tf::TensorProto& p) {
  const std::string& c = p.tensor_content();
  EXPECT_EQ(c.size() % sizeof(T), 0u);
  std::vector<T> v(c.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), c.data(), c.size());
  return v;
}

std::vector<std::string> Strings(const tf::TensorProto& p) {
  return std::vector<std::string>(p.string_val().begin(), p.string_val().end());
}

TEST(PredictJsonTest, RowFormatSingleInputStacksRows) {
  Parsed p = Parse(R"({"instances": [[1, 2], [3.5, 4]]})", Sig({{"x", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.format, JsonFormat::kRow);
  EXPECT_EQ(p.signature_name, "");
  const tf::TensorProto& x = p.request.inputs().at("x");
  EXPECT_EQ(x.dtype(), tf::DT_FLOAT);
  EXPECT_EQ(Dims(x), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<float>(x), (std::vector<float>{1, 2, 3.5f, 4}));
  EXPECT_EQ(x.float_val_size(), 0);  // packed
}

TEST(PredictJsonTest, RowFormatNamedInputsWithB64) {
  Parsed p = Parse(R"({"signature_name": "sig", "instances": [{"a": 1, "s": "x"},
                      {"s": {"b64": "aGk="}, "a": 2}]})",
                   Sig({{"a", tf::DT_INT64}, {"s", tf::DT_STRING}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.signature_name, "sig");
  EXPECT_EQ(Dims(p.request.inputs().at("a")), (std::vector<int64_t>{2}));
  EXPECT_EQ(Values<int64_t>(p.request.inputs().at("a")), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Strings(p.request.inputs().at("s")), (std::vector<std::string>{"x", "hi"}));
}

TEST(PredictJsonTest, RowsOfB64StringsAndScalars) {
  Parsed p = Parse(R"({"instances": [{"b64": "YQ=="}, "b"]})", Sig({{"s", tf::DT_STRING}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("s")), (std::vector<int64_t>{2}));
  EXPECT_EQ(Strings(p.request.inputs().at("s")), (std::vector<std::string>{"a", "b"}));
}

TEST(PredictJsonTest, ColumnarFormat) {
  Parsed p = Parse(R"({"inputs": [[true, false]]})", Sig({{"b", tf::DT_BOOL}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.format, JsonFormat::kColumnar);
  EXPECT_EQ(Dims(p.request.inputs().at("b")), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Values<uint8_t>(p.request.inputs().at("b")), (std::vector<uint8_t>{1, 0}));

  p = Parse(R"({"inputs": {"a": [1, 2, 3], "c": 7}})",
            Sig({{"a", tf::DT_INT32}, {"c", tf::DT_UINT8}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("a")), (std::vector<int64_t>{3}));
  EXPECT_EQ(Values<int32_t>(p.request.inputs().at("a")), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_TRUE(Dims(p.request.inputs().at("c")).empty());
  EXPECT_EQ(Values<uint8_t>(p.request.inputs().at("c")), (std::vector<uint8_t>{7}));

  // A lone {"b64": ...} is one string value, not an object of named inputs.
  p = Parse(R"({"inputs": {"b64": "aGk="}})", Sig({{"s", tf::DT_STRING}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_TRUE(Dims(p.request.inputs().at("s")).empty());
  EXPECT_EQ(Strings(p.request.inputs().at("s")), (std::vector<std::string>{"hi"}));
}

TEST(PredictJsonTest, EveryDtype) {
  Parsed p = Parse(R"({"inputs": {
      "f": [0.1, -2], "d": [0.1, 1e300], "i8": [-128, 127], "u8": [0, 255],
      "i16": [-32768, 32767], "u16": [0, 65535], "i32": [-2147483648, 2147483647],
      "u32": [0, 4294967295], "i64": [-9223372036854775808, 9223372036854775807],
      "u64": [0, 18446744073709551615], "b": [true, false], "s": ["a\u00e9\n", {"b64": "AP8="}]}})",
                   Sig({{"f", tf::DT_FLOAT}, {"d", tf::DT_DOUBLE}, {"i8", tf::DT_INT8},
                        {"u8", tf::DT_UINT8}, {"i16", tf::DT_INT16}, {"u16", tf::DT_UINT16},
                        {"i32", tf::DT_INT32}, {"u32", tf::DT_UINT32}, {"i64", tf::DT_INT64},
                        {"u64", tf::DT_UINT64}, {"b", tf::DT_BOOL}, {"s", tf::DT_STRING}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  const auto& in = p.request.inputs();
  for (const auto& [alias, proto] : in) EXPECT_EQ(Dims(proto), (std::vector<int64_t>{2})) << alias;
  EXPECT_EQ(in.at("f").dtype(), tf::DT_FLOAT);
  EXPECT_EQ(Values<float>(in.at("f")), (std::vector<float>{0.1f, -2.0f}));
  EXPECT_EQ(Values<double>(in.at("d")), (std::vector<double>{0.1, 1e300}));
  EXPECT_EQ(Values<int8_t>(in.at("i8")), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<uint8_t>(in.at("u8")), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Values<int16_t>(in.at("i16")), (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(Values<uint16_t>(in.at("u16")), (std::vector<uint16_t>{0, 65535}));
  EXPECT_EQ(Values<int32_t>(in.at("i32")),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 2147483647}));
  EXPECT_EQ(Values<uint32_t>(in.at("u32")), (std::vector<uint32_t>{0, 4294967295u}));
  EXPECT_EQ(Values<int64_t>(in.at("i64")),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(Values<uint64_t>(in.at("u64")),
            (std::vector<uint64_t>{0, std::numeric_limits<uint64_t>::max()}));
  EXPECT_EQ(Values<uint8_t>(in.at("b")), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(in.at("u8").dtype(), tf::DT_UINT8);
  EXPECT_EQ(Strings(in.at("s")), (std::vector<std::string>{"a\xc3\xa9\n", std::string("\0\xff", 2)}));
}

TEST(PredictJsonTest, IntegersWrittenAsExactFloats) {
  Parsed p = Parse(R"({"inputs": {"i": [2.0, 1e3, -0, -0.0], "u": [-0, 3.0, 1E2]}})",
                   Sig({{"i", tf::DT_INT32}, {"u", tf::DT_UINT64}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Values<int32_t>(p.request.inputs().at("i")), (std::vector<int32_t>{2, 1000, 0, 0}));
  EXPECT_EQ(Values<uint64_t>(p.request.inputs().at("u")), (std::vector<uint64_t>{0, 3, 100}));
}

TEST(PredictJsonTest, FloatConversionAndNonFinite) {
  Parsed p = Parse(R"({"inputs": [1435774380, NaN, -Infinity, Infinity, 1e400, 0.1]})",
                   Sig({{"x", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  std::vector<float> v = Values<float>(p.request.inputs().at("x"));
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0], 1435774336.0f);  // via double, as before
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[4], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[5], 0.1f);
}

TEST(PredictJsonTest, ShapesOfEmptyAndNestedLists) {
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  Parsed p = Parse(R"({"inputs": []})", sig);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("x")), (std::vector<int64_t>{0}));
  p = Parse(R"({"inputs": [[], []]})", sig);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("x")), (std::vector<int64_t>{2, 0}));
  p = Parse(R"({"inputs": [[[1], [2]], [[3], [4]], [[5], [6]]]})", sig);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("x")), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(Values<float>(p.request.inputs().at("x")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  p = Parse(R"({"inputs": 5})", sig);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_TRUE(Dims(p.request.inputs().at("x")).empty());
  EXPECT_EQ(Values<float>(p.request.inputs().at("x")), (std::vector<float>{5}));
}

TEST(PredictJsonTest, EscapedKeysAndRepeatedKeys) {
  // Keys compare unescaped; a repeated key's later value replaces the earlier one.
  Parsed p = Parse(R"({"inst\u0061nces": [[1]], "signature_name": "a", "signature_name": "b"})",
                   Sig({{"x", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.signature_name, "b");
  p = Parse(R"({"inputs": [1], "inputs": [2, 3]})", Sig({{"x", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Values<float>(p.request.inputs().at("x")), (std::vector<float>{2, 3}));
  p = Parse(R"({"inputs": {"x": [1], "x": [4]}})", Sig({{"x", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Values<float>(p.request.inputs().at("x")), (std::vector<float>{4}));
}

TEST(PredictJsonTest, BodyReadInPlaceOrCopied) {
  const std::string text = R"({"inputs": [1, 2]})";
  std::string roomy = text;
  roomy.reserve(text.size() + 64);  // enough padding: read in place
  std::string tight;
  tight.reserve(text.size());
  tight = text;
  for (const std::string* body : {&roomy, &tight}) {
    Parsed p = Parse(*body, Sig({{"x", tf::DT_FLOAT}}));
    ASSERT_TRUE(p.status.ok()) << p.status;
    EXPECT_EQ(Values<float>(p.request.inputs().at("x")), (std::vector<float>{1, 2}));
  }
}

TEST(PredictJsonTest, TfServingErrors) {
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  EXPECT_EQ(Error(R"({"instances": [1], "inputs": [1]})", sig),
            "JSON Value: expecting only one of 'inputs' or 'instances' keys to exist");
  EXPECT_EQ(Error(R"({"x": 1})", sig), "Missing 'inputs' or 'instances' key");
  EXPECT_EQ(Error(R"({"instances": []})", sig), "No values in 'instances' array");
  EXPECT_EQ(Error(R"({"instances": {"x": 1}})", sig),
            "Expected 'instances' to be a list, got an object");
  EXPECT_EQ(Error(R"({"instances": [[1, 2], [1, 2, 3]]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
            "Expecting tensor size: 2 but got: 3");
  EXPECT_EQ(Error(R"({"instances": [[[1, 2]], [[1], [2]]]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
            "Expecting shape [1,2] but got: [2,1]");
  EXPECT_EQ(Error(R"({"inputs": [[1, 2], [3]]})", sig),
            "Ragged nested list: expected 2 elements at depth 1 but got 1");
  EXPECT_EQ(Error(R"({"inputs": [[1, 2], 3]})", sig),
            "Ragged nested list: expected a list of 2 elements at depth 1 but got a number");
  EXPECT_EQ(Error(R"({"inputs": [1, [2, 3]]})", sig),
            "Ragged nested list: expected a scalar at depth 1 but got a list of 2 elements");
  EXPECT_EQ(Error(R"({"inputs": [[], [1]]})", sig),
            "Ragged nested list: expected 0 elements at depth 1 but got 1");
  EXPECT_EQ(Error(R"({"inputs": ["a"]})", sig),
            "Expected a number for DT_FLOAT but got a string: \"a\"");
  EXPECT_EQ(Error(R"({"inputs": [null]})", sig), "Expected a number for DT_FLOAT but got null: null");
  EXPECT_EQ(Error(R"({"inputs": [{"a": [1,2]}]})", sig),
            "Expected a number for DT_FLOAT but got an object: {\"a\": [1, 2]}");
  EXPECT_EQ(Error(R"({"inputs": {"b64": "aGk="}})", sig),
            "Expected a number for DT_FLOAT but got an object: {\"b64\": \"aGk=\"}");
  EXPECT_EQ(Error(R"({"inputs": [1.5]})", Sig({{"i", tf::DT_INT32}})),
            "Expected an integer for DT_INT32 but got a number: 1.5");
  EXPECT_EQ(Error(R"({"inputs": [99999999999999999999]})", Sig({{"i", tf::DT_INT64}})),
            "Expected an integer for DT_INT64 but got a number: 99999999999999999999");
  EXPECT_EQ(Error(R"({"inputs": [NaN]})", Sig({{"i", tf::DT_INT64}})),
            "Expected an integer for DT_INT64 but got a number: NaN");
  EXPECT_EQ(Error(R"({"inputs": [true]})", Sig({{"i", tf::DT_INT64}})),
            "Expected an integer for DT_INT64 but got a boolean: true");
  EXPECT_EQ(Error(R"({"inputs": [-1]})", Sig({{"u", tf::DT_UINT64}})),
            "Expected a non-negative integer for DT_UINT64 but got a number: -1");
  EXPECT_EQ(Error(R"({"inputs": [300]})", Sig({{"i", tf::DT_UINT8}})),
            "Value 300 is out of range for DT_UINT8");
  EXPECT_EQ(Error(R"({"inputs": [3e9]})", Sig({{"i", tf::DT_INT32}})),
            "Value 3e9 is out of range for DT_INT32");
  EXPECT_EQ(Error(R"({"inputs": [-1]})", Sig({{"i", tf::DT_UINT32}})),
            "Value -1 is out of range for DT_UINT32");
  EXPECT_EQ(Error(R"({"inputs": [1]})", Sig({{"b", tf::DT_BOOL}})),
            "Expected true/false for DT_BOOL but got a number: 1");
  EXPECT_EQ(Error(R"({"inputs": [5]})", Sig({{"s", tf::DT_STRING}})),
            "Expected a string or {\"b64\": ...} for DT_STRING but got a number: 5");
  EXPECT_EQ(Error(R"({"inputs": [{"b64": "!!"}]})", Sig({{"s", tf::DT_STRING}})),
            "Unable to base64 decode: \"!!\"");
  EXPECT_EQ(Error(R"({"inputs": [{"b64": 5}]})", Sig({{"s", tf::DT_STRING}})),
            "Unable to base64 decode: 5");
  EXPECT_EQ(Error(R"({"inputs": [{"b64": "YQ==", "x": 1}]})", Sig({{"s", tf::DT_STRING}})),
            "Expected a string or {\"b64\": ...} for DT_STRING but got an object: "
            "{\"b64\": \"YQ==\", \"x\": 1}");
  EXPECT_EQ(Error(R"({"inputs": [1]})", Sig({{"h", tf::DT_HALF}})),
            "Conversion of JSON values to DT_HALF is not supported");
  EXPECT_EQ(Error(R"({"inputs": {"y": [1]}})", sig), "Input alias \"y\" is not in the signature");
  EXPECT_EQ(Error(R"({"inputs": {"x": ["a"]}})", sig),
            "Input \"x\": Expected a number for DT_FLOAT but got a string: \"a\"");
  EXPECT_EQ(Error(R"({"instances": [{"x": [1]}, {"x": [1, 2]}]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
            "Expecting tensor size: 1 but got: 2");
  EXPECT_EQ(Error(R"({"instances": [{"x": 1}, 2]})", sig),
            "Failed to process element: 1 of 'instances' list. Error: Expecting an object of "
            "named inputs, got a number");
  EXPECT_EQ(Error(R"({"instances": [{"x": 1}, {"y": 2}]})", Sig({{"x", tf::DT_FLOAT},
                                                                  {"y", tf::DT_FLOAT}})),
            "Failed to process element: 1 of 'instances' list. Error: Input \"y\" is not in "
            "element 0");
  EXPECT_EQ(Error(R"({"instances": [{"x": 1}, {"x": "a", "y": 2}]})",
                  Sig({{"x", tf::DT_FLOAT}, {"y", tf::DT_FLOAT}})),
            "Failed to process element: 1 of 'instances' list. Error: Expecting 1 named inputs "
            "(as in element 0) but got 2");
  EXPECT_EQ(Error(R"({"instances": [["a"]]})", sig),
            "Failed to process element: 0 of 'instances' list. Error: Expected a number for "
            "DT_FLOAT but got a string: \"a\"");
  EXPECT_EQ(Error(R"({"inputs": [1]})", Sig({{"a", tf::DT_FLOAT}, {"b", tf::DT_FLOAT}})),
            "The signature has 2 inputs; name them with an object of named inputs");
  EXPECT_EQ(Error(R"({"signature_name": 5, "inputs": [1]})", sig),
            "'signature_name' must be a string");
  EXPECT_EQ(Error(R"([1, 2])", sig), "Request body must be a JSON object, got a list");
  EXPECT_EQ(Error(R"("x")", sig), "Request body must be a JSON object, got a string");
}

TEST(PredictJsonTest, ErrorsInTheOrderOfAWholeValueCheck) {
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  // A list's wrong length outranks errors inside it, as when values were checked whole.
  EXPECT_EQ(Error(R"({"inputs": [[1, 2], ["a"]]})", sig),
            "Ragged nested list: expected 2 elements at depth 1 but got 1");
  EXPECT_EQ(Error(R"({"inputs": [[[1], [2]], [["a"], [2], [3]]]})", sig),
            "Ragged nested list: expected 2 elements at depth 1 but got 3");
  // Rows are stacked after every row converted: a later row's error comes first.
  EXPECT_EQ(Error(R"({"instances": [[1, 2], [1, 2, 3], ["a", 1]]})", sig),
            "Failed to process element: 2 of 'instances' list. Error: Expected a number for "
            "DT_FLOAT but got a string: \"a\"");
}

TEST(PredictJsonTest, MalformedJsonIsReportedFirst) {
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  for (const char* body :
       {"{not json", "", "   ", R"({"inputs": [1, 2)", R"({"inputs": [1 2]})",
        R"({"inputs": [1, 2]} x)", R"({"inputs": [1, 2]} {})", R"({"inputs": [01]})",
        R"({"inputs": [1.]})", R"({"inputs": [tru]})", R"({"inputs": ["a\q"]})",
        R"({"inputs": ["a"], "x": [1 2]})", R"({"signature_name": 5, "x": [1,]})",
        R"({"instances": [[1, 2], [1, 2, 3]], "x": nul})", R"({"inputs": [1], "x": "\ud800"})",
        "{\"inputs\": [\"\x01\"]}", "{\"inputs\": [\"\xff\"]}", R"({"inputs": [.5]})"}) {
    Parsed p = Parse(body, sig);
    EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument) << body << ": " << p.status;
    EXPECT_EQ(p.status.message().substr(0, 17), "JSON Parse error:") << body << ": " << p.status;
  }
}

TEST(PredictJsonTest, ResolverSeesTheNameAndItsErrorIsReturned) {
  serving::PredictRequest request;
  JsonFormat format;
  std::string seen;
  auto not_found = [&](const std::string& name) -> absl::StatusOr<const tf::SignatureDef*> {
    seen = name;
    return absl::NotFoundError("no such model");
  };
  absl::Status s = ParsePredictJson(R"({"signature_name": "s", "inputs": [1]})", {}, not_found,
                                    &request, &format);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(seen, "s");
  // ... unless the body is malformed, which is reported first.
  s = ParsePredictJson(R"({"inputs": [1 2]})", {}, not_found, &request, &format);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(PredictJsonTest, NestingDepthLimit) {
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  PredictJsonOptions options;
  options.max_depth = 4;
  Parsed p = Parse(R"({"instances": [[[1]]]})", sig, options);  // depth 4 exactly
  EXPECT_TRUE(p.status.ok()) << p.status;
  for (const char* body : {R"({"instances": [[[[[1]]]]]})", R"({"inputs": [[[[1]]]]})",
                           R"({"inputs": [1], "x": [[[[1]]]]})",
                           R"({"inputs": {"x": [[[1]]]}})",
                           R"({"instances": [["a"]], "x": [[[[1]]]]})"}) {
    p = Parse(body, sig, options);
    EXPECT_EQ(p.status.code(), absl::StatusCode::kResourceExhausted) << body << ": " << p.status;
    EXPECT_TRUE(IsRequestTooLarge(p.status)) << body;
    EXPECT_NE(p.status.message().find("--rest_api_max_json_depth"), std::string::npos)
        << p.status;
  }
  // Deep nesting within the largest limit main.cc allows (1000) must not crash either.
  options.max_depth = 1000;
  std::string deep = R"({"inputs": )" + std::string(999, '[') + "1" + std::string(999, ']') + "}";
  p = Parse(deep, sig, options);
  EXPECT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Dims(p.request.inputs().at("x")).size(), 999u);
}

TEST(PredictJsonTest, RequestLimitsAreCheckedWhileReading) {
  auto limited = [](auto set) {
    PredictJsonOptions options;
    set(&options.limits);
    return options;
  };
  auto expect_413 = [](const Parsed& p, const std::string& flag) {
    EXPECT_EQ(p.status.code(), absl::StatusCode::kResourceExhausted) << p.status;
    EXPECT_TRUE(IsRequestTooLarge(p.status));
    EXPECT_NE(p.status.message().find(flag), std::string::npos) << p.status;
  };
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});
  expect_413(Parse(R"({"inputs": [1, 2, 3, 4]})", sig,
                   limited([](RequestLimits* l) { l->max_tensor_elements = 3; })),
             "--max_request_tensor_elements");
  EXPECT_TRUE(Parse(R"({"inputs": [1, 2, 3]})", sig,
                    limited([](RequestLimits* l) { l->max_tensor_elements = 3; }))
                  .status.ok());
  expect_413(Parse(R"({"instances": [[1, 2], [3, 4]]})", sig,
                   limited([](RequestLimits* l) { l->max_tensor_bytes = 15; })),
             "--max_request_tensor_bytes");
  tf::SignatureDef strings = Sig({{"s", tf::DT_STRING}});
  expect_413(Parse(R"({"inputs": ["abc"]})", strings,
                   limited([](RequestLimits* l) { l->max_string_bytes = 2; })),
             "--max_request_string_bytes");
  expect_413(Parse(R"({"inputs": [{"b64": "YWJjZGVmZ2hpamtsbW5vcA=="}]})", strings,
                   limited([](RequestLimits* l) { l->max_string_bytes = 4; })),
             "--max_request_string_bytes");
  expect_413(Parse(R"({"inputs": ["a", "b"]})", strings,
                   limited([](RequestLimits* l) { l->max_tensor_bytes = 40; })),
             "--max_request_tensor_bytes");  // 1 + 32 bytes a string
  expect_413(Parse(R"({"inputs": {"a": 1, "b": 2}})", Sig({{"a", tf::DT_FLOAT}, {"b", tf::DT_FLOAT}}),
                   limited([](RequestLimits* l) { l->max_inputs = 1; })),
             "--max_request_inputs");
  // Not an element error: the limit error keeps its code inside rows too.
  expect_413(Parse(R"({"instances": [[1, 2], [3, 4]]})", sig,
                   limited([](RequestLimits* l) { l->max_tensor_elements = 3; })),
             "--max_request_tensor_elements");
}

TEST(PredictJsonTest, LargeImageBody) {
  // One 224x224x3 image, the size the REST benchmark sends.
  std::string body = R"({"instances": [[)";
  for (int r = 0; r < 224; ++r) {
    body += r ? ", [" : "[";
    for (int c = 0; c < 224; ++c) {
      body += c ? ", " : "";
      body += "[0.25, -0.5, " + std::to_string(r * 224 + c) + "]";
    }
    body += "]";
  }
  body += "]]}";
  Parsed p = Parse(body, Sig({{"image", tf::DT_FLOAT}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  const tf::TensorProto& image = p.request.inputs().at("image");
  EXPECT_EQ(Dims(image), (std::vector<int64_t>{1, 224, 224, 3}));
  std::vector<float> v = Values<float>(image);
  ASSERT_EQ(v.size(), 224u * 224 * 3);
  EXPECT_EQ(v[0], 0.25f);
  EXPECT_EQ(v[1], -0.5f);
  EXPECT_EQ(v[v.size() - 1], 224.0f * 224 - 1);
}

// Bodies this large are converted by two threads, one of them started before the parser knows
// where the lists are or their dtypes: two columnar inputs (the lookahead begins inside the
// second), and an integer input (the lookahead is not used).
TEST(PredictJsonTest, LargeBodiesOfSeveralListsAndDtypes) {
  std::string a, b;
  for (int i = 0; i < 60000; ++i) {
    a += (i ? ", " : "") + std::to_string(i) + ".5";
    b += (i ? ", [" : "[") + std::to_string(-i) + ", 0.25]";
  }
  Parsed p = Parse(R"({"inputs": {"a": [)" + a + R"(], "b": [)" + b + "]}}",
                   Sig({{"a", tf::DT_FLOAT}, {"b", tf::DT_DOUBLE}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  const std::vector<float> av = Values<float>(p.request.inputs().at("a"));
  const std::vector<double> bv = Values<double>(p.request.inputs().at("b"));
  EXPECT_EQ(Dims(p.request.inputs().at("a")), (std::vector<int64_t>{60000}));
  EXPECT_EQ(Dims(p.request.inputs().at("b")), (std::vector<int64_t>{60000, 2}));
  ASSERT_EQ(av.size(), 60000u);
  ASSERT_EQ(bv.size(), 120000u);
  for (int i = 0; i < 60000; ++i) {
    ASSERT_EQ(av[i], i + 0.5f) << i;
    ASSERT_EQ(bv[2 * i], -i) << i;
    ASSERT_EQ(bv[2 * i + 1], 0.25) << i;
  }
  p = Parse(R"({"instances": [)" + b + "]}", Sig({{"x", tf::DT_INT32}}));
  EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument);  // 0.25 is not an int32
  std::string ints;
  for (int i = 0; i < 100000; ++i) ints += (i ? ", [" : "[") + std::to_string(i) + ", 7]";
  p = Parse(R"({"instances": [)" + ints + "]}", Sig({{"x", tf::DT_INT32}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  const std::vector<int32_t> iv = Values<int32_t>(p.request.inputs().at("x"));
  ASSERT_EQ(iv.size(), 200000u);
  EXPECT_EQ(iv[2 * 99999], 99999);
  EXPECT_EQ(iv[2 * 99999 + 1], 7);
}

// Lists of plain numbers are read by the number-list fast path; whatever it declines partway
// (a late string, NaN, a ragged row, a value out of range) is read value by value from the
// start of that value, with the same result or error as if no fast path existed.
TEST(PredictJsonTest, ListsTheFastPathDeclinesReadAsBefore) {
  std::string rows;
  for (int i = 0; i < 1000; ++i) {
    rows += (i ? ", [0.5, " : "[0.5, ") + std::to_string(i) + "]";
  }
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}});

  Parsed p = Parse(R"({"inputs": [)" + rows + R"(, [NaN, 1e400]]})", sig);
  ASSERT_TRUE(p.status.ok()) << p.status;
  std::vector<float> v = Values<float>(p.request.inputs().at("x"));
  ASSERT_EQ(v.size(), 2002u);
  EXPECT_EQ(v[1999], 999.0f);
  EXPECT_TRUE(std::isnan(v[2000]));
  EXPECT_EQ(v[2001], std::numeric_limits<float>::infinity());

  EXPECT_EQ(Error(R"({"inputs": [)" + rows + R"(, [1]]})", sig),
            "Ragged nested list: expected 2 elements at depth 1 but got 1");
  EXPECT_EQ(Error(R"({"inputs": [)" + rows + R"(, [1, "2"]]})", sig),
            "Expected a number for DT_FLOAT but got a string: \"2\"");
  EXPECT_EQ(Error(R"({"inputs": [)" + rows + R"(, [1, 2], 3]})", sig),
            "Ragged nested list: expected a list of 2 elements at depth 1 but got a number");
  EXPECT_EQ(Error(R"({"inputs": [[0, 255], [256, 0]]})", Sig({{"x", tf::DT_UINT8}})),
            "Value 256 is out of range for DT_UINT8");
  // Integers written as exact floats are the value-by-value reader's to convert.
  p = Parse(R"({"instances": [[1, 2.0], [1e3, -0]]})", Sig({{"x", tf::DT_INT32}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Values<int32_t>(p.request.inputs().at("x")), (std::vector<int32_t>{1, 2, 1000, 0}));
  // Malformed text inside a list is still reported as malformed JSON.
  p = Parse(R"({"inputs": [[1, 2], [3, 4,]]})", sig);
  EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status.message().find("JSON Parse error"), std::string::npos) << p.status;
}

// Found by fuzzing: a row object is looked at twice (is it {"b64": ...}? then its members), and
// reading a long key twice through simdjson overran its string buffer.
TEST(PredictJsonTest, LongKeysOfObjectsReadTwice) {
  const std::string key(700, 'k');
  tf::SignatureDef sig = Sig({{"x", tf::DT_FLOAT}, {"y", tf::DT_FLOAT}});
  EXPECT_EQ(Error(R"({"instances": [{")" + key + R"(": [1]}]})", sig),
            "Input alias \"" + key + "\" is not in the signature");
  EXPECT_EQ(Error(R"({"inputs": {")" + key + R"(": [1]}})", sig),
            "Input alias \"" + key + "\" is not in the signature");
  // An escaped "b64" key is still one.
  Parsed p = Parse(R"({"instances": [{"b\u0036\u0034": "AAE="}]})", Sig({{"s", tf::DT_STRING}}));
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(Strings(p.request.inputs().at("s")), std::vector<std::string>{std::string("\0\1", 2)});
}

}  // namespace
}  // namespace tensord
