#include "clients/common/tensor_json.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace tensord {
namespace {

absl::StatusOr<Tensor> FromText(const std::string& text, DataType dtype) {
  absl::StatusOr<json::Value> v = json::Parse(text);
  if (!v.ok()) return v.status();
  return TensorFromJson(*v, dtype);
}

std::string ErrorOf(const std::string& text, DataType dtype) {
  absl::StatusOr<Tensor> t = FromText(text, dtype);
  EXPECT_FALSE(t.ok()) << text;
  return t.ok() ? "" : std::string(t.status().message());
}

std::string ToText(const Tensor& t) {
  std::string out;
  absl::Status s = AppendTensorJson(t, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(TensorJsonTest, ShapesFromNesting) {
  absl::StatusOr<Tensor> t = FromText("[[1, 2, 3], [4, 5, 6]]", DT_FLOAT);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_FLOAT);
  EXPECT_EQ(t->shape(), (TensorShape{2, 3}));
  EXPECT_EQ(t->data<float>()[4], 5.0f);

  t = FromText("7", DT_FLOAT);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dims(), 0);
  EXPECT_EQ(t->scalar<float>(), 7.0f);

  t = FromText("[]", DT_FLOAT);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->shape(), (TensorShape{0}));

  t = FromText("[[], []]", DT_INT32);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->shape(), (TensorShape{2, 0}));
}

TEST(TensorJsonTest, RaggedListsAreRejected) {
  EXPECT_NE(ErrorOf("[[1, 2], [3]]", DT_FLOAT).find("ragged input: element [1] has 1 elements"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[1], 2]", DT_FLOAT).find("element [1] is a number where a list of 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[1, [2]]", DT_FLOAT).find("element [1] is a list where a value"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[], [1]]", DT_FLOAT).find("ragged"), std::string::npos);
}

TEST(TensorJsonTest, FloatingPoint) {
  absl::StatusOr<Tensor> t = FromText("[0.1, -2, 1e-3, NaN, -Infinity]", DT_FLOAT);
  ASSERT_TRUE(t.ok()) << t.status();
  const float* f = t->data<float>();
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 1e-3f);
  EXPECT_TRUE(std::isnan(f[3]));
  EXPECT_EQ(f[4], -std::numeric_limits<float>::infinity());

  t = FromText("[0.1]", DT_DOUBLE);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<double>()[0], 0.1);

  t = FromText("[1.5]", DT_HALF);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(static_cast<float>(t->data<Eigen::half>()[0]), 1.5f);

  EXPECT_EQ(ErrorOf("[[1.0], [\"a\"]]", DT_FLOAT),
            "element [1][0]: expected a number for dtype float, got a string");
  EXPECT_EQ(ErrorOf("\"a\"", DT_FLOAT), "value: expected a number for dtype float, got a string");
}

TEST(TensorJsonTest, Integers) {
  absl::StatusOr<Tensor> t = FromText("[9007199254740993, -9223372036854775808, 2.0]", DT_INT64);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<int64_t>()[0], 9007199254740993);  // exact, not rounded through a double
  EXPECT_EQ(t->data<int64_t>()[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(t->data<int64_t>()[2], 2);

  t = FromText("[255, 0]", DT_UINT8);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<uint8_t>()[0], 255);

  EXPECT_EQ(ErrorOf("[1.5]", DT_INT32),
            "element [0]: 1.5 is not an integer in the range of dtype int32");
  EXPECT_NE(ErrorOf("[2147483648]", DT_INT32).find("not an integer in the range"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[256]", DT_UINT8).find("range of dtype uint8"), std::string::npos);
  EXPECT_NE(ErrorOf("[-1]", DT_UINT64).find("range of dtype uint64"), std::string::npos);
  EXPECT_NE(ErrorOf("[true]", DT_INT32).find("expected an integer"), std::string::npos);
}

TEST(TensorJsonTest, BoolsAndStrings) {
  absl::StatusOr<Tensor> t = FromText("[true, false]", DT_BOOL);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->data<bool>()[0]);
  EXPECT_FALSE(t->data<bool>()[1]);
  EXPECT_NE(ErrorOf("[1]", DT_BOOL).find("expected true or false"), std::string::npos);

  t = FromText(R"([["h\u00e9", {"b64": "AAH/"}]])", DT_STRING);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (TensorShape{1, 2}));
  EXPECT_EQ(t->data<std::string>()[0], "h\xC3\xA9");
  EXPECT_EQ(t->data<std::string>()[1], std::string("\x00\x01\xff", 3));
  EXPECT_NE(ErrorOf("[1]", DT_STRING).find("expected a string"), std::string::npos);
  EXPECT_NE(ErrorOf(R"([{"b64": "!!"}])", DT_STRING).find("not valid base64"), std::string::npos);
  EXPECT_NE(ErrorOf(R"([{"x": "AA=="}])", DT_STRING).find("expected a string"), std::string::npos);
}

TEST(TensorJsonTest, UnsupportedDtypes) {
  EXPECT_NE(ErrorOf("[1]", DT_COMPLEX64).find("cannot be given as JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1]", DT_RESOURCE).find("cannot be given as JSON"), std::string::npos);
}

TEST(TensorJsonTest, WritesNestedLists) {
  Tensor t(DT_FLOAT, TensorShape{3, 1});
  t.data<float>()[0] = 2.5f;
  t.data<float>()[1] = 3.0f;
  t.data<float>()[2] = 0.1f;
  EXPECT_EQ(ToText(t), "[[2.5], [3.0], [0.1]]");
  EXPECT_EQ(ToText(Tensor::Scalar<float>(-4.0f)), "-4.0");
  EXPECT_EQ(ToText(Tensor::Scalar<float>(1e20f)), "1e+20");
  EXPECT_EQ(ToText(Tensor::Scalar<float>(std::nanf(""))), "NaN");
  EXPECT_EQ(ToText(Tensor::Scalar<double>(-std::numeric_limits<double>::infinity())), "-Infinity");
  EXPECT_EQ(ToText(Tensor::Scalar<double>(0.1)), "0.1");
  EXPECT_EQ(ToText(Tensor(DT_INT32, TensorShape{2, 0})), "[[], []]");
  EXPECT_EQ(ToText(Tensor(DT_INT32, TensorShape{0})), "[]");
  EXPECT_EQ(ToText(Tensor::Scalar<int64_t>(std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(ToText(Tensor::Scalar<uint64_t>(std::numeric_limits<uint64_t>::max())),
            "18446744073709551615");
  EXPECT_EQ(ToText(Tensor::Scalar<int8_t>(-7)), "-7");
  EXPECT_EQ(ToText(Tensor::Scalar<uint8_t>(200)), "200");
  EXPECT_EQ(ToText(Tensor::Scalar<Eigen::half>(Eigen::half(0.5f))), "0.5");

  Tensor b(DT_BOOL, TensorShape{2});
  b.data<bool>()[0] = true;
  EXPECT_EQ(ToText(b), "[true, false]");

  Tensor s(DT_STRING, TensorShape{3});
  s.data<std::string>()[0] = "a\"b";
  s.data<std::string>()[1] = "h\xC3\xA9";
  s.data<std::string>()[2] = std::string("\x00\x01\xff", 3);
  EXPECT_EQ(ToText(s), "[\"a\\\"b\", \"h\xC3\xA9\", {\"b64\": \"AAH/\"}]");

  Tensor c(DT_COMPLEX64, TensorShape{1});
  c.data<std::complex<float>>()[0] = {1.0f, -0.5f};
  EXPECT_EQ(ToText(c), "[[1.0, -0.5]]");

  std::string out;
  EXPECT_FALSE(AppendTensorJson(Tensor(DT_RESOURCE, TensorShape{}), &out).ok());
  EXPECT_FALSE(AppendTensorJson(Tensor(), &out).ok());
}

TEST(TensorJsonTest, FloatTextRoundTripsExactly) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> bits;
  Tensor t(DT_FLOAT, TensorShape{2000});
  float* f = t.data<float>();
  for (int i = 0; i < 2000; ++i) {
    uint32_t b = bits(rng);
    std::memcpy(&f[i], &b, 4);
    if (!std::isfinite(f[i])) f[i] = static_cast<float>(i) / 7.0f;
  }
  f[0] = std::numeric_limits<float>::denorm_min();
  f[1] = std::numeric_limits<float>::max();
  f[2] = -0.0f;
  absl::StatusOr<Tensor> back = FromText(ToText(t), DT_FLOAT);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(std::memcmp(back->data<float>(), f, 2000 * sizeof(float)), 0);
}

}  // namespace
}  // namespace tensord
